/// Which sequence numbers have arrived: finds duplicates and counts what was expected.
///
/// Duplicates are found in a window of the last 1024 numbers below the highest (as
/// RTPReceiverStatistics does); a number further back cannot be told apart from a late
/// first copy and counts as received. Expected packets run from the lowest to the highest
/// number seen, summed over every stream epoch (a restart closes one), so the loss
/// expected − received never counts a duplicate and never goes negative.
struct AudioJitterBufferSequenceTracker {
    private static let windowSize: Int64 = 1024
    private var bits: [UInt64]
    /// The highest unwrapped sequence number received in this epoch.
    private(set) var highest: Int64?
    private var lowest: Int64 = 0
    private var closedExpected: Int64 = 0
    /// Distinct packets counted, over every epoch.
    private(set) var received: Int64 = 0

    init() { bits = Array(repeating: 0, count: Int(Self.windowSize / 64)) }

    /// Packets expected so far, over every epoch.
    var expected: Int64 { closedExpected + (highest.map { $0 - lowest + 1 } ?? 0) }

    /// Packets expected but not received; never negative.
    var lost: Int64 { max(0, expected - received) }

    /// Records `sequence`; false when it is a duplicate of one in the window.
    mutating func record(_ sequence: Int64) -> Bool {
        guard let top = highest else {
            highest = sequence
            lowest = sequence
            set(sequence)
            received += 1
            return true
        }
        if sequence > top {
            // Clear the slots the window slides over: they held numbers 1024 below.
            let advance = sequence - top
            if advance >= Self.windowSize {
                for index in bits.indices { bits[index] = 0 }
            } else {
                var number = top + 1
                while number <= sequence { clear(number); number += 1 }
            }
            highest = sequence
        } else if top - sequence < Self.windowSize {
            if isSet(sequence) { return false }
        }
        lowest = min(lowest, sequence)
        set(sequence)
        received += 1
        return true
    }

    /// Closes the epoch: what it expected is kept, and the next number starts a new one.
    mutating func closeEpoch() {
        closedExpected = expected
        highest = nil
        for index in bits.indices { bits[index] = 0 }
    }

    private func slot(_ sequence: Int64) -> (word: Int, bit: UInt64) {
        let position = Int(UInt64(bitPattern: sequence) % UInt64(Self.windowSize))
        return (position / 64, 1 << UInt64(position % 64))
    }

    private func isSet(_ sequence: Int64) -> Bool {
        let (word, bit) = slot(sequence)
        return bits[word] & bit != 0
    }

    private mutating func set(_ sequence: Int64) {
        let (word, bit) = slot(sequence)
        bits[word] |= bit
    }

    private mutating func clear(_ sequence: Int64) {
        let (word, bit) = slot(sequence)
        bits[word] &= ~bit
    }
}
