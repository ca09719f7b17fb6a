internal import CPNG
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads and writes 8-bit RGBA PNG files and in-memory PNG data with libpng's
/// simplified API, for snapshots of frames and reference pictures in tests.
///
/// Failures are ``MediaFileError``s with format "PNG" whose detail keeps libpng's own
/// message. Pictures read from PNG are converted to I420 with alpha ignored.
public enum PNGFile {
    /// The largest picture, in pixels, that reading will accept unless told otherwise:
    /// a header's size is checked against it before any pixel memory is allocated.
    public static let defaultMaxPixels = 1 << 25

    // MARK: Writing

    /// Writes `image` to the file at `path`, replacing it.
    public static func write(_ image: RGBAImage, to path: String) throws(MediaFileError) {
        var failure: MediaFileError?
        image.pixels.withUnsafeBytes { bytes in
            do throws(MediaFileError) {
                try write(rgba: bytes, width: image.width, height: image.height, stride: image.stride, to: path)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes `frame`, converted to RGBA, to the file at `path`.
    public static func write(_ frame: VideoFrame, to path: String) throws(MediaFileError) {
        try write(RGBAImage(frame), to: path)
    }

    /// Writes a `width` × `height` RGBA picture whose rows are `stride` bytes apart to the
    /// file at `path`.
    public static func write(rgba: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int,
                             to path: String) throws(MediaFileError) {
        var image = try header(forWriting: rgba, width: width, height: height, stride: stride)
        defer { png_image_free(&image) }
        guard png_image_write_to_file(&image, path, 0, rgba.baseAddress, Int32(stride), nil) != 0 else {
            throw MediaFileError(.io, format: "PNG", "cannot write \(path): libpng: \(message(of: image))")
        }
    }

    /// `image` encoded as PNG data.
    public static func encode(_ image: RGBAImage) throws(MediaFileError) -> [UInt8] {
        var data: [UInt8] = []
        try encode(image, into: &data)
        return data
    }

    /// `frame`, converted to RGBA, encoded as PNG data.
    public static func encode(_ frame: VideoFrame) throws(MediaFileError) -> [UInt8] {
        try encode(RGBAImage(frame))
    }

    /// Encodes `image` as PNG into `data`, replacing its contents and reusing its storage.
    public static func encode(_ image: RGBAImage, into data: inout [UInt8]) throws(MediaFileError) {
        var failure: MediaFileError?
        image.pixels.withUnsafeBytes { bytes in
            do throws(MediaFileError) {
                try encode(rgba: bytes, width: image.width, height: image.height, stride: image.stride, into: &data)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Encodes a `width` × `height` RGBA picture whose rows are `stride` bytes apart as PNG
    /// into `data`, replacing its contents and reusing its storage when it is large enough.
    public static func encode(rgba: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int,
                              into data: inout [UInt8]) throws(MediaFileError) {
        var image = try header(forWriting: rgba, width: width, height: height, stride: stride)
        defer { png_image_free(&image) }
        // libpng reports the size it needs when the buffer is too small, so at most two
        // passes: one into whatever room `data` already has, one into exactly enough.
        if data.count < 1024 { data = [UInt8](repeating: 0, count: max(1024, width * height)) }
        for _ in 0..<2 {
            var size = png_alloc_size_t(data.count)
            let ok = data.withUnsafeMutableBytes { out in
                png_image_write_to_memory(&image, out.baseAddress, &size, 0, rgba.baseAddress, Int32(stride), nil)
            }
            if ok != 0 {
                data.removeLast(data.count - Int(size))
                return
            }
            guard Int(size) > data.count else { break }
            data = [UInt8](repeating: 0, count: Int(size))
            png_image_free(&image)
            image = try header(forWriting: rgba, width: width, height: height, stride: stride)
        }
        throw MediaFileError(.io, format: "PNG", "cannot encode: libpng: \(message(of: image))")
    }

    // MARK: Reading

    /// The RGBA picture in the PNG file at `path`.
    public static func readImage(from path: String, maxPixels: Int = defaultMaxPixels) throws(MediaFileError) -> RGBAImage {
        // Opening the file here, not in libpng, tells a missing file (I/O) from a bad one.
        guard let file = fopen(path, "rb") else {
            throw MediaFileError(.io, format: "PNG", "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_stdio(&image, file) != 0 else {
            throw MediaFileError(.malformed, format: "PNG", "\(path): libpng: \(message(of: image))")
        }
        return try finishRead(&image, maxPixels: maxPixels, source: path)
    }

    /// The RGBA picture in PNG `data`.
    public static func decodeImage(_ data: [UInt8], maxPixels: Int = defaultMaxPixels) throws(MediaFileError) -> RGBAImage {
        var failure: MediaFileError?
        var result: RGBAImage?
        data.withUnsafeBytes { bytes in
            do throws(MediaFileError) { result = try decodeImage(bytes, maxPixels: maxPixels) } catch { failure = error }
        }
        if let failure { throw failure }
        return result!
    }

    /// The RGBA picture in the PNG data in `bytes`.
    public static func decodeImage(_ bytes: UnsafeRawBufferPointer, maxPixels: Int = defaultMaxPixels) throws(MediaFileError) -> RGBAImage {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            throw MediaFileError(.truncated, format: "PNG", offset: 0, "no data")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, base, bytes.count) != 0 else {
            throw MediaFileError(.malformed, format: "PNG", "libpng: \(message(of: image))")
        }
        return try finishRead(&image, maxPixels: maxPixels, source: "data")
    }

    /// The picture in the PNG file at `path` as an I420 frame (on `pool` storage when
    /// given; the pool must make frames of the picture's size).
    public static func readFrame(from path: String, pool: FramePool? = nil, timestamp: Timestamp = .zero,
                                 maxPixels: Int = defaultMaxPixels) throws(MediaFileError) -> VideoFrame {
        try frame(of: readImage(from: path, maxPixels: maxPixels), pool: pool, timestamp: timestamp)
    }

    /// The picture in PNG `data` as an I420 frame (on `pool` storage when given).
    public static func decodeFrame(_ data: [UInt8], pool: FramePool? = nil, timestamp: Timestamp = .zero,
                                   maxPixels: Int = defaultMaxPixels) throws(MediaFileError) -> VideoFrame {
        try frame(of: decodeImage(data, maxPixels: maxPixels), pool: pool, timestamp: timestamp)
    }

    // MARK: libpng plumbing

    private static func header(forWriting rgba: UnsafeRawBufferPointer, width: Int, height: Int,
                               stride: Int) throws(MediaFileError) -> png_image {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max),
              stride >= width * 4, stride <= Int(Int32.max) else {
            throw MediaFileError(.unsupported, format: "PNG", "cannot write a \(width)×\(height) picture at stride \(stride)")
        }
        guard rgba.baseAddress != nil, rgba.count >= stride * (height - 1) + width * 4 else {
            throw MediaFileError(.truncated, format: "PNG",
                                 "RGBA buffer of \(rgba.count) bytes is too small for \(width)×\(height) at stride \(stride)")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = formatRGBA
        return image
    }

    /// Checks the size a header announced, then decodes into a fresh RGBA picture. Frees
    /// libpng's state on every path (libpng frees it itself only after finishing).
    private static func finishRead(_ image: inout png_image, maxPixels: Int, source: String) throws(MediaFileError) -> RGBAImage {
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, width <= maxPixels / height, width <= Int(Int32.max) / 4 else {
            png_image_free(&image)
            throw MediaFileError(.unsupported, format: "PNG", offset: 16,
                                 "\(source): \(width)×\(height) picture exceeds the \(maxPixels)-pixel limit")
        }
        image.format = formatRGBA
        var picture = RGBAImage(width: width, height: height)
        let ok = picture.withUnsafeMutablePixels { out in
            png_image_finish_read(&image, nil, out.baseAddress, Int32(width * 4), nil)
        }
        guard ok != 0 else {
            let text = message(of: image)
            png_image_free(&image)
            throw MediaFileError(.malformed, format: "PNG", "\(source): libpng: \(text)")
        }
        return picture
    }

    private static func frame(of image: RGBAImage, pool: FramePool?, timestamp: Timestamp) throws(MediaFileError) -> VideoFrame {
        do {
            return try image.videoFrame(pool: pool, timestamp: timestamp)
        } catch {
            throw MediaFileError(.unsupported, format: "PNG", error.description)
        }
    }

    /// PNG_FORMAT_RGBA, spelled out because Swift does not import a macro built from
    /// other macros.
    private static let formatRGBA = UInt32(PNG_FORMAT_FLAG_COLOR) | UInt32(PNG_FORMAT_FLAG_ALPHA)

    /// libpng's last message, kept in a fixed 64-byte C array inside the image.
    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
