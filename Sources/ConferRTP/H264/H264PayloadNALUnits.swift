import ConferMedia

/// Walks the NAL units of an H.264 access unit, from ``EncodedFrame/nalUnits`` when the
/// encoder gave them, or else by finding Annex-B start codes in the data.
struct H264NALUnits {
    private let data: UnsafeRawBufferPointer
    private let ranges: [Range<Int>]
    private var index = 0
    /// Where the Annex-B scan resumes.
    private var position = 0

    init(data: UnsafeRawBufferPointer, ranges: [Range<Int>]) {
        self.data = data
        self.ranges = ranges
        if ranges.isEmpty { position = Self.startCodeEnd(in: data, from: 0) ?? 0 }
    }

    /// The next non-empty NAL unit's range in the data, nil at the end. Given ranges are
    /// returned as they are; ``validate()`` checks them first.
    mutating func next() -> Range<Int>? {
        if !ranges.isEmpty {
            while index < ranges.count {
                let range = ranges[index]
                index += 1
                if !range.isEmpty { return range }
            }
            return nil
        }
        while position < data.count {
            let start = position
            let nextStart = Self.startCode(in: data, from: start)
            var end = nextStart ?? data.count
            position = nextStart.map { Self.startCodeEnd(in: data, from: $0) ?? data.count } ?? data.count
            // Zero bytes before a start code are trailing_zero_8bits or a 4-byte start code's lead.
            while end > start, data[end - 1] == 0 { end -= 1 }
            if end > start { return start..<end }
        }
        return nil
    }

    /// Checks the given ranges lie inside the data and every NAL unit has a type RTP can carry.
    func validate() throws(PayloadError) {
        var units = self
        var any = false
        for range in ranges where range.lowerBound < 0 || range.upperBound > data.count {
            throw PayloadError(.outOfBounds, codec: .h264, field: "EncodedFrame.nalUnits range", offset: range.lowerBound)
        }
        while let range = units.next() {
            any = true
            let type = data[range.lowerBound] & 0x1F
            if type == 0 || type >= 24 {
                throw PayloadError(.invalid, codec: .h264, field: "NAL unit type \(type) (not a single NAL unit type)",
                                   offset: range.lowerBound)
            }
        }
        if !any { throw PayloadError(.invalid, codec: .h264, field: "access unit (no NAL units)", offset: 0) }
    }

    /// The offset of the next 00 00 01 at or after `from`.
    private static func startCode(in data: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        while i + 2 < data.count {
            if data[i + 2] > 1 {
                i += 3   // no start code can end at i + 2, nor include it
            } else if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
                return i
            } else {
                i += 1
            }
        }
        return nil
    }

    /// The offset just after the start code found at or after `from`.
    private static func startCodeEnd(in data: UnsafeRawBufferPointer, from: Int) -> Int? {
        startCode(in: data, from: from).map { $0 + 3 }
    }
}
