import ConferMedia
public import ConferMixer
public import ConferNet
import Confer
import ConferRTP
import ConferSRTP
import ConferJobs

/// How the host of a live meeting composites.
public struct LiveMeetingHostConfiguration: Sendable {
    /// The room's media plan.
    public var plan: LiveMeetingPlan
    /// The layout (a grid by default).
    public var layout: LayoutKind?
    /// The composite's top bitrate, bits per second.
    public var maximumBitrate = 1_200_000
    /// Whether members on weak links get a second, smaller encode (``HostPipelineConfiguration/simulcast``).
    public var simulcast = true
    /// Temporal layers in the composite, 1…3, VP8 or VP9 (``HostPipelineConfiguration/temporalLayers``).
    public var temporalLayers = 1
    /// The address to bind (loopback by default).
    public var bindHost = "127.0.0.1"
    /// A STUN server (numeric address) the socket asks, once bound, which address it is
    /// seen from (``LiveMeetingControl/reflexive``); nil asks none.
    public var stunServer: UDPAddress?
    /// Where to write the composite as encoded (.ivf for VP8/VP9, .h264), what every member receives.
    public var output: String?
    /// Where to send a plain-RTP copy of the composite and the whole mix, for an audience
    /// outside the meeting (an SFU such as Janus fans it out).
    public var forward: LiveForwardTarget?

    /// A host compositing by `plan`.
    public init(plan: LiveMeetingPlan) { self.plan = plan }
}

