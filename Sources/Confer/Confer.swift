// Confer: the media pipelines, synchronous and time-driven, with no clock or I/O of their own.
//
//   Send/     SendPipeline: capture → encode → RTPPacketizer → packet history (RTX) → transport
//             (transport-wide sequence numbers, SRTP) → datagrams; RTCP in → NACK/PLI/FIR/bitrate.
//   Receive/  ReceivePipeline: datagrams → SRTP → jitter buffers → decode; feedback out.
//   Host/     HostPipeline: a ReceivePipeline per participant → HostComposer (read each
//             participant's latest picture, lay out, compose) → one encode for everyone → a
//             transport per participant; mix-minus audio. CompositeLoop/ drives the same
//             HostComposer on two threads (reads shared, compose beside the encode).
//
// The caller owns time and sockets: ConferLive drives these on the wall clock over UDP,
// ConferSimulation in virtual time over a simulated network.
