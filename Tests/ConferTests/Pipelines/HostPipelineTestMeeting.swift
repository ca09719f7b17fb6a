import Testing
import Confer
import ConferMedia
import ConferMixer
import ConferSRTP
import ConferRTP

/// The time every part of a test meeting reads: links stamp what they carry with it.
final class MeetingClock {
    var now = Timestamp.zero
}

/// One direction between a participant and the host: a fixed delay (so a FIFO), and an
/// optional rule that drops datagrams.
final class MeetingLink {
    let clock: MeetingClock
    let delay: TimeDelta
    private var queue: [(time: Timestamp, bytes: [UInt8])] = []
    private var head = 0
    /// Returns true for a datagram to drop.
    var drop: (([UInt8]) -> Bool)?
    private(set) var dropped = 0
    private(set) var carried = 0

    init(clock: MeetingClock, delay: TimeDelta) {
        self.clock = clock
        self.delay = delay
    }

    func send(_ datagram: UnsafeRawBufferPointer) {
        let bytes = Array(datagram)
        if let drop, drop(bytes) {
            dropped += 1
            return
        }
        carried += 1
        queue.append((clock.now + delay, bytes))
    }

    var nextTime: Timestamp? { head < queue.count ? queue[head].time : nil }

    /// Hands each datagram due by `now` to `body`, oldest first.
    func deliver(until now: Timestamp, _ body: ([UInt8]) -> Void) {
        while head < queue.count, queue[head].time <= now {
            let bytes = queue[head].bytes
            head += 1
            body(bytes)
        }
        if head > 256 {
            queue.removeFirst(head)
            head = 0
        }
    }
}

/// What a participant decoded from the host.
final class ReceivedComposite {
    var frames = 0
    var keyframes = 0
    var last: VideoFrame?
    func take(_ frame: ReceivedVideoFrame) {
        frames += 1
        if frame.isKeyframe { keyframes += 1 }
        last = frame.frame
    }
}

/// A participant of a test meeting: a real SendPipeline (test pattern and tone) towards
/// the host and a real ReceivePipeline for what the host sends back.
final class MeetingEndpoint {
    let id: ParticipantID
    let index: Int
    let sender: SendPipeline
    let receiver: ReceivePipeline
    var source: TestPatternSource
    var tone: ToneSource
    let uplink: MeetingLink
    let downlink: MeetingLink
    let composite = ReceivedComposite()
    /// Whether it captures and sends media.
    var sending = true
    /// Whether the host still has it (removed participants are left alone).
    var present = true
    var framesCaptured = 0
    var audioChunks = 0
    /// When it joined: its capture clock starts there.
    let start: Timestamp
    /// Every 10 ms of audio pulled from the host's stream.
    var audioReceived: [Int16] = []
    /// SSRCs of the host's RTP by payload type.
    var downlinkStreams: [UInt8: Set<UInt32>] = [:]
    private var pulled = AudioFrame(silenceOf: 480, channels: 1)