/// The compositing host of a live meeting on the wall clock: one ``HostPipeline`` behind one
/// UDP socket. Members come and go by ``LiveMeetingControl/Command``s from the signaling;
/// each member's datagrams are known by the address it announced. What the host sends a
/// member goes there only with the member's consent (``MediaConsent``): once that address
/// has answered a challenge (``RTCPConsentCheck``) under the member's key, and for as long
/// as datagrams that authenticate keep coming from it; an address that gives none gets
/// only the small challenges, so no member can point the composite at a machine that did
/// not ask for it, not even by forging that machine's address on its own packets.
///
/// A member behind a NAT announces the address it has, and its datagrams come from the one
/// the NAT maps it to (and a NAT may map it anew mid-meeting). So a datagram from an address
/// no member announced is taken as its member's when its SSRC names a member without consent
/// (or not heard at its address for two seconds) and it authenticates under that member's
/// keys: the host moves the member to that address (at most once a second) and
/// challenges it there, as ICE does with a peer-reflexive candidate; the answer gives consent
/// only if the member reads what is sent there. Any other such datagram is counted and
/// dropped. A member that leaves or stops sending never holds up the canvas (the pipeline's
/// placeholder and audio timeouts).
public enum LiveMeetingHost {
    /// Binds a socket (its port goes to `control` and `onListening`), then composites until
    /// stopped; returns the run's figures.
    public static func run(_ configuration: LiveMeetingHostConfiguration, control: LiveMeetingControl,
                           onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> LiveMeetingControl.Figures {
        try await UDPSocket.withSocket(bindingTo: UDPAddress(host: configuration.bindHost, port: 0),
                                       reflexiveThrough: configuration.stunServer) { socket in
            control.bound(to: socket.localPort, reflexive: socket.reflexive)
            await onListening(socket.localPort)
            let session = try Session(configuration: configuration, control: control)
            _ = try await RealtimeLoop.run(socket: socket, clock: session.clock, pool: session.pool) { event, now in
                try await session.handle(event, at: now, socket: socket)
            }
            try session.finish()
            return session.figures()
        }
    }

    /// One member as the host knows it.
    final class Member {
        let identity: String
        let id: ParticipantID
        let outgoing = DatagramQueue()
        /// Where media goes: the candidate that consented, or the one the member prefers.
        var destination: UDPDestination?
        /// Every address the member announced (or was moved to), resolved; each is challenged
        /// until one consents, and datagrams from each are the member's.
        var candidates: [UDPDestination] = []
        var consent = MediaConsent()
        /// Whether what goes to it before its first consent is kept for the grant, and what is.
        var hold = ConsentHold()
        /// Freed when the hold ends: it grew to a keyframe's size.
        var held: DatagramQueue? = DatagramQueue(reservingBytes: 16 * 1500, datagrams: 16)
        var keys: (uplink: SRTPMasterKey, downlink: SRTPMasterKey)?
        /// The member's consent checks: the host's challenges and answers, and the member's.
        var checks: ConsentChannel?
        var sends = true
        var devices = (camera: true, microphone: true)
        /// How the host renders it: a local choice, beside the member's own devices.
        var render = (video: true, audio: true, mode: FitFill.Mode?.none)
        var added = false

        init(identity: String, id: ParticipantID) {
            self.identity = identity
            self.id = id
        }
    }

    final class Session {
        let clock: WallClock
        let pool = UDPBufferPool(capacity: 256)
        private let control: LiveMeetingControl
        private let host: HostPipeline
        private var members: [String: Member] = [:]
        private var byAddress: [UDPAddress: Member] = [:]
        private var bySlot: [UInt32: Member] = [:]
        /// Members moved to the address their datagrams came from.
        private var moves = 0
        private var nextFigures: Timestamp
        private var lastFigures: (time: Timestamp, sent: Int, received: [String: Int], audioSent: Int, audioReceived: Int)?
        /// What members that have left sent and received, so the run's totals keep them.
        private var departed: LiveMeetingControl.Figures = {
            var figures = LiveMeetingControl.Figures()
            figures.streamsReceived = 0
            return figures
        }()
        /// Datagrams from addresses no member announced, dropped.
        private var unknownDatagrams = 0
        /// Datagrams for members whose address has not given consent, dropped.
        private var withheldDatagrams = 0
        /// Datagrams kept for a member until its first consent, and sent then.
        private var releasedDatagrams = 0
        /// Consent nonces must be unpredictable: the system's generator.
        private var random = SystemRandomNumberGenerator()
        private var composite: CompositeFileWriter?
        private var forward: LiveForward?
        /// The last forward that ran, whose streams a new one goes on with (``LiveForward``'s
        /// `continuing`): a stop and a new address mid-meeting are one stream to an SFU.
        private var streamsOf: LiveForward?
        /// What forwards replaced while running had sent, for the figures.
        private var formerForwards = LiveMeetingControl.Figures()
        private var forwardsFailed = 0
        /// Forwards started while running: the first one's numbers come from another seed
        /// than a forward the configuration named.
        private var forwardsStarted = 0
        private let codec: Codec
        private let seed: UInt64

        init(configuration: LiveMeetingHostConfiguration, control: LiveMeetingControl) throws {
            self.control = control
            let clock = WallClock()
            self.clock = clock
            var host = configuration.plan.hostConfiguration
            // Sender reports in wall-clock time: what a member's player or a forward's SFU
            // can line up with other senders' streams.
            host.ntpClock = .wallClock(clock)
            if let layout = configuration.layout { host.layout = layout }
            host.maximumBitrate = configuration.maximumBitrate
            host.minimumBitrate = min(host.minimumBitrate, configuration.maximumBitrate)
            host.simulcast = configuration.simulcast
            host.temporalLayers = configuration.temporalLayers
            // Real time wants libvpx's fastest speed.
            host.speed = 8
            self.host = try HostPipeline(configuration: host)
            codec = configuration.plan.codec
            seed = host.seed
            nextFigures = clock.now + .seconds(1)
            if let path = configuration.output {
                let plan = configuration.plan
                let file = try CompositeFileWriter(path: path, codec: plan.codec, width: plan.canvasWidth, height: plan.canvasHeight,
                                                   frameRate: plan.frameRate)
                guard file.takesEncodedFrames else {
                    throw JobError(.invalidOptions, "the host writes the composite as encoded: use .ivf (VP8/VP9) or .h264, not \(path)")
                }
                composite = file
            }
            if let target = configuration.forward {
                forward = try LiveForward(target, codec: configuration.plan.codec, seed: host.seed, ntpClock: host.ntpClock)
            }
            installHandlers()
        }

        /// Hands the composite to the file and the forward, and the whole mix to a forward that
        /// has an audio address (the pipeline encodes that mix only while someone takes it).
        private func installHandlers() {
            let (file, forward) = (composite, forward)
            host.compositeHandler = file != nil || forward != nil ? { frame in
                try? file?.write(encoded: frame)
                forward?.take(video: frame)
            } : nil
            host.mixHandler = forward.flatMap { forward in forward.audio == nil ? nil : { forward.take(audio: $0) } }
            // The forward's audience watches whether or not anyone is in the meeting.
            host.runsWithoutParticipants = forward != nil
        }

        /// Forwards to `target` from now on, or stops (nil). A new forward's audience gets a
        /// keyframe at once rather than at the next member's join or loss. One that cannot
        /// start is counted and leaves none: an administrator's address must not stop the meeting.
        private func setForward(_ target: LiveForwardTarget?, at now: Timestamp) {
            if let old = forward {
                formerForwards.packetsForwarded += old.packetsSent
                formerForwards.bytesForwarded += old.bytesSent
                formerForwards.forwardReportsSent += old.reportsSent
                formerForwards.forwardKeyframeRequests += old.keyframeRequests
                formerForwards.forwardFeedbackDropped += old.feedbackDropped
                streamsOf = old
            }
            forward = nil
            if let target {
                do {
                    forwardsStarted += 1
                    forward = try LiveForward(target, codec: codec, seed: seed &+ UInt64(forwardsStarted), ntpClock: host.configuration.ntpClock,
                                              continuing: streamsOf)
                    host.requestCompositeKeyframe(at: now)
                } catch {
                    forwardsFailed += 1
                }
            }
            installHandlers()
        }

        func handle(_ event: RealtimeEvent, at now: Timestamp, socket: UDPSocket) async throws -> RealtimeNext {
            if control.isStopped { return .stop }
            for command in control.takeCommands() { try apply(command, at: now) }
            if case .datagram(let datagram, let arrival) = event {
                if let member = byAddress[datagram.source] ?? movable(datagram, at: arrival), member.added {
                    let moving = !member.consent.candidates.contains(datagram.source)
                    if datagram.bytes.withUnsafeBytes({ LiveMeetingPlan.isConsentCheck($0) }) {
                        if let check = datagram.bytes.withUnsafeBytes({ member.checks?.open($0) }) {
                            if moving { move(member, to: datagram.source, at: arrival) }
                            await take(check, from: member, source: datagram.source, at: arrival, socket: socket)
                        } else if moving {
                            unknownDatagrams += 1
                        }
                    } else if datagram.bytes.withUnsafeBytes({ host.receive($0, from: member.id, at: arrival) }) {
                        if moving { move(member, to: datagram.source, at: arrival) }
                        member.consent.authenticated(from: datagram.source, at: arrival)
                    } else if moving {
                        unknownDatagrams += 1
                    }
                } else if let forward, forward.isFeedbackSource(datagram.source) {
                    if datagram.bytes.withUnsafeBytes({ forward.takeFeedback($0) }) { host.requestCompositeKeyframe(at: arrival) }
                } else {
                    unknownDatagrams += 1
                }
                pool.recycle(datagram.bytes)
            }
            if let due = host.nextPollTime, due <= now { try host.poll(at: now) }
            await forward?.flush(on: socket, at: now)
            if nextFigures <= now {
                control.publish(figures())
                nextFigures = nextFigures + .seconds(1)
            }
            for member in members.values where member.added {
                guard let destination = member.destination else {
                    withheldDatagrams += member.outgoing.count
                    member.outgoing.removeAll()
                    continue
                }
                if member.consent.permits(at: now) {
                    let outgoing = member.outgoing
                    try? await socket.send(outgoing.count, to: destination) { outgoing[$0] }
                } else {
                    hold(member.outgoing, for: member, at: now)
                    if let nonce = member.consent.takeChallenge(at: now, using: &random), let challenge = member.checks?.seal(.challenge, nonce: nonce) {
                        for candidate in member.candidates { try? await socket.send(challenge, to: candidate) }
                    }
                }
                member.outgoing.removeAll()
            }
            // Commands arrive from other tasks: look for them at least every 10 ms.
            return .wait(until: earliest(host.nextPollTime, min(nextFigures, now + .milliseconds(10))))
        }

        /// Keeps `datagrams` for `member`, whose address has not consented yet, while its hold
        /// lasts; drops them after (and all it kept when the hold ends on a bound).
        private func hold(_ datagrams: DatagramQueue, for member: Member, at now: Timestamp) {
            for index in 0 ..< datagrams.count {
                let datagram = datagrams[index]
                switch member.hold.decide(byteCount: datagram.count, at: now) {
                case .hold:
                    member.held?.append(datagram)
                case .drop:
                    withheldDatagrams += 1
                case .dropAll:
                    withheldDatagrams += (member.held?.count ?? 0) + 1
                    member.held = nil
                }
            }
        }

        /// The member a datagram from an address no member announced may come from: the one
        /// its SSRC names, when its consent says a datagram from elsewhere may move it
        /// (``MediaConsent/mayMove(at:)``: no consent, or nothing from its address for two
        /// seconds, and no move in the last second). Nil for any other.
        private func movable(_ datagram: UDPDatagram, at now: Timestamp) -> Member? {
            guard let slot = datagram.bytes.withUnsafeBytes({ LiveMeetingPlan.memberSlot(of: $0) }), let member = bySlot[slot],
                  member.consent.mayMove(at: now) else { return nil }
            return member
        }

        /// Moves `member` to `address`, where a datagram that authenticated under its keys came
        /// from: what came from the old address says nothing of the new, so the new one is
        /// challenged afresh.
        private func move(_ member: Member, to address: UDPAddress, at now: Timestamp) {
            guard let destination = try? UDPSocket.resolve(address) else { return }
            setCandidates([destination], of: member)
            member.consent.move(to: address, at: now)
            moves += 1
        }

        /// Makes `candidates` (the first preferred) where `member` is reached and whose
        /// datagrams are its. An address another member already holds stays that member's: a
        /// member cannot take another's datagrams (which would fail its keys and be dropped,
        /// cutting the other off) by naming the other's address as its own.
        private func setCandidates(_ candidates: [UDPDestination], of member: Member) {
            for old in member.candidates where byAddress[old.address] === member { byAddress.removeValue(forKey: old.address) }
            member.candidates = []
            for candidate in candidates {
                if let holder = byAddress[candidate.address], holder !== member { continue }
                byAddress[candidate.address] = member
                member.candidates.append(candidate)
            }
            member.destination = member.candidates.first
        }

        /// A consent check that authenticated under `member`'s key: a challenge is answered
        /// (from one of the member's announced addresses only, there); an answer with the
        /// nonce sent there gives consent, and media goes where it came from. At the first,
        /// what was kept for the member goes at once, the keyframe its join asked for with it;
        /// when nothing was kept (the hold ran out) or consent comes again after running out,
        /// the host asks for a keyframe.
        private func take(_ check: RTCPConsentCheck, from member: Member, source: UDPAddress, at now: Timestamp,
                          socket: UDPSocket) async {
            switch check.kind {
            case .challenge:
                if let candidate = member.candidates.first(where: { $0.address == source }),
                   member.consent.answers(challengeFrom: source, at: now), let answer = member.checks?.seal(.answer, nonce: check.nonce) {
                    try? await socket.send(answer, to: candidate)
                }
            case .answer:
                guard member.consent.answered(check.nonce, from: source, at: now) else { return }
                if let candidate = member.candidates.first(where: { $0.address == source }) { member.destination = candidate }
                if member.hold.release(at: now), let held = member.held, let destination = member.destination {
                    try? await socket.send(held.count, to: destination) { held[$0] }
                    releasedDatagrams += held.count
                } else {
                    withheldDatagrams += member.held?.count ?? 0
                    try? host.participantBecameReachable(member.id, at: now)
                }
                member.held = nil
            }
        }

        private func apply(_ command: LiveMeetingControl.Command, at now: Timestamp) throws {
            switch command {
            case .add(let identity, let slot, let uplinkKey, let downlinkKey, let sends):
                if let old = members.removeValue(forKey: identity) { remove(old, at: now) }
                let member = Member(identity: identity, id: ParticipantID(slot))
                let keys = (uplink: try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: uplinkKey),
                            downlink: try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: downlinkKey))
                member.keys = keys
                member.checks = try ConsentChannel(ssrc: LiveMeetingPlan.hostConsentSSRC(slot: slot), sendKey: keys.downlink,
                                                   receiveKey: keys.uplink)
                member.sends = sends
                members[identity] = member
                bySlot[slot] = member
            case .remove(let identity):
                if let member = members.removeValue(forKey: identity) { remove(member, at: now) }
            case .address(let identity, let address, let port, let alternates):
                guard let member = members[identity] else { return }
                // Known in the numeric form datagrams report as their source.
                let announced = [UDPAddress(host: address, port: port)] + alternates
                let resolved = announced.compactMap { try? UDPSocket.resolve($0) }
                setCandidates(resolved, of: member)
                if let first = member.candidates.first {
                    member.consent.announce(first.address, alternates: member.candidates.dropFirst().map(\.address))
                }
                // The same addresses again keep consent where it was given.
                if let chosen = member.candidates.first(where: { $0.address == member.consent.address }) { member.destination = chosen }
                // Into the pipeline only now, when the member's datagrams can be told apart.
                if !member.added { try addToPipeline(member, at: now) }
            case .devices(let identity, let camera, let microphone):
                guard let member = members[identity] else { return }
                member.devices = (camera, microphone)
                if member.added { applyDevices(member) }
            case .render(let identity, let video, let audio, let mode):
                guard let member = members[identity] else { return }
                member.render = (video, audio, mode)
                if member.added { applyDevices(member) }
            case .forward(let target):
                setForward(target, at: now)
            }
        }

