import Testing
import ConferMedia
@testable import ConferRTP

@Test func transportFeedbackMatchesHandWrittenBytes() throws {
    // Base 100, three packets: 100 received 1 ms after the reference (small delta, 4 ticks),
    // 101 lost, 102 received 1 ms earlier than 100 (large delta, −4 ticks). One 2-bit
    // status chunk: 11 | 01 00 10 | 00 00 00 00 = 0xD200. 25 bytes pad to 28 with the P bit.
    let bytes = hex("""
        AF CD 00 06 | 11 22 33 44 | 55 66 77 88
        00 64 00 03 | 00 00 10 05
        D2 00 04 FF | FC 00 00 03
        """)
    let feedback = try RTCPTransportFeedback(
        senderSSRC: 0x1122_3344, mediaSSRC: 0x5566_7788, feedbackPacketCount: 5,
        packets: [
            .init(sequenceNumber: 100, arrival: .milliseconds(1025)),
            .init(sequenceNumber: 101, arrival: nil),
            .init(sequenceNumber: 102, arrival: .milliseconds(1024)),
        ])
    #expect(feedback.referenceTime == 16)
    #expect(feedback.receivedPackets == [.init(sequenceNumber: 100, deltaTicks: 4), .init(sequenceNumber: 102, deltaTicks: -4)])
    #expect(try feedback.serialized() == bytes)
    let packets = try RTCPCompound.parse(bytes)
    #expect(packets == [.transportFeedback(feedback)])
    #expect(feedback.packetResults == [
        .init(sequenceNumber: 100, arrival: .milliseconds(1025)),
        .init(sequenceNumber: 101, arrival: nil),
        .init(sequenceNumber: 102, arrival: .milliseconds(1024)),
    ])
}

@Test func chunksAreRunLengthOneBitAndTwoBitAsLibwebrtcPicks() throws {
    // 20 small deltas (a run), 14 alternating lost/small (a 1-bit vector), then large,
    // small, lost, large (a 2-bit vector of 4).
    var packets: [RTCPTransportFeedback.PacketResult] = []
    var time = Timestamp.milliseconds(640)
    func add(_ kind: Int) {
        let sequenceNumber = UInt16(packets.count)
        switch kind {
        case 0: packets.append(.init(sequenceNumber: sequenceNumber, arrival: nil))
        case 1: time += .milliseconds(1); packets.append(.init(sequenceNumber: sequenceNumber, arrival: time))
        default: time += .milliseconds(100); packets.append(.init(sequenceNumber: sequenceNumber, arrival: time))
        }
    }
    for _ in 0 ..< 20 { add(1) }
    for index in 0 ..< 14 { add(index % 2) }
    for kind in [2, 1, 0, 2] { add(kind) }
    let feedback = try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: packets)
    let bytes = try feedback.serialized()
    #expect(Array(bytes[20 ..< 26]) == [0x20, 0x14, 0x95, 0x55, 0xE4, 0x80])
    #expect(try RTCPCompound.parse(bytes) == [.transportFeedback(feedback)])
    #expect(feedback.packetResults == packets)
}

