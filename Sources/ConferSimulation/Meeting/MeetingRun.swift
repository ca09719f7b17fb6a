import ConferMedia
import ConferMixer
import ConferRender
import Confer
import ConferJobs

/// One run of a ``Meeting``: the event loop in virtual time.
///
/// Each turn finds the earliest thing due — a datagram arriving at the host or at a member,
/// a camera picture, the 10 ms audio tick, the host's or a member's poll time, a display
/// refresh, a sample — moves the clock there and does everything due then in a fixed order
/// (arrivals at the host, arrivals at the members, captures, audio, host poll, member polls,
/// refresh, sample), so a run is deterministic for a seed.
final class MeetingRun {
    private let options: MeetingOptions
    private let members: [MeetingMember]
    private let host: HostPipeline
    private let pacer: FramePacer
    private let composite: CompositeFileWriter?
    private let mix: AudioFileWriter?
    private let mediaEnd: Timestamp
    private let end: Timestamp

    private var now = Timestamp.zero
    private var audioTick = Timestamp.zero
    private var refreshTick: Int64 = 0
    private var nextSpeakingSample = Timestamp.zero
    private var nextSample = Timestamp.seconds(1)
    private var speakingSamples: [Int]
    private var talkSamples: [Int]
    private var mixFrames = 0
    private var timeline: [MeetingReport.Sample] = []
    private var lastSampleHostFrames = 0
    private var lastSampleRendered = 0
    /// Pictures each member had rendered at the last timeline sample.
    private var lastSampleMemberBytes: [Int] = []
    private var lastSampleMemberFrames: [Int] = []
    private let session: MeetingSession
    /// Kicks still to come, earliest first.
    private var kicks: [(member: Int, at: Timestamp)]
    /// Members the host has kicked: they neither send nor receive any more.
    private var gone: Set<Int> = []
    /// The members still in the meeting, in order.
    private var live: [MeetingMember]

    static let compositeStream = StreamID(0)
    static let selfViewStream = StreamID(1)
    /// How long the meeting runs on after the media ends, so what is in flight arrives.
    static let drain = TimeDelta.milliseconds(500)
    static let speakingSampleInterval = TimeDelta.milliseconds(100)