        private func addToPipeline(_ member: Member, at now: Timestamp) throws {
            guard let keys = member.keys else { return }
            var receive = ReceivePipelineConfiguration(video: .init(codec: host.configuration.codec), audio: .init(), srtpKey: keys.uplink)
            receive.ssrc = LiveMeetingPlan.hostReceiverSSRC(slot: member.id.rawValue)
            let outgoing = member.outgoing
            let participant = HostParticipantConfiguration(receive: receive, srtpKey: keys.downlink)
            try host.addParticipant(member.id, configuration: participant, at: now, output: { outgoing.append($0) })
            // Its keyframe now, by the next frame: it is kept, with what follows, until the
            // member's address consents, and goes with the grant (``ConsentHold``).
            try host.participantBecameReachable(member.id, at: now)
            member.added = true
            applyDevices(member)
        }

        /// Mutes what a member does not send: an observer everything, a member its devices turned off.
        private func applyDevices(_ member: Member) {
            host.setVideoMuted(!member.sends || !member.devices.camera || !member.render.video, for: member.id)
            host.setAudioMuted(!member.sends || !member.devices.microphone || !member.render.audio, for: member.id)
            host.setVideoMode(member.render.mode, for: member.id)
        }

        private func remove(_ member: Member, at now: Timestamp) {
            for candidate in member.candidates where byAddress[candidate.address] === member { byAddress.removeValue(forKey: candidate.address) }
            if bySlot[member.id.rawValue] === member { bySlot.removeValue(forKey: member.id.rawValue) }
            Self.add(member, to: &departed)
            withheldDatagrams += member.held?.count ?? 0
            member.hold.abandon()
            member.held = nil
            if member.added, let participant = host.statistics.participants[member.id] { Self.add(participant, to: &departed) }
            if member.added { host.removeParticipant(member.id, at: now) }
            member.added = false
        }

