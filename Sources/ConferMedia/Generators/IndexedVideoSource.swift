/// A synthetic video source whose frame `n` depends on `n` alone: drawn into a frame from
/// ``pool`` and stamped `n / frameRate` seconds, whenever it is asked for.
public protocol IndexedVideoSource {
    /// The pool frames are drawn into (its size is the picture size).
    var pool: FramePool { get }
    /// Frames per second; frame `n` is stamped `n / frameRate` seconds.
    var frameRate: Double { get }
}

extension IndexedVideoSource {
    /// Picture width in pixels.
    public var width: Int { pool.layout.width }
    /// Picture height in pixels.
    public var height: Int { pool.layout.height }

    /// The presentation time of frame `index`.
    public func timestamp(ofFrame index: Int) -> Timestamp {
        Timestamp(microseconds: Int64((Double(index) * 1_000_000 / frameRate).rounded()))
    }
}
