internal import CYUV

/// One plane of an I420 picture: `height` rows of `width` bytes, rows `stride` apart.
public struct ImagePlane: @unchecked Sendable {
    // Sendable because a plane is only handed out while its frame keeps the pixels alive,
    // and pixels are written only through `MutableVideoFrame`, which cannot be shared.
    /// The first byte of the first row.
    public let base: UnsafePointer<UInt8>
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int
    /// Visible bytes per row.
    public let width: Int
    /// Number of rows.
    public let height: Int

    /// The byte at column `x`, row `y`.
    @inlinable public subscript(x: Int, y: Int) -> UInt8 { base[y * stride + x] }

    /// Row `y` as a buffer of `width` bytes.
    @inlinable public func row(_ y: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + y * stride, count: width)
    }
}

/// A writable plane of a ``MutableVideoFrame``.
public struct MutableImagePlane {
    /// The first byte of the first row.
    public let base: UnsafeMutablePointer<UInt8>
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int
    /// Visible bytes per row.
    public let width: Int
    /// Number of rows.
    public let height: Int

    /// The byte at column `x`, row `y`.
    @inlinable public subscript(x: Int, y: Int) -> UInt8 {
        get { base[y * stride + x] }
        nonmutating set { base[y * stride + x] = newValue }
    }

    /// Row `y` as a mutable buffer of `width` bytes.
    @inlinable public func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        UnsafeMutableBufferPointer(start: base + y * stride, count: width)
    }

    /// Sets every visible byte of the plane to `value`.
    public func fill(_ value: UInt8) {
        for y in 0..<height { (base + y * stride).update(repeating: value, count: width) }
    }

    /// Copies `height` rows of `width` bytes from `source`, whose rows are `sourceStride` apart.
    public func copy(from source: UnsafePointer<UInt8>, sourceStride: Int) {
        if sourceStride == stride {
            base.update(from: source, count: stride * (height - 1) + width)
        } else {
            for y in 0..<height { (base + y * stride).update(from: source + y * sourceStride, count: width) }
        }
    }

    /// This plane, read-only.
    public var readOnly: ImagePlane { ImagePlane(base: base, stride: stride, width: width, height: height) }
}

/// The geometry of an I420 picture: luma size, chroma size, plane strides and where each
/// plane starts in the frame's storage.
public struct FrameLayout: Hashable, Sendable, Codable {
    /// Luma width in pixels.
    public let width: Int
    /// Luma height in pixels.
    public let height: Int
    /// Bytes between luma rows (≥ `width`, rounded up to 32 for SIMD-friendly rows).
    public let strideY: Int
    /// Bytes between rows of each chroma plane.
    public let strideUV: Int
    /// Byte offset of the U plane in the frame's storage.
    public let offsetU: Int
    /// Byte offset of the V plane in the frame's storage.
    public let offsetV: Int
    /// Bytes of storage a frame of this layout needs.
    public let byteCount: Int

    /// Chroma plane width: half the luma width, rounded up.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Chroma plane height: half the luma height, rounded up.
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Bytes of visible picture (what a tightly packed I420 frame takes, as in Y4M).
    public var packedByteCount: Int { width * height + 2 * chromaWidth * chromaHeight }