        func finish() throws { try composite?.finish() }

        func figures() -> LiveMeetingControl.Figures {
            let now = clock.now
            let statistics = host.statistics
            var figures = departed
            var received: [String: Int] = [:]
            for member in members.values {
                guard let participant = statistics.participants[member.id] else { continue }
                received[member.identity] = participant.framesReceived
                figures.memberBytesReceived[member.identity] = participant.receive.bytesReceived
                figures.memberPacketsLost[member.identity] = (participant.receive.video?.packetsLost ?? 0)
                    + Int(participant.receive.audio?.packetsLost ?? 0)
                Self.add(participant, to: &figures)
            }
            if let last = lastFigures {
                let seconds = max((now - last.time).seconds, 1e-3)
                figures.sendFrameRate = Double(statistics.videoFramesSent - last.sent) / seconds
                for (identity, frames) in received { figures.members[identity] = Double(frames - (last.received[identity] ?? 0)) / seconds }
                // The average over the cameras that are on: an observer, or a member whose
                // camera is off, sends no frames and would pull it down.
                let rates = members.values.filter { $0.sends && $0.devices.camera }.compactMap { figures.members[$0.identity] }
                figures.receiveFrameRate = rates.isEmpty ? 0 : rates.reduce(0, +) / Double(rates.count)
                figures.audioPacketsSentPerSecond = Double(figures.audioPacketsSent - last.audioSent) / seconds
                figures.audioPacketsReceivedPerSecond = Double(figures.audioPacketsReceived - last.audioReceived) / seconds
            }
            lastFigures = (now, statistics.videoFramesSent, received, figures.audioPacketsSent, figures.audioPacketsReceived)
            figures.framesSent = statistics.videoFramesSent
            figures.datagramsWithheld = withheldDatagrams
            figures.datagramsReleasedAtConsent = releasedDatagrams
            figures.datagramsFromUnknownAddresses = unknownDatagrams
            figures.membersMoved = moves
            figures.packetsForwarded = formerForwards.packetsForwarded + (forward?.packetsSent ?? 0)
            figures.bytesForwarded = formerForwards.bytesForwarded + (forward?.bytesSent ?? 0)
            figures.forwardReportsSent = formerForwards.forwardReportsSent + (forward?.reportsSent ?? 0)
            figures.forwardKeyframeRequests = formerForwards.forwardKeyframeRequests + (forward?.keyframeRequests ?? 0)
            figures.forwardFeedbackDropped = formerForwards.forwardFeedbackDropped + (forward?.feedbackDropped ?? 0)
            figures.forwardsFailed = forwardsFailed
            for member in members.values { Self.add(member, to: &figures) }
            figures.speaking = statistics.activeSpeaker != nil
            figures.seconds = now.seconds
            figures.note(control.reflexive)
            return figures
        }

