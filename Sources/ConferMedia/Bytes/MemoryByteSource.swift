/// A ``ByteSource`` over bytes already in memory, for tests, fuzzing and small inputs.
public final class MemoryByteSource: ByteSource {
    /// The whole input.
    public let bytes: [UInt8]
    /// Offset of the next byte to be read.
    public private(set) var position: Int = 0

    /// A source that reads `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A source over a copy of `buffer`.
    public convenience init(copying buffer: UnsafeRawBufferPointer) { self.init(Array(buffer)) }

    /// Always known: the number of bytes.
    public var length: Int? { bytes.count }

    /// Copies up to `buffer.count` of the remaining bytes; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaFileError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }

    /// Moves past up to `count` bytes, stopping at the end.
    public func skip(_ count: Int) throws(MediaFileError) -> Int {
        let n = min(max(0, count), bytes.count - position)
        position += n
        return n
    }
}
