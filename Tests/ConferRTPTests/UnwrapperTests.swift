import Testing
@testable import ConferRTP

@Test func sequenceNumbersUnwrapForwardsAcrossTheWrap() {
    var unwrapper = SequenceUnwrapper()
    #expect([65534, 65535, 0, 1, 2].map { unwrapper.unwrap($0) } == [65534, 65535, 65536, 65537, 65538])
    #expect(unwrapper.lastUnwrappedValue == 65538)
}

@Test func manyWrapsAccumulateExactly() {
    var unwrapper = SequenceUnwrapper()
    for step in 0 ..< 200_000 {
        let value = Int64(step) * 1000
        #expect(unwrapper.unwrap(UInt16(truncatingIfNeeded: value)) == value)
    }
}

@Test func reorderingAroundTheWrapLandsBehindItsNeighbours() {
    var unwrapper = SequenceUnwrapper()
    // 0 arrives after 1; 65534 arrives after the counter has wrapped.
    #expect([65535, 1, 0, 65534, 2, 3].map { unwrapper.unwrap($0) } == [65535, 65537, 65536, 65534, 65538, 65539])
}

@Test func goingBackwardsFromTheStartGoesNegative() {
    var unwrapper = SequenceUnwrapper()
    #expect(unwrapper.unwrap(1) == 1)
    #expect(unwrapper.unwrap(65535) == -1)
    #expect(unwrapper.unwrap(0) == 0)
}

@Test func aHalfRangeStepCountsForwardOnlyWhenTheRawValueGrew() {
    var forward = SequenceUnwrapper()
    _ = forward.unwrap(0)
    #expect(forward.unwrap(32768) == 32768)
    var backward = SequenceUnwrapper()
    _ = backward.unwrap(32768)
    #expect(backward.unwrap(0) == 0)
}

@Test func peekingDoesNotMoveTheReferenceAndResetForgets() {
    var unwrapper = SequenceUnwrapper()
    #expect(unwrapper.peekUnwrap(5) == 5)
    _ = unwrapper.unwrap(65535)
    #expect(unwrapper.peekUnwrap(3) == 65539)
    #expect(unwrapper.peekUnwrap(65530) == 65530)
    #expect(unwrapper.unwrap(0) == 65536)
    unwrapper.reset()
    #expect(unwrapper.lastUnwrappedValue == nil)
    #expect(unwrapper.unwrap(7) == 7)
}

@Test func timestampsUnwrapTo64Bits() {
    var unwrapper = TimestampUnwrapper()
    let values: [UInt32] = [0xFFFF_F000, 0xFFFF_FF00, 0x0000_0100, 0xFFFF_FFF0, 0x0000_2000]
    #expect(values.map { unwrapper.unwrap($0) } == [0xFFFF_F000, 0xFFFF_FF00, 0x1_0000_0100, 0xFFFF_FFF0, 0x1_0000_2000])
    // Forwards through several wraps in steps of 2^30.
    var stepper = TimestampUnwrapper()
    for step in 0 ..< 20 {
        let value = Int64(step) << 30
        #expect(stepper.unwrap(UInt32(truncatingIfNeeded: value)) == value)
    }
}
