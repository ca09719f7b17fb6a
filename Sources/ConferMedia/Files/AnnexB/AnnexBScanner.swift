/// Splits an H.264 Annex-B byte stream into NAL units at 3- and 4-byte start codes,
/// streaming through a window that holds one NAL unit at a time.
final class AnnexBScanner {
    /// One NAL unit found in the window; valid until the next call to ``next()``.
    struct NALUnit {
        /// 3 or 4: the length of the start code before it.
        var startCodeLength: Int
        /// The NAL unit (header byte and payload) as indices into the window.
        var range: Range<Int>
        /// Offset of the NAL unit's first byte in the input.
        var offset: Int
    }

    static let format = "H.264 Annex B"
    /// The largest NAL unit accepted, so input without start codes cannot grow the window forever.
    static let maxNALUnitSize = 16 << 20
    private static let readSize = 1 << 16

    private let source: any ByteSource
    /// Bytes read but not yet consumed live in `window[low..<high]`. Owned here, freed in deinit;
    /// raw memory rather than an array so growing it never zero-fills or copies element-wise.
    private var window = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    private var low = 0
    private var high = 0
    /// Input offset of `window[0]`.
    private var windowOffset = 0
    private var ended = false

    init(source: any ByteSource) {
        self.source = source
        windowOffset = source.position
    }

    deinit { window.deallocate() }

    /// The bytes of `range` in the window; valid until the next call to ``next()``.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: window[range])
    }

    /// The next non-empty NAL unit, or nil at the end of the input.
    func next() throws(MediaFileError) -> NALUnit? {
        while true {
            guard try ensure(1) else { return nil }
            // Expect zero bytes then 0x01: the start code (any extra zeros are trailing_zero_8bits).
            var zeros = 0
            while true {
                // Zeros and nothing else up to the end are trailing_zero_8bits: the stream is over.
                guard try ensure(zeros + 1) else { return nil }
                let byte = window[low + zeros]
                if byte == 0 {
                    // Drop zeros beyond a 4-byte start code as they come, so a run of
                    // zeros cannot grow the window.
                    if zeros == 3 { low += 1 } else { zeros += 1 }
                    continue
                }
                guard byte == 1, zeros >= 2 else {
                    throw MediaFileError(.malformed, format: Self.format, offset: windowOffset + low + zeros,
                                         "expected a start code (00 00 01) but found byte 0x\(String(byte, radix: 16))")
                }
                break
            }
            let startCodeLength = min(zeros, 3) + 1
            low += zeros + 1
            var end = try findStartCode()
            let nalStart = low
            while end > nalStart && window[end - 1] == 0 { end -= 1 }
            low = end
            if end > nalStart {
                return NALUnit(startCodeLength: startCodeLength, range: nalStart..<end, offset: windowOffset + nalStart)
            }
            // An empty NAL unit: skip it, unless the stream ends here.
            if try !ensure(1) {
                throw MediaFileError(.truncated, format: Self.format, offset: windowOffset + nalStart, "input ends with a start code and no NAL unit")
            }
        }
    }

    /// Index of the next 00 00 01 at or after `low`, or `high` if the input ends first.
    /// May move the window's contents, but keeps `low` pointing at the same byte.
    private func findStartCode() throws(MediaFileError) -> Int {
        var scanned = 0  // relative to `low`, which survives compaction
        while true {
            var i = low + scanned
            while i + 2 < high {
                let c = window[i + 2]
                if c > 1 { i += 3; continue }
                if c == 1, window[i] == 0, window[i + 1] == 0 { return i }
                i += 1
            }
            scanned = max(scanned, high - low - 2)
            guard high - low <= Self.maxNALUnitSize else {
                throw MediaFileError(.malformed, format: Self.format, offset: windowOffset + low,
                                     "NAL unit exceeds \(Self.maxNALUnitSize) bytes without a start code")
            }
            if try !readMore() { return high }
        }
    }

    /// Makes sure at least `count` unconsumed bytes are in the window; false if the input ends first.
    private func ensure(_ count: Int) throws(MediaFileError) -> Bool {
        while high - low < count {
            if try !readMore() { return false }
        }
        return true
    }

    /// Reads another block into the window, compacting or growing it; false at the end.
    private func readMore() throws(MediaFileError) -> Bool {
        guard !ended else { return false }
        if low > 0 {
            if high > low { UnsafeMutableRawPointer(window.baseAddress!).copyMemory(from: window.baseAddress! + low, byteCount: high - low) }
            windowOffset += low
            high -= low
            low = 0
        }
        // Small inputs (fuzzing, tests) get a small window; files read 64 KiB at a time.
        let chunk = max(1024, min(Self.readSize, source.remaining ?? Self.readSize))
        if window.count - high < chunk {
            let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(2 * window.count, high + chunk))
            if high > 0 { grown.baseAddress!.update(from: window.baseAddress!, count: high) }
            window.deallocate()
            window = grown
        }
        let n = try source.read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: window[high...])))
        if n == 0 { ended = true; return false }
        high += n
        return true
    }
}
