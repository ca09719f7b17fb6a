// ConferCongestion: sender-side bandwidth estimation (Google Congestion Control) from
// transport-cc, REMB and receiver-report feedback. See SendSideBandwidthEstimator.
