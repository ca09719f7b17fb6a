/// A packed 8-bit RGBA picture (bytes R, G, B, A per pixel, rows `width × 4` bytes apart)
/// held in an array: what PNG files and test assertions work with.
public struct RGBAImage: Hashable, Sendable {
    /// Width in pixels.
    public private(set) var width: Int
    /// Height in pixels.
    public private(set) var height: Int
    /// `width × height × 4` bytes, row by row.
    public private(set) var pixels: [UInt8]

    /// Bytes from one row to the next.
    public var stride: Int { width * 4 }

    /// A transparent black picture of `width` × `height`.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "an image needs a positive size")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// A picture over `pixels`, which must hold exactly `width × height × 4` bytes.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 4 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `frame` converted to RGBA.
    public init(_ frame: VideoFrame) {
        self.init(width: frame.width, height: frame.height)
        setPixels(from: frame)
    }

    /// The R, G, B and A bytes of the pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// Sets the pixel at column `x`, row `y`.
    public mutating func set(x: Int, y: Int, r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        let i = (y * width + x) * 4
        pixels[i] = r; pixels[i + 1] = g; pixels[i + 2] = b; pixels[i + 3] = a
    }

    /// Replaces this picture with `frame` converted to RGBA, reusing the storage when the
    /// size is unchanged.
    public mutating func setPixels(from frame: VideoFrame) {
        if width != frame.width || height != frame.height {
            width = frame.width
            height = frame.height
            pixels = [UInt8](repeating: 0, count: width * height * 4)
        }
        let stride = self.stride
        pixels.withUnsafeMutableBytes { buffer in
            // Cannot fail: the buffer was sized for the frame just above. (A closure typed
            // `throws(YUVError)` passed to this rethrowing call crashes Swift 6.3's IR
            // generation, so the error is handled inside.)
            do throws(YUVError) { try frame.copyRGBA(into: buffer, stride: stride) } catch {
                preconditionFailure("RGBA buffer sized for the frame was rejected: \(error)")
            }
        }
    }

    /// Calls `body` with the pixel bytes to write in place (for decoders filling the picture).
    mutating func withUnsafeMutablePixels<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        pixels.withUnsafeMutableBytes(body)
    }

    /// Writes this picture into `frame`, which must be the same size.
    public func copy(into frame: borrowing MutableVideoFrame) throws(YUVError) {
        guard frame.width == width, frame.height == height else {
            throw YUVError(.invalidArgument, function: "ABGRToI420",
                           "a \(width)×\(height) image cannot fill a \(frame.width)×\(frame.height) frame")
        }
        let stride = self.stride
        // withUnsafeBytes only rethrows untyped errors, so the typed one is carried out by hand.
        var failure: YUVError?
        pixels.withUnsafeBytes { buffer in
            do throws(YUVError) { try frame.copyRGBA(from: buffer, stride: stride) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// This picture as an I420 frame, on storage from `pool` when one is given (it must
    /// make frames of this size).
    public func videoFrame(pool: FramePool? = nil, timestamp: Timestamp = .zero) throws(YUVError) -> VideoFrame {
        let frame: MutableVideoFrame
        if let pool {
            guard pool.layout.width == width, pool.layout.height == height else {
                throw YUVError(.invalidArgument, function: "ABGRToI420",
                               "pool makes \(pool.layout.width)×\(pool.layout.height) frames, image is \(width)×\(height)")
            }
            frame = pool.makeFrame(timestamp: timestamp)
        } else {
            frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height), timestamp: timestamp)
        }
        try copy(into: frame)
        return frame.finish()
    }
}
