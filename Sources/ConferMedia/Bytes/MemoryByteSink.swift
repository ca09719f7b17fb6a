/// A ``ByteSink`` that collects everything written in memory, for tests and fuzzing.
public final class MemoryByteSink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    /// Offset at which the next byte will be written.
    public private(set) var position: Int = 0

    /// An empty sink.
    public init() {}

    /// Overwrites bytes at the position, appending past the end.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(MediaFileError) {
        let overlap = min(buffer.count, bytes.count - position)
        if overlap > 0 {
            bytes.withUnsafeMutableBytes { all in
                (all.baseAddress! + position).copyMemory(from: buffer.baseAddress!, byteCount: overlap)
            }
        }
        if overlap < buffer.count {
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[overlap...]))
        }
        position += buffer.count
    }

    /// Moves the position within what has been written; `.io` beyond its end.
    public func seek(to offset: Int) throws(MediaFileError) {
        guard offset >= 0, offset <= bytes.count else {
            throw MediaFileError(.io, format: "memory", offset: offset, "cannot seek past the end (\(bytes.count) bytes)")
        }
        position = offset
    }

    /// Nothing to do: the bytes are already in memory.
    public func flush() throws(MediaFileError) {}
}
