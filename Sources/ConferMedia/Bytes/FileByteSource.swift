#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A buffered ``ByteSource`` reading a file with stdio, so large video files stream
/// through a fixed buffer instead of being loaded whole.
public final class FileByteSource: ByteSource {
    // Owns the FILE*; closed exactly once, in deinit.
    private let file: UnsafeMutablePointer<FILE>
    /// The path the source reads.
    public let path: String
    /// Size of the file when it is a regular file; nil for pipes and devices.
    public let length: Int?
    /// Offset of the next byte to be read.
    public private(set) var position: Int = 0

    /// Opens `path` for reading, or throws `.io` naming the path and the system's reason.
    public init(path: String) throws(MediaFileError) {
        let file = try openBufferedFile(path, mode: "rb", for: "reading")
        self.file = file
        self.path = path
        var info = stat()
        if fstat(fileno(file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            length = Int(info.st_size)
        } else {
            length = nil
        }
    }

    deinit { fclose(file) }

    /// Reads up to `buffer.count` bytes through the stdio buffer; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaFileError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let n = fread(base, 1, buffer.count, file)
        if n < buffer.count, ferror(file) != 0 {
            throw MediaFileError(.io, format: "file", offset: position + n, "cannot read \(path): \(systemErrorText())")
        }
        position += n
        return n
    }

    /// Seeks past up to `count` bytes (stopping at the end), or reads them if the file cannot seek.
    public func skip(_ count: Int) throws(MediaFileError) -> Int {
        guard count > 0 else { return 0 }
        if let length {
            let n = min(count, max(0, length - position))
            if fseeko(file, off_t(n), SEEK_CUR) != 0 {
                throw MediaFileError(.io, format: "file", offset: position, "cannot seek in \(path): \(systemErrorText())")
            }
            position += n
            return n
        }
        // Not seekable: read and discard through a small stack buffer.
        var skipped = 0
        while skipped < count {
            let n = try withUnsafeTemporaryAllocation(byteCount: min(4096, count - skipped), alignment: 1) {
                (scratch) throws(MediaFileError) -> Int in try read(into: scratch)
            }
            if n == 0 { break }
            skipped += n
        }
        return skipped
    }
}

/// The text of the current `errno`.
func systemErrorText() -> String { String(cString: strerror(errno)) }

/// Opens `path` with stdio `mode`, or throws `.io` naming the path, what it was opened
/// `for` and the system's reason. A 64 KiB buffer keeps row-by-row frame reads and writes
/// to a few system calls per frame.
func openBufferedFile(_ path: String, mode: String, for purpose: String) throws(MediaFileError) -> UnsafeMutablePointer<FILE> {
    guard let file = fopen(path, mode) else {
        throw MediaFileError(.io, format: "file", "cannot open \(path) for \(purpose): \(systemErrorText())")
    }
    setvbuf(file, nil, _IOFBF, 1 << 16)
    return file
}
