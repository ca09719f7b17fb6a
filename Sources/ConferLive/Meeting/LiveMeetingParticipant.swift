public import ConferMedia
public import ConferNet
import Confer
import ConferJobs
import ConferCodecs
import ConferRTP
import ConferSRTP

/// How a participant (or an observer) of a live meeting sends to and receives from the host.
public struct LiveMeetingParticipantConfiguration: Sendable {
    /// The room's media plan.
    public var plan: LiveMeetingPlan
    /// Where the host receives media.
    public var host: UDPAddress
    /// Other addresses the host announced for the same socket (its bound address beside the
    /// NAT mapping in ``host``); challenged too, and media goes to the first that answers.
    public var hostAlternates: [UDPAddress] = []
    /// This member's slot (fixes its SSRCs).
    public var slot: UInt32
    /// SRTP key and salt for member → host.
    public var uplinkKey: [UInt8]
    /// SRTP key and salt for host → member.
    public var downlinkKey: [UInt8]
    /// Whether it sends a camera and a microphone (an observer does not).
    public var sends = true
    /// Whether what it sends includes the camera (a voice call's does not).
    public var sendsCamera = true
    /// A recorded camera (.y4m, .ivf, .h264), looped; a test pattern in the slot's colour otherwise.
    public var cameraFile: String?
    /// A recorded voice (.wav, .opus); a tone in the member's turns otherwise.
    public var microphoneFile: String?
    /// The synthetic camera's size.
    public var cameraWidth = 320
    /// The synthetic camera's size.
    public var cameraHeight = 180
    /// The camera's top bitrate, bits per second.
    public var cameraBitrate = 400_000
    /// The codec the camera is sent in; the plan's when nil. A meeting's members send the
    /// composite's codec; each side of a call sends its own and decodes the other's.
    public var cameraCodec: Codec?
    /// The synthetic camera's frames per second; the plan's when nil (a call's side sends at
    /// its own rate, which the plan, being the other side's, does not say).
    public var cameraFrameRate: Double?
    /// Where to write the composite as received (.ivf/.h264) or as rendered (.y4m).
    public var videoOutput: String?
    /// Where to write the mix as played (.wav or .opus).
    public var audioOutput: String?
    /// The address to bind (loopback by default).
    public var bindHost = "127.0.0.1"
    /// A STUN server (numeric address) the socket asks, once bound, which address it is
    /// seen from (``LiveMeetingControl/reflexive``); nil asks none.
    public var stunServer: UDPAddress?
    /// Told each captured picture's index (the synthetic camera draws it as its frame
    /// counter) and when it was captured, for latency measurements.
    public var onCapture: (@Sendable (Int, ContinuousClock.Instant) -> Void)?
    /// Told each composite rendered and when, for latency measurements.
    public var onRender: (@Sendable (VideoFrame, ContinuousClock.Instant) -> Void)?

    /// A member in `slot` sending to `host` with these keys.
    public init(plan: LiveMeetingPlan, host: UDPAddress, slot: UInt32, uplinkKey: [UInt8], downlinkKey: [UInt8]) {
        self.plan = plan
        self.host = host
        self.slot = slot
        self.uplinkKey = uplinkKey
        self.downlinkKey = downlinkKey
    }
}