    /// A layout for a `width` × `height` picture with aligned strides.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "a frame needs a positive size")
        self.width = width
        self.height = height
        strideY = (width + 31) & ~31
        strideUV = ((width + 1) / 2 + 31) & ~31
        offsetU = strideY * height
        offsetV = offsetU + strideUV * ((height + 1) / 2)
        byteCount = offsetV + strideUV * ((height + 1) / 2)
    }

    /// A layout with room beyond the picture for a decoder that writes whole macroblocks
    /// and reads past a plane's last row (libavcodec's `get_buffer2` contract): planes of
    /// `allocatedWidth` × `allocatedHeight` luma pixels, strides a multiple of
    /// `strideAlignment`, every plane starting on a 64-byte boundary and followed by
    /// `planePadding` spare bytes. The visible picture is the top-left `width` × `height`.
    public init(width: Int, height: Int, allocatedWidth: Int, allocatedHeight: Int, strideAlignment: Int, planePadding: Int) {
        precondition(width > 0 && height > 0 && allocatedWidth >= width && allocatedHeight >= height,
                     "a frame needs a positive size within its allocation")
        precondition(strideAlignment > 0 && strideAlignment & (strideAlignment - 1) == 0 && planePadding >= 0,
                     "stride alignment must be a power of two")
        func align(_ value: Int, _ alignment: Int) -> Int { (value + alignment - 1) & ~(alignment - 1) }
        self.width = width
        self.height = height
        strideY = align(allocatedWidth, max(strideAlignment, 32))
        strideUV = align((allocatedWidth + 1) / 2, max(strideAlignment, 32))
        let rowsUV = (allocatedHeight + 1) / 2
        offsetU = align(strideY * allocatedHeight + planePadding, 64)
        offsetV = offsetU + align(strideUV * rowsUV + planePadding, 64)
        byteCount = offsetV + strideUV * rowsUV + planePadding
    }

    /// This layout's planes showing only the top-left `width` × `height` of the picture
    /// (a decoder's cropping): same storage positions and strides.
    public func cropped(width: Int, height: Int) -> FrameLayout? {
        guard width > 0, height > 0, width <= self.width, height <= self.height else { return nil }
        return FrameLayout(copying: self, width: width, height: height)
    }

    private init(copying other: FrameLayout, width: Int, height: Int) {
        self.width = width
        self.height = height
        strideY = other.strideY
        strideUV = other.strideUV
        offsetU = other.offsetU
        offsetV = other.offsetV
        byteCount = other.byteCount
    }
}

/// Reference-counted pixel memory. Owned by a ``FramePool`` (which recycles it once no
/// frame refers to it) or by the frames alone.
final class FrameStorage: @unchecked Sendable {
    // Sendable: the pointer is written only through `MutableVideoFrame` (a non-copyable
    // value that exists before the storage is shared) and read afterwards; a pool hands
    // storage out again only when its reference is the last one (isKnownUniquelyReferenced).
    let bytes: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        bytes = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    deinit { bytes.deallocate() }
}

/// An I420 picture with explicit plane strides over pooled, reference-counted storage.
///
/// Copies share pixels; pixels never change once a frame exists (they are written through
/// ``MutableVideoFrame`` first), so a `VideoFrame` is a safe `Sendable` value.
public struct VideoFrame: Sendable {
    let storage: FrameStorage
    /// Plane sizes and strides.
    public let layout: FrameLayout
    /// Presentation time.
    public var timestamp: Timestamp
    // Made by the memberwise init(storage:layout:timestamp:).

    /// Luma width in pixels.
    public var width: Int { layout.width }
    /// Luma height in pixels.
    public var height: Int { layout.height }

    /// The luma plane.
    public var y: ImagePlane {
        ImagePlane(base: UnsafePointer(storage.bytes.assumingMemoryBound(to: UInt8.self)),
                   stride: layout.strideY, width: layout.width, height: layout.height)
    }
    /// The U (Cb) plane.
    public var u: ImagePlane {
        ImagePlane(base: UnsafePointer((storage.bytes + layout.offsetU).assumingMemoryBound(to: UInt8.self)),
                   stride: layout.strideUV, width: layout.chromaWidth, height: layout.chromaHeight)
    }
    /// The V (Cr) plane.
    public var v: ImagePlane {
        ImagePlane(base: UnsafePointer((storage.bytes + layout.offsetV).assumingMemoryBound(to: UInt8.self)),
                   stride: layout.strideUV, width: layout.chromaWidth, height: layout.chromaHeight)
    }
    /// The three planes in Y, U, V order.
    public var planes: [ImagePlane] { [y, u, v] }

    /// Calls `body` with the frame's pixels kept alive for the duration of the call.
    ///
    /// Plane pointers are valid while the frame is; use this where a C call or a long loop
    /// must not outlive the last use of the frame.
    public func withPlanes<R, E: Error>(_ body: (ImagePlane, ImagePlane, ImagePlane) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(storage) { () throws(E) -> R in try body(y, u, v) }
    }

    /// Whether `other` shares this frame's pixel memory.
    public func sharesStorage(with other: VideoFrame) -> Bool { storage === other.storage }
}

/// A frame being written: the only value that can change pixels.
///
/// Non-copyable, so a picture cannot be read elsewhere while it is still being written.
/// ``finish()`` turns it into a shareable ``VideoFrame``.
public struct MutableVideoFrame: ~Copyable {
    let storage: FrameStorage
    /// Plane sizes and strides.
    public let layout: FrameLayout
    /// Presentation time the finished frame will carry.
    public var timestamp: Timestamp

