// Packet status chunks of transport-wide CC feedback
// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1–§3.1.4).

/// The status symbol of one packet: how its receive delta is written.
enum TransportFeedbackSymbol {
    /// Packet not received: no delta.
    static let notReceived: UInt8 = 0
    /// Received with a delta of 0–63.75 ms: one unsigned byte of 250 µs ticks.
    static let smallDelta: UInt8 = 1
    /// Received with a larger or negative delta: two signed bytes of 250 µs ticks.
    static let largeDelta: UInt8 = 2
    /// Reserved; a packet using it is malformed.
    static let reserved: UInt8 = 3

    /// The symbol a received packet with `ticks` needs.
    static func forDelta(_ ticks: Int16) -> UInt8 { (0 ... 255).contains(ticks) ? smallDelta : largeDelta }
}

/// Packs status symbols into 16-bit chunks the way libwebrtc does, so Confer's feedback is
/// what peers expect: keep up to 14 pending symbols and emit a run-length chunk while they
/// are all equal, a 1-bit vector when 14 fit without large deltas, else a 2-bit vector of 7.
///
/// Pending symbols live in one integer (2 bits each), so encoding allocates nothing.
struct TransportFeedbackChunkEncoder {
    private static let twoBitCapacity = 7
    private static let oneBitCapacity = 14
    private static let runLengthCapacity = 0x1FFF

    private var symbols: UInt32 = 0
    private var size = 0
    private var allSame = true
    private var hasLarge = false

    var isEmpty: Bool { size == 0 }
    private var first: UInt8 { UInt8(symbols & 3) }
    private func symbol(_ index: Int) -> UInt16 { UInt16((symbols >> (2 * index)) & 3) }

    func canAdd(_ symbol: UInt8) -> Bool {
        if size < Self.twoBitCapacity { return true }
        if size < Self.oneBitCapacity, !hasLarge, symbol != TransportFeedbackSymbol.largeDelta { return true }
        if size < Self.runLengthCapacity, allSame, first == symbol { return true }
        return false
    }

    mutating func add(_ symbol: UInt8) {
        if size < Self.oneBitCapacity { symbols |= UInt32(symbol) << (2 * size) }
        size += 1
        allSame = allSame && symbol == first
        hasLarge = hasLarge || symbol == TransportFeedbackSymbol.largeDelta
    }

    /// The chunk to write when the next symbol cannot be added.
    mutating func emit() -> UInt16 {
        if allSame {
            defer { clear() }
            return runLength()
        }
        if size == Self.oneBitCapacity {
            defer { clear() }
            return oneBit()
        }
        let chunk = twoBit(count: Self.twoBitCapacity)
        symbols >>= 2 * UInt32(Self.twoBitCapacity)
        size -= Self.twoBitCapacity
        allSame = true
        hasLarge = false
        for index in 0 ..< size {
            allSame = allSame && UInt8(symbol(index)) == first
            hasLarge = hasLarge || UInt8(symbol(index)) == TransportFeedbackSymbol.largeDelta
        }
        return chunk
    }

    /// The chunk holding whatever is pending at the end.
    func last() -> UInt16 {
        if allSame { return runLength() }
        if size <= Self.twoBitCapacity { return twoBit(count: size) }
        return oneBit()
    }

    private mutating func clear() {
        symbols = 0
        size = 0
        allSame = true
        hasLarge = false
    }

    private func runLength() -> UInt16 { UInt16(first) << 13 | UInt16(size) }

    private func oneBit() -> UInt16 {
        var chunk: UInt16 = 0x8000
        for index in 0 ..< size { chunk |= symbol(index) << (Self.oneBitCapacity - 1 - index) }
        return chunk
    }

    private func twoBit(count: Int) -> UInt16 {
        var chunk: UInt16 = 0xC000
        for index in 0 ..< count { chunk |= symbol(index) << (2 * (Self.twoBitCapacity - 1 - index)) }
        return chunk
    }
}
