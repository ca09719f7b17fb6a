import ConferJitter
import ConferMedia
import Testing

/// Feeds packets straight into a jitter buffer, one frame every 33 ms, and records what comes out.
struct VideoBufferDriver {
    var buffer: VideoJitterBuffer
    var now = Timestamp.zero
    var delivered: [UInt16] = []
    var dropped: [VideoFrameDropReason] = []
    var keyframeRequests: [KeyframeRequest] = []
    var nacks: [[UInt16]] = []

    init(nack: Bool = false, codec: Codec = .vp8) throws {
        var configuration = VideoJitterBufferConfiguration()
        configuration.nackEnabled = nack
        buffer = try VideoJitterBuffer(codec: codec, configuration: configuration)
    }

    mutating func record(_ actions: [VideoJitterBufferAction]) {
        for action in actions {
            switch action {
            case .deliver(let frame, _): delivered.append(frame.vp8?.pictureID ?? frame.vp9!.pictureID)
            case .frameDropped(let reason): dropped.append(reason)
            case .requestKeyframe(let request): keyframeRequests.append(request)
            case .sendNACK(let numbers): nacks.append(numbers)
            }
        }
    }

    /// Sends each frame's packets at its capture time (frame i at i·33.3 ms) plus 20 ms,
    /// skipping the packets `lost` says, polling at every wakeup in between.
    mutating func play(_ frames: [[VideoTestPacket]], lost: (VideoTestPacket) -> Bool = { _ in false }) {
        for (index, frame) in frames.enumerated() {
            advance(to: Timestamp(microseconds: Int64(index) * 33_333) + .milliseconds(20))
            for packet in frame where !lost(packet) { record(buffer.insert(packet, arrival: now)) }
        }
        advance(to: now + .seconds(1))
    }

    mutating func advance(to time: Timestamp) {
        while let wakeup = buffer.nextWakeup, wakeup <= time {
            now = max(now, wakeup)
            record(buffer.poll(at: now))
        }
        now = time
        record(buffer.poll(at: now))
    }
}

@Suite("Video decodability")
struct VideoDecodabilityTests {
    /// L1T3: TL0 every fourth frame, TL2 frames between, TL1 in the middle; layer sync on the
    /// first TL1 and TL2 frames after each TL0 frame (they reference only the TL0 frame).
    static let l1t3: [(tl0: UInt8, tid: UInt8, sync: Bool)] = (0 ..< 16).map { index in
        let tl0 = UInt8(index / 4)
        switch index % 4 {
        case 0: return (tl0, 0, false)
        case 1: return (tl0, 2, true)
        case 2: return (tl0, 1, true)
        default: return (tl0, 2, false)
        }
    }

    @Test("temporal layers: a lost TL1 frame costs only the TL2 frame that needs it — no keyframe request")
    func lostEnhancementLayer() throws {
        let frames = VideoPackets.frames(count: 16, packetsPerFrame: 2, layers: Self.l1t3)
        var driver = try VideoBufferDriver()
        driver.play(frames) { $0.sequenceNumber == 5 }   // frame 2 (TL1), second packet
        #expect(driver.delivered == [0, 1] + Array(4 ..< 16))
        #expect(driver.dropped == [.notDecodable])   // frame 3, TL2 without layer sync
        #expect(driver.keyframeRequests.isEmpty)
    }

    @Test("temporal layers: a lost TL0 frame breaks everything above it until a keyframe is asked for")
    func lostBaseLayer() throws {
        let frames = VideoPackets.frames(count: 16, packetsPerFrame: 2, layers: Self.l1t3)
        var driver = try VideoBufferDriver()
        driver.play(frames) { $0.sequenceNumber == 8 }   // frame 4 (TL0), first packet
        #expect(driver.delivered == [0, 1, 2, 3])
        #expect(driver.dropped.count == 11 && driver.dropped.allSatisfy { $0 == .notDecodable })
        // First when frame 8 (TL0) is found undecodable, at about 0.3 s, then every 300 ms
        // while no keyframe comes (this sender sends none): five in the 1.5 s played.
        #expect(driver.keyframeRequests.count == 5)
        #expect(driver.keyframeRequests.first?.reason == .frameLost)
    }