    init(storage: FrameStorage, layout: FrameLayout, timestamp: Timestamp) {
        self.storage = storage
        self.layout = layout
        self.timestamp = timestamp
    }

    /// A frame with its own (unpooled) storage.
    public init(layout: FrameLayout, timestamp: Timestamp = .zero) {
        self.init(storage: FrameStorage(capacity: layout.byteCount), layout: layout, timestamp: timestamp)
    }

    /// Luma width in pixels.
    public var width: Int { layout.width }
    /// Luma height in pixels.
    public var height: Int { layout.height }
    /// The writable luma plane.
    public var y: MutableImagePlane {
        MutableImagePlane(base: storage.bytes.assumingMemoryBound(to: UInt8.self),
                          stride: layout.strideY, width: layout.width, height: layout.height)
    }
    /// The writable U plane.
    public var u: MutableImagePlane {
        MutableImagePlane(base: (storage.bytes + layout.offsetU).assumingMemoryBound(to: UInt8.self),
                          stride: layout.strideUV, width: layout.chromaWidth, height: layout.chromaHeight)
    }
    /// The writable V plane.
    public var v: MutableImagePlane {
        MutableImagePlane(base: (storage.bytes + layout.offsetV).assumingMemoryBound(to: UInt8.self),
                          stride: layout.strideUV, width: layout.chromaWidth, height: layout.chromaHeight)
    }

    /// Fills the picture with one colour.
    public func fill(y: UInt8, u: UInt8, v: UInt8) {
        self.y.fill(y); self.u.fill(u); self.v.fill(v)
    }

    /// Copies the pixels of `frame`, which must have the same size.
    public func copyPixels(from frame: VideoFrame) {
        precondition(frame.width == width && frame.height == height, "copyPixels needs frames of one size")
        frame.withPlanes { fy, fu, fv in
            y.copy(from: fy.base, sourceStride: fy.stride)
            u.copy(from: fu.base, sourceStride: fu.stride)
            v.copy(from: fv.base, sourceStride: fv.stride)
        }
    }

    /// Copies all of `frame` into this picture with its top-left corner at column `x`, row
    /// `y`: the picture-in-a-slot copy a compositor makes. `x` and `y` must be even (I420
    /// chroma covers 2×2 pixels) and `frame` must lie wholly inside this picture.
    ///
    /// Rows go through libyuv's CopyPlane, which moves each row with `rep movsb` where the
    /// CPU has fast string moves. For rows narrower than the destination's, read from
    /// pictures no longer in cache (a compositor's inputs), that costs about half of a
    /// memcpy per row (measured here: four 640×360 pictures from memory into a 1280×720
    /// canvas, 85 µs through memcpy, 43 µs through CopyPlane); for a source still in L2 it
    /// is about 15 % slower, which is why ``MutableImagePlane/copy(from:sourceStride:)`` (a
    /// decoder's just-written picture) keeps memcpy.
    public func copyPixels(from frame: VideoFrame, atX x: Int, y: Int) {
        precondition(x >= 0 && y >= 0 && x & 1 == 0 && y & 1 == 0 && x + frame.width <= width && y + frame.height <= height,
                     "copyPixels(from:atX:y:) needs an even origin with the frame inside the picture")
        let (ly, lu, lv) = (self.y, u, v)
        let chromaOffset = y / 2 * lu.stride + x / 2
        frame.withPlanes { fy, fu, fv in
            Self.copy(fy, to: ly.base + y * ly.stride + x, stride: ly.stride)
            Self.copy(fu, to: lu.base + chromaOffset, stride: lu.stride)
            Self.copy(fv, to: lv.base + chromaOffset, stride: lv.stride)
        }
    }

    private static func copy(_ plane: ImagePlane, to destination: UnsafeMutablePointer<UInt8>, stride: Int) {
        // Frame sizes are capped far below Int32's range by every parser and pool.
        CopyPlane(plane.base, Int32(plane.stride), destination, Int32(stride), Int32(plane.width), Int32(plane.height))
    }

    /// Ends writing and returns the frame for sharing.
    public consuming func finish() -> VideoFrame {
        VideoFrame(storage: storage, layout: layout, timestamp: timestamp)
    }
}
