import ConferMedia
/// Walks the page headers of an Ogg stream, skipping page bodies, to find out whether the
/// input ends inside a page. libopusfile treats a cut-off last page as if the stream simply
/// ended, so this is how a truncated file is told apart from a complete one.
enum OggPageScan {
    /// Where the input ends inside a page, or nil if the stream ends on a page boundary
    /// (or stops looking like Ogg pages, which libopusfile then judges on its own).
    static func truncationOffset(in source: any ByteSource) throws(MediaFileError) -> Int? {
        var header = (UInt64(0), UInt64(0), UInt64(0), UInt32(0), UInt16(0), UInt8(0))  // 27 bytes, aligned scratch
        while true {
            let pageStart = source.position
            let n = try withUnsafeMutableBytes(of: &header) { (raw) throws(MediaFileError) -> Int in
                try source.readUpTo(UnsafeMutableRawBufferPointer(rebasing: raw[..<27]))
            }
            if n == 0 { return nil }
            if n < 27 { return pageStart }
            let (capture, segments) = withUnsafeBytes(of: &header) { raw in
                (raw.loadUnaligned(as: UInt32.self), Int(raw[26]))
            }
            guard capture == WAVInfo.fourCC("OggS") else { return nil }
            let bodySize = try withUnsafeTemporaryAllocation(byteCount: segments, alignment: 1) { (table) throws(MediaFileError) -> Int? in
                guard try source.readUpTo(table) == segments else { return nil }
                return table.reduce(0) { $0 + Int($1) }
            }
            guard let bodySize else { return pageStart }
            if try source.skip(bodySize) < bodySize { return pageStart }
        }
    }
}
