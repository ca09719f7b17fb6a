// ConferCongestion: sender-side bandwidth estimation (Google Congestion Control) from
// transport-cc, REMB and receiver-report feedback, and what a sender does with it:
// SendSide/ (SendSideBandwidthEstimator, the one to start from, with the sent-packet history,
// acknowledged rate and the loss-based estimate), DelayBased/ (inter-arrival groups, the
// trendline, AIMD), Probing/ (probe clusters and their results), ReceiveSide/ (the REMB
// receiver's estimate), Allocation/ (temporal layers and the small encode a compositing host
// shares among its participants); at the root DataRate and the Pacer.
