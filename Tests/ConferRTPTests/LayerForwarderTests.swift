import Testing
import ConferMedia
@testable import ConferRTP

/// The per-receiver layer forwarder: left-out frames are not loss, NACKs map back, and
/// switching follows the switching points.
@Suite struct LayerForwarderTests {
    /// The 0, 2, 1, 2 pattern, every upper frame a switching point (as Confer's VP8 encoder
    /// makes it), `packets` packets per frame, from sequence number `first`.
    struct Stream {
        var sequenceNumber: UInt16
        var frame = 0
        static let pattern: [UInt8] = [0, 2, 1, 2]

        mutating func next(into forwarder: inout LayerForwarder, packets: Int = 2, keyframe: Bool = false,
                           sync: Bool? = nil) -> (layer: UInt8, forwarded: [UInt16?], originals: [UInt16]) {
            let layer = keyframe ? 0 : Self.pattern[frame % 4]
            if keyframe { frame = 0 }
            frame += 1
            forwarder.beginFrame(layer: layer, isSwitchingPoint: sync ?? (layer > 0), isKeyframe: keyframe)
            var forwarded: [UInt16?] = []
            var originals: [UInt16] = []
            for _ in 0..<packets {
                originals.append(sequenceNumber)
                forwarded.append(forwarder.forward(sequenceNumber))
                sequenceNumber &+= 1
            }
            return (layer, forwarded, originals)
        }
    }

    /// A receiver that waits for a keyframe (it has got nothing yet) gets no frame before
    /// one, then everything its layer allows, numbered on without a gap.
    @Test func aReceiverWaitingForAKeyframeGetsNothingBeforeIt() {
        var forwarder = LayerForwarder(layer: 2)
        var stream = Stream(sequenceNumber: 100)
        forwarder.waitsForKeyframe = true
        for _ in 0..<5 {
            let frame = stream.next(into: &forwarder)
            #expect(frame.forwarded.allSatisfy { $0 == nil }, "a delta frame before the keyframe")
        }
        #expect(forwarder.framesDropped == 5)
        var forwarded: [UInt16] = []
        forwarded += stream.next(into: &forwarder, keyframe: true).forwarded.compactMap { $0 }
        #expect(forwarded.count == 2 && !forwarder.waitsForKeyframe, "the keyframe goes")
        for _ in 0..<4 { forwarded += stream.next(into: &forwarder).forwarded.compactMap { $0 } }
        #expect(forwarded.count == 10, "every frame after it")
        #expect(zip(forwarded, forwarded.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "numbered on: \(forwarded)")
    }

