import Testing
@testable import ConferCongestion

/// The rules that split receivers between a composite's two encodes.
@Suite struct SimulcastAllocatorTests {
    let allocator = SimulcastAllocator()
    let strong = 1_500_000
    let minimum = 150_000, maximum = 1_500_000

    func allocate(_ budgets: [Int], current: [Bool]? = nil, movable: [Bool]? = nil) -> SimulcastAllocator.Allocation {
        allocator.allocate(budgets: budgets, current: current ?? budgets.map { _ in false },
                           movable: movable ?? budgets.map { _ in true }, minimum: minimum, maximum: maximum)
    }

    @Test func aWeakReceiverGetsTheSecondEncodeAndTheRestSetTheFirst() {
        var budgets = Array(repeating: strong, count: 9)
        budgets[8] = 250_000
        let allocation = allocate(budgets)
        #expect(allocation.bitrate == strong)
        #expect(allocation.secondBitrate == 250_000)
        #expect(allocation.second == Array(repeating: false, count: 8) + [true])
    }

    @Test func equalOrNearlyEqualBudgetsShareOneEncode() {
        let equal = allocate(Array(repeating: 800_000, count: 6))
        #expect(equal.secondBitrate == nil && equal.bitrate == 800_000 && !equal.second.contains(true))
        // 1.3 against 1.5 Mbit/s: the eight would gain 15 % each, 14 % on the mean of nine,
        // less than starting a second encode asks (21 %).
        var budgets = Array(repeating: strong, count: 9)
        budgets[2] = 1_300_000
        let near = allocate(budgets)
        #expect(near.secondBitrate == nil && near.bitrate == 1_300_000)
    }

    @Test func theSplitFavoursTheManyWhenTwoAreWeakAtDifferentRates() {
        var budgets = Array(repeating: strong, count: 9)
        budgets[0] = 300_000
        budgets[1] = 700_000
        let allocation = allocate(budgets)
        // 7 at 1.5 Mbit/s and two at 300 kbit/s beats 8 at 700 kbit/s and one at 300.
        #expect(allocation.second[0] && allocation.second[1])
        #expect(allocation.bitrate == strong && allocation.secondBitrate == 300_000)
        // With the 700 kbit/s receiver nearly strong, it stays on the first encode.
        budgets[1] = 1_400_000
        let other = allocate(budgets)
        #expect(other.second[0] && !other.second[1] && other.bitrate == 1_400_000)
    }

    @Test func twoReceiversEachGetTheirOwnRate() {
        let allocation = allocate([1_200_000, 300_000])
        #expect(allocation.second == [false, true])
        #expect(allocation.bitrate == 1_200_000 && allocation.secondBitrate == 300_000)
    }

    @Test func aSmallGainDoesNotMoveAnyoneAndFixedReceiversStay() {
        var budgets = Array(repeating: strong, count: 9)
        budgets[8] = 250_000
        let current = Array(repeating: false, count: 8) + [true]
        // Its budget rose to 1.3 Mbit/s: the split still gains 14 % on the mean, above the 9.5 % it must keep.
        budgets[8] = 1_300_000
        let kept = allocate(budgets, current: current)
        #expect(kept.second == current && kept.secondBitrate == 1_300_000)
        // Back at full rate, the split gains nothing: it rejoins the first encode.
        budgets[8] = strong
        #expect(allocate(budgets, current: current).second == Array(repeating: false, count: 9))
        // A receiver that may not move keeps its encode however its budget changed.
        budgets[8] = 250_000
        let fixed = allocate(budgets, movable: Array(repeating: true, count: 8) + [false])
        #expect(!fixed.second.contains(true) && fixed.bitrate == 250_000)
    }

    @Test func bitratesStayWithinTheBounds() {
        let allocation = allocate([3_000_000, 3_000_000, 20_000])
        #expect(allocation.bitrate == maximum && allocation.secondBitrate == minimum)
        #expect(allocation.second == [false, false, true])
        #expect(allocate([]).second.isEmpty)
    }
}