    @Test("a picture-id chain stops at a lost frame and resumes at the next keyframe; the keyframe request is not repeated")
    func chainResumesAtKeyframe() throws {
        let frames = VideoPackets.frames(count: 30, packetsPerFrame: 3, keyframes: [0, 12])
        var driver = try VideoBufferDriver()
        driver.play(frames) { $0.sequenceNumber == 16 }   // frame 5
        #expect(driver.delivered == Array(0 ..< 5) + Array(12 ..< 30))
        #expect(driver.dropped.count == 6)   // frames 6…11
        #expect(driver.keyframeRequests.count == 1)
        let stats = driver.buffer.statistics
        #expect(stats.pliCount == 1 && stats.framesDropped == 6 && stats.framesReceived == 29)
        #expect(stats.packetsLost == 1)
    }

    @Test("a stream that starts without a keyframe asks for one and plays from it")
    func startWithoutKeyframe() throws {
        let frames = VideoPackets.frames(count: 10, packetsPerFrame: 1, keyframes: [4])
        var driver = try VideoBufferDriver()
        driver.play(frames)
        #expect(driver.delivered == Array(4 ..< 10))
        #expect(driver.keyframeRequests.map(\.reason) == [.streamStart])
    }

    @Test("after a decoder error, frames wait for a keyframe and one is requested")
    func decoderFailure() throws {
        let frames = VideoPackets.frames(count: 20, packetsPerFrame: 1, keyframes: [0, 15])
        var driver = try VideoBufferDriver()
        driver.play(Array(frames[0 ..< 5]))
        driver.record(driver.buffer.decoderFailed(at: driver.now))
        #expect(driver.keyframeRequests.map(\.reason) == [.decoderFailed])
        for (index, frame) in frames.enumerated().dropFirst(5) {
            driver.advance(to: driver.now + .milliseconds(33))
            _ = index
            for packet in frame { driver.record(driver.buffer.insert(packet, arrival: driver.now)) }
        }
        driver.advance(to: driver.now + .seconds(1))
        #expect(driver.delivered == Array(0 ..< 5) + Array(15 ..< 20))
        #expect(driver.dropped.count == 10)
    }

    @Test("a frame is delivered at its render time, not before; nextWakeup says when")
    func renderTime() throws {
        let frames = VideoPackets.frames(count: 2, packetsPerFrame: 2)
        var buffer = try VideoJitterBuffer(codec: .vp8)
        let arrival = Timestamp.seconds(10)
        for packet in frames[0] { #expect(buffer.insert(packet, arrival: arrival).isEmpty) }
        // No jitter seen yet: the target delay is the 10 ms render margin.
        #expect(buffer.nextWakeup == arrival + .milliseconds(10))
        #expect(buffer.poll(at: arrival + .milliseconds(9)).isEmpty)
        let actions = buffer.poll(at: arrival + .milliseconds(10))
        guard case .deliver(let frame, let renderTime)? = actions.first else {
            Issue.record("expected a delivery, got \(actions)")
            return
        }
        #expect(renderTime == arrival + .milliseconds(10))
        #expect(frame.isKeyframe && frame.timestamp == .zero && frame.vp8?.pictureID == 0 && frame.data.count == 200)
        #expect(buffer.nextWakeup == nil)
        let statistics = buffer.statistics
        #expect(statistics.jitterBufferDelay == 0.010 && statistics.jitterBufferTargetDelay == 0.010)
    }

    @Test("padding packets between frames fill their numbers; malformed and oversized payloads are dropped and counted")
    func paddingAndMalformed() throws {
        var frames = VideoPackets.frames(count: 6, packetsPerFrame: 1)
        // Renumber with a padding packet after every frame.
        var packets: [[VideoTestPacket]] = []
        for (index, frame) in frames.enumerated() {
            var packet = frame[0]
            packet.sequenceNumber = UInt16(2 * index)
            let padding = VideoTestPacket(sequenceNumber: UInt16(2 * index + 1), timestamp: packet.timestamp, marker: false, payload: [])
            packets.append([packet, padding])
        }
        frames = packets
        var driver = try VideoBufferDriver()
        driver.record(driver.buffer.insert(sequenceNumber: 100, timestamp: 0, marker: true, payload: [0x80], arrival: .zero))
        driver.record(driver.buffer.insert(sequenceNumber: 101, timestamp: 0, marker: true,
                                           payload: [UInt8](repeating: 0x10, count: 1501), arrival: .zero))
        driver.play(frames)
        #expect(driver.delivered == Array(0 ..< 6))
        let stats = driver.buffer.statistics
        #expect(stats.packetsMalformed == 2 && stats.packetsLost == 0 && stats.framesDropped == 0)
    }
}
