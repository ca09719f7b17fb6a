import ConferMedia
import Testing
@testable import ConferRTP
@testable import ConferJitter

/// One RTP packet of a test stream.
struct AssemblyPacket {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    var marker: Bool
    var payload: [UInt8]
}

/// Frame assembly on its own, as a recorder runs it: a ``VideoJitterBuffer`` that delivers
/// every frame as soon as it and the packets before it are in
/// (``VideoJitterBufferConfiguration/deliversWhenComplete``), no NACK, packets 1 ms apart.
struct AssemblingBuffer {
    var buffer: VideoJitterBuffer
    var now = Timestamp.zero

    init(_ codec: Codec, reorderWindow: Int = 16, packetCapacity: Int = 2048) throws {
        buffer = try VideoJitterBuffer(codec: codec, configuration: VideoJitterBufferConfiguration(
            packetCapacity: packetCapacity, nackEnabled: false, deliversWhenComplete: true, reorderWindow: reorderWindow))
    }

    /// Inserts one packet; the frames it delivered.
    mutating func insert(_ packet: AssemblyPacket) -> [EncodedFrame] {
        now += .milliseconds(1)
        return delivered(buffer.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                       marker: packet.marker, payload: packet.payload, arrival: now))
    }

    /// Inserts `packets` in the given order; every frame delivered.
    mutating func assemble(_ packets: [AssemblyPacket]) -> [EncodedFrame] {
        packets.flatMap { insert($0) }
    }

    /// Lets time pass until the frames waiting behind a gap are given up (the end of a stream).
    mutating func drain() -> [EncodedFrame] {
        now += buffer.configuration.maxLateness + .milliseconds(1)
        return delivered(buffer.poll(at: now))
    }

    private func delivered(_ actions: [VideoJitterBufferAction]) -> [EncodedFrame] {
        actions.compactMap { action in
            guard case .deliver(let frame, _) = action else { return nil }
            return frame
        }
    }
}

/// `count` seeded random bytes.
private func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    return (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
}

/// Packetizes `frames` into packets with consecutive sequence numbers from 65,500 (wrapping
/// early on purpose) and RTP timestamps 3000 apart from 0xFFFF_F000 (wrapping too).
private func packetize<P: Payloader>(_ frames: [EncodedFrame], with payloader: inout P, mtu: Int) throws -> [[AssemblyPacket]] {
    var sequence: UInt16 = 65_500
    return try frames.enumerated().map { index, frame in
        let timestamp = 0xFFFF_F000 &+ UInt32(index) &* 3000
        return try payloader.markedPayloads(frame, maxPayloadSize: mtu).map { payload, marker in
            defer { sequence &+= 1 }
            return AssemblyPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: payload)
        }
    }
}

