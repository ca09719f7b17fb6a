import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct VP8PayloadTests {
    func frame(size: Int, keyframe: Bool, pictureID: UInt16 = 0x1234, seed: UInt64 = 1) -> EncodedFrame {
        var data = randomBytes(size, seed: seed)
        data[0] = keyframe ? data[0] & 0xFE : data[0] | 0x01   // the frame tag's inverse keyframe bit
        return EncodedFrame(codec: .vp8, data: data, isKeyframe: keyframe,
                            vp8: VP8FrameInfo(pictureID: pictureID, temporalLayer: 1, layerSync: true, tl0PictureIndex: 9))
    }

    @Test(arguments: roundTripSizes)
    func roundTripIsByteExact(size: Int) throws {
        var payloader = VP8Payloader(includesTemporalLayerInfo: true)
        let input = [frame(size: size, keyframe: true, seed: UInt64(size)), frame(size: size, keyframe: false, pictureID: 0x1235, seed: 7)]
        let packets = try packetize(input, with: &payloader)
        for framePackets in packets {
            #expect(framePackets.allSatisfy { $0.payload.count <= testMTU })
            #expect(framePackets.map(\.marker) == framePackets.indices.map { $0 == framePackets.count - 1 })
            let starts = try framePackets.map { try VP8Depacketizer().parse($0.payload).startsPartition }
            #expect(starts == framePackets.indices.map { $0 == 0 })
            // Balanced: bitstream bytes per packet differ by at most one.
            let sizes = try framePackets.map { try VP8Depacketizer().parse($0.payload).bitstream.count }
            #expect(sizes.max()! - sizes.min()! <= 1)
            // The fewest packets: 6 descriptor bytes (X, ILTK, 15-bit id, TL0PICIDX, TID|Y) in each.
            #expect(framePackets.count == (size + testMTU - 7) / (testMTU - 6))
        }
        var depacketizer = VP8Depacketizer()
        let output = try depacketize(packets, with: &depacketizer)
        try #require(output.count == 2)
        for (got, sent) in zip(output, input) {
            #expect(got.data == sent.data)
            #expect(got.isKeyframe == sent.isKeyframe)
            #expect(got.vp8?.pictureID == sent.vp8?.pictureID)
            #expect(got.vp8?.temporalLayer == 1)
            #expect(got.vp8?.layerSync == true)
            #expect(got.vp8?.tl0PictureIndex == 9)
        }
        #expect(output[0].timestamp == .zero)
        #expect(output[1].timestamp == Timestamp(microseconds: 33_333))
    }

    @Test func descriptorBytesMatchRFC7741Layout() throws {
        // X=1 S=1 PID=0; I L T K; M=1 with picture id 0x1234; TL0PICIDX 5; TID 2, Y 1, KEYIDX 3.
        let full = VP8PayloadDescriptor(startsPartition: true, pictureID: 0x1234, tl0PictureIndex: 5,
                                        temporalLayer: 2, layerSync: true, keyIndex: 3)
        #expect(bytes(of: full) == [0x90, 0xF0, 0x92, 0x34, 0x05, 0xA3])
        // 7-bit picture id 0x55, N set, PID 3, not a start.
        let short = VP8PayloadDescriptor(isNonReference: true, startsPartition: false, partitionIndex: 3,
                                         pictureID: 0x55, pictureIDLength: .sevenBits)
        #expect(bytes(of: short) == [0xA3, 0x80, 0x55])
        // No extensions at all: one byte.
        #expect(bytes(of: VP8PayloadDescriptor(startsPartition: true)) == [0x10])
        // KEYIDX without TID: T clear, K set.
        #expect(bytes(of: VP8PayloadDescriptor(startsPartition: false, keyIndex: 17)) == [0x80, 0x10, 0x11])
        // TL0PICIDX only.
        #expect(bytes(of: VP8PayloadDescriptor(startsPartition: false, tl0PictureIndex: 200)) == [0x80, 0x40, 200])

        let parsed = try VP8Depacketizer().parse([0x90, 0xF0, 0x92, 0x34, 0x05, 0xA3, 0x00])
        #expect(parsed.pictureID == 0x1234 && parsed.pictureIDLength == .fifteenBits)
        #expect(parsed.tl0PictureIndex == 5 && parsed.temporalLayer == 2 && parsed.layerSync && parsed.keyIndex == 3)
        #expect(parsed.bitstream == 6..<7 && parsed.isKeyframe && parsed.startsFrame)
        let parsedShort = try VP8Depacketizer().parse([0xA3, 0x80, 0x55, 0x01])
        #expect(parsedShort.pictureID == 0x55 && parsedShort.pictureIDLength == .sevenBits)
        #expect(parsedShort.isNonReference && !parsedShort.startsPartition && parsedShort.partitionIndex == 3)
        #expect(!parsedShort.isKeyframe)
        // A delta frame's first packet: P bit set.
        #expect(try !VP8Depacketizer().parse([0x10, 0x01]).isKeyframe)
    }

    @Test func payloaderWritesConfiguredDescriptor() throws {
        var payloader = VP8Payloader(pictureIDLength: .sevenBits, includesTemporalLayerInfo: true, keyIndex: 4)
        let payloads = try payloader.payloads(frame(size: 10, keyframe: true, pictureID: 0x1FF), maxPayloadSize: 100)
        // X S | I L T K | 7-bit id 0x7F | TL0PICIDX 9 | TID 1 Y 1 KEYIDX 4.
        #expect(Array(payloads[0].prefix(5)) == [0x90, 0xF0, 0x7F, 9, 0x64])
        var plain = VP8Payloader(pictureIDLength: .none)
        #expect(try plain.payloads(frame(size: 3, keyframe: true), maxPayloadSize: 100)[0].count == 4)
    }

    @Test func partitionIndexFollowsPartitionOffsets() throws {
        var input = frame(size: 300, keyframe: true)
        input.vp8!.partitionOffsets = [0, 100, 250]
        var payloader = VP8Payloader()
        let payloads = try payloader.payloads(input, maxPayloadSize: 54)   // 50 bitstream bytes each
        let pids = try payloads.map { try VP8Depacketizer().parse($0).partitionIndex }
        #expect(pids == [0, 0, 1, 1, 1, 2])
    }

    @Test func emptyLeadingPartitionsStillStartTheFrameWithPartitionZero() throws {
        // Found by FuzzVP8Depacketizer: a 2-byte frame with partition offsets [0, 0, 1].
        var input = EncodedFrame(codec: .vp8, data: [0x16, 0x16], vp8: VP8FrameInfo(pictureID: 1280))
        input.vp8!.partitionOffsets = [0, 0, 1]
        var payloader = VP8Payloader()
        let payloads = try payloader.payloads(input, maxPayloadSize: 18)
        #expect(try VP8Depacketizer().parse(payloads[0]).startsFrame)
        var depacketizer = VP8Depacketizer()
        #expect(try depacketizer.depacketize(payloads).data == [0x16, 0x16])
    }

    @Test func keyframeHeaderGivesPictureSize() throws {
        var data = [UInt8](repeating: 0, count: 40)
        data[0] = 0x10   // keyframe, P = 0
        data[3] = 0x9D; data[4] = 0x01; data[5] = 0x2A
        data[6] = 0x80; data[7] = 0x02   // 640
        data[8] = 0xE0; data[9] = 0x41   // 480 with scaling bits set
        var payloader = VP8Payloader()
        var depacketizer = VP8Depacketizer()
        let payloads = try payloader.payloads(EncodedFrame(codec: .vp8, data: data, vp8: VP8FrameInfo(pictureID: 1)), maxPayloadSize: 20)
        let output = try depacketizer.depacketize(payloads)
        #expect(output.isKeyframe && output.width == 640 && output.height == 480)
        #expect(output.data == data)
    }

    @Test func truncatedDescriptorIsTypedAtEveryByte() {
        let full: [UInt8] = [0x90, 0xF0, 0x92, 0x34, 0x05, 0xA3, 0x00]
        for length in 0..<full.count {
            let error = parseError(VP8Depacketizer(), Array(full.prefix(length)))
            #expect(error?.reason == .truncated, "length \(length)")
            #expect(error?.codec == .vp8)
            #expect(error?.offset == length, "length \(length)")
        }
        // X set but no extension byte.
        #expect(parseError(VP8Depacketizer(), [0x80])?.field == "extension bits (I|L|T|K)")
        // I set, M set, but the second picture id byte missing.
        #expect(parseError(VP8Depacketizer(), [0x80, 0x80, 0x80])?.field == "PictureID (extended)")
    }

    @Test func malformedFramesAreErrorsNotCrashes() {
        var depacketizer = VP8Depacketizer()
        // A frame whose first payload does not start partition 0.
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x00, 0x01]]) }?.reason == .invalid)
        // Two frame starts in one frame.
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x10, 0x01], [0x10, 0x01]]) }?.reason == .invalid)
        var payloader = VP8Payloader()
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(EncodedFrame(codec: .vp8), maxPayloadSize: 100) }?.reason == .invalid)
        #expect(payloadError { () throws(PayloadError) in _ = try payloader.payloads(frame(size: 10, keyframe: true), maxPayloadSize: 4) }?.reason == .doesNotFit)
    }

    private func bytes(of descriptor: VP8PayloadDescriptor) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: descriptor.encodedSize)
        let written = buffer.withUnsafeMutableBytes { descriptor.write(to: $0) }
        #expect(written == descriptor.encodedSize)
        return buffer
    }
}