    init(options: MeetingOptions, composite: CompositeFileWriter?, mix: AudioFileWriter?) throws {
        self.options = options
        self.composite = composite
        self.mix = mix
        mediaEnd = .zero + options.duration
        end = mediaEnd + Self.drain
        let count = options.memberCount
        let ids = (1 ... count).map { ParticipantID(UInt32($0)) }
        var hostConfiguration = HostPipelineConfiguration()
        hostConfiguration.codec = options.codec
        hostConfiguration.width = options.canvasWidth
        hostConfiguration.height = options.canvasHeight
        hostConfiguration.frameRate = options.frameRate
        hostConfiguration.layout = options.layout.kind(participants: ids)
        hostConfiguration.maximumBitrate = options.compositeBitrate
        hostConfiguration.minimumBitrate = min(hostConfiguration.minimumBitrate, options.compositeBitrate)
        hostConfiguration.seed = options.seed
        hostConfiguration.temporalLayers = options.temporalLayers
        hostConfiguration.vp9LayerSignalling = options.vp9LayerSignalling
        hostConfiguration.simulcast = options.simulcast
        hostConfiguration.paces = options.pacing
        host = try HostPipeline(configuration: hostConfiguration)

        let session = try MeetingSession(participants: count, seed: options.seed)
        self.session = session
        kicks = options.kicks.sorted { $0.at < $1.at }.map { (member: $0.member, at: Timestamp.zero + $0.at) }
        let schedule = TalkSchedule(members: count, turn: options.talkTurn)
        var members: [MeetingMember] = []
        for index in 0 ..< count {
            let camera = index < options.videoInputs.count
                ? try CameraSource(path: options.videoInputs[index])
                : CameraSource(patternIndex: index, width: options.cameraWidth, height: options.cameraHeight,
                                frameRate: 30, seed: options.seed &+ UInt64(index))
            let microphone = index < options.audioInputs.count
                ? try MicrophoneSource(path: options.audioInputs[index])
                : MicrophoneSource(member: index, schedule: schedule, seed: options.seed &+ UInt64(index))
            members.append(try MeetingMember(index: index, camera: camera, microphone: microphone, options: options,
                                             hostStreams: host.participantReceiveConfiguration, grant: session.grants[index]))
        }
        self.members = members
        live = members
        if composite?.takesEncodedFrames == true {
            let reception = members[0].reception
            members[0].receiver.encodedFrameHandler = { reception.pendingEncoded.append($0) }
        }
        for member in members {
            let path = member.path
            var receive = ReceivePipelineConfiguration(
                video: .init(codec: options.codec), audio: .init(), srtpKey: member.uplinkKey)
            // Not 0x4000_0001 + index << 4: for the first member that was the composite's own SSRC.
            receive.ssrc = 0x6000_0001 + UInt32(member.index) << 4
            try host.addParticipant(member.id, configuration: HostParticipantConfiguration(receive: receive, srtpKey: member.downlinkKey),
                                    at: .zero, output: { path.sendDown($0) })
        }
        speakingSamples = [Int](repeating: 0, count: count)
        talkSamples = [Int](repeating: 0, count: count)

        pacer = try FramePacer(drawsPerSecond: options.drawBudget, refreshRate: options.refreshRate)
        try pacer.add(RenderView(id: ViewID(0), stream: Self.compositeStream, width: options.canvasWidth,
                                 height: options.canvasHeight, mode: .fit, priority: .high))
        let first = members[0].camera
        try pacer.add(RenderView(id: ViewID(1), stream: Self.selfViewStream, width: max(16, first.width / 4 & ~1),
                                 height: max(16, first.height / 4 & ~1), mode: .fill))
    }

    /// Runs to the end and reports.
    func run(progress: (Double) -> Void) throws -> MeetingReport {
        let wallStart = ContinuousClock.now
        var lastProgress = -1.0
        while let next = nextEventTime(), next <= end {
            now = max(now, next)
            for member in members { member.path.now = now }
            try step()
            let fraction = now.seconds / end.seconds
            if fraction - lastProgress >= 0.01 {
                lastProgress = fraction
                progress(min(fraction, 1))
            }
        }
        now = end
        return makeReport(wallSeconds: max((ContinuousClock.now - wallStart).seconds, 1e-9))
    }

    private func nextEventTime() -> Timestamp? {
        var next = audioTick
        func consider(_ time: Timestamp?) {
            if let time, time < next { next = time }
        }
        for member in live {
            if member.nextCapture < mediaEnd { consider(member.nextCapture) }
            consider(member.path.nextDeliveryTime)
            consider(member.nextPollTime)
        }
        consider(host.nextPollTime)
        consider(pacer.schedule.deadline(ofTick: refreshTick))
        consider(nextSpeakingSample)
        consider(nextSample)
        consider(kicks.first?.at)
        return next
    }

    /// Does everything due at `now`.
    private func step() throws {
        while let kick = kicks.first, kick.at <= now {
            kicks.removeFirst()
            // The room decides; the media follows what it decided.
            if session.kick(kick.member, at: now), !gone.contains(kick.member) {
                gone.insert(kick.member)
                host.removeParticipant(members[kick.member].id, at: now)
                live.removeAll { $0.index == kick.member }
            }
        }
        for member in live {
            while let delivery = member.path.uplink.nextDelivery(until: now) {
                delivery.payload.withUnsafeBytes { _ = host.receive($0, from: member.id, at: now) }
            }
        }
        for member in live {
            while let delivery = member.path.downlink.nextDelivery(until: now) {
                member.receiveFromHost(delivery.payload, at: now)
            }
        }
        try takeRendered()
        for member in live where member.nextCapture <= now && member.nextCapture < mediaEnd {
            let frame = try member.captureVideo(at: now)
            if member.index == 0 { pacer.submit(stream: Self.selfViewStream, frame: frame) }
        }
        if audioTick <= now {
            for member in live {
                if audioTick < mediaEnd { try member.captureAudio(at: audioTick) }
                member.receiver.pullAudio(at: audioTick, into: &member.audioOut)
            }
            if let mix, !gone.contains(0) {
                try mix.write(members[0].audioOut)
                mixFrames += members[0].audioOut.frameCount
            }
            audioTick = audioTick + .milliseconds(10)
        }
        if let due = host.nextPollTime, due <= now { try host.poll(at: now) }
        for member in live { member.poll(at: now) }
        try takeRendered()
        while pacer.schedule.deadline(ofTick: refreshTick) <= now {
            pacer.refresh(at: pacer.schedule.deadline(ofTick: refreshTick))
            refreshTick += 1
        }
        if nextSpeakingSample <= now { sampleSpeaking() }
        if nextSample <= now { sample() }
    }

