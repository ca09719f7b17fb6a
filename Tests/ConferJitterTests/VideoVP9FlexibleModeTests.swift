import ConferJitter
import ConferMedia
import ConferRTP
import Testing

/// VP9 in flexible mode, as the host sends temporal layers: each inter frame names the
/// picture it predicts from (P_DIFF), so gaps in picture ids are not loss.
@Suite("VP9 flexible mode")
struct VideoVP9FlexibleModeTests {
    /// Frames of the 0, 2, 1, 2 pattern (every frame refers to the last base frame), keeping
    /// those of layers up to `maximumLayer`, `packetsPerFrame` packets each, numbered without
    /// gaps as the host's forwarder numbers them; picture ids as the encoder gave them. With
    /// `lastRefersToMiddle`, the last frame of each four refers to the layer-1 frame before
    /// it instead (libwebrtc's L1T3 pattern).
    static func frames(count: Int, packetsPerFrame: Int = 2, maximumLayer: UInt8 = 2,
                       lastRefersToMiddle: Bool = false) -> [[VideoTestPacket]] {
        let pattern: [UInt8] = [0, 2, 1, 2]
        var sequenceNumber: UInt16 = 65_530
        var result: [[VideoTestPacket]] = []
        for index in 0 ..< count {
            let layer = pattern[index % 4]
            guard layer <= maximumLayer else { continue }
            let keyframe = index == 0
            // Base frames refer to the base four pictures back, upper ones to the base before them.
            let distance = UInt8(index % 4 == 0 ? 4 : index % 4 == 3 && lastRefersToMiddle ? 1 : index % 4)
            let pictureID = Self.pictureID(index)
            result.append((0 ..< packetsPerFrame).map { part in
                let descriptor = VP9PayloadDescriptor(
                    pictureID: pictureID, isInterPicturePredicted: !keyframe, isFlexibleMode: true,
                    startsFrame: part == 0, endsFrame: part == packetsPerFrame - 1,
                    layer: VP9LayerIndices(temporalLayer: layer, switchingUpPoint: layer > 0),
                    referenceDiffs: keyframe ? VP9ReferenceDiffs() : VP9ReferenceDiffs([distance]))
                var payload = [UInt8](repeating: 0, count: descriptor.encodedSize + 100)
                payload.withUnsafeMutableBytes { _ = descriptor.write(to: $0) }
                defer { sequenceNumber &+= 1 }
                return VideoTestPacket(sequenceNumber: sequenceNumber, timestamp: UInt32(index) * 3000,
                                       marker: part == packetsPerFrame - 1, payload: payload)
            })
        }
        return result
    }

    /// The picture id of frame `index` of ``frames(count:packetsPerFrame:maximumLayer:)``.
    static func pictureID(_ index: Int) -> UInt16 { UInt16((0x7FFC + index) & 0x7FFF) }

    @Test("a base-only receiver decodes every frame it gets: no freeze, no NACK, no keyframe request")
    func baseLayerOnly() throws {
        let frames = Self.frames(count: 64, maximumLayer: 0)
        var driver = try VideoBufferDriver(nack: true, codec: .vp9)
        // Base frames come every fourth frame time.
        for (index, frame) in frames.enumerated() {
            driver.advance(to: Timestamp(microseconds: Int64(index) * 133_333) + .milliseconds(20))
            for packet in frame { driver.record(driver.buffer.insert(packet, arrival: driver.now)) }
        }
        driver.advance(to: driver.now + .seconds(1))
        let expected: [UInt16] = (0 ..< 16).map { Self.pictureID(4 * $0) }
        #expect(driver.delivered == expected)
        #expect(driver.dropped.isEmpty && driver.nacks.isEmpty && driver.keyframeRequests.isEmpty)
    }

    @Test("a lost upper-layer frame costs only the frames that name it: no keyframe request")
    func lostUpperLayerFrame() throws {
        let frames = Self.frames(count: 16, lastRefersToMiddle: true)
        var driver = try VideoBufferDriver(codec: .vp9)
        let lost = Set(frames[6].map(\.sequenceNumber))    // frame 6 (layer 1), which frame 7 names
        driver.play(frames) { lost.contains($0.sequenceNumber) }
        let expected: [UInt16] = (0 ..< 16).filter { $0 != 6 && $0 != 7 }.map(Self.pictureID)
        #expect(driver.delivered == expected)
        #expect(driver.dropped == [.notDecodable])
        #expect(driver.keyframeRequests.isEmpty, "\(driver.keyframeRequests)")
    }

    @Test("a lost base frame stops the frames that name it until a keyframe is asked for")
    func lostBaseFrame() throws {
        let frames = Self.frames(count: 16)
        var driver = try VideoBufferDriver(codec: .vp9)
        let lost = frames[4][0].sequenceNumber    // frame 4 (base), first packet
        driver.play(frames) { $0.sequenceNumber == lost }
        let expected: [UInt16] = (0 ..< 4).map(Self.pictureID)
        #expect(driver.delivered == expected)
        #expect(driver.keyframeRequests.first?.reason == .frameLost)
    }
}