/// A participant's media in a live meeting, on the wall clock: its camera and microphone
/// through a ``SendPipeline`` to the host, the composite and its mix-minus back through a
/// ``ReceivePipeline``, both on one UDP socket with RTP and RTCP multiplexed (the host
/// sends feedback about this member's streams to the send side, media and sender reports
/// to the receive side). Runs until its ``LiveMeetingControl`` is stopped.
///
/// Media goes to the other side only with its consent (``MediaConsent``): until the address
/// media goes to has answered a challenge (``RTCPConsentCheck``) under the other side's key,
/// the member sends nothing there but those challenges (soon at first, then two a second),
/// and it answers the other side's. So a peer that names someone else's address in a call
/// gets nothing sent there but challenges, even should it forge that address on packets.
/// A datagram that authenticates under the other side's keys from another address than its
/// own moves the other side there, as the host moves a member (``MediaConsent/mayMove(at:)``):
/// a peer behind a NAT announces its inside address, and its packets show the outside one.
public enum LiveMeetingParticipant {
    /// Binds a socket (its port goes to `control` and `onListening`), then sends and receives
    /// until stopped; returns the whole run's figures.
    public static func run(_ configuration: LiveMeetingParticipantConfiguration, control: LiveMeetingControl,
                           onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> LiveMeetingControl.Figures {
        try await run(bindingTo: configuration.bindHost, reflexiveThrough: configuration.stunServer, control: control) { port in
            await onListening(port)
            return configuration
        } ?? LiveMeetingControl.Figures()
    }

    /// Binds a socket on `bindHost` first, then asks `configure` (given the bound port) for
    /// the configuration — for a peer whose address and keys arrive only once its own address
    /// has been told, as in a call. Nil from `configure` ends the run before any media. With
    /// `reflexiveThrough`, the socket first asks that STUN server where it is seen from, and
    /// `control` holds the answer (``LiveMeetingControl/reflexive``) when `configure` runs.
    public static func run(bindingTo bindHost: String, reflexiveThrough stunServer: UDPAddress? = nil, control: LiveMeetingControl,
                           configure: @escaping @Sendable (Int) async throws -> LiveMeetingParticipantConfiguration?)
        async throws -> LiveMeetingControl.Figures? {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: bindHost, port: 0), reflexiveThrough: stunServer) { socket in
            control.bound(to: socket.localPort, reflexive: socket.reflexive)
            guard let configuration = try await configure(socket.localPort), !control.isStopped else { return nil }
            let session = try Session(configuration: configuration, control: control,
                                      candidates: try ([configuration.host] + configuration.hostAlternates).map(UDPSocket.resolve))
            _ = try await RealtimeLoop.run(socket: socket, clock: session.clock, pool: session.pool) { event, now in
                try await session.handle(event, at: now, socket: socket)
            }
            try session.finish()
            return session.figures(final: true)
        }
    }

    /// One run's state, owned by the loop's task.
    final class Session {
        let clock = WallClock()
        let pool = UDPBufferPool(capacity: 64)
        private let configuration: LiveMeetingParticipantConfiguration
        private let control: LiveMeetingControl
        private let sender: SendPipeline?
        private let receiver: ReceivePipeline
        private let camera: CameraSource?
        private let microphone: MicrophoneSource?
        private let outgoing = DatagramQueue()
        private let composite: CompositeFileWriter?
        private let mix: AudioFileWriter?
        private let rendered = RenderedFrames()
        private var audioIn: AudioFrame
        private var audioOut: AudioFrame
        private var nextCapture: Timestamp
        private var audioTick: Timestamp
        private var nextFigures: Timestamp
        private var meter = FigureMeter()
        private var captured = 0
        private var speakingUntil = Timestamp.zero
        /// Where media goes: the other side's address as configured, or as its authenticated
        /// datagrams showed it to be (``MediaConsent/mayMove(at:)``).
        private var destination: UDPDestination
        /// Every address the other side may be reached at, resolved: challenged while it has
        /// not consented (``MediaConsent/candidates``).
        private var candidates: [UDPDestination]
        /// Whether the other side's address answered a challenge, and still sends what authenticates.
        private var consent: MediaConsent
        /// The consent checks with the other side: challenges and answers both ways.
        private let checks: ConsentChannel
        /// Consent nonces must be unpredictable: the system's generator.
        private var random = SystemRandomNumberGenerator()
        /// Datagrams dropped for want of consent (challenges aside).
        private var withheldDatagrams = 0
        /// Turned off by a `devices` command: the camera sends nothing, the microphone silence
        /// (so the stream, its timing and the other side's loss detection go on).
        private var cameraOn = true
        private var microphoneOn = true
        /// Turned off by a `render` command: the composite is still decoded (so it can come
        /// back at once, without a keyframe) but not rendered or written; the mix plays silence.
        private var renderVideo = true
        private var playAudio = true
        static let speakingRMS = 0.01

        /// `candidates` holds at least the address the other side prefers, first.
        init(configuration: LiveMeetingParticipantConfiguration, control: LiveMeetingControl, candidates: [UDPDestination]) throws {
            self.configuration = configuration
            self.control = control
            destination = candidates[0]
            self.candidates = candidates
            consent = MediaConsent()
            consent.announce(candidates[0].address, alternates: candidates.dropFirst().map(\.address))
            let plan = configuration.plan
            let slot = configuration.slot
            let uplink = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: configuration.uplinkKey)
            let downlink = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: configuration.downlinkKey)
            checks = try ConsentChannel(ssrc: LiveMeetingPlan.consentSSRC(slot: slot), sendKey: uplink, receiveKey: downlink)
            let outgoing = outgoing
            if configuration.sends {
                let camera = try configuration.cameraFile.map { try CameraSource(path: $0) }
                    ?? CameraSource(patternIndex: Int(slot) - 1, width: configuration.cameraWidth, height: configuration.cameraHeight,
                                    frameRate: configuration.cameraFrameRate ?? plan.frameRate, seed: UInt64(slot))
                let microphone = try configuration.microphoneFile.map { try MicrophoneSource(path: $0) }
                    ?? MicrophoneSource(member: Int(slot - 1) % 4, schedule: TalkSchedule(members: 4), seed: UInt64(slot))
                self.camera = configuration.sendsCamera ? camera : nil
                self.microphone = microphone
                sender = try SendPipeline(configuration: SendPipelineConfiguration(
                    video: !configuration.sendsCamera ? nil : .init(codec: configuration.cameraCodec ?? plan.codec, width: camera.width, height: camera.height, frameRate: camera.frameRate,
                                 maximumBitrate: configuration.cameraBitrate, minimumBitrate: min(50_000, configuration.cameraBitrate),
                                 // Real time wants libvpx's fastest speed (a positive cpu-used adapts to the machine).
                                 speed: 8, ssrc: LiveMeetingPlan.cameraSSRC(slot: slot), rtxSSRC: LiveMeetingPlan.cameraRTXSSRC(slot: slot)),
                    audio: .init(settings: AudioEncoderSettings(channels: microphone.channels, bitrate: 32_000, inbandFEC: true),
                                 ssrc: LiveMeetingPlan.microphoneSSRC(slot: slot)),
                    // The member's loop polls at the pipeline's times, which pacing needs.
                    paces: true, cname: "member-\(slot)", srtpKey: uplink, seed: UInt64(slot))) { outgoing.append($0) }
            } else {
                camera = nil
                microphone = nil
                sender = nil
            }
            var receive = plan.hostConfiguration.participantReceiveConfiguration
            receive.ssrc = LiveMeetingPlan.receiverSSRC(slot: slot)
            receive.cname = "member-\(slot)"
            receive.srtpKey = downlink
            let rendered = rendered
            receiver = try ReceivePipeline(configuration: receive, output: { outgoing.append($0) }, render: { rendered.add($0) })
            composite = try configuration.videoOutput.map {
                try CompositeFileWriter(path: $0, codec: plan.codec, width: plan.canvasWidth, height: plan.canvasHeight, frameRate: plan.frameRate)
            }
            if let composite, composite.takesEncodedFrames {
                receiver.encodedFrameHandler = { rendered.addEncoded($0) }
            }
            mix = try configuration.audioOutput.map { try AudioFileWriter(path: $0, channels: 1, bitrate: nil) }
            audioIn = AudioFrame(silenceOf: 480, channels: microphone?.channels ?? 1)
            audioOut = AudioFrame(silenceOf: 480, channels: 1)
            let now = clock.now
            nextCapture = now
            audioTick = now
            nextFigures = now + .seconds(1)
            meter.start = now
        }

        func handle(_ event: RealtimeEvent, at now: Timestamp, socket: UDPSocket) async throws -> RealtimeNext {
            if control.isStopped { return .stop }
            for command in control.takeCommands() {
                switch command {
                case .devices(_, let camera, let microphone):
                    cameraOn = camera
                    microphoneOn = microphone
                case .render(_, let video, let audio, _):
                    // The composite fills this member's canvas exactly: fit and fill draw the same.
                    renderVideo = video
                    playAudio = audio
                case .add, .remove, .address, .forward:
                    break
                }
            }
            if case .datagram(let datagram, let arrival) = event {
                if datagram.bytes.withUnsafeBytes({ LiveMeetingPlan.isConsentCheck($0) }) {
                    if let check = datagram.bytes.withUnsafeBytes({ checks.open($0) }) {
                        authenticated(from: datagram.source, at: arrival)
                        await take(check, from: datagram.source, at: arrival, socket: socket)
                    }
                } else if datagram.bytes.withUnsafeBytes({ receiveFromHost($0, at: arrival) }) {
                    authenticated(from: datagram.source, at: arrival)
                }
                pool.recycle(datagram.bytes)
            }
            // Nothing is encoded for a side that has not consented: the first frame sent is then a keyframe.
            let consented = consent.permits(at: now)
            if let sender, let camera {
                let interval = TimeDelta.seconds(1 / camera.frameRate)
                // Behind by more than a frame (a stalled process): skip to now, as a camera would.
                if now - nextCapture > interval { nextCapture = now }
                while nextCapture <= now {
                    var frame = try camera.next()
                    frame.timestamp = nextCapture
                    configuration.onCapture?(captured, ContinuousClock.now)
                    captured += 1
                    if cameraOn && consented { try sender.sendVideo(frame, at: now) }
                    nextCapture = nextCapture + interval
                }
            }
            if now - audioTick > .milliseconds(200) { audioTick = now - .milliseconds(10) }
            while audioTick <= now {
                if let sender, let microphone {
                    try microphone.capture(into: &audioIn, at: audioTick)
                    if !microphoneOn { for index in audioIn.samples.indices { audioIn.samples[index] = 0 } }
                    // Speaking: above about -40 dBFS in the last 300 ms, as a meeting UI shows it.
                    if AudioAnalysis.rms(audioIn) > Self.speakingRMS { speakingUntil = audioTick + .milliseconds(300) }
                    if consented { try sender.sendAudio(audioIn, at: audioTick) }
                }
                receiver.pullAudio(at: audioTick, into: &audioOut)
                if !playAudio { for index in audioOut.samples.indices { audioOut.samples[index] = 0 } }
                try mix?.write(audioOut)
                audioTick = audioTick + .milliseconds(10)
            }
            if let sender, let due = sender.nextPollTime, due <= now { sender.poll(at: now) }
            if let due = receiver.nextPollTime, due <= now { receiver.poll(at: now) }
            try takeRendered()
            if nextFigures <= now {
                control.publish(figures(final: false))
                nextFigures = nextFigures + .seconds(1)
            }
            if !consented {
                withheldDatagrams += outgoing.count
                outgoing.removeAll()
                if let nonce = consent.takeChallenge(at: now, using: &random), let challenge = checks.seal(.challenge, nonce: nonce) {
                    for candidate in candidates { try? await socket.send(challenge, to: candidate) }
                }
            }
            let outgoing = outgoing
            try? await socket.send(outgoing.count, to: destination) { outgoing[$0] }
            outgoing.removeAll()
            var next = earliest(audioTick, nextFigures)
            if sender != nil { next = earliest(next, nextCapture) }
            next = earliest(next, sender?.nextPollTime)
            next = earliest(next, receiver.nextPollTime)
            return .wait(until: next)
        }

        /// A datagram from `source` authenticated under the other side's keys at `now`: consent
        /// at the other side's address lasts on; from another address (a NAT's mapping, or a
        /// network the other side moved to), the other side is moved there to be challenged,
        /// when its consent allows (``MediaConsent/mayMove(at:)``).
        private func authenticated(from source: UDPAddress, at now: Timestamp) {
            // From one of the announced addresses, the challenges settle where media goes.
            if !consent.candidates.contains(source), consent.mayMove(at: now), let moved = try? UDPSocket.resolve(source) {
                destination = moved
                candidates = [moved]
                consent.move(to: moved.address, at: now)
            }
            consent.authenticated(from: source, at: now)
        }

        /// A consent check that authenticated under the other side's key: a challenge is
        /// answered (when it comes from the other side's address); an answer with the nonce sent
        /// there gives consent, and the camera's next picture goes now, not a frame later.
        private func take(_ check: RTCPConsentCheck, from source: UDPAddress, at now: Timestamp, socket: UDPSocket) async {
            switch check.kind {
            case .challenge:
                if consent.answers(challengeFrom: source, at: now), let answer = checks.seal(.answer, nonce: check.nonce),
                   let candidate = candidates.first(where: { $0.address == source }) {
                    try? await socket.send(answer, to: candidate)
                }
            case .answer:
                guard consent.answered(check.nonce, from: source, at: now) else { return }
                if let candidate = candidates.first(where: { $0.address == source }) { destination = candidate }
                nextCapture = min(nextCapture, now)
            }
        }

        /// Media and the host's sender reports to the receive side; feedback about this
        /// member's own streams to the send side. True when it authenticated.
        private func receiveFromHost(_ bytes: UnsafeRawBufferPointer, at now: Timestamp) -> Bool {
            guard RTPDatagramRoute(classifying: bytes) == .feedback, let sender else {
                return receiver.receive(bytes, at: now)
            }
            let authenticated = sender.receiveRTCP(bytes, at: now)
            // The receive side plans retransmissions with the RTT its own send side measures.
            if let rtt = sender.roundTripTime { receiver.setRoundTripTime(rtt) }
            return authenticated
        }

        private func takeRendered() throws {
            for frame in rendered.takeEncoded() { try composite?.write(encoded: frame) }
            let frames = rendered.take()
            guard renderVideo else { return }
            for frame in frames {
                configuration.onRender?(frame.frame, ContinuousClock.now)
                meter.rendered(frame.frame.width, frame.frame.height)
                try composite?.write(picture: frame.frame)
            }
        }

        func finish() throws {
            try takeRendered()
            try composite?.finish()
            try mix?.finish()
        }

        func figures(final: Bool) -> LiveMeetingControl.Figures {
            let send = sender?.statistics
            let receive = receiver.statistics
            var figures = meter.figures(now: clock.now, framesSent: send?.video?.framesSent ?? 0, audioPacketsSent: send?.audio?.packetsSent ?? 0,
                                        audioPacketsReceived: Int(receive.audio?.packetsReceived ?? 0),
                                        bytesSent: send?.rtpBytesSent ?? 0, bytesReceived: receive.bytesReceived,
                                        packetsLost: (receive.video?.packetsLost ?? 0) + Int(receive.audio?.packetsLost ?? 0),
                                        roundTrip: send?.roundTripTime, speaking: speakingUntil > clock.now,
                                        remotePacketsLost: send?.packetsLostReportedByReceiver ?? 0)
            figures.datagramsWithheld = withheldDatagrams
            figures.consentChallengesSent = consent.challengesSent
            figures.peerMoves = consent.moves
            if consent.grants > 0 { figures.peerAddress = consent.address?.description }
            figures.consentGrants = consent.grants
            figures.consentChecksRefused = checks.checksRefused + consent.answersRefused
            figures.note(control.reflexive)
            return figures
        }
    }
}

