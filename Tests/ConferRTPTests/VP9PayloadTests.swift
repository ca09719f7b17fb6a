import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct VP9PayloadTests {
    func frame(size: Int, keyframe: Bool, pictureID: UInt16, seed: UInt64) -> EncodedFrame {
        EncodedFrame(codec: .vp9, data: randomBytes(size, seed: seed), isKeyframe: keyframe, width: 1280, height: 720,
                     vp9: VP9FrameInfo(pictureID: pictureID, temporalLayer: 2, switchingUpPoint: true,
                                       interPicturePredicted: !keyframe, tl0PictureIndex: 77))
    }

    @Test(arguments: roundTripSizes)
    func roundTripIsByteExact(size: Int) throws {
        var payloader = VP9Payloader()
        let input = [frame(size: size, keyframe: true, pictureID: 0x7FFF, seed: UInt64(size)),
                     frame(size: size, keyframe: false, pictureID: 0, seed: 3)]
        let packets = try packetize(input, with: &payloader)
        for (index, framePackets) in packets.enumerated() {
            #expect(framePackets.allSatisfy { $0.payload.count <= testMTU })
            let last = framePackets.count - 1
            #expect(framePackets.map(\.marker) == framePackets.indices.map { $0 == last })
            let descriptors = try framePackets.map { try VP9Depacketizer().parse($0.payload) }
            #expect(descriptors.map(\.startsFrame) == framePackets.indices.map { $0 == 0 })
            #expect(descriptors.map(\.endsFrame) == framePackets.indices.map { $0 == last })
            #expect(descriptors.allSatisfy { $0.pictureID == input[index].vp9!.pictureID && $0.pictureIDLength == .fifteenBits })
            #expect(descriptors.allSatisfy { $0.layer?.temporalLayer == 2 && $0.layer?.switchingUpPoint == true && $0.tl0PictureIndex == 77 })
            // SS only on the keyframe's first packet, with the frame's size.
            let withSS = descriptors.indices.filter { descriptors[$0].scalabilityStructure != nil }
            #expect(withSS == (index == 0 ? [0] : []))
            if index == 0 {
                let ss = try #require(descriptors[0].scalabilityStructure)
                #expect(ss.spatialLayerCount == 1)
                #expect(ss.resolutions == [.init(width: 1280, height: 720)])
                #expect(ss.pictureGroup == [.init(temporalLayer: 0, switchingUpPoint: false, referenceDiffs: [1])])
            }
            // Balanced: whole payloads differ by at most one byte.
            let sizes = framePackets.map(\.payload.count)
            #expect(sizes.max()! - sizes.min()! <= 1)
        }
        var depacketizer = VP9Depacketizer()
        let output = try depacketize(packets, with: &depacketizer)
        try #require(output.count == 2)
        for (got, sent) in zip(output, input) {
            #expect(got.data == sent.data)
            #expect(got.isKeyframe == sent.isKeyframe)
            #expect(got.vp9 == sent.vp9)
            // The size travels in the keyframe's scalability structure; a delta frame tells none.
            #expect(got.width == (sent.isKeyframe ? 1280 : 0) && got.height == (sent.isKeyframe ? 720 : 0))
        }
        #expect(output[1].timestamp == Timestamp(microseconds: 33_333))
    }

    @Test func descriptorBytesMatchRFC9628Layout() throws {
        var payloader = VP9Payloader()
        let key = frame(size: 5, keyframe: true, pictureID: 0x1234, seed: 1)
        let payload = try payloader.payloads(key, maxPayloadSize: 100)[0]
        // I L B E V | M 0x12 0x34 | TID 2 U SID 0 D 0 | TL0PICIDX 77 |
        // SS: N_S 0 Y G | 1280 | 720 | N_G 1 | TID 0 U 0 R 1 | P_DIFF 1.
        #expect(Array(payload.prefix(16)) == [0xAE, 0x92, 0x34, 0x50, 77,
                                               0x18, 0x05, 0x00, 0x02, 0xD0, 0x01, 0x04, 0x01] + Array(key.data.prefix(3)))
        let delta = frame(size: 5, keyframe: false, pictureID: 0x1235, seed: 1)
        #expect(Array(try payloader.payloads(delta, maxPayloadSize: 100)[0].prefix(5)) == [0xEC, 0x92, 0x35, 0x50, 77])
    }

    @Test func flexibleModeReferencesParse() throws {
        // I P L F B E | 7-bit id 5 | TID 1 SID 0 | P_DIFF 1 (N) P_DIFF 2 (N) P_DIFF 4 | one byte.
        let d = try VP9Depacketizer().parse([0xFC, 0x05, 0x20, 0x03, 0x05, 0x08, 0xAA])
        #expect(d.isFlexibleMode && d.isInterPicturePredicted && d.pictureID == 5 && d.pictureIDLength == .sevenBits)
        #expect(Array(d.referenceDiffs) == [1, 2, 4])
        #expect(d.tl0PictureIndex == nil && d.layer?.temporalLayer == 1)
        #expect(d.bitstream == 6..<7)
        // A fourth P_DIFF is not allowed.
        let error = parseError(VP9Depacketizer(), [0xDC, 0x03, 0x05, 0x09, 0x0B, 0xAA])
        #expect(error?.reason == .invalid && error?.offset == 4)
        // Written back the same way.
        let written = VP9PayloadDescriptor(pictureID: 5, pictureIDLength: .sevenBits, isInterPicturePredicted: true,
                                           isFlexibleMode: true, startsFrame: true, endsFrame: true,
                                           layer: VP9LayerIndices(temporalLayer: 1), referenceDiffs: VP9ReferenceDiffs([1, 2, 4]))
        var buffer = [UInt8](repeating: 0, count: written.encodedSize)
        buffer.withUnsafeMutableBytes { _ = written.write(to: $0) }
        #expect(buffer == [0xFC, 0x05, 0x20, 0x03, 0x05, 0x08])
    }

    @Test func scalabilityStructureWithLayersAndGroupParses() throws {
        // V only | N_S 1 Y G | 320x180 | 640x360 | N_G 2 | TID 0 R 0 | TID 1 U R 2 P_DIFF 1, 2 | one byte.
        let bytes: [UInt8] = [0x0A, 0x38, 0x01, 0x40, 0x00, 0xB4, 0x02, 0x80, 0x01, 0x68, 0x02, 0x00, 0x38, 0x01, 0x02, 0xAA]
        let ss = try #require(try VP9Depacketizer().parse(bytes).scalabilityStructure)
        #expect(ss.spatialLayerCount == 2)
        #expect(ss.resolutions == [.init(width: 320, height: 180), .init(width: 640, height: 360)])
        #expect(ss.pictureGroup == [.init(temporalLayer: 0, referenceDiffs: []),
                                    .init(temporalLayer: 1, switchingUpPoint: true, referenceDiffs: [1, 2])])
        #expect(ss.encodedSize == 14)
    }

    @Test func oversizedStructuresAreClampedConsistently() throws {
        // 9 layers and 300 entries of 4 diffs: written as 8 layers, 255 entries, 3 diffs.
        let big = VP9ScalabilityStructure(
            spatialLayerCount: 9, resolutions: Array(repeating: .init(width: 16, height: 16), count: 9),
            pictureGroup: Array(repeating: .init(temporalLayer: 1, referenceDiffs: [1, 2, 3, 4]), count: 300))
        #expect(big.encodedSize == 1 + 32 + 1 + 255 * 4)
        var buffer = [UInt8](repeating: 0, count: big.encodedSize + 1)
        let end = buffer.withUnsafeMutableBytes { big.write(to: $0, at: 0) }
        #expect(end == big.encodedSize)
        let back = buffer.withUnsafeBytes { bytes in try? VP9ScalabilityStructure.read(bytes, at: 0, build: true) }
        #expect(back?.end == end && back?.structure?.spatialLayerCount == 8 && back?.structure?.pictureGroup?.count == 255)
    }

    @Test func truncatedDescriptorIsTypedAtEveryByte() throws {
        var payloader = VP9Payloader()
        let payload = try payloader.payloads(frame(size: 1, keyframe: true, pictureID: 0x1234, seed: 1), maxPayloadSize: 100)[0]
        for length in 0..<payload.count {
            let error = parseError(VP9Depacketizer(), Array(payload.prefix(length)))
            #expect(error?.reason == .truncated, "length \(length)")
            #expect(error?.codec == .vp9)
            #expect((error?.offset ?? .max) <= length, "length \(length)")
        }
    }

    @Test func malformedFramesAreErrorsNotCrashes() {
        var depacketizer = VP9Depacketizer()
        // No B bit on the first payload; a second B inside the frame.
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x04, 0x01]]) }?.reason == .invalid)
        #expect(payloadError { () throws(PayloadError) in _ = try depacketizer.depacketize([[0x08, 0x01], [0x0C, 0x01]]) }?.reason == .invalid)
        var payloader = VP9Payloader()
        #expect(payloadError { () throws(PayloadError) in
            _ = try payloader.payloads(frame(size: 10, keyframe: true, pictureID: 1, seed: 1), maxPayloadSize: 13)
        }?.reason == .doesNotFit)
    }

    @Test func keyframeFirstPacketTakesSmallerShareWhenMTUIsTiny() throws {
        var payloader = VP9Payloader()
        // Keyframe descriptor is 5 + 8 = 13 bytes; later ones 5.
        let payloads = try payloader.payloads(frame(size: 40, keyframe: true, pictureID: 1, seed: 9), maxPayloadSize: 15)
        // 40 bytes: 2 fit the first packet, 10 each later one, so 5 packets of 14 or 15 bytes.
        #expect(payloads.map(\.count) == [14, 14, 15, 15, 15])
        var depacketizer = VP9Depacketizer()
        #expect(try depacketizer.depacketize(payloads).data == randomBytes(40, seed: 9))
    }
}
