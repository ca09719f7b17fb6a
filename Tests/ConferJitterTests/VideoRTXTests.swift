import ConferJitter
import ConferMedia
import ConferRTP
import Testing

/// Parses `bytes` and runs `body` on the view, passing errors through.
@discardableResult
func withPacketView<R>(_ bytes: [UInt8], _ body: (RTPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { try body(try RTPPacketView($0)) }
}

@Suite("RTX and the packet history")
struct VideoRTXTests {
    static func packet(sequenceNumber: UInt16, payload: [UInt8], marker: Bool = true, padding: Int = 0,
                       extensions: [RTPHeaderExtension] = []) throws -> [UInt8] {
        let header = RTPHeader(payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 0xDEAD_BEEF, ssrc: 0xAAAA_0001,
                               marker: marker, csrcs: [7, 8], extensions: extensions)
        return try RTPPacket(header: header, payload: payload, paddingSize: padding).serialized()
    }

    @Test("an RTX packet carries the OSN and the original payload, keeps timestamp, marker, CSRCs and extensions, drops padding")
    func roundTrip() throws {
        let original = try Self.packet(sequenceNumber: 0xBEEF, payload: [1, 2, 3, 4, 5], padding: 4,
                                       extensions: [RTPHeaderExtension(id: 3, data: [9, 9])])
        let rtx = try withPacketView(original) { view in
            try RTXPacket.make(retransmissionOf: view, ssrc: 0xBBBB_0002, payloadType: 97, sequenceNumber: 0x0102)
        }
        let parsed = try RTPPacket(parsing: rtx)
        #expect(parsed.header.ssrc == 0xBBBB_0002 && parsed.header.payloadType == 97 && parsed.header.sequenceNumber == 0x0102)
        #expect(parsed.header.timestamp == 0xDEAD_BEEF && parsed.header.marker)
        #expect(parsed.header.csrcs == [7, 8] && parsed.header.extensionData(id: 3) == [9, 9])
        #expect(parsed.paddingSize == 0)
        #expect(parsed.payload == [0xBE, 0xEF, 1, 2, 3, 4, 5])

        try withPacketView(rtx) { view in
            let decoded = try RTXPacket(view)
            #expect(decoded.originalSequenceNumber == 0xBEEF)
            #expect(Array(decoded.originalPayload) == [1, 2, 3, 4, 5])
            let restored = decoded.original(ssrc: 0xAAAA_0001, payloadType: 96)
            #expect(restored.header.sequenceNumber == 0xBEEF && restored.header.ssrc == 0xAAAA_0001)
            #expect(restored.payload == [1, 2, 3, 4, 5] && restored.header.csrcs == [7, 8])
        }
    }

    @Test("bad RTX input is a typed error: no OSN, a buffer too small, a payload type above 127")
    func badInput() throws {
        let short = try RTPPacket(header: RTPHeader(payloadType: 97, sequenceNumber: 1, timestamp: 0, ssrc: 1), payload: [7]).serialized()
        try withPacketView(short) { view in
            #expect(throws: RTXError.missingOriginalSequenceNumber(payloadSize: 1)) { try RTXPacket(view) }
        }
        let original = try Self.packet(sequenceNumber: 5, payload: [1, 2, 3])
        try withPacketView(original) { view in
            var small = [UInt8](repeating: 0, count: 10)
            #expect(throws: RTXError.bufferTooSmall(needed: RTXPacket.size(for: view), available: 10)) {
                try small.withUnsafeMutableBytes { buffer in
                    _ = try RTXPacket.write(retransmissionOf: view, ssrc: 1, payloadType: 97, sequenceNumber: 0, into: buffer)
                }
            }
            #expect(throws: RTXError.payloadTypeOutOfRange(200)) {
                _ = try RTXPacket.make(retransmissionOf: view, ssrc: 1, payloadType: 200, sequenceNumber: 0)
            }
        }
    }

    @Test("the history answers a NACK with RTX packets numbered on their own, once per RTT, and not for what it lost")
    func historyAnswersAndThrottles() throws {
        var history = RTPPacketHistory(configuration: .init(capacity: 16, maxAge: .seconds(1)), rtxSSRC: 0xBBBB_0002,
                                       rtxPayloadType: 97, firstRTXSequenceNumber: 65_535)
        for number in 0 ..< 20 as Range<UInt16> {
            try history.store(try Self.packet(sequenceNumber: 1000 &+ number, payload: [UInt8(number)]), sentAt: .milliseconds(Int64(number)))
        }
        #expect(history.storedPacketCount == 16)
        let rtt = TimeDelta.milliseconds(100)
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 0xAAAA_0001, lostSequenceNumbers: [1010, 1012, 1001])
        let first = history.retransmissions(answering: nack, now: .milliseconds(50), rtt: rtt)
        // 1001 was overwritten by 1017 in the 16-slot ring.
        #expect(first.count == 2)
        let numbers = try first.map { try RTPPacket(parsing: $0).header.sequenceNumber }
        #expect(numbers == [65_535, 0])   // RTX sequence numbers, wrapping
        let osns = try first.map { bytes in try withPacketView(bytes) { try RTXPacket($0).originalSequenceNumber } }
        #expect(osns == [1010, 1012])
        // Asked again within an RTT: throttled. After an RTT: resent.
        #expect(history.retransmissions(answering: nack, now: .milliseconds(120), rtt: rtt).isEmpty)
        #expect(history.retransmissions(answering: nack, now: .milliseconds(150), rtt: rtt).count == 2)
        // Past the history's age limit nothing is resent.
        #expect(history.retransmissions(answering: nack, now: .seconds(2), rtt: rtt).isEmpty)
        let stats = history.statistics
        #expect(stats.retransmissionsSent == 4 && stats.requestsThrottled == 2)
        #expect(stats.requestsUnavailable == 3 + 3)
        #expect(history.nextRTXSequenceNumber == 3)
    }

    @Test("a budget stops the history's answer part way, and what it refused is still there for a later NACK")
    func historyKeepsWithinABudget() throws {
        var history = RTPPacketHistory(rtxSSRC: 0xBBBB_0002, rtxPayloadType: 97, firstRTXSequenceNumber: 0)
        for number in 0 ..< 5 as Range<UInt16> {
            try history.store(try Self.packet(sequenceNumber: number, payload: [UInt8](repeating: 1, count: 988)),
                              sentAt: .milliseconds(Int64(number)))
        }
        var sizes: [Int] = []
        // Each RTX packet is 20 (two CSRCs) + 2 + 988 = 1,010 bytes: 2,500 bytes take two.
        history.retransmit(0 ..< 5, now: .milliseconds(10), rtt: .milliseconds(100), budget: 2_500) { sizes.append($0.count) }
        #expect(sizes == [1_010, 1_010])
        #expect(history.statistics.requestsOverBudget == 3)
        sizes = []
        history.retransmit(0 ..< 5, now: .milliseconds(20), rtt: .milliseconds(100)) { sizes.append($0.count) }
        #expect(sizes.count == 3 && history.statistics.requestsThrottled == 2)
        #expect(history.nextRTXSequenceNumber == 5)
    }

    @Test("the retransmission limiter allows the target bitrate over the last half second, and forgets older sends")
    func retransmissionLimiterWindow() {
        var limiter = RetransmissionRateLimiter()
        // 800 kbit/s over 500 ms: 50,000 bytes.
        #expect(limiter.budget(at: .seconds(10), bitrate: 800_000) == 50_000)
        limiter.record(30_000, at: .seconds(10))
        limiter.record(15_000, at: .seconds(10.3))
        #expect(limiter.budget(at: .seconds(10.3), bitrate: 800_000) == 5_000)
        #expect(limiter.budget(at: .seconds(10.3), bitrate: 400_000) == 0)
        // The first send leaves the window after 500 ms (its 50 ms bucket), the second later.
        #expect(limiter.budget(at: .seconds(10.55), bitrate: 800_000) == 35_000)
        #expect(limiter.budget(at: .seconds(10.85), bitrate: 800_000) == 50_000)
        // A long silence clears everything; times before the epoch are counted as well.
        limiter.record(50_000, at: .seconds(11))
        #expect(limiter.budget(at: .seconds(100), bitrate: 800_000) == 50_000)
        var early = RetransmissionRateLimiter()
        early.record(10_000, at: .milliseconds(-120))
        #expect(early.budget(at: .milliseconds(-100), bitrate: 800_000) == 40_000)
        #expect(early.budget(at: .milliseconds(400), bitrate: 800_000) == 50_000)
    }

    @Test("retransmissions are counted apart: never as new packets, never as a second frame")
    func retransmissionsNotCountedTwice() throws {
        var buffer = try VideoJitterBuffer(codec: .vp8)
        let frames = VideoPackets.frames(count: 3, packetsPerFrame: 3)
        var now = Timestamp.zero
        var delivered: [UInt16] = []
        func run(_ actions: [VideoJitterBufferAction]) {
            for case .deliver(let frame, _) in actions { delivered.append(frame.vp8!.pictureID) }
        }
        for packet in frames.joined() where packet.sequenceNumber != 4 {
            run(buffer.insert(packet, arrival: now))
            now += .milliseconds(5)
        }
        // The missing packet comes back as RTX; then the original, late, and the RTX again.
        let missing = frames[1][1]
        run(buffer.insert(missing, isRetransmission: true, arrival: now))
        run(buffer.insert(missing, arrival: now + .milliseconds(1)))
        run(buffer.insert(missing, isRetransmission: true, arrival: now + .milliseconds(2)))
        for _ in 0 ..< 20 {
            now += .milliseconds(20)
            run(buffer.poll(at: now))
        }
        let stats = buffer.statistics
        #expect(delivered == [0, 1, 2])
        #expect(stats.framesReceived == 3 && stats.framesDelivered == 3)
        #expect(stats.packetsReceived == 8)
        #expect(stats.retransmittedPacketsReceived == 2)
        #expect(stats.packetsDuplicated == 2)
        #expect(stats.packetsLost == 0)
        #expect(stats.packetsRecovered == 1)
    }
}
