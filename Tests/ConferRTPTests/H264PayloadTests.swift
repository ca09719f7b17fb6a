import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct H264PayloadTests {
    /// A NAL unit of `size` bytes: header with `nri` and `type`, then seeded bytes.
    func nal(_ type: UInt8, nri: UInt8 = 3, size: Int, seed: UInt64) -> [UInt8] {
        var bytes = randomBytes(size, seed: seed)
        bytes[0] = nri << 5 | type
        return bytes
    }

    func accessUnit(_ nalUnits: [[UInt8]], keyframe: Bool, withRanges: Bool = true) -> EncodedFrame {
        let (data, ranges) = annexB(nalUnits)
        return EncodedFrame(codec: .h264, data: data, isKeyframe: keyframe, nalUnits: withRanges ? ranges : [])
    }

    @Test(arguments: roundTripSizes)
    func roundTripIsByteExact(size: Int) throws {
        var payloader = H264Payloader()
        // An IDR slice of `size` bytes after SPS and PPS, then a P slice of `size` bytes.
        let input = [accessUnit([nal(7, size: 12, seed: 1), nal(8, size: 4, seed: 2), nal(5, size: size, seed: UInt64(size))], keyframe: true),
                     accessUnit([nal(1, nri: 2, size: size, seed: 5)], keyframe: false, withRanges: false)]
        let packets = try packetize(input, with: &payloader)
        for framePackets in packets {
            #expect(framePackets.allSatisfy { $0.payload.count <= testMTU })
            #expect(framePackets.map(\.marker) == framePackets.indices.map { $0 == framePackets.count - 1 })
            let fragments = try framePackets.compactMap { packet -> Int? in
                let d = try H264Depacketizer().parse(packet.payload)
                return d.packetType == .fuA ? packet.payload.count : nil
            }
            if let largest = fragments.max(), let smallest = fragments.min() { #expect(largest - smallest <= 1) }
        }
        var depacketizer = H264Depacketizer()
        let output = try depacketize(packets, with: &depacketizer)
        try #require(output.count == 2)
        for (got, sent) in zip(output, input) {
            #expect(got.data == sent.data)
            #expect(got.isKeyframe == sent.isKeyframe)
            #expect(got.nalUnits == annexBRanges(of: sent))
        }
        #expect(output[1].timestamp == Timestamp(microseconds: 33_333))
    }

    private func annexBRanges(of frame: EncodedFrame) -> [Range<Int>] {
        if !frame.nalUnits.isEmpty { return frame.nalUnits }
        return [4..<frame.data.count]
    }

    @Test func parameterSetsShareAStapAThenTheIDRIsFragmented() throws {
        let sps = nal(7, size: 10, seed: 1), pps = nal(8, size: 4, seed: 2), idr = nal(5, nri: 3, size: 3000, seed: 3)
        var payloader = H264Payloader()
        let payloads = try payloader.markedPayloads(accessUnit([sps, pps, idr], keyframe: true), maxPayloadSize: testMTU)
        // STAP-A: header (F 0, NRI 3, type 24), then size 10 + SPS, size 4 + PPS.
        #expect(payloads[0].payload == [0x78, 0, 10] + sps + [0, 4] + pps)
        #expect(!payloads[0].marker)
        // 2999 bytes after the IDR header in 3 FU-As of 1000 or 999 bytes.
        #expect(payloads.count == 4)
        for (index, (payload, marker)) in payloads.dropFirst().enumerated() {
            #expect(payload[0] == 0x7C)   // FU indicator: F 0, NRI 3, type 28
            let start: UInt8 = index == 0 ? 0x80 : 0, end: UInt8 = index == 2 ? 0x40 : 0
            #expect(payload[1] == start | end | 5)
            #expect(marker == (index == 2))
            #expect(payload.count - 2 >= 999 && payload.count - 2 <= 1000)
        }
        var depacketizer = H264Depacketizer()
        let frame = try depacketizer.depacketize(payloads.map(\.payload))
        // The IDR header is rebuilt exactly from indicator (F, NRI) and FU header (type).
        #expect(frame.data == annexB([sps, pps, idr]).data)
        #expect(frame.isKeyframe)
        let descriptor = try H264Depacketizer().parse(payloads[0].payload)
        #expect(descriptor.packetType == .stapA && descriptor.nalUnitCount == 2 && descriptor.containsKeyframeNALUnit)
        #expect(descriptor.startsAccessUnit)
    }

    @Test func stapAKeepsHighestNRIAndForbiddenBit() throws {
        let a: [UInt8] = [0x86, 1, 2], b: [UInt8] = [0x41, 3]   // F 1 NRI 0 type 6; NRI 2 type 1
        var payloader = H264Payloader()
        let payloads = try payloader.payloads(accessUnit([a, b], keyframe: false), maxPayloadSize: 100)
        #expect(payloads == [[0xC0 | 24, 0, 3] + a + [0, 2] + b])
    }

    @Test func smallNALUnitsGoAloneWhenTheyDoNotFitTogether() throws {
        let a = nal(1, size: 60, seed: 1), b = nal(1, size: 60, seed: 2)
        var payloader = H264Payloader()
        let payloads = try payloader.markedPayloads(accessUnit([a, b], keyframe: false, withRanges: false), maxPayloadSize: 100)
        #expect(payloads.map(\.payload) == [a, b])
        #expect(payloads.map(\.marker) == [false, true])
    }

    @Test func modeZeroStreamOfSingleNALUnitsDepacketizes() throws {
        let units = [nal(7, size: 9, seed: 1), nal(8, size: 4, seed: 2), nal(5, size: 800, seed: 3)]
        var depacketizer = H264Depacketizer()
        let packets = units.enumerated().map { index, unit in
            TestPacket(sequenceNumber: 10 + UInt16(index), timestamp: 90_000, marker: index == 2, payload: unit)
        }
        let output = try depacketize([packets], with: &depacketizer)
        try #require(output.count == 1)
        #expect(output[0].data == annexB(units).data)
        #expect(output[0].nalUnits == annexB(units).ranges)
        #expect(output[0].isKeyframe)
    }

    @Test func malformedPayloadsAreTypedErrors() {
        let d = H264Depacketizer()
        #expect(parseError(d, [])?.reason == .truncated)
        // STAP-A with a NAL size beyond the payload, a zero size, a dangling size byte.
        #expect(parseError(d, [0x78, 0, 10, 0x67, 1, 2])?.field == "STAP-A NAL unit (size beyond payload)")
        #expect(parseError(d, [0x78, 0, 0])?.reason == .invalid)
        #expect(parseError(d, [0x78, 0, 1, 0x67, 0])?.reason == .truncated)
        #expect(parseError(d, [0x78])?.reason == .truncated)
        // FU-A with S and E both set; a too short FU-A.
        #expect(parseError(d, [0x7C, 0xC5, 1])?.field == "FU header (S and E both set)")
        #expect(parseError(d, [0x7C])?.reason == .truncated)
        #expect(parseError(d, [0x7C, 0x85])?.reason == .truncated)
        // Unsupported and reserved types.
        for type: UInt8 in [25, 26, 27, 29] {
            #expect(parseError(d, [0x60 | type, 0, 1, 2, 3])?.reason == .unsupported, "type \(type)")
        }
        for type: UInt8 in [0, 30, 31] {
            #expect(parseError(d, [0x60 | type, 0, 1])?.reason == .invalid, "type \(type)")
        }
        // Truncation at every byte of a STAP-A.
        let stap: [UInt8] = [0x78, 0, 2, 0x67, 1, 0, 3, 0x68, 2, 3]
        for length in 0..<stap.count where length != 5 {
            #expect(parseError(d, Array(stap.prefix(length)))?.reason == .truncated, "length \(length)")
        }
    }

    @Test func fragmentsOutOfOrderAreErrors() {
        var depacketizer = H264Depacketizer()
        // A FU-A continuation without a start.
        let noStart = payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x7C, 0x45, 1]]) }
        #expect(noStart?.field == "FU header (fragment without a start)")
        // A start never ended.
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x7C, 0x85, 1]]) }?.reason == .truncated)
        // A single NAL unit in the middle of a fragmented one.
        #expect(payloadError { () throws(PayloadError) in
            _ = try depacketizer.depacketize([[0x7C, 0x85, 1], [0x61, 2], [0x7C, 0x45, 3]])
        }?.reason == .invalid)
        // Fragment types that disagree.
        #expect(payloadError { () throws(PayloadError) in
            _ = try depacketizer.depacketize([[0x7C, 0x85, 1], [0x7C, 0x41, 3]])
        }?.reason == .invalid)
    }

    @Test func payloaderRejectsBadFrames() {
        var payloader = H264Payloader()
        let bad = EncodedFrame(codec: .h264, data: [0, 0, 0, 1, 0x65], nalUnits: [4..<9])
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(bad, maxPayloadSize: 100) }?.reason == .outOfBounds)
        let reserved = accessUnit([[0x7C, 1, 2]], keyframe: false)
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(reserved, maxPayloadSize: 100) }?.reason == .invalid)
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(EncodedFrame(codec: .h264), maxPayloadSize: 100) }?.reason == .invalid)
        #expect(payloadError { () throws(PayloadError) in
            _ = try payloader.payloads(accessUnit([[0x65, 1]], keyframe: true), maxPayloadSize: 2)
        }?.reason == .doesNotFit)
    }

    @Test func annexBWithThreeByteStartCodesAndTrailingZeros() throws {
        // 3-byte start codes, a zero-length NAL unit between two start codes, trailing zeros.
        let data: [UInt8] = [0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1, 0, 0, 1, 0x68, 3, 0, 0, 1, 0x65, 4, 5, 0, 0]
        var payloader = H264Payloader()
        let payloads = try payloader.payloads(EncodedFrame(codec: .h264, data: data), maxPayloadSize: 100)
        #expect(payloads == [[0x78, 0, 3, 0x67, 1, 2, 0, 2, 0x68, 3, 0, 3, 0x65, 4, 5]])
    }
}
