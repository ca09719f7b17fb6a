import Testing
@testable import ConferCongestion

/// The rules that pick one encode's bitrate and each receiver's temporal layers.
@Suite struct TemporalLayerAllocatorTests {
    let allocator = TemporalLayerAllocator(configuration: .init(layers: 3))
    let strong = 1_400_000

    @Test func oneWeakReceiverTakesTheBaseLayerAndTheRestSetTheBitrate() throws {
        var budgets = Array(repeating: strong, count: 8)
        budgets[5] = 500_000
        let allocation = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000)
        // The base layer is 40 %: the weak receiver's 500 kbit/s carries it up to 1.25 Mbit/s,
        // below the others' 1.4 Mbit/s, so that sets the bitrate.
        #expect(allocation.bitrate == 1_250_000)
        #expect(allocation.layers == [2, 2, 2, 2, 2, 0, 2, 2])
        #expect(allocation.baseLayerShare == 0.4)
        #expect(allocation.weakestReducedBudget == 500_000)
        // Every receiver's layers fit its budget.
        for (budget, layer) in zip(budgets, allocation.layers) {
            #expect(allocator.cumulativeBitrate(through: Int(layer), of: allocation.bitrate, baseShare: 0.4) <= budget)
        }
    }

    @Test func aReceiverWhoseBudgetAffordsTheMiddleLayerGetsIt() {
        var budgets = Array(repeating: strong, count: 8)
        budgets[0] = 500_000
        budgets[1] = 900_000    // the middle layer is 60 % of 1.25 Mbit/s, 750 kbit/s
        let allocation = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000)
        #expect(allocation.bitrate == 1_250_000)
        #expect(allocation.layers[0] == 0 && allocation.layers[1] == 1 && allocation.layers[2] == 2)
    }

    @Test func withoutEnoughGainNobodyIsReduced() {
        var budgets = Array(repeating: 1_000_000, count: 8)
        budgets[3] = 900_000    // reducing it would win 11 %, below the 20 % asked for
        let allocation = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000)
        #expect(allocation.bitrate == 900_000)
        #expect(allocation.layers.allSatisfy { $0 == 2 })
        #expect(allocation.baseLayerShare == nil && allocation.weakestReducedBudget == nil)
    }

    /// Four of seven on weak links: reducing all four would let the bitrate reach 750 kbit/s,
    /// but only three (a minority) may be reduced, and then the fourth sets it anyway.
    @Test func onlyAMinorityIsReduced() {
        let budgets = [300_000, 300_000, 300_000, 300_000, 1_400_000, 1_400_000, 1_400_000]
        let allocation = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000)
        #expect(allocation.bitrate == 300_000)
        #expect(allocation.layers.allSatisfy { $0 == 2 })
    }

    @Test func aReceiverThatMayNotBeReducedBoundsTheBitrate() {
        var budgets = Array(repeating: strong, count: 8)
        budgets[2] = 500_000
        let blocked = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000,
                                         reducible: [true, true, false, true, true, true, true, true])
        #expect(blocked.bitrate == 500_000 && blocked.layers.allSatisfy { $0 == 2 })
    }

    @Test func switchingUpNeedsHeadroomButStayingDoesNot() {
        var budgets = Array(repeating: strong, count: 8)
        budgets[0] = 500_000
        budgets[1] = 780_000    // 60 % of 1.25 M = 750 k: enough to stay, not to switch up (825 k)
        let staying = allocator.allocate(budgets: budgets, current: [0, 1, 2, 2, 2, 2, 2, 2], minimum: 150_000, maximum: 1_500_000)
        #expect(staying.layers[1] == 1)
        let climbing = allocator.allocate(budgets: budgets, current: [0, 0, 2, 2, 2, 2, 2, 2], minimum: 150_000, maximum: 1_500_000)
        #expect(climbing.layers[1] == 0)
    }

    /// A base layer that costs more than its share (measured) tightens the weak receiver's
    /// bound, and a middle layer that costs more keeps a receiver from it.
    @Test func measuredCostsOverrideTheTargetSplit() {
        var budgets = Array(repeating: strong, count: 8)
        budgets[0] = 500_000
        #expect(allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000, measured: [0.5, 0.8, 1]).bitrate
                    == 1_000_000)    // 500 k / 0.5
        budgets[1] = 820_000
        let targets = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000)
        #expect(targets.bitrate == 1_250_000 && targets.layers[1] == 1)    // 750 k of the target split fits
        let measured = allocator.allocate(budgets: budgets, minimum: 150_000, maximum: 1_500_000, measured: [0.4, 0.8, 1])
        #expect(measured.bitrate == 1_250_000 && measured.layers[1] == 0)  // 1 M measured does not
    }

    @Test func oneLayerFollowsTheWeakest() {
        let single = TemporalLayerAllocator(configuration: .init(layers: 1))
        let allocation = single.allocate(budgets: [1_400_000, 300_000, 900_000], minimum: 150_000, maximum: 1_500_000)
        #expect(allocation.bitrate == 300_000 && allocation.layers == [0, 0, 0])
        #expect(single.allocate(budgets: [], minimum: 150_000, maximum: 1_500_000).bitrate == 1_500_000)
    }
}