@Test func transportFeedbackRoundTripsLossesLargeDeltasAndReordering() throws {
    var random = SeededRandom(seed: 42)
    var packets: [RTCPTransportFeedback.PacketResult] = []
    var time = Timestamp.seconds(1000)
    var sequenceNumber: UInt16 = 65_400  // wraps during the run
    for index in 0 ..< 600 {
        sequenceNumber &+= 1 + (random.next() % 10 == 0 ? 1 : 0)  // occasional skipped number
        let roll = random.next() % 100
        if roll < 10 {
            packets.append(.init(sequenceNumber: sequenceNumber, arrival: nil))
            continue
        }
        // Mostly small steps; some late arrivals going backwards; one long stall.
        var step = TimeDelta(microseconds: 250 * Int64(random.next() % 40))
        if roll >= 90 { step = .zero - TimeDelta(microseconds: 250 * Int64(random.next() % 200)) }
        if index == 300 { step = .milliseconds(7000) }
        time += step
        packets.append(.init(sequenceNumber: sequenceNumber, arrival: time))
    }
    let feedback = try RTCPTransportFeedback(senderSSRC: 9, mediaSSRC: 8, feedbackPacketCount: 200, packets: packets)
    let parsed = try RTCPCompound.parse(try feedback.serialized())
    #expect(parsed == [.transportFeedback(feedback)])
    guard case .transportFeedback(let decoded) = parsed[0] else { return }
    #expect(decoded.baseSequenceNumber == packets[0].sequenceNumber)
    #expect(decoded.receivedPackets.contains { $0.deltaTicks < 0 })
    #expect(decoded.receivedPackets.contains { $0.deltaTicks == 28_000 })
    // Every arrival was a multiple of 250 µs and the reference a multiple of 64 ms, so the
    // reconstruction is exact; numbers skipped in the input come back as lost.
    let byNumber = Dictionary(uniqueKeysWithValues: packets.map { ($0.sequenceNumber, $0.arrival) })
    for result in decoded.packetResults {
        #expect(result.arrival == (byNumber[result.sequenceNumber] ?? nil))
    }
    #expect(decoded.packetStatusCount == Int(packets.last!.sequenceNumber &- packets[0].sequenceNumber) + 1)
}

@Test func arbitraryArrivalTimesAreRoundedWithoutDrift() throws {
    var random = SeededRandom(seed: 3)
    var time = Timestamp(microseconds: 5_000_017)
    var packets: [RTCPTransportFeedback.PacketResult] = []
    for number in 0 ..< 500 {
        time += TimeDelta(microseconds: Int64(random.next() % 3000))
        packets.append(.init(sequenceNumber: UInt16(number), arrival: time))
    }
    let feedback = try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: packets)
    for (original, decoded) in zip(packets, feedback.packetResults) {
        let error = (decoded.arrival! - original.arrival!).microseconds
        #expect(abs(error) <= 125)
    }
}

@Test func unrepresentableFeedbackIsATypedError() {
    #expect(throws: RTCPError.notRepresentable("transport-cc delta of 36000 ticks for 2")) {
        try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [
            .init(sequenceNumber: 1, arrival: .milliseconds(0)), .init(sequenceNumber: 2, arrival: .milliseconds(9000)),
        ])
    }
    // Going back from the base is 65535 numbers forwards: one too many for the count field.
    #expect(throws: RTCPError.notRepresentable("transport-cc sequence number 1 is out of order or too far from the base")) {
        try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [
            .init(sequenceNumber: 2, arrival: nil), .init(sequenceNumber: 1, arrival: nil),
        ])
    }
    #expect(throws: RTCPError.notRepresentable("transport-cc sequence number 3 is out of order or too far from the base")) {
        try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [
            .init(sequenceNumber: 1, arrival: nil), .init(sequenceNumber: 5, arrival: nil), .init(sequenceNumber: 3, arrival: nil),
        ])
    }
    #expect(throws: RTCPError.notRepresentable("transport-cc feedback needs at least one packet")) {
        try RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, packets: [])
    }
}

@Test func malformedTransportFeedbackIsRejected() {
    // A 2-bit chunk using reserved symbol 3 for the first packet.
    #expect(rtcpError(hex("8F CD 00 05 | 00 00 00 01 | 00 00 00 02 | 00 00 00 01 | 00 00 00 00 | F0 00 00 00"))
        == .reservedStatusSymbol(offset: 20))
    // Status count 3 but the chunks cover 1 (a run of 1, a run of 0), then the packet ends.
    #expect(rtcpError(hex("8F CD 00 05 | 00 00 00 01 | 00 00 00 02 | 00 00 00 03 | 00 00 00 00 | 00 01 00 00"))
        == .truncatedPacket(packetType: 205, offset: 24))
    // One received packet with a large delta whose second byte is missing.
    #expect(rtcpError(hex("AF CD 00 05 | 00 00 00 01 | 00 00 00 02 | 00 00 00 01 | 00 00 00 00 | 40 01 00 02"))
        == .truncatedPacket(packetType: 205, offset: 22))
}