/// Pictures the receive pipeline rendered (and encoded frames it decoded) since the loop
/// last took them; filled from the pipeline's closures on the loop's own task.
final class RenderedFrames {
    private var frames: [ReceivedVideoFrame] = []
    private var encoded: [EncodedFrame] = []

    func add(_ frame: ReceivedVideoFrame) { frames.append(frame) }
    func addEncoded(_ frame: EncodedFrame) { encoded.append(frame) }

    func take() -> [ReceivedVideoFrame] {
        defer { frames.removeAll(keepingCapacity: true) }
        return frames
    }

    func takeEncoded() -> [EncodedFrame] {
        defer { encoded.removeAll(keepingCapacity: true) }
        return encoded
    }
}

/// Turns running totals into per-second rates over the last second, for the figures.
struct FigureMeter {
    var start = Timestamp.zero
    private var framesReceived = 0
    private var width = 0
    private var height = 0
    private var last: (time: Timestamp, framesSent: Int, framesReceived: Int, audioSent: Int, audioReceived: Int)?
    private var rates = (send: 0.0, receive: 0.0, audioSent: 0.0, audioReceived: 0.0)

    mutating func rendered(_ width: Int, _ height: Int) {
        framesReceived += 1
        self.width = width
        self.height = height
    }

    mutating func figures(now: Timestamp, framesSent: Int, audioPacketsSent: Int, audioPacketsReceived: Int, bytesSent: Int,
                          bytesReceived: Int, packetsLost: Int, roundTrip: Double?, speaking: Bool,
                          remotePacketsLost: Int) -> LiveMeetingControl.Figures {
        if let last {
            let seconds = max((now - last.time).seconds, 1e-3)
            rates = (Double(framesSent - last.framesSent) / seconds, Double(framesReceived - last.framesReceived) / seconds,
                     Double(audioPacketsSent - last.audioSent) / seconds, Double(audioPacketsReceived - last.audioReceived) / seconds)
        }
        last = (now, framesSent, framesReceived, audioPacketsSent, audioPacketsReceived)
        var figures = LiveMeetingControl.Figures()
        figures.receiveFrameRate = rates.receive
        figures.receiveWidth = width
        figures.receiveHeight = height
        figures.sendFrameRate = rates.send
        figures.audioPacketsSentPerSecond = rates.audioSent
        figures.audioPacketsReceivedPerSecond = rates.audioReceived
        figures.speaking = speaking
        figures.bytesSent = bytesSent
        figures.bytesReceived = bytesReceived
        figures.packetsLost = packetsLost
        figures.remotePacketsLost = remotePacketsLost
        figures.roundTripMilliseconds = roundTrip.map { $0 * 1000 }
        figures.framesSent = framesSent
        figures.framesReceived = framesReceived
        figures.audioPacketsSent = audioPacketsSent
        figures.audioPacketsReceived = audioPacketsReceived
        figures.seconds = (now - start).seconds
        return figures
    }
}