extension VP8PayloadTests {
    /// The packetizer writes TL0PICIDX, TID and Y only for a stream with temporal layers
    /// (the host's composite), so single-layer streams keep their 4-byte descriptor.
    @Test(arguments: [false, true])
    func thePacketizerWritesLayerFieldsWhenAsked(layered: Bool) throws {
        var packetizer = try RTPPacketizer(codec: .vp8, ssrc: 1, payloadType: 96, firstSequenceNumber: 1, timestampOffset: 0,
                                           writesTemporalLayers: layered)
        var buffer = [UInt8](repeating: 0, count: 1500)
        var descriptors: [VP8PayloadDescriptor] = []
        try buffer.withUnsafeMutableBytes { out in
            try packetizer.packetize(frame(size: 3000, keyframe: false), rtpTimestamp: 0, captureTime: .zero,
                                     maxPayloadSize: 1000, into: out) { length in
                let packet = try RTPPacketView(UnsafeRawBufferPointer(rebasing: out[0..<length]))
                descriptors.append(try VP8PayloadDescriptor.parse(packet.payload))
            }
        }
        #expect(descriptors.count == 4)
        for descriptor in descriptors {
            #expect(descriptor.temporalLayer == (layered ? 1 : nil))
            #expect(descriptor.tl0PictureIndex == (layered ? 9 : nil))
            #expect(descriptor.layerSync == layered)
            #expect(descriptor.pictureID == 0x1234)
        }
    }
}
