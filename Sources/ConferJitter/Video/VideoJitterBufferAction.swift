public import ConferMedia

/// What a ``VideoJitterBuffer`` asks its driver to do after an insert or a poll.
public enum VideoJitterBufferAction: Sendable {
    /// Send a Generic NACK (``RTCPGenericNACK``) for these sequence numbers, oldest first.
    case sendNACK([UInt16])
    /// Send a keyframe request (``RTCPPictureLossIndication`` or ``RTCPFullIntraRequest``).
    case requestKeyframe(KeyframeRequest)
    /// Decode this frame now; it was due for rendering at `renderTime`. Its `timestamp` is
    /// the RTP timestamp relative to the stream's first frame. Frames come in decode order.
    case deliver(EncodedFrame, renderTime: Timestamp)
    /// A complete frame was thrown away (counted in ``VideoReceiveStatistics/framesDropped``).
    case frameDropped(VideoFrameDropReason)
}

/// Why a complete frame was not delivered.
public enum VideoFrameDropReason: String, Sendable, Hashable, Codable {
    /// A frame it depends on was lost or dropped; it waits for a keyframe.
    case notDecodable
    /// It was later than ``VideoJitterBufferConfiguration/maxLateness`` and a keyframe after it was due.
    case tooLate
    /// Its packets did not depacketize.
    case malformed
    /// Newer packets needed its room in the buffer.
    case bufferFull
    /// The stream restarted (new SSRC, or sequence numbers that jumped).
    case streamRestart
}
