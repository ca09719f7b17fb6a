/// Output for the media file writers: a buffered file or a growing in-memory buffer.
///
/// Writers seek back only to patch header fields (sizes, frame counts) when they finish.
public protocol ByteSink: AnyObject {
    /// Offset at which the next byte will be written.
    var position: Int { get }
    /// Writes `bytes` at ``position`` and moves past them.
    func write(_ bytes: UnsafeRawBufferPointer) throws(MediaFileError)
    /// Moves the write position to `offset` (at most the current end of the output).
    func seek(to offset: Int) throws(MediaFileError)
    /// Pushes buffered bytes to their destination.
    func flush() throws(MediaFileError)
}

extension ByteSink {
    /// Writes `bytes`.
    public func write(_ bytes: [UInt8]) throws(MediaFileError) {
        try bytes.withBytes { (raw) throws(MediaFileError) in try write(raw) }
    }

    /// Writes `value` as little-endian bytes.
    public func writeLittleEndian<T: FixedWidthInteger>(_ value: T) throws(MediaFileError) {
        let le = value.littleEndian
        try withUnsafeBytes(of: le) { (raw) throws(MediaFileError) in try write(raw) }
    }

    /// Writes the UTF-8 bytes of `text` (header tags such as "RIFF").
    public func writeASCII(_ text: String) throws(MediaFileError) {
        try write(Array(text.utf8))
    }
}
