/// A pool's buffer lent to a C library that writes pictures into memory it does not own
/// and gives it back through a callback (libavcodec's `get_buffer2` and `av_buffer_create`).
///
/// The loan holds the storage alive on its own, so the pool cannot hand it out again until
/// the library has called ``release(_:)`` and every ``VideoFrame`` made from it is gone;
/// a decoder keeping a picture as a reference while the application shows it is safe.
public struct FrameLoan: @unchecked Sendable {
    // Sendable: the pointers name storage the loan keeps alive; the pixels are written by
    // the borrowing library before any frame over them is made, as with MutableVideoFrame.
    /// An opaque, retained handle on the storage, for the library's callback context.
    /// Give it to ``release(_:)`` exactly once.
    public let token: UnsafeMutableRawPointer
    /// The first byte of the storage: the luma plane; the chroma planes are at the
    /// layout's offsets.
    public let base: UnsafeMutableRawPointer
    /// The layout the storage was made for.
    public let layout: FrameLayout

    /// Ends one loan (the library's free callback).
    public static func release(_ token: UnsafeMutableRawPointer) {
        Unmanaged<FrameStorage>.fromOpaque(token).release()
    }

    /// The picture in the lent buffer named by `token`, as a frame that keeps the storage
    /// alive by itself (the loan may end before or after it). `layout` must fit the
    /// storage: the loan's layout, or that layout ``FrameLayout/cropped(width:height:)``.
    public static func frame(lentAs token: UnsafeRawPointer, layout: FrameLayout, timestamp: Timestamp) -> VideoFrame {
        let storage = Unmanaged<FrameStorage>.fromOpaque(token).takeUnretainedValue()
        precondition(layout.byteCount <= storage.capacity, "a lent frame's layout must fit its storage")
        return VideoFrame(storage: storage, layout: layout, timestamp: timestamp)
    }

    /// Whether `token` names storage that starts at `base`: a library that moved a plane
    /// pointer (cropping from the top or left) no longer shows the picture at the layout's
    /// positions.
    public static func storage(of token: UnsafeRawPointer, startsAt base: UnsafeRawPointer) -> Bool {
        UnsafeRawPointer(Unmanaged<FrameStorage>.fromOpaque(token).takeUnretainedValue().bytes) == base
    }
}

extension FramePool {
    /// Lends a buffer of this pool's layout (recycled when one is free) to a C library.
    public func lend() -> FrameLoan {
        let storage = takeStorage()
        return FrameLoan(token: Unmanaged.passRetained(storage).toOpaque(), base: storage.bytes, layout: layout)
    }
}