    @Test func aBaseOnlyReceiverGetsUnbrokenNumbersAndItsNACKsMapBack() throws {
        var forwarder = LayerForwarder(layer: 2)
        var stream = Stream(sequenceNumber: 65_530)    // wraps on the way
        _ = stream.next(into: &forwarder, keyframe: true)
        forwarder.targetLayer = 0
        var sent: [(forwarded: UInt16, original: UInt16)] = []
        for _ in 0..<40 {
            let frame = stream.next(into: &forwarder)
            for (forwarded, original) in zip(frame.forwarded, frame.originals) {
                if frame.layer == 0 {
                    sent.append((try #require(forwarded), original))
                } else {
                    #expect(forwarded == nil, "a layer-\(frame.layer) packet went to a base-only receiver")
                }
            }
        }
        // Consecutive numbers: the receiver sees no gap where frames were left out.
        for (previous, next) in zip(sent, sent.dropFirst()) { #expect(next.forwarded == previous.forwarded &+ 1) }
        #expect(sent.count == 20)                          // 10 base frames of 2 packets
        #expect(forwarder.framesDropped == 30 && forwarder.packetsDropped == 60)
        for packet in sent { #expect(forwarder.original(ofForwarded: packet.forwarded) == packet.original) }
        #expect(forwarder.original(ofForwarded: sent.last!.forwarded &+ 1) == nil)
    }

    @Test func switchingDownIsAtOnceAndUpWaitsForEachLayersSwitchingPoint() {
        var forwarder = LayerForwarder(layer: 2)
        var stream = Stream(sequenceNumber: 100)
        _ = stream.next(into: &forwarder, keyframe: true)
        forwarder.targetLayer = 0
        #expect(stream.next(into: &forwarder).forwarded.allSatisfy { $0 == nil })    // layer 2, left out at once
        #expect(forwarder.currentLayer == 0)
        // Up to 2: the next frame is layer 1 but not a switching point, so it waits.
        forwarder.targetLayer = 2
        #expect(stream.next(into: &forwarder, sync: false).forwarded.allSatisfy { $0 == nil })
        #expect(stream.next(into: &forwarder).forwarded.allSatisfy { $0 == nil })    // layer 2 before layer 1: still waits
        #expect(forwarder.currentLayer == 0)
        #expect(stream.next(into: &forwarder).forwarded.allSatisfy { $0 != nil })    // layer 0
        #expect(stream.next(into: &forwarder).forwarded.allSatisfy { $0 == nil })    // layer 2: not yet
        let middle = stream.next(into: &forwarder)                                    // layer 1, a switching point
        #expect(middle.layer == 1 && middle.forwarded.allSatisfy { $0 != nil } && forwarder.currentLayer == 1)
        let top = stream.next(into: &forwarder)                                       // layer 2, a switching point
        #expect(top.layer == 2 && top.forwarded.allSatisfy { $0 != nil } && forwarder.currentLayer == 2)
        #expect(forwarder.layerSwitches == 3)
    }

    @Test func aKeyframeTakesTheTargetAtOnce() {
        var forwarder = LayerForwarder(layer: 0)
        var stream = Stream(sequenceNumber: 0)
        _ = stream.next(into: &forwarder, keyframe: true)
        forwarder.targetLayer = 2
        _ = stream.next(into: &forwarder, keyframe: true)
        #expect(forwarder.currentLayer == 2)
        #expect(stream.next(into: &forwarder).forwarded.allSatisfy { $0 != nil })
    }

    /// NACKs for numbers older than the remembered history, or never sent, get nothing
    /// rather than another packet's original.
    @Test func oldNumbersAreForgotten() throws {
        var forwarder = LayerForwarder(layer: 2, history: 16)
        var stream = Stream(sequenceNumber: 7)
        let first = stream.next(into: &forwarder, keyframe: true)
        let number = try #require(first.forwarded[0])
        #expect(forwarder.original(ofForwarded: number) == 7)
        for _ in 0..<10 { _ = stream.next(into: &forwarder) }
        #expect(forwarder.original(ofForwarded: number) == nil)
    }
}

extension LayerForwarderTests {
    /// Picture ids shift by the frames left out, so a base-only receiver's run without
    /// gaps; each forwarded packet remembers its shift for a retransmission, and the shift
    /// wraps at 15 bits.
    @Test func pictureIDsShiftByTheFramesLeftOut() throws {
        var forwarder = LayerForwarder(layer: 0)
        var stream = Stream(sequenceNumber: 10)
        var shifted: [UInt16] = []
        var firstPacketOfFrame: [UInt16] = []
        for index in 0..<12 {
            let frame = stream.next(into: &forwarder, packets: 1, keyframe: index == 0)
            guard let number = frame.forwarded[0] else { continue }
            // Picture ids run 0x7FFE, 0x7FFF, 0, …: one per frame of the stream.
            let original = UInt16((0x7FFE + index) & 0x7FFF)
            shifted.append(LayerForwarder.shifted(original, by: forwarder.pictureIDShift))
            firstPacketOfFrame.append(number)
        }
        #expect(shifted == [0x7FFE, 0x7FFF, 0])    // frames 0, 4, 8 of the stream
        #expect(forwarder.pictureIDShift == 9)       // nine of twelve frames left out
        let remembered = try #require(forwarder.originalAndShift(ofForwarded: firstPacketOfFrame[1]))
        #expect(remembered.original == 14 && remembered.pictureIDShift == 3)
        #expect(LayerForwarder.shifted(2, by: 5) == 0x7FFD)
    }
}

extension LayerForwarderTests {
    /// Two encodes of one picture (simulcast): each frame time has a frame of each, with
    /// their own sequence numbers and picture ids.
    struct Encode {
        var sequenceNumber: UInt16
        var pictureID: UInt16
        let stream: UInt8

        /// Sends one frame of `packets` packets through `forwarder`; the forwarded numbers
        /// and picture ids (nil for packets left out).
        mutating func next(into forwarder: inout LayerForwarder, keyframe: Bool = false,
                           packets: Int = 2) -> [(number: UInt16, pictureID: UInt16)?] {
            forwarder.beginFrame(stream: stream, layer: 0, isSwitchingPoint: false, isKeyframe: keyframe)
            var result: [(number: UInt16, pictureID: UInt16)?] = []
            for _ in 0..<packets {
                let forwarded = forwarder.forward(sequenceNumber, pictureID: pictureID)
                result.append(forwarded.map { ($0, LayerForwarder.shifted(pictureID, by: forwarder.pictureIDShift)) })
                sequenceNumber &+= 1
            }
            pictureID = (pictureID + 1) & 0x7FFF
            return result
        }
    }

    /// A receiver moved to the other encode gets it from that encode's next keyframe on,
    /// never two frames of one time, with numbers and picture ids that run on without a
    /// gap; its NACKs map back to the encode and number each packet had.
    @Test func aStreamSwitchWaitsForTheTargetsKeyframeAndContinuesTheNumbers() throws {
        var forwarder = LayerForwarder(layer: 0)
        var first = Encode(sequenceNumber: 65_500, pictureID: 0x7FF0, stream: 0)
        var second = Encode(sequenceNumber: 100, pictureID: 7, stream: 1)
        var received: [(number: UInt16, pictureID: UInt16)] = []
        var sources: [(number: UInt16, stream: UInt8, original: UInt16)] = []
        func frameTime(secondKeyframe: Bool = false, firstKeyframe: Bool = false) {
            let targetKeyframe = forwarder.targetStream == 1 ? secondKeyframe : firstKeyframe
            forwarder.beginFrameTime(targetHasKeyframe: targetKeyframe)
            let firstStart = first.sequenceNumber, secondStart = second.sequenceNumber
            let a = first.next(into: &forwarder, keyframe: firstKeyframe)
            let b = second.next(into: &forwarder, keyframe: secondKeyframe)
            // Exactly one encode's frame per time.
            #expect(a.allSatisfy { $0 != nil } != b.allSatisfy { $0 != nil })
            #expect(a.allSatisfy { $0 == nil } != b.allSatisfy { $0 == nil })
            for (index, packet) in a.enumerated() { if let packet { received.append(packet); sources.append((packet.number, 0, firstStart &+ UInt16(index))) } }
            for (index, packet) in b.enumerated() { if let packet { received.append(packet); sources.append((packet.number, 1, secondStart &+ UInt16(index))) } }
        }
        frameTime(firstKeyframe: true)
        for _ in 0..<3 { frameTime() }
        forwarder.targetStream = 1
        for _ in 0..<3 { frameTime() }                      // no keyframe of the second yet: still the first
        #expect(forwarder.currentStream == 0 && forwarder.streamSwitches == 0)
        frameTime(secondKeyframe: true)
        #expect(forwarder.currentStream == 1 && forwarder.streamSwitches == 1)
        for _ in 0..<3 { frameTime() }
        forwarder.targetStream = 0
        frameTime(secondKeyframe: true)                     // a keyframe of the wrong encode switches nothing
        #expect(forwarder.currentStream == 1)
        frameTime(firstKeyframe: true)
        for _ in 0..<2 { frameTime() }
        #expect(forwarder.currentStream == 0 && forwarder.streamSwitches == 2)
        #expect(received.count == 2 * 15)                   // 15 frame times, two packets each
        for (previous, next) in zip(received, received.dropFirst()) {
            #expect(next.number == previous.number &+ 1)
            #expect(next.pictureID == previous.pictureID || next.pictureID == (previous.pictureID + 1) & 0x7FFF)
        }
        #expect(received.last!.pictureID == (received.first!.pictureID + 14) & 0x7FFF)   // 15 frames, no gap
        for source in sources {
            let mapped = try #require(forwarder.originalAndShift(ofForwarded: source.number))
            #expect(mapped.stream == source.stream && mapped.original == source.original)
        }
        // Frames of the encode the receiver does not get are not counted as left out.
        #expect(forwarder.framesDropped == 0 && forwarder.packetsDropped == 0)
    }
}

extension LayerForwarderTests {
    /// VP9 in flexible mode: frames left out still leave gaps in the sequence numbers of
    /// none, but picture ids go out as they are (P_DIFFs name them), retransmissions too.
    @Test func flexibleModeKeepsPictureIDsAndRenumbersPackets() throws {
        var forwarder = LayerForwarder(layer: 2, shiftsPictureIDs: false)
        var stream = Stream(sequenceNumber: 65_534)
        var pictureID: UInt16 = 0x7FFE
        var received: [(number: UInt16, original: UInt16, pictureID: UInt16)] = []
        for index in 0..<16 {
            if index == 1 { forwarder.targetLayer = 0 }
            let frame = stream.next(into: &forwarder, keyframe: index == 0)
            for (forwarded, original) in zip(frame.forwarded, frame.originals) {
                guard let forwarded else { continue }
                received.append((forwarded, original, LayerForwarder.shifted(pictureID, by: forwarder.pictureIDShift)))
            }
            pictureID = (pictureID + 1) & 0x7FFF
        }
        // Frames 0, 4, 8, 12: the base layer, two packets each, numbered without a gap.
        #expect(received.count == 8)
        for (previous, next) in zip(received, received.dropFirst()) { #expect(next.number == previous.number &+ 1) }
        #expect(received.map(\.pictureID) == [0x7FFE, 0x7FFE, 2, 2, 6, 6, 10, 10])
        #expect(forwarder.pictureIDShift == 0 && forwarder.framesDropped == 12)
        for packet in received {
            let remembered = try #require(forwarder.originalAndShift(ofForwarded: packet.number))
            #expect(remembered.original == packet.original && remembered.pictureIDShift == 0)
        }
    }
}
