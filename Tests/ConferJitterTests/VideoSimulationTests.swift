import ConferCodecs
import ConferJitter
import ConferMedia
import ConferRTP
import Testing

/// A sender, a lossy link and a receiving ``VideoJitterBuffer`` in virtual time.
///
/// The sender captures a frame every 1/fps seconds — from a real VP8 encoder on a test
/// pattern, or synthetic VP8 frames — packetizes it with ``VP8Payloader`` (MTU 1200), stores
/// every packet in an ``RTPPacketHistory`` and sends it over a ``VideoTestLink``. The
/// receiver feeds arrivals to the jitter buffer (RTX through ``RTXPacket``), polls it at its
/// `nextWakeup`, decodes delivered frames with ``AnyVideoDecoder`` when the codec is real,
/// and reports them decoded and rendered at once. NACKs and keyframe requests reach the
/// sender after `feedbackDelay` (RTT/2, lossless); the sender answers NACKs from its history
/// over the same lossy link, and keyframe requests by making its next frame a keyframe.
struct VideoCallSimulation {
    struct Options {
        var fps = 30.0
        var rtt = TimeDelta.milliseconds(100)
        var jitter = TimeDelta.zero
        var lossRate = 0.0
        var seed: UInt64 = 1
        var configuration = VideoJitterBufferConfiguration()
        /// A real VP8 encoder (320×240) and decoder, or synthetic frames.
        var realCodec = false
        var bitrate = 250_000
        /// Synthetic frame size (2 packets at MTU 1200); keyframes are 8 times larger.
        var syntheticFrameBytes = 1500
        var firstSequenceNumber: UInt16 = 65_500
        var firstTimestamp: UInt32 = 0xFFFF_0000
        var ssrc: UInt32 = 0x1111_2222
        /// No frames are captured from this time on (so the buffer can drain).
        var stopCapturingAt = Timestamp(microseconds: .max)
        /// Every packet (and retransmission) is sent twice, each copy with its own delay.
        var duplicatesEveryPacket = false
    }

    enum Event {
        case arrival([UInt8])
        case nack([UInt16])
        case keyframeRequest
    }

    static let rtxSSRC: UInt32 = 0x3333_4444
    static let mtu = 1200

    var options: Options
    var buffer: VideoJitterBuffer
    var history: RTPPacketHistory
    var link: VideoTestLink
    var now = Timestamp.zero
    /// No frames are captured before this time (a frozen sender).
    var pausedUntil = Timestamp.zero
    /// Whether RTP timestamps keep running while paused (a real capture clock) or continue
    /// from the last frame (a sender whose clock stopped).
    var timestampsRunWhilePaused = true

    private var events: [(time: Timestamp, order: Int, event: Event)] = []
    private var eventOrder = 0
    private var captureIndex = 0
    private var timestampOffset: Int64 = 0
    private var sequenceNumber: UInt16
    private var pictureID: UInt16 = 0
    private var keyframeRequested = true
    private var encoder: AnyVideoEncoder?
    private var pattern: TestPatternSource?
    private var decoder: AnyVideoDecoder?
    private var payloader = VP8Payloader()
    private var encoded = EncodedFrame(codec: .vp8)
    private var scratch = [UInt8](repeating: 0, count: 2048)

    // What happened.
    private(set) var framesSent = 0
    private(set) var keyframesSent = 0
    private(set) var packetsSent = 0
    private(set) var nacksAtSender = 0
    private(set) var keyframeRequestsAtSender = 0
    private(set) var framesDecoded = 0
    private(set) var decodeErrors = 0
    private(set) var framesWithoutPicture = 0
    private(set) var drops: [VideoFrameDropReason: Int] = [:]
    /// Every delivered frame: picture id, delivery time, render time, target delay then.
    private(set) var deliveries: [(pictureID: UInt16, at: Timestamp, renderTime: Timestamp, target: TimeDelta)] = []
    /// For each frame whose packets all arrived: the extra link delay of its last packet.
    private(set) var frameLinkJitter: [TimeDelta] = []

    init(_ options: Options) throws {
        self.options = options
        buffer = try VideoJitterBuffer(codec: .vp8, configuration: options.configuration)
        buffer.updateRTT(options.rtt)
        history = RTPPacketHistory(rtxSSRC: Self.rtxSSRC, rtxPayloadType: 97)
        link = VideoTestLink(baseDelay: TimeDelta(microseconds: options.rtt.microseconds / 2), jitter: options.jitter, lossRate: options.lossRate,
                             seed: options.seed)
        sequenceNumber = options.firstSequenceNumber
        if options.realCodec {
            let settings = VideoEncoderSettings(width: 320, height: 240, frameRate: options.fps, bitrate: options.bitrate)
            encoder = try AnyVideoEncoder(codec: .vp8, settings: settings, allowsFrameDropping: false)
            pattern = TestPatternSource(width: 320, height: 240, frameRate: options.fps, colorIndex: 1, seed: options.seed)
            decoder = try AnyVideoDecoder(codec: .vp8)
        }
    }

