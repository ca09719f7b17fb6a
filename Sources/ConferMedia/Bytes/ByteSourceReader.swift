/// A reader whose whole input is one ``ByteSource``, so a file and an in-memory copy are
/// opened the same way.
public protocol ByteSourceReader {
    /// Reads from `source`, starting with its header.
    init(source: any ByteSource) throws(MediaFileError)
}

extension ByteSourceReader {
    /// Opens the file at `path`.
    public init(path: String) throws(MediaFileError) {
        try self.init(source: FileByteSource(path: path))
    }

    /// Reads from `bytes`.
    public init(bytes: [UInt8]) throws(MediaFileError) {
        try self.init(source: MemoryByteSource(bytes))
    }
}