    /// Writes and shows what participant 1 received and rendered.
    private func takeRendered() throws {
        let reception = members[0].reception
        if !reception.pendingEncoded.isEmpty {
            for frame in reception.pendingEncoded { try composite?.write(encoded: frame) }
            reception.pendingEncoded.removeAll(keepingCapacity: true)
        }
        guard !reception.pending.isEmpty else { return }
        for received in reception.pending {
            pacer.submit(stream: Self.compositeStream, frame: received.frame)
            try composite?.write(picture: received.frame)
        }
        reception.pending.removeAll(keepingCapacity: true)
    }

    private func sampleSpeaking() {
        if nextSpeakingSample < mediaEnd {
            for member in members {
                if host.isSpeaking(member.id) { speakingSamples[member.index] += 1 }
                if member.microphone.isScheduledToTalk(at: nextSpeakingSample) == true { talkSamples[member.index] += 1 }
            }
        }
        nextSpeakingSample = nextSpeakingSample + Self.speakingSampleInterval
    }

    private func sample() {
        session.tick(at: now)
        let statistics = host.statistics
        let hostFrames = statistics.videoFramesSent
        let rendered = members[0].reception.framesRendered
        if lastSampleMemberFrames.count != members.count { lastSampleMemberFrames = Array(repeating: 0, count: members.count) }
        var memberSamples: [MeetingReport.MemberSample] = []
        if lastSampleMemberBytes.count != members.count { lastSampleMemberBytes = Array(repeating: 0, count: members.count) }
        for (index, member) in members.enumerated() {
            let frames = member.reception.framesRendered
            let atHost = statistics.participants[member.id]
            let bytes = atHost.map { $0.videoBytesSent + $0.retransmittedBytesSent + $0.paddingBytesSent + $0.audioBytesSent } ?? 0
            memberSamples.append(MeetingReport.MemberSample(
                framesPerSecond: Double(frames - lastSampleMemberFrames[index]),
                resolution: "\(member.reception.width)x\(member.reception.height)",
                layers: atHost?.temporalLayers ?? 0,
                smallEncode: atHost?.getsSmallEncode ?? false,
                estimate: atHost?.bandwidth.map { Int($0.targetBitrate.bitsPerSecond) } ?? 0,
                sentBitrate: (bytes - lastSampleMemberBytes[index]) * 8))
            lastSampleMemberFrames[index] = frames
            lastSampleMemberBytes[index] = bytes
        }
        timeline.append(MeetingReport.Sample(
            time: nextSample.seconds, activeSpeaker: host.activeSpeaker.map { Int($0.rawValue) },
            compositeFramesPerSecond: Double(hostFrames - lastSampleHostFrames),
            renderedFramesPerSecond: Double(rendered - lastSampleRendered),
            compositeResolution: "\(statistics.encodedWidth)x\(statistics.encodedHeight)",
            compositeBitrate: statistics.videoTargetBitrate, compositeLayers: statistics.temporalLayers,
            smallEncodeResolution: memberSamples.contains(where: \.smallEncode)
                ? "\(statistics.smallEncodeWidth)x\(statistics.smallEncodeHeight)" : nil,
            smallEncodeBitrate: memberSamples.contains(where: \.smallEncode) ? statistics.smallEncodeBitrate : nil,
            members: memberSamples))
        lastSampleHostFrames = hostFrames
        lastSampleRendered = rendered
        nextSample = nextSample + .seconds(1)
    }

