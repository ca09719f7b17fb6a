// ConferJitter: video and audio jitter buffers with loss recovery (NACK, RTX reception, FEC, PLC, keyframe
// requests): Video/, Audio/, Recovery/, Timing/. The sender's RTX history is ConferRTP's (Retransmission/).
