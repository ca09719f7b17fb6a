import ConferMedia
import Testing
@testable import ConferRTP

@Suite struct FrameAssemblerTests {
    /// `count` VP8 frames of seeded sizes between 50 and 6000 bytes, a keyframe first.
    func vp8Frames(_ count: Int, seed: UInt64) -> [EncodedFrame] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            var data = randomBytes(50 + Int(random.next() % 5950), seed: seed &+ UInt64(index))
            data[0] = index == 0 ? data[0] & 0xFE : data[0] | 1
            return EncodedFrame(codec: .vp8, data: data, isKeyframe: index == 0, vp8: VP8FrameInfo(pictureID: UInt16(index)))
        }
    }

    func vp8Packets(_ frames: [EncodedFrame], mtu: Int = 500) throws -> [[TestPacket]] {
        var payloader = VP8Payloader()
        return try packetize(frames, with: &payloader, mtu: mtu)
    }

    @Test func sequenceNumberComparisonWraps() {
        #expect(isNewer(1, 0) && !isNewer(0, 1) && !isNewer(7, 7))
        #expect(isNewer(0, 65_535) && isNewer(10, 65_530) && !isNewer(65_530, 10))
        #expect(isNewer(0x7FFF, 0) && !isNewer(0x8000, 0))
    }

    @Test func reorderingWithinTheWindowReassemblesEveryFrame() throws {
        let frames = vp8Frames(40, seed: 11)
        var packets = try vp8Packets(frames).flatMap { $0 }
        // Shuffle within consecutive blocks of 6 packets: a displacement of at most 5.
        var random = SeededRandom(seed: 99)
        for start in stride(from: 0, to: packets.count, by: 6) {
            packets[start..<min(start + 6, packets.count)].shuffle(using: &random)
        }
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), reorderWindow: 8)
        let output = assemble(packets, with: &assembler)
        #expect(output.map(\.data) == frames.map(\.data))
        #expect(output.map(\.vp8?.pictureID) == frames.map(\.vp8?.pictureID))
        #expect(output.map(\.isKeyframe) == frames.map(\.isKeyframe))
        // RTP timestamps wrapped past 2³² on the way and still come out evenly spaced.
        #expect(output.map(\.timestamp) == frames.indices.map { Timestamp.fromTicks(Int64($0) * 3000, rate: 90_000) })
        #expect(assembler.stats.framesEmitted == 40 && assembler.stats.framesIncomplete == 0)
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func aMissingPacketDropsOnlyItsFrame() throws {
        let frames = vp8Frames(10, seed: 5)
        let perFrame = try vp8Packets(frames)
        var packets = perFrame.flatMap { $0 }
        let lost = perFrame[3][1].sequenceNumber   // the second packet of frame 3
        packets.removeAll { $0.sequenceNumber == lost }
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), reorderWindow: 4)
        var output = assemble(packets, with: &assembler)
        // Frames after the gap wait until 4 newer packets arrived; at the end nothing newer
        // comes, so the jitter buffer would give up by time: skipMissing.
        assembler.skipMissing()
        while let frame = assembler.nextFrame() { output.append(frame) }
        #expect(output.map(\.vp8?.pictureID) == [0, 1, 2, 4, 5, 6, 7, 8, 9])
        #expect(output.map(\.data) == frames.enumerated().filter { $0.offset != 3 }.map(\.element.data))
        #expect(assembler.stats.framesIncomplete == 1)
        #expect(assembler.stats.packetsDiscarded == perFrame[3].count - 1)
    }

    @Test func framesBehindAGapWaitOnlyForTheWindow() throws {
        let frames = vp8Frames(6, seed: 8).map { frame -> EncodedFrame in
            var small = frame
            small.data = Array(frame.data.prefix(40))   // one packet each
            return small
        }
        let packets = try vp8Packets(frames).flatMap { $0 }
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), reorderWindow: 3)
        var emitted: [[UInt16?]] = []
        for packet in packets where packet.sequenceNumber != packets[1].sequenceNumber {
            _ = assembler.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker, payload: packet.payload)
            var now: [UInt16?] = []
            while let frame = assembler.nextFrame() { now.append(frame.vp8?.pictureID) }
            emitted.append(now)
        }
        // Frame 1 is missing: frames 2 and 3 wait until frame 4's packet makes the gap 3 old.
        #expect(emitted == [[0], [], [], [2, 3, 4], [5]])
        // The missing packet turning up now is late.
        let late = assembler.insert(sequenceNumber: packets[1].sequenceNumber, timestamp: packets[1].timestamp,
                                    marker: true, payload: packets[1].payload)
        #expect(late == .late && assembler.stats.packetsLate == 1)
    }

    @Test func duplicatesAndMalformedPacketsAreCountedAndDropped() throws {
        let frames = vp8Frames(3, seed: 2)
        let perFrame = try vp8Packets(frames)
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer())
        var packets = perFrame.flatMap { $0 }
        packets.insert(packets[2], at: 4)
        var output = assemble(packets, with: &assembler)
        #expect(output.map(\.data) == frames.map(\.data))
        #expect(assembler.stats.packetsDuplicate == 1)
        // X bit without its extension byte.
        let result = assembler.insert(sequenceNumber: packets.last!.sequenceNumber &+ 1, timestamp: 1, marker: true, payload: [0x80])
        guard case .malformed(let error) = result else { Issue.record("expected malformed, got \(result)"); return }
        #expect(error.codec == .vp8 && error.reason == .truncated && error.offset == 1)
        #expect(assembler.stats.packetsMalformed == 1)
        output = []
        while let frame = assembler.nextFrame() { output.append(frame) }
        #expect(output.isEmpty)
    }

    @Test func paddingPacketsBetweenFramesAreSkipped() throws {
        let frames = vp8Frames(4, seed: 3)
        let perFrame = try vp8Packets(frames)
        var packets: [TestPacket] = []
        var sequence: UInt16 = 100
        for framePackets in perFrame {
            for var packet in framePackets {
                packet.sequenceNumber = sequence; sequence &+= 1
                packets.append(packet)
            }
            packets.append(TestPacket(sequenceNumber: sequence, timestamp: framePackets[0].timestamp, marker: false, payload: []))
            sequence &+= 1
        }
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer())
        #expect(assemble(packets, with: &assembler).map(\.data) == frames.map(\.data))
        #expect(assembler.stats.framesIncomplete == 0 && assembler.bufferedPacketCount == 0)
    }

    @Test func theStreamsFirstPacketsMayArriveLate() throws {
        let frames = vp8Frames(3, seed: 4)
        var packets = try vp8Packets(frames).flatMap { $0 }
        packets.swapAt(0, 2)
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer())
        #expect(assemble(packets, with: &assembler).map(\.data) == frames.map(\.data))
    }

    @Test func memoryStaysBoundedWhenNoFrameCompletes() throws {
        let frames = vp8Frames(300, seed: 6)
        // Drop every frame's first packet: nothing can ever complete.
        let packets = try vp8Packets(frames).flatMap { $0.dropFirst() }
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), capacity: 64, reorderWindow: 10_000)
        var maximum = 0
        for packet in packets {
            _ = assembler.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker, payload: packet.payload)
            #expect(assembler.nextFrame()?.data == nil)
            maximum = max(maximum, assembler.bufferedPacketCount)
        }
        #expect(assembler.capacity == 64 && assembler.reorderWindow == 63)
        #expect(maximum <= 64)
        #expect(assembler.stats.framesEmitted == 0)
        #expect(assembler.stats.framesIncomplete > 200)
        #expect(assembler.stats.packetsDiscarded + assembler.bufferedPacketCount == packets.count)
    }

    @Test(arguments: [600 as UInt16, 32_768, 40_000])
    func aSequenceJumpStartsAgain(jump: UInt16) {
        // One-packet frames: 0 and 1 at 100 and 101, 2 lost, then 3…11 after a jump.
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), capacity: 512)
        var emitted: [UInt8] = []
        for picture in 0..<12 where picture != 2 {
            let sequence = UInt16(100 + picture) &+ (picture >= 3 ? jump : 0)
            _ = assembler.insert(sequenceNumber: sequence, timestamp: UInt32(picture) * 3000, marker: true,
                                 payload: [0x10, UInt8(picture)])
            while let frame = assembler.nextFrame() { emitted.append(frame.data[0]) }
        }
        if jump < 32_768 {
            // A jump ahead: start again at once.
            #expect(emitted == [0, 1] + Array(3...11))
        } else {
            // A jump that looks like the past: three packets are late, the fourth restarts.
            #expect(emitted == [0, 1] + Array(6...11))
            #expect(assembler.stats.packetsLate == 3)
        }
    }

    @Test func aFrameLargerThanTheBufferIsGivenUpAndTheNextOneStillComes() throws {
        // Found while fuzzing: 1651 bytes at 3 bytes a payload need more packets than the buffer holds.
        var big = vp8Frames(2, seed: 21)
        big[1].data = Array(big[1].data.prefix(60))
        let packets = try vp8Packets(big, mtu: 102)   // 100 bitstream bytes a packet
        try #require(packets[0].count > 16)
        var assembler = FrameAssembler(depacketizer: VP8Depacketizer(), capacity: 16)
        let output = assemble(packets.flatMap { $0 }, with: &assembler)
        #expect(output.map(\.data) == [big[1].data])
        #expect(assembler.stats.framesIncomplete == 1)
        #expect(assembler.bufferedPacketCount == 0)
    }

    @Test func h264AccessUnitAfterALostMarkerPacketStillAssembles() throws {
        // Slices whose first payload byte has its top bit set: first_mb_in_slice = 0.
        func slice(_ type: UInt8, size: Int, seed: UInt64) -> [UInt8] {
            var bytes = randomBytes(size, seed: seed)
            bytes[0] = 0x60 | type
            bytes[1] |= 0x80
            return bytes
        }
        let units: [[[UInt8]]] = [[[0x67, 1, 2], [0x68, 3], slice(5, size: 2500, seed: 1)],
                                  [slice(1, size: 2500, seed: 2)], [slice(1, size: 900, seed: 3)], [slice(1, size: 1800, seed: 4)]]
        let frames = units.map { EncodedFrame(codec: .h264, data: annexB($0).data, nalUnits: annexB($0).ranges) }
        var payloader = H264Payloader()
        let perFrame = try packetize(frames, with: &payloader, mtu: 1000)
        // Lose access unit 1's last packet (its marker): AU 2 then starts after a gap.
        let lost = perFrame[1].last!.sequenceNumber
        let packets = perFrame.flatMap { $0 }.filter { $0.sequenceNumber != lost }
        var assembler = FrameAssembler(depacketizer: H264Depacketizer(), reorderWindow: 2)
        var output = assemble(packets, with: &assembler)
        assembler.skipMissing()
        while let frame = assembler.nextFrame() { output.append(frame) }
        #expect(output.map(\.data) == [frames[0].data, frames[2].data, frames[3].data])
        #expect(output.map(\.isKeyframe) == [true, false, false])
        #expect(output.map(\.timestamp) == [0, 2, 3].map { Timestamp.fromTicks(Int64($0) * 3000, rate: 90_000) })
        #expect(assembler.stats.framesIncomplete == 1)
    }

    @Test func aFrameThatDoesNotDepacketizeIsCountedMalformed() {
        var assembler = FrameAssembler(depacketizer: H264Depacketizer())
        // An FU-A start and then a single NAL unit carrying the marker.
        _ = assembler.insert(sequenceNumber: 1, timestamp: 0, marker: false, payload: [0x7C, 0x87, 1])
        _ = assembler.insert(sequenceNumber: 2, timestamp: 0, marker: true, payload: [0x61, 0x80])
        #expect(assembler.nextFrame()?.data == nil)
        #expect(assembler.stats.framesMalformed == 1)
        _ = assembler.insert(sequenceNumber: 3, timestamp: 3000, marker: true, payload: [0x65, 0x80])
        #expect(assembler.nextFrame()?.data == [0, 0, 0, 1, 0x65, 0x80])
    }
}
