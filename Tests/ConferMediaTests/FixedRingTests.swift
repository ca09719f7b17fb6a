import Testing
@testable import ConferMedia

@Suite struct FixedRingTests {
    /// First in, first out across the wrap; refuses when full; removeAll empties it and the
    /// ring keeps working from any head position.
    @Test func keepsOrderAcrossTheWrapAndRefusesWhenFull() {
        var ring = FixedRing<Int>(capacity: 3)
        #expect(ring.capacity == 3 && ring.isEmpty && !ring.isFull)
        var taken: [Int] = []
        var next = 0
        for round in 0 ..< 10 {
            while ring.append(next) { next += 1 }
            #expect(ring.isFull && ring.count == 3)
            for _ in 0 ..< (round % 3 + 1) { taken.append(ring.popFirst()!) }
        }
        while let value = ring.popFirst() { taken.append(value) }
        #expect(taken == Array(0 ..< next))
        #expect(ring.popFirst() == nil && ring.isEmpty)
        ring.append(7)
        ring.append(8)
        ring.removeAll()
        #expect(ring.isEmpty && ring.popFirst() == nil)
        ring.append(9)
        #expect(ring.popFirst() == 9)
        #expect(FixedRing<Int>(capacity: 0).capacity == 1)
    }
}
