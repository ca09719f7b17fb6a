// ConferCongestion: sender-side bandwidth estimation from transport-cc / REMB feedback.