    init(index: Int, host: HostPipeline, clock: MeetingClock, uplinkKey: SRTPMasterKey?, downlinkKey: SRTPMasterKey?,
         tone: ToneSource, delay: TimeDelta, reachable: Bool = true) throws {
        self.index = index
        id = ParticipantID(UInt32(index + 1))
        start = clock.now
        let uplink = MeetingLink(clock: clock, delay: delay)
        let downlink = MeetingLink(clock: clock, delay: delay)
        self.uplink = uplink
        self.downlink = downlink
        source = TestPatternSource(width: 160, height: 90, colorIndex: index, seed: UInt64(index))
        self.tone = tone
        sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 160, height: 90, maximumBitrate: 300_000, speed: -8, allowsFrameDropping: false),
            audio: .init(), probesBandwidth: false, cname: "participant-\(index)", srtpKey: uplinkKey,
            seed: UInt64(100 + index)), output: uplink.send)
        var receive = host.participantReceiveConfiguration
        receive.srtpKey = downlinkKey
        receive.ssrc = 0x3000_0000 + UInt32(index)
        let composite = composite
        receiver = try ReceivePipeline(configuration: receive, output: uplink.send, render: composite.take)
        var participant = HostParticipantConfiguration(
            receive: ReceivePipelineConfiguration(video: .init(codec: .vp8), audio: .init(),
                                                  ssrc: 0x6000_0000 + UInt32(index), srtpKey: uplinkKey),
            srtpKey: downlinkKey)
        participant.isReachable = reachable
        try host.addParticipant(id, configuration: participant, at: clock.now, output: downlink.send)
    }

    /// The capture time of video frame `index`.
    func captureTime(_ frame: Int) -> Timestamp { start + (source.timestamp(ofFrame: frame) - .zero) }
    /// The capture time of the next 10 ms of audio.
    var nextAudioTime: Timestamp { start + .milliseconds(Int64(audioChunks) * 10) }

    /// Takes a datagram from the host, split as the host splits ours.
    func receiveFromHost(_ bytes: [UInt8], at now: Timestamp) {
        bytes.withUnsafeBytes { datagram in
            let route = RTPDatagramRoute(classifying: datagram)
            if route == .media, bytes.count >= 12 {
                let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
                downlinkStreams[bytes[1] & 0x7F, default: []].insert(ssrc)
            }
            if route.isForReceiveSide {
                receiver.receive(datagram, at: now)
            } else {
                sender.receiveRTCP(datagram, at: now)
            }
        }
        if let rtt = sender.roundTripTime { receiver.setRoundTripTime(rtt) }
    }

    func capture(at now: Timestamp) throws {
        guard sending else { return }
        if captureTime(framesCaptured) <= now {
            var frame = source.next()
            frame.timestamp = captureTime(framesCaptured)
            try sender.sendVideo(frame, at: now)
            framesCaptured += 1
        }
        if nextAudioTime <= now {
            var chunk = tone.next(frameCount: 480)
            chunk.timestamp = nextAudioTime
            try sender.sendAudio(chunk, at: now)
            audioChunks += 1
        }
    }

    func pullAudio(at now: Timestamp) {
        receiver.pullAudio(at: now, into: &pulled)
        audioReceived.append(contentsOf: pulled.samples)
    }

    /// Goertzel power at `frequency` over the last `seconds` of audio received.
    func power(at frequency: Double, lastSeconds seconds: Double) -> Double {
        let count = min(audioReceived.count, Int(seconds * Double(conferSampleRate)))
        return AudioAnalysis.goertzelPower(Array(audioReceived.suffix(count)), frequency: frequency)
    }

    /// The frame counter shown in `slot` of the last composite decoded.
    func counter(in slot: PixelRect?) -> Int? {
        guard let frame = composite.last, let slot else { return nil }
        return TestPatternSource.readFrameCounter(from: frame, in: slot)
    }

    /// The colour shown in `slot` of the last composite decoded.
    func color(in slot: PixelRect?) -> YUVColor? {
        guard let frame = composite.last, let slot else { return nil }
        return TestPatternSource.readColor(from: frame, in: slot)
    }
}

/// A host and its participants in virtual time, driven like ``SimulationRun``: each turn
/// moves to the earliest thing due and does everything due then, in a fixed order.
final class TestMeeting {
    let clock = MeetingClock()
    let host: HostPipeline
    private(set) var endpoints: [MeetingEndpoint] = []
    private var hooks: [(time: Timestamp, action: (TestMeeting) throws -> Void)] = []
    private var nextPull = Timestamp.zero

    /// A meeting of `count` participants joining at time zero; participant `i` sends test
    /// colour `i` and the tone `tone(i)`.
    init(count: Int, host configuration: HostPipelineConfiguration = TestMeeting.smallHost(), srtp: Bool = false,
         delay: TimeDelta = .milliseconds(20),
         tone: (Int) -> ToneSource = { ToneSource(index: $0, amplitude: 0.25, pattern: .continuous) }) throws {
        host = try HostPipeline(configuration: configuration)
        var random = SeededRandom(seed: 42)
        for index in 0 ..< count {
            let uplinkKey = srtp ? SRTPMasterKey.random(profile: .aes128CmHmacSha1_80, using: &random) : nil
            let downlinkKey = srtp ? SRTPMasterKey.random(profile: .aes128CmHmacSha1_80, using: &random) : nil
            endpoints.append(try MeetingEndpoint(index: index, host: host, clock: clock, uplinkKey: uplinkKey,
                                                 downlinkKey: downlinkKey, tone: tone(index), delay: delay))
        }
    }