    var frameInterval: TimeDelta { .seconds(1 / options.fps) }
    private var nextCapture: Timestamp { Timestamp(microseconds: Int64((Double(captureIndex) * 1_000_000 / options.fps).rounded())) }

    /// Sets the SSRC of the packets captured from now on (a sender that restarted).
    mutating func changeSSRC(to ssrc: UInt32, firstSequenceNumber: UInt16, firstTimestamp: UInt32) {
        options.ssrc = ssrc
        sequenceNumber = firstSequenceNumber
        options.firstTimestamp = firstTimestamp
        keyframeRequested = true
        history.removeAll()
    }

    /// Schedules `count` hostile packets spread evenly over `window`: RTP headers with the
    /// stream's SSRC and random sequence numbers, timestamps and marker bits over random
    /// payloads (some look like VP8, some are garbage), RTX packets with random OSNs, and
    /// bytes that are not RTP at all.
    mutating func scheduleHostilePackets(_ count: Int, over window: Range<Timestamp>, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let span = (window.upperBound - window.lowerBound).microseconds
        for index in 0 ..< count {
            let time = window.lowerBound + TimeDelta(microseconds: span * Int64(index) / Int64(count))
            let size = Int(random.next() % 1400)
            var payload = (0 ..< size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !payload.isEmpty && random.next() % 2 == 0 { payload[0] = 0x90 }   // X and S set: parses as VP8
            let kind = random.next() % 10
            let ssrc = kind == 0 ? Self.rtxSSRC : options.ssrc
            let header = RTPHeader(payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: random.next()),
                                   timestamp: UInt32(truncatingIfNeeded: random.next()), ssrc: ssrc,
                                   marker: random.next() % 2 == 0)
            var bytes = (try? header.serialized(payload: payload)) ?? []
            if kind == 1 { bytes = Array(bytes.prefix(Int(random.next() % 16))) }   // truncated: not RTP
            schedule(.arrival(bytes), at: time)
        }
    }

    /// Runs every event up to and including `end`.
    mutating func run(until end: Timestamp) {
        var pollsAtOneTime = 0
        while true {
            var next = nextCapture < options.stopCapturingAt ? nextCapture : Timestamp(microseconds: .max)
            if let first = events.first, first.time < next { next = first.time }
            if let wakeup = buffer.nextWakeup, wakeup < next { next = wakeup }
            guard next <= end else { break }
            if next == now { pollsAtOneTime += 1 } else { pollsAtOneTime = 0 }
            guard pollsAtOneTime < 10_000 else {
                Issue.record("the jitter buffer keeps asking to be polled at \(now)")
                return
            }
            now = next
            if let first = events.first, first.time == now {
                events.removeFirst()
                handle(first.event)
            } else if nextCapture == now {
                capture()
            } else {
                apply(buffer.poll(at: now))
            }
        }
        now = end
    }

    // MARK: Sender

    private mutating func capture() {
        let captureTime = nextCapture
        captureIndex += 1
        guard captureTime >= pausedUntil else {
            if !timestampsRunWhilePaused { timestampOffset -= frameInterval.microseconds }
            return
        }
        let frame: EncodedFrame
        if let encoder, var pattern {
            if keyframeRequested { encoder.requestKeyframe() }
            let picture = pattern.next()
            self.pattern = pattern
            guard (try? encoder.encode(picture, into: &encoded)) == true else { return }
            frame = encoded
        } else {
            let size = keyframeRequested ? options.syntheticFrameBytes * 8 : options.syntheticFrameBytes
            var data = [UInt8](repeating: UInt8(truncatingIfNeeded: captureIndex), count: size)
            data[0] = keyframeRequested ? 0x00 : 0x01
            frame = EncodedFrame(codec: .vp8, data: data, isKeyframe: keyframeRequested,
                                 vp8: VP8FrameInfo(pictureID: pictureID))
            pictureID = (pictureID &+ 1) & 0x7FFF
        }
        keyframeRequested = false
        framesSent += 1
        if frame.isKeyframe { keyframesSent += 1 }
        let ticks = (captureTime.microseconds + timestampOffset) * 9 / 100
        let timestamp = options.firstTimestamp &+ UInt32(truncatingIfNeeded: ticks)
        var lastArrival: Timestamp? = captureTime
        let payloads = (try? payloader.markedPayloads(frame, maxPayloadSize: Self.mtu)) ?? []
        for (payload, marker) in payloads {
            let header = RTPHeader(payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp,
                                   ssrc: options.ssrc, marker: marker)
            sequenceNumber &+= 1
            let bytes = try! header.serialized(payload: payload)
            try! history.store(bytes, sentAt: now)
            packetsSent += 1
            if options.duplicatesEveryPacket, let copy = link.transmit(at: now) { schedule(.arrival(bytes), at: copy) }
            let arrival = link.transmit(at: now)
            if let arrival {
                schedule(.arrival(bytes), at: arrival)
                lastArrival = lastArrival.map { max($0, arrival) }
            } else {
                lastArrival = nil
            }
        }
        if let lastArrival { frameLinkJitter.append(lastArrival - captureTime - link.baseDelay) }
    }

