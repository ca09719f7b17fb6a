// ConferRTP: RTP (RFC 3550) packets and header extensions (RFC 8285), RTCP (RFC 3550,
// 4585, 5104, 5506, transport-wide CC, REMB), per-SSRC statistics, NTP time and
// sequence-number unwrapping; a folder per payload format, the one packetizer (Packetizer/),
// the sender's RTX history (Retransmission/), RTP/RTCP demultiplexing (Demux/) and the
// per-receiver forwarder of layers and simulcast encodes (Forwarding/).
//
// Parsing is zero-copy (`RTPPacketView` over caller bytes) and serialization writes into
// caller buffers, so the per-packet path allocates nothing; owning values (`RTPPacket`,
// `RTCPPacket`) exist for convenience off the hot path.