    /// Adds participant `endpoints.count` now, as it would join a meeting under way; not
    /// `reachable`, as a live host adds one whose consent has not come yet.
    @discardableResult
    func addEndpoint(delay: TimeDelta = .milliseconds(20), reachable: Bool = true) throws -> MeetingEndpoint {
        let index = endpoints.count
        let endpoint = try MeetingEndpoint(index: index, host: host, clock: clock, uplinkKey: nil, downlinkKey: nil,
                                           tone: ToneSource(index: index, amplitude: 0.25, pattern: .continuous), delay: delay,
                                           reachable: reachable)
        endpoints.append(endpoint)
        return endpoint
    }

    /// Takes participant `endpoint` out of the host and stops it.
    func remove(_ endpoint: MeetingEndpoint) {
        host.removeParticipant(endpoint.id, at: clock.now)
        endpoint.present = false
        endpoint.sending = false
    }

    /// A 320×180 VP8 canvas at 30 fps: small enough for fast tests, a 2×2 grid of 160×90 slots.
    static func smallHost(layout: LayoutKind = .grid()) -> HostPipelineConfiguration {
        HostPipelineConfiguration(codec: .vp8, width: 320, height: 180, frameRate: 30, layout: layout,
                                  maximumBitrate: 600_000, minimumBitrate: 100_000, startBitrate: 400_000)
    }

    /// Runs `action` when the clock reaches `time`.
    func at(_ time: Timestamp, _ action: @escaping (TestMeeting) throws -> Void) {
        hooks.append((time, action))
        hooks.sort { $0.time < $1.time }
    }

    var now: Timestamp { clock.now }

    /// Runs the meeting until `end`.
    func run(until end: Timestamp) throws {
        var stalled = 0
        while true {
            guard let next = nextEventTime(), next <= end else { break }
            if next <= clock.now {
                stalled += 1
                if stalled > 10_000 { throw HostPipelineError(.invalidConfiguration, "the meeting stopped advancing at \(clock.now)") }
            } else {
                stalled = 0
            }
            clock.now = max(clock.now, next)
            try step()
        }
        clock.now = max(clock.now, end)
    }

    private func nextEventTime() -> Timestamp? {
        var next: Timestamp? = nextPull
        func consider(_ time: Timestamp?) {
            guard let time else { return }
            next = next.map { min($0, time) } ?? time
        }
        consider(host.nextPollTime)
        consider(hooks.first?.time)
        for endpoint in endpoints {
            consider(endpoint.uplink.nextTime)
            consider(endpoint.downlink.nextTime)
            guard endpoint.present else { continue }
            consider(endpoint.sender.nextPollTime)
            consider(endpoint.receiver.nextPollTime)
            if endpoint.sending {
                consider(endpoint.captureTime(endpoint.framesCaptured))
                consider(endpoint.nextAudioTime)
            }
        }
        return next
    }

    private func step() throws {
        let now = clock.now
        for endpoint in endpoints {
            endpoint.uplink.deliver(until: now) { bytes in
                bytes.withUnsafeBytes { _ = host.receive($0, from: endpoint.id, at: now) }
            }
        }
        for endpoint in endpoints {
            endpoint.downlink.deliver(until: now) { endpoint.receiveFromHost($0, at: now) }
        }
        while let hook = hooks.first, hook.time <= now {
            hooks.removeFirst()
            try hook.action(self)
        }
        for endpoint in endpoints where endpoint.present { try endpoint.capture(at: now) }
        for endpoint in endpoints where endpoint.present {
            endpoint.sender.poll(at: now)
            endpoint.receiver.poll(at: now)
        }
        try host.poll(at: now)
        if nextPull <= now {
            for endpoint in endpoints where endpoint.present { endpoint.pullAudio(at: now) }
            nextPull = nextPull + .milliseconds(10)
        }
    }

    /// Sends `packets` to the host as participant `endpoint`'s feedback (plain RTCP).
    func sendFeedback(_ packets: [RTCPPacket], from endpoint: MeetingEndpoint) throws {
        let bytes = try RTCPCompound.serialized(packets)
        bytes.withUnsafeBytes { _ = host.receive($0, from: endpoint.id, at: clock.now) }
    }
}