    private mutating func answer(_ numbers: [UInt16]) {
        nacksAtSender += 1
        var retransmissions: [[UInt8]] = []
        history.retransmit(numbers, now: now, rtt: options.rtt) { retransmissions.append(Array($0)) }
        for bytes in retransmissions {
            if options.duplicatesEveryPacket, let copy = link.transmit(at: now) { schedule(.arrival(bytes), at: copy) }
            if let arrival = link.transmit(at: now) { schedule(.arrival(bytes), at: arrival) }
        }
    }

    // MARK: Receiver

    private mutating func handle(_ event: Event) {
        switch event {
        case .arrival(let bytes):
            receive(bytes)
        case .nack(let numbers):
            answer(numbers)
        case .keyframeRequest:
            keyframeRequestsAtSender += 1
            keyframeRequested = true
        }
    }

    /// Hands one packet's bytes to the jitter buffer as the receiver would.
    mutating func receive(_ bytes: [UInt8]) {
        let arrival = now
        let actions: [VideoJitterBufferAction] = bytes.withUnsafeBytes { raw in
            guard let view = try? RTPPacketView(raw) else { return [] }
            if view.ssrc == Self.rtxSSRC {
                guard let rtx = try? RTXPacket(view) else { return [] }
                return buffer.insertRetransmission(rtx, arrival: arrival)
            }
            return buffer.insert(view, arrival: arrival)
        }
        apply(actions)
    }

    mutating func apply(_ actions: [VideoJitterBufferAction]) {
        for action in actions {
            switch action {
            case .sendNACK(let numbers):
                schedule(.nack(numbers), at: now + TimeDelta(microseconds: options.rtt.microseconds / 2))
            case .requestKeyframe:
                schedule(.keyframeRequest, at: now + TimeDelta(microseconds: options.rtt.microseconds / 2))
            case .deliver(let frame, let renderTime):
                deliveries.append((frame.vp8?.pictureID ?? 0, now, renderTime, buffer.targetDelay))
                if let decoder {
                    do {
                        if try decoder.decode(frame) != nil {
                            framesDecoded += 1
                            buffer.frameDecoded(at: now, isKeyframe: frame.isKeyframe)
                            buffer.frameRendered(at: now)
                        } else {
                            framesWithoutPicture += 1
                        }
                    } catch {
                        decodeErrors += 1
                        apply(buffer.decoderFailed(at: now))
                    }
                } else {
                    framesDecoded += 1
                    buffer.frameDecoded(at: now, isKeyframe: frame.isKeyframe)
                    buffer.frameRendered(at: now)
                }
            case .frameDropped(let reason):
                drops[reason, default: 0] += 1
            }
        }
    }

    mutating func schedule(_ event: Event, at time: Timestamp) {
        var index = events.count
        while index > 0, events[index - 1].time > time { index -= 1 }
        events.insert((time, eventOrder, event), at: index)
        eventOrder += 1
    }

    // MARK: Reading results

    /// Target delays of the frames delivered in `range`.
    func targets(in range: Range<Timestamp>) -> [TimeDelta] {
        deliveries.filter { range.contains($0.at) }.map(\.target)
    }
}

extension RTPHeader {
    /// The packet with this header and `payload`, in a new array.
    func serialized(payload: [UInt8]) throws -> [UInt8] {
        try RTPPacket(header: self, payload: payload).serialized()
    }
}

/// The nearest-rank percentile of `values`.
func percentile(_ values: [TimeDelta], _ p: Double) -> TimeDelta {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .zero }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count, max(1, rank)) - 1]
}

@Suite("Video call simulation")
struct VideoSimulationTests {
    @Test("a synthetic clean call delivers every frame in picture-id order")
    func cleanSyntheticCall() throws {
        var call = try VideoCallSimulation(VideoCallSimulation.Options())
        call.run(until: .seconds(3))
        let stats = call.buffer.statistics
        #expect(call.framesSent == 91)
        #expect(call.deliveries.count >= 88)
        let ids = call.deliveries.map(\.pictureID)
        #expect(ids == Array(0 ..< UInt16(ids.count)))
        #expect(stats.packetsLost == 0 && stats.framesDropped == 0 && stats.nackCount == 0 && stats.pliCount == 0)
    }
}