        /// Adds one member's consent checks to `figures`.
        private static func add(_ member: Member, to figures: inout LiveMeetingControl.Figures) {
            figures.consentChallengesSent += member.consent.challengesSent
            figures.consentGrants += member.consent.grants
            figures.consentChecksRefused += (member.checks?.checksRefused ?? 0) + member.consent.answersRefused
        }

        /// Adds one member's totals (what the host received from it and sent it) to `figures`.
        private static func add(_ participant: HostParticipantStatistics, to figures: inout LiveMeetingControl.Figures) {
            figures.framesReceived += participant.framesReceived
            if participant.framesReceived > 0 { figures.streamsReceived += 1 }
            figures.audioPacketsSent += participant.audioPacketsSent
            figures.audioPacketsReceived += Int(participant.receive.audio?.packetsReceived ?? 0)
            figures.bytesSent += participant.videoBytesSent + participant.audioBytesSent
            figures.bytesReceived += participant.receive.bytesReceived
            figures.packetsLost += (participant.receive.video?.packetsLost ?? 0) + Int(participant.receive.audio?.packetsLost ?? 0)
            figures.receiveWidth = max(figures.receiveWidth, participant.frameWidth)
            figures.receiveHeight = max(figures.receiveHeight, participant.frameHeight)
            if let rtt = participant.roundTripTime { figures.roundTripMilliseconds = max(figures.roundTripMilliseconds ?? 0, rtt * 1000) }
        }
    }
}