    private func makeReport(wallSeconds: Double) -> MeetingReport {
        let seconds = options.duration.seconds
        let hostStatistics = host.statistics
        let sampleSeconds = Self.speakingSampleInterval.seconds
        let members = members.map { member -> MeetingReport.Member in
            let send = member.sender.statistics
            let receive = member.receiver.statistics
            let reception = member.reception
            let renderSpan = reception.firstRender.map { (now - $0).seconds } ?? 0
            let audio = receive.audio
            let played = Double(max(audio?.totalSamplesReceived ?? 0, 1))
            let atHost = hostStatistics.participants[member.id]
            return MeetingReport.Member(
                id: Int(member.id.rawValue), video: member.camera.description, audio: member.microphone.description,
                // The size the camera was last encoded at (smaller than captured while its
                // bitrate, or the host's request for its tile, was low).
                sentResolution: send.video.flatMap { $0.encodedWidth > 0 ? "\($0.encodedWidth)x\($0.encodedHeight)" : nil }
                    ?? "\(member.camera.width)x\(member.camera.height)",
                framesSent: send.video?.framesSent ?? 0, sendBitrate: send.video?.targetBitrate ?? 0,
                audioPacketsSentPerSecond: Double(send.audio?.packetsSent ?? 0) / seconds,
                hostReceiveFrameRate: Double(atHost?.framesReceived ?? 0) / seconds,
                hostReceivedResolution: "\(atHost?.frameWidth ?? 0)x\(atHost?.frameHeight ?? 0)",
                uplink: .init(member.path.uplink.statistics), downlink: .init(member.path.downlink.statistics),
                videoStreamsReceived: reception.streams(payloadType: member.receiveConfiguration.video?.payloadType),
                audioStreamsReceived: reception.streams(payloadType: member.receiveConfiguration.audio?.payloadType),
                framesRendered: reception.framesRendered,
                receiveFrameRate: renderSpan > 0 ? Double(reception.framesRendered) / renderSpan : 0,
                receivedResolution: "\(reception.width)x\(reception.height)",
                freezeCount: receive.video?.freezeCount ?? 0, totalFreezesDuration: receive.video?.totalFreezesDuration ?? 0,
                // The host sends until the end of the run, the drain included.
                audioPacketsReceivedPerSecond: Double(audio?.packetsReceived ?? 0) / end.seconds,
                audioConcealedFraction: Double(audio?.concealedSamples ?? 0) / played,
                scheduledTalkSeconds: member.microphone.isScheduledToTalk(at: .zero) == nil
                    ? nil : Double(talkSamples[member.index]) * sampleSeconds,
                speakingSeconds: Double(speakingSamples[member.index]) * sampleSeconds,
                isSpeaking: host.isSpeaking(member.id), roundTripTime: send.roundTripTime,
                send: send, receive: receive, host: atHost)
        }
        return MeetingReport(
            participants: members.count, codec: options.codec, canvas: "\(options.canvasWidth)x\(options.canvasHeight)",
            frameRate: options.frameRate, layout: options.layout.description, srtp: options.srtp, seed: options.seed,
            uplinkConditions: options.uplink, downlinkConditions: options.downlink, mediaSeconds: seconds,
            simulatedSeconds: end.seconds, wallSeconds: wallSeconds, speed: end.seconds / wallSeconds,
            hostSendFrameRate: Double(hostStatistics.videoFramesSent) / end.seconds, host: hostStatistics, members: members,
            renderer: pacer.statistics(), compositeFile: nil, compositeFramesWritten: composite?.framesWritten ?? 0, mixFile: nil,
            mixSeconds: Double(mixFrames) / Double(conferSampleRate), timeline: timeline, session: session.events)
    }
}
