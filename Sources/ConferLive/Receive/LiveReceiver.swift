public import ConferMedia

/// Receives one RTP stream over UDP and writes it to a file: `confer receive`.
///
/// The stream goes through a ``ReceivePipeline`` on the wall clock (see
/// ``LiveReceiverSession``). By default it plays out: video at its render time, audio 10 ms
/// at a time, and its feedback (NACK, PLI, transport-cc, receiver reports) goes back to the
/// sender over the same socket — what a participant would see and hear. With
/// ``LiveReceiverOptions/usesJitterBuffer`` off the pipeline records instead
/// (``ReceivePipelineMode/recording(reorderWindow:)``): every video frame decoded as soon as
/// it is complete, every Opus packet decoded as it comes with losses concealed so the file
/// keeps RTP time, and nothing sent back. Memory stays bounded whatever arrives: one
/// datagram buffer, the jitter buffers' fixed rings.
public enum LiveReceiver {
    /// Receives as `options` say. `ready(port)` is called once the socket is bound (with the
    /// port picked, when listening on port 0), before any datagram is read; `second(n, report)`,
    /// when given, once a second from the first datagram or wake-up on: the report's number
    /// from 1 (a stalled loop reports once for the seconds it missed) and the report so far
    /// (its ``LiveReceiveReport/outputBytes`` and ``LiveReceiveReport/wallSeconds`` are filled
    /// in only at the end).
    public static func run(options: LiveReceiverOptions, clock: some MediaClock = WallClock(),
                           ready: @Sendable (Int) -> Void = { _ in },
                           second: (@Sendable (Int, LiveReceiveReport) -> Void)? = nil) async throws -> LiveReceiveReport {
        try await LiveReceiverSession.run(options: options, clock: clock, ready: ready, second: second)
    }
}