/// Frame assembly — packets to whole frames, in order, through reordering, loss, padding,
/// duplicates, restarts and hostile sizes — as the one implementation both receive modes use.
@Suite struct VideoAssemblyTests {
    /// `count` VP8 frames of seeded sizes between 50 and 6000 bytes, a keyframe first.
    func vp8Frames(_ count: Int, seed: UInt64) -> [EncodedFrame] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { index in
            var data = randomBytes(50 + Int(random.next() % 5950), seed: seed &+ UInt64(index))
            data[0] = index == 0 ? data[0] & 0xFE : data[0] | 1
            return EncodedFrame(codec: .vp8, data: data, isKeyframe: index == 0, vp8: VP8FrameInfo(pictureID: UInt16(index)))
        }
    }

    func vp8Packets(_ frames: [EncodedFrame], mtu: Int = 500) throws -> [[AssemblyPacket]] {
        var payloader = VP8Payloader()
        return try packetize(frames, with: &payloader, mtu: mtu)
    }

    @Test func reorderingWithinTheWindowReassemblesEveryFrame() throws {
        let frames = vp8Frames(40, seed: 11)
        var packets = try vp8Packets(frames).flatMap { $0 }
        // Shuffle within consecutive blocks of 6 packets: a displacement of at most 5.
        var random = SeededRandom(seed: 99)
        for start in stride(from: 0, to: packets.count, by: 6) {
            packets[start..<min(start + 6, packets.count)].shuffle(using: &random)
        }
        var assembler = try AssemblingBuffer(.vp8, reorderWindow: 8)
        let output = assembler.assemble(packets)
        #expect(output.map(\.data) == frames.map(\.data))
        #expect(output.map(\.vp8?.pictureID) == frames.map(\.vp8?.pictureID))
        #expect(output.map(\.isKeyframe) == frames.map(\.isKeyframe))
        // Sequence numbers and RTP timestamps wrapped on the way; frames still come out evenly
        // spaced (timed from the first frame to complete, which reordering may make a later one).
        let spacing = output.map { ($0.timestamp - output[0].timestamp).microseconds }
        #expect(spacing.indices.allSatisfy { abs(spacing[$0] - Int64($0) * 33_333) <= $0 / 3 + 1 })
        #expect(assembler.buffer.statistics.framesReceived == 40 && assembler.buffer.statistics.packetsLost == 0)
        #expect(assembler.buffer.bufferedPacketCount == 0)
    }

    @Test func aMissingPacketDropsOnlyItsFrame() throws {
        let frames = vp8Frames(10, seed: 5)
        let perFrame = try vp8Packets(frames)
        var packets = perFrame.flatMap { $0 }
        let lost = perFrame[3][1].sequenceNumber   // the second packet of frame 3
        packets.removeAll { $0.sequenceNumber == lost }
        var assembler = try AssemblingBuffer(.vp8, reorderWindow: 4)
        // Frames after the gap wait until 4 newer packets arrived; at the end nothing newer
        // comes, so the wait ends by time.
        let output = assembler.assemble(packets) + assembler.drain()
        #expect(output.map(\.vp8?.pictureID) == [0, 1, 2, 4, 5, 6, 7, 8, 9])
        #expect(output.map(\.data) == frames.enumerated().filter { $0.offset != 3 }.map(\.element.data))
        // Frame 3 never completed; its other packets were let go with the gap.
        #expect(assembler.buffer.statistics.framesReceived == 9 && assembler.buffer.statistics.packetsLost == 1)
        #expect(assembler.buffer.bufferedPacketCount == 0)
    }

    @Test func framesBehindAGapWaitOnlyForTheWindow() throws {
        let frames = vp8Frames(6, seed: 8).map { frame -> EncodedFrame in
            var small = frame
            small.data = Array(frame.data.prefix(40))   // one packet each
            return small
        }
        let packets = try vp8Packets(frames).flatMap { $0 }
        var assembler = try AssemblingBuffer(.vp8, reorderWindow: 3)
        var emitted: [[UInt16?]] = []
        for packet in packets where packet.sequenceNumber != packets[1].sequenceNumber {
            emitted.append(assembler.insert(packet).map(\.vp8?.pictureID))
        }
        // Frame 1 is missing: frames 2 and 3 wait until frame 4's packet makes the gap 3 old.
        #expect(emitted == [[0], [], [], [2, 3, 4], [5]])
        // The missing packet turning up now is late.
        #expect(assembler.insert(packets[1]).isEmpty)
        #expect(assembler.buffer.statistics.packetsLate == 1)
    }

    @Test func duplicatesAndMalformedPacketsAreCountedAndDropped() throws {
        let frames = vp8Frames(3, seed: 2)
        let perFrame = try vp8Packets(frames)
        var assembler = try AssemblingBuffer(.vp8)
        var packets = perFrame.flatMap { $0 }
        packets.insert(packets[2], at: 4)
        #expect(assembler.assemble(packets).map(\.data) == frames.map(\.data))
        #expect(assembler.buffer.statistics.packetsDuplicated == 1)
        // X bit without its extension byte.
        let malformed: [UInt8] = [0x80]
        let error = malformed.withUnsafeBytes { bytes -> PayloadError? in
            do throws(PayloadError) { _ = try VP8Depacketizer().boundaries(of: bytes, marker: true) } catch { return error }
            return nil
        }
        #expect(error?.codec == .vp8 && error?.reason == .truncated && error?.offset == 1)
        let output = assembler.insert(AssemblyPacket(sequenceNumber: packets.last!.sequenceNumber &+ 1, timestamp: 1, marker: true,
                                                     payload: malformed))
        #expect(output.isEmpty)
        #expect(assembler.buffer.statistics.packetsMalformed == 1)
    }

    @Test func paddingPacketsBetweenFramesAreSkipped() throws {
        let frames = vp8Frames(4, seed: 3)
        let perFrame = try vp8Packets(frames)
        var packets: [AssemblyPacket] = []
        var sequence: UInt16 = 100
        for framePackets in perFrame {
            for var packet in framePackets {
                packet.sequenceNumber = sequence; sequence &+= 1
                packets.append(packet)
            }
            packets.append(AssemblyPacket(sequenceNumber: sequence, timestamp: framePackets[0].timestamp, marker: false, payload: []))
            sequence &+= 1
        }
        var assembler = try AssemblingBuffer(.vp8)
        #expect(assembler.assemble(packets).map(\.data) == frames.map(\.data))
        // Only the padding after the last frame is still held: padding is stepped over when the next frame is.
        #expect(assembler.buffer.statistics.packetsLost == 0 && assembler.buffer.bufferedPacketCount == 1)
    }

    @Test func theStreamsFirstPacketsMayArriveLate() throws {
        let frames = vp8Frames(3, seed: 4)
        var packets = try vp8Packets(frames).flatMap { $0 }
        packets.swapAt(0, 2)
        var assembler = try AssemblingBuffer(.vp8)
        #expect(assembler.assemble(packets).map(\.data) == frames.map(\.data))
    }

    @Test func memoryStaysBoundedWhenNoFrameCompletes() throws {
        let frames = vp8Frames(300, seed: 6)
        // Drop every frame's first packet: nothing can ever complete.
        let packets = try vp8Packets(frames).flatMap { $0.dropFirst() }
        var assembler = try AssemblingBuffer(.vp8, reorderWindow: 10_000, packetCapacity: 64)
        var maximum = 0
        for packet in packets {
            #expect(assembler.insert(packet).isEmpty)
            maximum = max(maximum, assembler.buffer.bufferedPacketCount)
        }
        #expect(assembler.buffer.packetCapacity == 64)
        #expect(maximum <= 64)
        #expect(assembler.buffer.statistics.framesReceived == 0)
        #expect(assembler.buffer.statistics.packetsReceived == packets.count)
    }

    @Test(arguments: [600 as UInt16, 32_768, 40_000])
    func aSequenceJumpStartsAgain(jump: UInt16) throws {
        // One-packet frames: 0 and 1 at 100 and 101, 2 lost, then 3…11 after a jump.
        var assembler = try AssemblingBuffer(.vp8)
        var emitted: [UInt8] = []
        for picture in 0..<12 where picture != 2 {
            let sequence = UInt16(100 + picture) &+ (picture >= 3 ? jump : 0)
            let packet = AssemblyPacket(sequenceNumber: sequence, timestamp: UInt32(picture) * 3000, marker: true,
                                        payload: [0x10, UInt8(picture)])
            emitted += assembler.insert(packet).map { $0.data[0] }
        }
        if jump < 32_768 {
            // A jump ahead within the ring: the gap is given up at once.
            #expect(emitted == [0, 1] + Array(3...11))
        } else {
            // A jump that looks like the past: three packets are dropped, the fourth restarts.
            #expect(emitted == [0, 1] + Array(6...11))
            #expect(assembler.buffer.statistics.packetsOutOfRange == 3)
            #expect(assembler.buffer.statistics.streamRestarts == 1)
        }
    }

    @Test func aFrameLargerThanTheBufferIsGivenUpAndTheNextOneStillComes() throws {
        // Found while fuzzing: a frame that needs more packets than the buffer holds.
        var big = vp8Frames(2, seed: 21)
        big[0].data = randomBytes(100 * 80, seed: 21)
        big[0].data[0] &= 0xFE
        big[1].data = Array(big[1].data.prefix(60))
        let packets = try vp8Packets(big, mtu: 102)   // 100 bitstream bytes a packet
        try #require(packets[0].count > 64)
        var assembler = try AssemblingBuffer(.vp8, packetCapacity: 64)
        let output = assembler.assemble(packets.flatMap { $0 })
        #expect(output.map(\.data) == [big[1].data])
        #expect(assembler.buffer.statistics.framesReceived == 1)
        #expect(assembler.buffer.bufferedPacketCount == 0)
    }

    @Test func h264AccessUnitAfterALostMarkerPacketStillAssembles() throws {
        // Slices whose first payload byte has its top bit set: first_mb_in_slice = 0.
        func slice(_ type: UInt8, size: Int, seed: UInt64) -> [UInt8] {
            var bytes = randomBytes(size, seed: seed)
            bytes[0] = 0x60 | type
            bytes[1] |= 0x80
            return bytes
        }
        func annexB(_ nalUnits: [[UInt8]]) -> EncodedFrame {
            var data: [UInt8] = []
            var ranges: [Range<Int>] = []
            for nal in nalUnits {
                data += [0, 0, 0, 1]
                ranges.append(data.count..<data.count + nal.count)
                data += nal
            }
            return EncodedFrame(codec: .h264, data: data, nalUnits: ranges)
        }
        let units: [[[UInt8]]] = [[[0x67, 1, 2], [0x68, 3], slice(5, size: 2500, seed: 1)],
                                  [slice(1, size: 2500, seed: 2)], [slice(1, size: 900, seed: 3)], [slice(1, size: 1800, seed: 4)]]
        let frames = units.map(annexB)
        var payloader = H264Payloader()
        let perFrame = try packetize(frames, with: &payloader, mtu: 1000)
        // Lose access unit 1's last packet (its marker): AU 2 then starts after a gap.
        let lost = perFrame[1].last!.sequenceNumber
        let packets = perFrame.flatMap { $0 }.filter { $0.sequenceNumber != lost }
        var assembler = try AssemblingBuffer(.h264, reorderWindow: 2)
        let output = assembler.assemble(packets) + assembler.drain()
        #expect(output.map(\.data) == [frames[0].data, frames[2].data, frames[3].data])
        #expect(output.map(\.isKeyframe) == [true, false, false])
        #expect(output.map(\.timestamp) == [0, 2, 3].map { Timestamp.fromTicks(Int64($0) * 3000, rate: 90_000) })
        #expect(assembler.buffer.statistics.framesReceived == 3 && assembler.buffer.statistics.packetsLost == 1)
    }

    @Test func aFrameThatDoesNotDepacketizeIsDroppedAsMalformed() throws {
        var assembler = try AssemblingBuffer(.h264)
        // An FU-A start and then a single NAL unit carrying the marker.
        _ = assembler.insert(AssemblyPacket(sequenceNumber: 1, timestamp: 0, marker: false, payload: [0x7C, 0x87, 1]))
        let actions = assembler.buffer.insert(sequenceNumber: 2, timestamp: 0, marker: true, payload: [0x61, 0x80],
                                              arrival: assembler.now + .milliseconds(1))
        #expect(actions.contains { if case .frameDropped(.malformed) = $0 { true } else { false } })
        #expect(assembler.buffer.statistics.framesDropped == 1 && assembler.buffer.statistics.framesDelivered == 0)
        let next = assembler.insert(AssemblyPacket(sequenceNumber: 3, timestamp: 3000, marker: true, payload: [0x65, 0x80]))
        #expect(next.map(\.data) == [[0, 0, 0, 1, 0x65, 0x80]])
    }
}
