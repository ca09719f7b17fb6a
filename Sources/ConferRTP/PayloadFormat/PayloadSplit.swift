/// How a payloader cuts `total` bytes into the fewest packets, with sizes as equal as it can.
///
/// libwebrtc's packetizers balance packet sizes rather than filling each packet to the
/// limit and sending a runt last: equal packets lose less to a single drop and pace more
/// evenly. The first packet may carry a larger descriptor (VP9's scalability structure),
/// so it is given that many fewer bitstream bytes and the whole packets come out even.
struct PayloadSplit {
    /// How many packets.
    let count: Int
    /// Bitstream bytes in the first packet.
    let first: Int
    /// Bitstream bytes in every later packet, before the remainder is spread.
    private let restBase: Int
    /// How many of the last packets carry one byte more than `restBase`.
    private let restRemainder: Int

    /// Splits `total` (> 0) bytes when the first packet has room for `firstCapacity` bytes
    /// and every later one for `restCapacity`; nil when a needed capacity is below one byte.
    init?(total: Int, firstCapacity: Int, restCapacity: Int) {
        guard total > 0, firstCapacity >= 1 else { return nil }
        if total <= firstCapacity {
            count = 1; first = total; restBase = 0; restRemainder = 0
            return
        }
        guard restCapacity >= 1 else { return nil }
        let n = 1 + (total - firstCapacity + restCapacity - 1) / restCapacity
        // Spread total plus the first packet's handicap evenly, then take the handicap back.
        let handicap = restCapacity - firstCapacity
        let even = total + handicap
        // The remainder's extra bytes go to the last packets, so the first gets `base`.
        var firstSize = even / n - handicap
        if firstSize < 1 || firstSize > firstCapacity {
            // A tiny limit with a large first descriptor: give the first packet what must go there.
            firstSize = max(1, total - (n - 1) * restCapacity)
        }
        count = n
        first = firstSize
        let rest = total - firstSize
        restBase = rest / (n - 1)
        restRemainder = rest % (n - 1)
    }

    /// Bitstream bytes in packet `index` (0-based).
    func size(ofPacket index: Int) -> Int {
        if index == 0 { return first }
        return restBase + (index >= count - restRemainder ? 1 : 0)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Copies `source` to `offset`; both ranges are known to fit (callers size `self` first).
    @inline(__always)
    func copy(_ source: UnsafeRawBufferPointer, to offset: Int) {
        guard source.count > 0, let destination = baseAddress, let from = source.baseAddress else { return }
        (destination + offset).copyMemory(from: from, byteCount: source.count)
    }
}

extension Array where Element == UInt8 {
    /// Appends raw bytes with one copy. `append(contentsOf:)` given an
    /// `UnsafeRawBufferPointer` goes element by element (it has no contiguous-storage fast
    /// path), about 1 ns a byte; a typed buffer takes the memcpy path.
    @inline(__always)
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        bytes.withMemoryRebound(to: UInt8.self) { append(contentsOf: $0) }
    }
}
