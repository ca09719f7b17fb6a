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

    /// With temporal layers in the first encode, a receiver that needs only its base layer
    /// (40 % here) follows an encode of 2.5 × its budget: the middle link stays on the
    /// first encode at fewer layers, and only the link too weak for the base layer gets the
    /// second. Without the shares, both would move.
    @Test func withLayersOnlyALinkTooWeakForTheBaseLayerGetsTheSecondEncode() {
        var budgets = Array(repeating: strong, count: 9)
        budgets[0] = 250_000
        budgets[1] = 700_000
        let plain = allocate(budgets)
        #expect(plain.second[0] && plain.second[1] && plain.secondBitrate == 250_000)
        let shares = Array(repeating: 0.4, count: 9)
        let layered = allocator.allocate(budgets: budgets, current: Array(repeating: false, count: 9),
                                         movable: Array(repeating: true, count: 9), minimum: minimum, maximum: maximum,
                                         baseShares: shares)
        #expect(layered.second == [true] + Array(repeating: false, count: 8))
        // The first encode as fast as the 700 kbit/s receiver's base layer allows; the
        // strong ones cap it at the maximum.
        #expect(layered.bitrate == maximum && layered.secondBitrate == 250_000)
        // 250 kbit/s alone: its base layer would hold the encode to 625 kbit/s for all.
        let alone = allocator.allocate(budgets: [strong, strong, strong, 250_000], current: [false, false, false, false],
                                       movable: [true, true, true, true], minimum: minimum, maximum: maximum,
                                       baseShares: [0.4, 0.4, 0.4, 0.4])
        #expect(alone.second == [false, false, false, true])
        // A receiver whose base layer did not fit counts at the whole encode (share 1): it
        // moves where a share of 0.4 keeps it.
        let keptBudgets = [strong, strong, strong, 900_000]
        let kept = allocator.allocate(budgets: keptBudgets, current: [false, false, false, false], movable: [true, true, true, true],
                                      minimum: minimum, maximum: maximum, baseShares: [0.4, 0.4, 0.4, 0.4])
        #expect(!kept.second.contains(true) && kept.bitrate == maximum)
        let moved = allocator.allocate(budgets: keptBudgets, current: [false, false, false, false], movable: [true, true, true, true],
                                       minimum: minimum, maximum: maximum, baseShares: [0.4, 0.4, 0.4, 1])
        #expect(moved.second == [false, false, false, true] && moved.secondBitrate == 900_000)
    }

    @Test func bitratesStayWithinTheBounds() {
        let allocation = allocate([3_000_000, 3_000_000, 20_000])
        #expect(allocation.bitrate == maximum && allocation.secondBitrate == minimum)
        #expect(allocation.second == [false, false, true])
        #expect(allocate([]).second.isEmpty)
    }
}
