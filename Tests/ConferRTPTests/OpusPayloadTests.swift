import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct OpusPayloadTests {
    /// An Opus packet of `size` bytes: a CELT 20 ms mono TOC (config 31, code 0), then seeded bytes.
    func packet(size: Int, seed: UInt64) -> EncodedFrame {
        var data = randomBytes(size, seed: seed)
        data[0] = 31 << 3
        return EncodedFrame(codec: .opus, data: data, isKeyframe: true, duration: .milliseconds(20))
    }

    @Test(arguments: roundTripSizes)
    func roundTripIsByteExactOrDoesNotFit(size: Int) throws {
        var payloader = OpusPayloader()
        let input = [packet(size: size, seed: UInt64(size)), packet(size: size, seed: 2)]
        guard size <= testMTU else {
            let error = payloadError { () throws(PayloadError) in _ = try payloader.payloads(input[0], maxPayloadSize: testMTU) }
            #expect(error?.reason == .doesNotFit && error?.codec == .opus)
            return
        }
        let packets = try packetize(input, with: &payloader, timestampStep: 960)
        #expect(packets.allSatisfy { $0.count == 1 && $0[0].payload.count == size && !$0[0].marker })
        var depacketizer = OpusDepacketizer()
        let output = try depacketize(packets, with: &depacketizer)
        try #require(output.count == 2)
        #expect(output.map(\.data) == input.map(\.data))
        #expect(output.allSatisfy { $0.isKeyframe && $0.duration == .milliseconds(20) && $0.codec == .opus })
        #expect(output[1].timestamp == .milliseconds(20))
    }

    @Test func markerOnFirstPacketAfterDTX() throws {
        var payloader = OpusPayloader(marksTalkspurts: true)
        let speech = packet(size: 80, seed: 1)
        let silence = EncodedFrame(codec: .opus, data: [31 << 3], isKeyframe: true)
        var markers: [Bool] = []
        for frame in [speech, silence, silence, speech, speech] {
            markers += try payloader.markedPayloads(frame, maxPayloadSize: testMTU).map(\.marker)
        }
        #expect(markers == [false, false, false, true, false])
        payloader.marksNextPacket = true
        #expect(try payloader.markedPayloads(speech, maxPayloadSize: testMTU).map(\.marker) == [true])
        #expect(try payloader.markedPayloads(speech, maxPayloadSize: testMTU).map(\.marker) == [false])
        var plain = OpusPayloader()
        _ = try plain.payloads(silence, maxPayloadSize: testMTU)
        #expect(try plain.markedPayloads(speech, maxPayloadSize: testMTU).map(\.marker) == [false])
    }

    @Test func tocGivesFrameCountAndDuration() throws {
        let d = OpusDepacketizer()
        // SILK 60 ms stereo, code 0.
        let silk = try d.parse([11 << 3 | 0x04, 1, 2])
        #expect(silk.configuration == 11 && silk.isStereo && silk.frameCount == 1 && silk.duration == .milliseconds(60))
        // CELT 2.5 ms, code 3 with 4 frames.
        #expect(try d.parse([16 << 3 | 3, 4, 0, 0]).duration == TimeDelta(microseconds: 10_000))
        // Hybrid 20 ms, code 1: two equal frames.
        #expect(try d.parse([13 << 3 | 1, 1, 2]).duration == .milliseconds(40))
    }

    @Test func malformedPacketsAreTypedErrors() {
        let d = OpusDepacketizer()
        #expect(parseError(d, [])?.reason == .truncated)
        #expect(parseError(d, [31 << 3 | 1, 1])?.reason == .invalid)            // code 1, odd length
        #expect(parseError(d, [31 << 3 | 2])?.reason == .truncated)             // code 2, no length
        #expect(parseError(d, [31 << 3 | 2, 252])?.reason == .truncated)        // code 2, second length byte missing
        #expect(parseError(d, [31 << 3 | 2, 5, 1])?.reason == .truncated)       // code 2, first frame beyond the end
        #expect(parseError(d, [31 << 3 | 3])?.reason == .truncated)             // code 3, no count
        #expect(parseError(d, [31 << 3 | 3, 0])?.reason == .invalid)            // code 3, zero frames
        #expect(parseError(d, [3 << 3 | 3, 3])?.field == "frame count (over 120 ms)")   // 3 × 60 ms
        var depacketizer = OpusDepacketizer()
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[8], [8]]) }?.reason == .invalid)
        var payloader = OpusPayloader()
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(EncodedFrame(codec: .opus), maxPayloadSize: 100) }?.reason == .invalid)
    }
}
