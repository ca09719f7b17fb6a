import ConferMedia
import Testing
@testable import ConferRTP

/// VP9 with temporal layers goes out in flexible mode (RFC 9628 §4.2): one layer byte with
/// no TL0PICIDX, and each inter frame's reference as a P_DIFF.
@Suite struct VP9FlexibleModeTests {
    func frame(size: Int = 5, keyframe: Bool, pictureID: UInt16, layer: UInt8, distance: UInt8?) -> EncodedFrame {
        EncodedFrame(codec: .vp9, data: randomBytes(size, seed: UInt64(pictureID)), isKeyframe: keyframe, width: 320, height: 240,
                     vp9: VP9FrameInfo(pictureID: pictureID, temporalLayer: layer, switchingUpPoint: layer > 0,
                                       interPicturePredicted: !keyframe, tl0PictureIndex: 9, referenceDistance: distance))
    }

    @Test func layeredFrameBytesAreFlexibleModeWithPDIFF() throws {
        var payloader = VP9Payloader(includesLayerIndices: true, isFlexibleMode: true)
        let key = frame(keyframe: true, pictureID: 0x1234, layer: 0, distance: nil)
        // I L F B E V | M 0x12 0x34 | TID 0 U 0 SID 0 D 0 (no TL0PICIDX) | SS: N_S 0 Y, no G | 320 | 240.
        let keyPayload = try payloader.payloads(key, maxPayloadSize: 100)[0]
        #expect(Array(keyPayload.prefix(9)) == [0xBE, 0x92, 0x34, 0x00, 0x10, 0x01, 0x40, 0x00, 0xF0])
        #expect(Array(keyPayload.dropFirst(9)) == key.data)
        // A layer-2 frame two pictures after its base: I P L F B E | id | TID 2 U | P_DIFF 2, N clear.
        let upper = frame(keyframe: false, pictureID: 0x1236, layer: 2, distance: 2)
        let upperPayload = try payloader.payloads(upper, maxPayloadSize: 100)[0]
        #expect(Array(upperPayload.prefix(5)) == [0xFC, 0x92, 0x36, 0x50, 0x04])
        #expect(Array(upperPayload.dropFirst(5)) == upper.data)
        // With no distance known, the picture before.
        let unknown = frame(keyframe: false, pictureID: 0x1237, layer: 0, distance: nil)
        #expect(Array(try payloader.payloads(unknown, maxPayloadSize: 100)[0].prefix(5)) == [0xFC, 0x92, 0x37, 0x00, 0x02])
    }

    @Test func layeredFramesRoundTripAcrossPackets() throws {
        var payloader = VP9Payloader(includesLayerIndices: true, isFlexibleMode: true)
        let input = [frame(size: 3000, keyframe: true, pictureID: 0x7FFE, layer: 0, distance: nil),
                     frame(size: 2500, keyframe: false, pictureID: 0x7FFF, layer: 2, distance: 1),
                     frame(size: 2500, keyframe: false, pictureID: 0, layer: 1, distance: 2),
                     frame(size: 2500, keyframe: false, pictureID: 2, layer: 0, distance: 4)]
        let packets = try packetize(input, with: &payloader)
        for (sent, framePackets) in zip(input, packets) {
            #expect(framePackets.count >= 2)
            let descriptors = try framePackets.map { try VP9Depacketizer().parse($0.payload) }
            for d in descriptors {
                #expect(d.isFlexibleMode && d.tl0PictureIndex == nil && d.pictureID == sent.vp9!.pictureID)
                #expect(d.layer == VP9LayerIndices(temporalLayer: sent.vp9!.temporalLayer, switchingUpPoint: sent.vp9!.switchingUpPoint))
                #expect(Array(d.referenceDiffs) == (sent.isKeyframe ? [] : [sent.vp9!.referenceDistance!]))
            }
            #expect(descriptors[0].scalabilityStructure.map { $0.pictureGroup == nil } ?? !sent.isKeyframe)
        }
        var depacketizer = VP9Depacketizer()
        let output = try depacketize(packets, with: &depacketizer)
        try #require(output.count == input.count)
        for (got, sent) in zip(output, input) {
            #expect(got.data == sent.data && got.isKeyframe == sent.isKeyframe)
            var expected = try #require(sent.vp9)
            expected.tl0PictureIndex = 0    // not sent in flexible mode
            #expect(got.vp9 == expected)
        }
    }

    /// A stream with one layer keeps today's bytes: no layer indices, non-flexible.
    @Test func singleLayerStreamsAreUnchanged() throws {
        var layered = RTPPayloader(codec: .vp9, writesTemporalLayers: true)
        var plain = RTPPayloader(codec: .vp9)
        let delta = frame(keyframe: false, pictureID: 0x1235, layer: 0, distance: 1)
        var first: [UInt8] = []
        try plain.payload(delta, maxPayloadSize: 100) { payload, _ in first = Array(payload) }
        #expect(Array(first.prefix(3)) == [0xCC, 0x92, 0x35])
        try layered.payload(delta, maxPayloadSize: 100) { payload, _ in first = Array(payload) }
        #expect(Array(first.prefix(5)) == [0xFC, 0x92, 0x35, 0x00, 0x02])
    }

    /// Layers described as one (``VP9LayerSignalling/pictureIDsOnly``, for FFmpeg 5.1): an
    /// upper-layer frame's payload carries the bytes a one-layer stream's would, with no
    /// layer byte and no P_DIFF, and the forwarder is told to shift picture ids.
    @Test func layersDescribedAsOneWriteNoLayerFields() throws {
        var described = RTPPayloader(codec: .vp9, writesTemporalLayers: true, vp9Layers: .pictureIDsOnly)
        var plain = RTPPayloader(codec: .vp9)
        let upper = frame(keyframe: false, pictureID: 0x1236, layer: 2, distance: 2)
        var written: [[UInt8]] = [[], []]
        try described.payload(upper, maxPayloadSize: 100) { payload, _ in written[0] = Array(payload) }
        try plain.payload(upper, maxPayloadSize: 100) { payload, _ in written[1] = Array(payload) }
        // I P B E | M 0x12 0x36, then the frame: no L, no F, no layer byte.
        #expect(Array(written[0].prefix(3)) == [0xCC, 0x92, 0x36] && written[0] == written[1])
        let parsed = try written[0].withUnsafeBytes { bytes throws(PayloadError) in try VP9PayloadDescriptor.parse(bytes) }
        #expect(!parsed.isFlexibleMode && parsed.layer == nil && parsed.referenceDiffs.isEmpty)
        #expect(VP9LayerSignalling.pictureIDsOnly.shiftsPictureIDs && !VP9LayerSignalling.flexibleMode.shiftsPictureIDs)
    }
}
