/// How a ``ReceivePipeline`` hands out what it receives.
public enum ReceivePipelineMode: Sendable, Hashable {
    /// As a participant's app plays it: pictures at their render time (the jitter buffer's
    /// adaptive target delay, frames that cannot decode cleanly dropped), audio pulled every
    /// 10 ms through the audio jitter buffer, and feedback (NACK, PLI, transport-cc, receiver
    /// reports) sent.
    case playout
    /// As a recorder keeps it, with the same frame assembly: each video frame decoded as soon
    /// as it and the packets before it are in (the buffer waits out `reorderWindow` packets of
    /// reordering, see ``ConferJitter/VideoJitterBufferConfiguration/deliversWhenComplete``),
    /// whether or not its references arrived; each Opus packet handed to
    /// ``ReceivePipeline/encodedFrameHandler`` as it comes, for the app to decode in RTP time
    /// (one behind what was handed out already is counted late and dropped: a recording only
    /// goes forward). No RTCP is sent: nothing asks the sender for anything.
    case recording(reorderWindow: Int)

    /// Whether this is ``recording(reorderWindow:)``.
    public var isRecording: Bool {
        if case .recording = self { return true }
        return false
    }
}
