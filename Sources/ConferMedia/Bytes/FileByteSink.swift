#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A buffered ``ByteSink`` writing a file with stdio.
public final class FileByteSink: ByteSink {
    // Owns the FILE*; closed once, by close() or else in deinit.
    private var file: UnsafeMutablePointer<FILE>?
    /// The path being written.
    public let path: String
    /// Offset at which the next byte will be written.
    public private(set) var position: Int = 0

    /// Creates (or truncates) `path` for writing, or throws `.io` with the system's reason.
    public init(path: String) throws(MediaFileError) {
        file = try openBufferedFile(path, mode: "wb", for: "writing")
        self.path = path
    }

    deinit { if let file { fclose(file) } }

    private func openFile() throws(MediaFileError) -> UnsafeMutablePointer<FILE> {
        guard let file else { throw MediaFileError(.io, format: "file", "\(path) is already closed") }
        return file
    }

    /// Writes through the stdio buffer; `.io` if the system refuses.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(MediaFileError) {
        let file = try openFile()
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if fwrite(base, 1, bytes.count, file) != bytes.count {
            throw MediaFileError(.io, format: "file", offset: position, "cannot write \(path): \(systemErrorText())")
        }
        position += bytes.count
    }

    /// Seeks to `offset` from the start of the file.
    public func seek(to offset: Int) throws(MediaFileError) {
        let file = try openFile()
        if fseeko(file, off_t(offset), SEEK_SET) != 0 {
            throw MediaFileError(.io, format: "file", offset: offset, "cannot seek in \(path): \(systemErrorText())")
        }
        position = offset
    }

    /// Pushes the stdio buffer to the file.
    public func flush() throws(MediaFileError) {
        if fflush(try openFile()) != 0 {
            throw MediaFileError(.io, format: "file", "cannot flush \(path): \(systemErrorText())")
        }
    }

    /// Flushes and closes the file, reporting any error the system reports on close.
    public func close() throws(MediaFileError) {
        guard let file else { return }
        self.file = nil
        if fclose(file) != 0 {
            throw MediaFileError(.io, format: "file", "cannot close \(path): \(systemErrorText())")
        }
    }
}
