/// Sequential input for the media file readers: a file read as a stream, or bytes in memory.
///
/// Readers pull exactly what they need, so a 400 MB Y4M file is never held in memory, and
/// the same parser runs on in-memory bytes in tests and fuzz targets. Sources are classes
/// because a file source owns a C `FILE*` and a reader shares one source with its helpers.
public protocol ByteSource: AnyObject {
    /// Offset of the next byte to be read, from the start of the input.
    var position: Int { get }
    /// Total size of the input in bytes, when it is known (regular files and memory).
    var length: Int? { get }
    /// Reads up to `buffer.count` bytes into `buffer` and returns how many were read;
    /// 0 means the end of the input (or an empty buffer).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaFileError) -> Int
    /// Moves `count` bytes forward without reading them (stopping at the end of the input)
    /// and returns how many bytes were passed over.
    func skip(_ count: Int) throws(MediaFileError) -> Int
}

extension ByteSource {
    /// Bytes left between ``position`` and the end, when the length is known.
    public var remaining: Int? { length.map { max(0, $0 - position) } }

    /// Reads until `buffer` is full or the input ends; returns how many bytes were read.
    public func readUpTo(_ buffer: UnsafeMutableRawBufferPointer) throws(MediaFileError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// Fills `buffer` completely, or throws `.truncated` in `format` naming `what` was being read.
    public func readFully(_ buffer: UnsafeMutableRawBufferPointer, format: String, what: @autoclosure () -> String) throws(MediaFileError) {
        let start = position
        let n = try readUpTo(buffer)
        if n < buffer.count {
            throw MediaFileError(.truncated, format: format, offset: start,
                                 "input ended after \(n) of \(buffer.count) bytes of \(what())")
        }
    }

    /// Reads a little-endian integer, or throws `.truncated`.
    public func readLittleEndian<T: FixedWidthInteger>(_: T.Type, format: String, what: @autoclosure () -> String) throws(MediaFileError) -> T {
        var value = T.zero
        let start = position
        let n = try withUnsafeMutableBytes(of: &value) { (raw) throws(MediaFileError) -> Int in try readUpTo(raw) }
        if n < MemoryLayout<T>.size {
            throw MediaFileError(.truncated, format: format, offset: start,
                                 "input ended after \(n) of \(MemoryLayout<T>.size) bytes of \(what())")
        }
        return T(littleEndian: value)
    }

    /// Skips exactly `count` bytes, or throws `.truncated` in `format` naming `what` was skipped.
    public func skipFully(_ count: Int, format: String, what: @autoclosure () -> String) throws(MediaFileError) {
        let start = position
        let n = try skip(count)
        if n < count {
            throw MediaFileError(.truncated, format: format, offset: start,
                                 "input ended after \(n) of \(count) bytes of \(what())")
        }
    }
}
