public import ConferMedia
public import ConferMixer
import ConferCodecs
import ConferRTP
import ConferCongestion

/// The compositing host of a star meeting: N participants in, one composite video and one
/// mix-minus audio stream out to each.
///
/// ```
/// participant k ─► ReceivePipeline k ─► picture ─► VideoCompositor ─┐  (at the output rate)
///                                    └► 10 ms audio ─► AudioMixer     │
///   canvas ─► encode once ─► packetize once ─► history ─► per participant: stamp, protect, send
///   mix    ─► shared Opus encoder for non-speakers · own encoder per speaker ─► per listener RTP
///   (weak links: the canvas again ─► small encode ─► its own packets and history ─► those participants)
/// feedback from k: NACK ─► RTX from k's encode's history to k only · PLI/FIR ─► throttled keyframe of k's encode
///                  transport-cc/REMB/RR ─► k's bandwidth estimate ─► bitrates, k's encode and layers
/// ```
///
/// **One encode for everyone, and a smaller one for weak links.** The composite has one
/// encoder, one payloader, one RTP writer (one SSRC and one RTX SSRC) and one packet
/// history, so the plaintext packets are identical for every participant. Each participant
/// has its own transport: the packet is copied into it, stamped with that participant's
/// transport-wide sequence number and protected with that participant's key. Its bitrate
/// is the minimum of its participants' bandwidth estimates less audio, within
/// ``HostPipelineConfiguration/minimumBitrate``…``HostPipelineConfiguration/maximumBitrate``.
/// So that one weak link does not set the quality for all, participants whose links are
/// far below the rest's get a second encode of the same canvas
/// (``HostPipelineConfiguration/simulcast``, on by default; ``SimulcastAllocator`` decides
/// who): at the weakest of their rates and the size that rate affords, on the same SSRC and
/// timestamps, each participant's ``LayerForwarder`` switching it between the encodes at a
/// keyframe with its numbers unbroken. With temporal layers (VP8 or VP9,
/// ``HostPipelineConfiguration/temporalLayers``, one by default), a minority of weak
/// participants get only the lower layers (7.5 or 15 fps, renumbered so the left-out frames
/// are not loss), and the bitrate follows the rest (``TemporalLayerAllocator``); a reduced
/// participant's path is probed every few seconds at the next layer's rate, since its own
/// feedback, limited to what it gets, cannot show that it carries more. With both, the
/// second encode goes only to links too weak for the first encode's base layer.
/// Sender reports about the composite count every packet of the first encode, including
/// those sent before a participant joined.
///
/// **Feedback.** A NACK from participant k is answered with RTX from the shared history,
/// sent to k only, each packet at most once per k's round trip. A keyframe request (PLI or
/// new FIR) from anyone, or a participant joining, produces at most one keyframe per
/// ``HostPipelineConfiguration/keyframeRequestInterval``: a request inside the interval is
/// remembered and served when the interval ends, and requests while one is pending are
/// absorbed, so N requesters cost one keyframe.
///
/// **Audio.** Every 10 ms each participant's audio is pulled from its receive chain into
/// the ``AudioMixer``. Listeners that are not speaking share one Opus encoder fed the
/// shared mix; each speaker gets an encoder of its own (from a pool) for its mix-minus, so
/// only speakers cost an encoder. Each listener has its own RTP sequence. The mixer's
/// active speaker drives speaker-led layouts.
///
/// **Nobody holds up the others.** Composing never waits: a participant whose pictures stop
/// (stopped, muted, lost) shows the placeholder after
/// ``HostPipelineConfiguration/placeholderTimeout``; one whose audio stops is concealed
/// briefly, then mixed as silence after ``HostPipelineConfiguration/audioTimeout`` (it stops
/// counting as speaking and gives its encoder back). Garbage is counted and dropped by the participant's receive chain (or, as
/// feedback, by its send side); datagrams for unknown participants are counted. Memory is
/// bounded: fixed buffers per participant, a bounded history, a pool no larger than the
/// number of speakers at once.
///
/// **Demultiplexing.** Use ``RTPDatagramRoute`` on both ends: RTP and sender reports
/// from participant k go to the host's receive chain for k, other RTCP to the host's send
/// side for k — ``receive(_:from:at:)`` does this. The uplink key (in
/// ``HostParticipantConfiguration/receive``) protects what k sends and the host's feedback
/// about it; the downlink key (``HostParticipantConfiguration/srtpKey``) what the host sends k
/// and k's feedback about it.
///
/// Synchronous and time-driven like ``SendPipeline`` and ``ReceivePipeline``: call
/// ``receive(_:from:at:)`` for each datagram, ``poll(at:)`` at ``nextPollTime`` or later.
/// Each participant's datagrams go to the `output` closure given when it was added, in a
/// buffer valid only during that call; the closure must not call back into the host.
/// Steady state allocates nothing per composed frame or mixer step beyond what the
/// receive pipelines and codecs do.
///
/// Not `Sendable`: one owner (an actor or a task) drives it.
public final class HostPipeline {
    /// The configuration in use.
    public let configuration: HostPipelineConfiguration
    let video: HostPipelineVideo
    let audio: HostPipelineAudio
    /// Participants in join order (the order everything is done in, so runs are deterministic).
    private(set) var participants: [HostPipelineParticipant] = []
    /// Chooses the composite's bitrate and each participant's temporal layers.
    let layerAllocator: TemporalLayerAllocator
    /// What ``layerAllocator`` last decided.
    private(set) var layerAllocation: TemporalLayerAllocator.Allocation?
    /// Chooses who gets the small encode (``HostPipelineConfiguration/simulcast``).
    let simulcastAllocator = SimulcastAllocator()
    private var participantIndex: [ParticipantID: Int] = [:]
    private var random: SeededRandom
    /// When composite frames started (the first participant's arrival, or the first poll of
    /// a host that ``runsWithoutParticipants``) and how many since.
    private var videoStart: Timestamp?
    private var videoFrameIndex: Int64 = 0
    /// The start of the next 10 ms mixer step.
    private var nextAudioStep: Timestamp?
    /// The latest time the host was called with.
    private var clock = Timestamp.zero
    private var videoFramesSkipped = 0
    private var datagramsFromUnknownParticipants = 0

    /// How far behind the schedule the host may fall before it skips mixer steps rather than
    /// running them all at once (the audio would be stale anyway).
    static let maximumAudioCatchUp = TimeDelta.milliseconds(200)

    /// A host with no participants yet.
    ///
    /// - Throws: ``HostPipelineError`` for a configuration it cannot serve, or the codec's
    ///   error when an encoder cannot be created.
    public init(configuration: HostPipelineConfiguration) throws {
        guard Set([configuration.videoPayloadType, configuration.rtxPayloadType, configuration.audioPayloadType]).count == 3,
              configuration.videoPayloadType <= 127, configuration.rtxPayloadType <= 127, configuration.audioPayloadType <= 127 else {
            throw HostPipelineError(.invalidConfiguration, "every stream needs its own payload type, 0…127")
        }
        guard Set([configuration.videoSSRC, configuration.rtxSSRC, configuration.audioSSRC]).count == 3 else {
            throw HostPipelineError(.invalidConfiguration, "every stream needs its own SSRC")
        }
        self.configuration = configuration
        random = SeededRandom(seed: configuration.seed)
        video = try HostPipelineVideo(configuration: configuration, random: &random)
        audio = try HostPipelineAudio(configuration: configuration)
        layerAllocator = TemporalLayerAllocator(configuration: .init(layers: configuration.effectiveTemporalLayers))
    }

    /// Told every composite frame as it was encoded, once, before it is packetized: what
    /// every participant receives, for a recording. Keeping the frame makes the encoder
    /// allocate a new buffer for the next one.
    public var compositeHandler: ((EncodedFrame) -> Void)? {
        get { video.compositeHandler }
        set { video.compositeHandler = newValue }
    }

    /// Told every frame of the whole mix as encoded, once, before it is packetized: every
    /// contributor and no one left out (each participant hears its own mix-minus), what a
    /// listener outside the meeting hears, for a recording or a forward. Setting it has the
    /// shared mix encoded even while every participant hears its own.
    public var mixHandler: ((EncodedFrame) -> Void)? {
        get { audio.mixHandler }
        set { audio.mixHandler = newValue }
    }

    /// Whether the composite and the mix go on while no participant is in the meeting (off
    /// by default: with no one to send to, the host rests). For an audience outside the
    /// meeting (``compositeHandler``'s forward to an SFU): without it, that audience keeps
    /// the last picture of whoever left last, and a viewer who comes before anyone joins sees
    /// nothing. Turned on, the clocks start at the next ``poll(at:)``.
    public var runsWithoutParticipants = false {
        didSet {
            if !runsWithoutParticipants, participants.isEmpty { stopClocks() }
        }
    }

    /// What a participant configures its ``ReceivePipeline`` with to receive the host
    /// (``HostPipelineConfiguration/participantReceiveConfiguration``).
    public var participantReceiveConfiguration: ReceivePipelineConfiguration { configuration.participantReceiveConfiguration }

    // MARK: Participants

    /// Adds participant `id`, whose datagrams to it go to `output`. It is laid out on the
    /// canvas (if it sends video) and mixed from the next step, and asks for a keyframe so
    /// it can start decoding the composite (unless its configuration says it will ask later).
    ///
    /// - Throws: ``HostPipelineError`` when `id` is already present or the mixer is full,
    ///   the receive chain's or SRTP's error for a configuration they refuse.
    public func addParticipant(_ id: ParticipantID, configuration participant: HostParticipantConfiguration, at now: Timestamp,
                               output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        advanceClock(to: now)
        guard participantIndex[id] == nil else { throw HostPipelineError(.duplicateParticipant, "\(id) is already in the meeting") }
        let added = try HostPipelineParticipant(id: id, configuration: participant, host: configuration, video: video,
                                                random: &random, output: output)
        do throws(AudioMixerError) {
            try audio.mixer.add(id)
        } catch {
            throw HostPipelineError(.mixerRefused, "\(id) cannot be mixed: \(error)")
        }
        if added.sendsVideo { video.composer.add(id, source: added.pictures) }
        // Its estimate is a guess until probing and feedback have measured its path.
        added.downlink.reductionBlockedUntil = now + Self.reductionWarmUp
        added.downlink.joinedAt = now
        participantIndex[id] = participants.count
        participants.append(added)
        startClocks(at: now)
        if participant.isReachable { video.throttle.request() }
    }

    /// Starts composite frames and mixer steps at `now`, unless they run already.
    private func startClocks(at now: Timestamp) {
        if videoStart == nil {
            videoStart = now
            videoFrameIndex = 0
        }
        if nextAudioStep == nil {
            nextAudioStep = now
            audio.restartFrame()
        }
    }

    private func stopClocks() {
        videoStart = nil
        nextAudioStep = nil
    }

    /// Removes participant `id`: from now on it is on no canvas and in no mix, and nothing
    /// more is sent to it. Unknown ids are ignored.
    public func removeParticipant(_ id: ParticipantID, at now: Timestamp) {
        advanceClock(to: now)
        guard let index = participantIndex.removeValue(forKey: id) else { return }
        let removed = participants.remove(at: index)
        for i in index ..< participants.count { participantIndex[participants[i].id] = i }
        audio.release(removed)
        try? audio.mixer.remove(id)   // it was added with the participant
        video.composer.remove(id)
        if participants.isEmpty, !runsWithoutParticipants { stopClocks() }
        updateCompositeBitrate()
    }

    /// The participants, in join order.
    public var participantIDs: [ParticipantID] { participants.map(\.id) }

    // MARK: Datagrams and time

    /// Takes one datagram from participant `id` that arrived at `now`: RTP and sender
    /// reports go to the host's receive chain for it, other RTCP is feedback about what the
    /// host sends it (``RTPDatagramRoute``). Datagrams of unknown participants are
    /// counted and dropped, as is anything that does not authenticate or parse. Returns
    /// whether it authenticated with the participant's keys (without SRTP: whether it could
    /// be read), which is what consent to send there (ConferNet's `MediaConsent`) goes by.
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, from id: ParticipantID, at now: Timestamp) -> Bool {
        advanceClock(to: now)
        guard let index = participantIndex[id] else {
            datagramsFromUnknownParticipants += 1
            return false
        }
        let participant = participants[index]
        if RTPDatagramRoute(classifying: datagram).isForReceiveSide {
            return participant.receive.receive(datagram, at: now)
        } else {
            return receiveFeedback(datagram, from: participant, at: now)
        }
    }

    /// Does everything due at `now`: the receive chains' polls (pictures due, NACKs,
    /// feedback), the mixer steps due (pull, mix, encode, send), a composite frame when one
    /// is due (compose, encode once, packetize once, send to everyone), probes and sender
    /// reports.
    ///
    /// - Throws: the video or Opus encoder's error; what was due before it is done.
    public func poll(at now: Timestamp) throws {
        advanceClock(to: now)
        if runsWithoutParticipants { startClocks(at: now) }
        for participant in participants {
            participant.receive.poll(at: now)
            participant.downlink.transport.poll(at: now)
            sendProbes(to: participant.downlink, at: now)
        }
        try runAudioSteps(until: now)
        try sendVideoFrameIfDue(at: now)
        for participant in participants {
            participant.downlink.sendReportIfDue(video: video.packetizer.statistics, cname: configuration.cname,
                                                 clock: configuration.ntpClock, at: now)
        }
    }

    /// The next time ``poll(at:)`` has something to do; nil without participants (unless
    /// the host ``runsWithoutParticipants``: then the latest time it was called with, until
    /// a poll starts its clocks).
    public var nextPollTime: Timestamp? {
        guard !participants.isEmpty || runsWithoutParticipants else { return nil }
        if videoStart == nil { return clock }
        var next = nextVideoFrameTime
        func consider(_ time: Timestamp?) {
            guard let time else { return }
            next = next.map { min($0, time) } ?? time
        }
        consider(nextAudioStep)
        for participant in participants {
            consider(participant.receive.nextPollTime)
            consider(participant.downlink.probe.nextSendTime)
            consider(participant.downlink.transport.nextPacedSendTime)
            consider(participant.downlink.nextReport)
        }
        return next
    }

    // MARK: State

    /// The participant speaker-led layouts show: the mixer's active speaker.
    public var activeSpeaker: ParticipantID? { audio.mixer.activeSpeaker }

    /// Whether the mixer holds participant `id` as speaking.
    public func isSpeaking(_ id: ParticipantID) -> Bool { audio.mixer.isSpeaking(id) }

    /// Where participant `id` is on the canvas, or nil when the layout does not show it.
    public func slotRect(of id: ParticipantID) -> PixelRect? { video.composer.compositor.slotRect(of: id) }

    /// What is sent participant `id` from now on reaches it (a live host keeps it until the
    /// member's address consents: ConferNet's `MediaConsent` and `ConsentHold`), and what was
    /// sent before did not. One added as not reachable
    /// (``HostParticipantConfiguration/isReachable``) gets its downlink now, as at a join.
    /// Either way it gets a keyframe at the next frame, without waiting out the keyframe
    /// interval as a PLI would, since none reached it yet, and no video before that keyframe.
    /// A live meeting calls it when a member's address is known (what is sent is kept until
    /// the address consents), and again when consent comes after what was kept was dropped
    /// or after consent ran out; unknown ids are ignored.
    ///
    /// - Throws: SRTP's error should the downlink's key be refused, which it was not at the join.
    public func participantBecameReachable(_ id: ParticipantID, at now: Timestamp) throws {
        advanceClock(to: now)
        guard let index = participantIndex[id] else { return }
        let participant = participants[index]
        if !participant.isReachable {
            try participant.becomeReachable(host: configuration, random: &random)
            participant.downlink.reductionBlockedUntil = now + Self.reductionWarmUp
            participant.downlink.joinedAt = now
        }
        let downlink = participant.downlink
        downlink.lastKeyframeRequest = now
        downlink.layers.waitsForKeyframe = true
        video.requestKeyframe(of: downlink.layers.currentStream, promptly: true)
    }

    /// Asks for a keyframe of the composite for a receiver outside the meeting (the SFU a
    /// forward of ``compositeHandler``'s frames goes to, for a viewer who starts watching or
    /// lost its picture): through the keyframe throttle, as a participant's PLI is.
    public func requestCompositeKeyframe(at now: Timestamp) {
        advanceClock(to: now)
        video.requestKeyframe(of: 0)
    }

    /// Mutes or unmutes participant `id`'s video on the canvas (muted shows the placeholder).
    public func setVideoMuted(_ muted: Bool, for id: ParticipantID) {
        guard let index = participantIndex[id] else { return }
        video.composer.compositor.setVideoMuted(participant: id, muted)
        // A picture decoded before the change belongs to the other state: not shown after a
        // mute, and (as the compositor drops what arrives while muted) not after an unmute.
        participants[index].pictures.dropLatest()
    }

    /// Letterboxes (`.fit`) or crops (`.fill`) participant `id`'s picture in its tile from
    /// the next composite; nil keeps the layout's choice.
    public func setVideoMode(_ mode: FitFill.Mode?, for id: ParticipantID) {
        video.composer.compositor.setMode(mode, for: id)
    }

    /// Mutes or unmutes participant `id` in every mix.
    public func setAudioMuted(_ muted: Bool, for id: ParticipantID) {
        try? audio.mixer.setMuted(muted, for: id)   // unknown ids are ignored
    }

    /// Counters and state now.
    public var statistics: HostPipelineStatistics {
        var result = HostPipelineStatistics()
        result.videoFramesComposed = video.framesComposed
        result.videoFramesEncoded = video.framesEncoded
        result.videoFramesDroppedByEncoder = video.framesDroppedByEncoder
        result.videoFramesSent = video.framesSent
        result.videoFramesSkipped = videoFramesSkipped
        result.sendFrameRate = video.sendFrameRate(at: clock)
        result.keyFramesEncoded = video.keyFramesEncoded
        result.keyframeRequestsReceived = video.throttle.requestsReceived
        result.keyframeRequestsAbsorbed = video.throttle.requestsAbsorbed
        result.videoTargetBitrate = video.encoderBitrate
        result.videoBitrateChanges = video.bitrateChanges
        (result.encodedWidth, result.encodedHeight) = video.encodedSize
        result.resolutionChanges = video.sizeChanges
        result.audioFramesEncoded = audio.framesEncoded
        result.audioEncodersInUse = audio.encodersInUse
        result.maximumAudioEncodersInUse = audio.maximumEncodersInUse
        result.audioEncodersCreated = audio.encodersCreated
        result.audioStepsSkipped = audio.stepsSkipped
        result.activeSpeaker = activeSpeaker
        result.datagramsFromUnknownParticipants = datagramsFromUnknownParticipants
        result.temporalLayers = video.temporalLayers
        result.temporalLayerChanges = video.temporalLayerChanges
        result.baseLayerShare = video.encoderBaseLayerShare
        if let small = video.small {
            result.smallEncodeFramesEncoded = small.framesEncoded
            result.smallEncodeFramesDropped = small.framesDropped
            result.smallEncodeKeyFrames = small.keyFramesEncoded
            result.smallEncodeBitrate = small.bitrate
            (result.smallEncodeWidth, result.smallEncodeHeight) = small.encodedSize
        }
        result.compositor = video.composer.compositor.statistics
        result.mixer = audio.mixer.statistics
        for participant in participants {
            result.participants[participant.id] = statistics(of: participant)
        }
        return result
    }

    private func statistics(of participant: HostPipelineParticipant) -> HostParticipantStatistics {
        let downlink = participant.downlink
        var result = HostParticipantStatistics()
        result.receive = participant.receive.statistics
        // What the stand-in of a participant not reachable yet sends goes nowhere: not sent.
        if participant.isReachable {
            result.videoPacketsSent = downlink.videoPacketsSent
            result.videoBytesSent = downlink.videoBytesSent
            result.audioPacketsSent = downlink.audioPacketsSent
            result.audioBytesSent = downlink.audioBytesSent
            result.retransmittedPacketsSent = downlink.retransmittedPacketsSent
            result.retransmittedBytesSent = downlink.retransmittedBytesSent
            result.paddingPacketsSent = downlink.paddingPacketsSent
            result.paddingBytesSent = downlink.paddingBytesSent
            result.rtcpPacketsSent = downlink.transport.rtcpPacketsSent
        }
        result.feedbackReceived = downlink.control.packetsReceived
        result.feedbackMalformed = downlink.control.packetsMalformed
        result.nacksReceived = downlink.nacksReceived
        result.plisReceived = downlink.plisReceived
        result.firsReceived = downlink.firsReceived
        result.roundTripTime = downlink.roundTripTime?.seconds
        result.bandwidth = downlink.transport.estimator.snapshot
        result.isSpeaking = audio.mixer.isSpeaking(participant.id)
        result.hasOwnAudioEncoder = participant.ownEncoder != nil
        result.framesReceived = participant.pictures.framesReceived
        result.frameWidth = participant.pictures.width
        result.frameHeight = participant.pictures.height
        result.receiveFrameRate = participant.pictures.frameRate(at: clock)
        result.temporalLayers = min(Int(downlink.layers.currentLayer) + 1, video.temporalLayers)
        result.framesLeftOut = downlink.layers.framesDropped
        result.layerSwitches = downlink.layers.layerSwitches
        result.getsSmallEncode = downlink.layers.currentStream == HostPipelineVideo.smallStream
        result.encodeSwitches = downlink.layers.streamSwitches
        result.retransmissionsOfFormerEncode = downlink.retransmissionsOfFormerEncode
        result.retransmissionsOverBudget = downlink.retransmissionsOverBudget
        result.layerReductionsAbandoned = downlink.reductionsAbandoned
        result.keyframeRequestsIgnored = downlink.keyframeRequestsIgnored
        return result
    }

    // MARK: Internals

    private func advanceClock(to now: Timestamp) {
        clock = max(clock, now)
        video.now = clock
    }

    /// The time of composite frame `index`, counted from the start (no drift from adding intervals).
    private func videoFrameTime(_ index: Int64) -> Timestamp? {
        videoStart.map { $0 + TimeDelta(microseconds: Int64((Double(index) * 1_000_000 / configuration.frameRate).rounded())) }
    }

    private var nextVideoFrameTime: Timestamp? { videoFrameTime(videoFrameIndex) }

    /// Runs every mixer step due by `now`, skipping (and counting) steps too far behind.
    private func runAudioSteps(until now: Timestamp) throws {
        guard var step = nextAudioStep else { return }
        let length = TimeDelta.milliseconds(10)
        if now - step > Self.maximumAudioCatchUp {
            let behind = (now - step).microseconds / length.microseconds
            audio.stepsSkipped += Int(behind)
            step = step + length * behind
            audio.restartFrame()
        }
        while step <= now {
            let time = step
            step = step + length
            nextAudioStep = step
            if try audio.step(at: time, participants: participants, now: now) {
                video.composer.compositor.setSpeaking(audio.mixer.activeSpeaker)
            }
        }
        nextAudioStep = step
    }

    /// Composes, encodes and sends the composite frame due by `now`, if any; frames whose
    /// time passed while the host was not polled are skipped (and counted), not sent late in a burst.
    private func sendVideoFrameIfDue(at now: Timestamp) throws {
        guard var frameTime = nextVideoFrameTime, frameTime <= now else { return }
        while let following = videoFrameTime(videoFrameIndex + 1), following <= now {
            videoFrameIndex += 1
            videoFramesSkipped += 1
            frameTime = following
        }
        let frame = Int(videoFrameIndex)
        videoFrameIndex += 1
        requestLayerProbes(at: now)
        checkReducedBacklogs(at: now)
        for participant in participants { sendProbes(to: participant.downlink, at: now) }
        // A participant moving to the other encode switches at that encode's next keyframe.
        for participant in participants where participant.downlink.layers.targetStream != participant.downlink.layers.currentStream {
            video.requestKeyframe(of: participant.downlink.layers.targetStream)
        }
        try video.sendFrame(frame, at: frameTime, now: now, to: participants)
        requestSlotBitrates()
    }

    /// Asks each participant for what its slot shows (see
    /// ``HostPipelineConfiguration/requestsSlotBitrates``); a REMB leaves only when the
    /// slot's size changed (a join, a leave, a new speaker) and with receiver reports.
    private func requestSlotBitrates() {
        guard configuration.requestsSlotBitrates else { return }
        let compositor = video.composer.compositor
        for participant in participants where participant.sendsVideo {
            let audio = participant.sendsAudio ? configuration.audioBitrate : 0
            guard let rect = compositor.slotRect(of: participant.id) else {
                // Off the canvas: keep the stream alive (a layout change can show it at once), at the least.
                participant.receive.requestMaximumBitrate(Self.offCanvasBitrate + audio)
                continue
            }
            let frameRate = Self.slotFrameRate(rect, canvasWidth: configuration.width, canvasHeight: configuration.height,
                                               frameRate: configuration.frameRate)
            let video = VideoResolutionLadder.bitrate(forShowing: rect.width, height: rect.height, frameRate: frameRate)
            participant.receive.requestMaximumBitrate(video + audio)
        }
    }

    /// The frame rate a slot is shown at: the composite's, or half of it for a tile smaller
    /// than ``smallTileShare`` of the canvas. A face a few dozen pixels high reads as well at
    /// 15 fps, large galleries show their tiles at a lower rate for the same reason, and
    /// such a participant asked for half a full-rate thumbnail's bitrate sends every other
    /// frame (``VideoResolutionLadder``), so the host decodes half as many.
    public static func slotFrameRate(_ rect: PixelRect, canvasWidth: Int, canvasHeight: Int, frameRate: Double) -> Double {
        Double(rect.width * rect.height) < smallTileShare * Double(canvasWidth * canvasHeight) ? frameRate / 2 : frameRate
    }

    /// Below this share of the canvas a tile is shown at half the frame rate: 1/20, so a
    /// 4 × 4 grid keeps full rate and a 5 × 5 one (256 × 144 tiles on 1280 × 720) does not.
    public static let smallTileShare = 1.0 / 20

    /// What a participant the layout does not show is asked to send, video only.
    static let offCanvasBitrate = 50_000

    /// Sends the probe packets due to `downlink` at `now`, taking the next cluster from its
    /// congestion controller when none is in progress.
    func sendProbes(to downlink: HostPipelineDownlink, at now: Timestamp) {
        guard configuration.probesBandwidth else { return }
        while true {
            if downlink.probe.cluster == nil {
                guard let cluster = downlink.transport.estimator.nextProbe(at: now) else { return }
                downlink.probe.start(cluster, at: now)
                downlink.transport.activeProbeClusterID = cluster.id
            }
            guard let cluster = downlink.probe.cluster, let due = downlink.probe.nextSendTime, due <= now else { return }
            let size = video.sendPadding(size: downlink.probe.nextPacketSize(maximum: video.maximumPaddingPacketSize),
                                         probeClusterID: cluster.id, to: downlink, at: now)
            downlink.probe.sent(size, at: now)
            downlink.transport.activeProbeClusterID = downlink.probe.cluster?.id
        }
    }

    /// Sets the composite's bitrate from the weakest participant's estimate, less audio.
    ///
    /// With the small encode (``HostPipelineConfiguration/simulcast``), it first chooses who
    /// gets that (``SimulcastAllocator``); with temporal layers, then each of the others'
    /// layers (``TemporalLayerAllocator``). With both, a participant goes to the small encode
    /// only when its link cannot carry the first encode's base layer: layers serve the
    /// middle links, the small encode the weakest.
    func updateCompositeBitrate() {
        guard !participants.isEmpty else { return }
        let budgets = participants.map {
            Int($0.downlink.transport.estimator.targetBitrate.bitsPerSecond) - configuration.audioBitrate
        }
        let layers = configuration.effectiveTemporalLayers
        // What the layers cost, as shares of the whole, once the encoder makes them.
        var measured: [Double] = []
        if video.temporalLayers > 1 {
            let rates = video.layerRates.cumulativeRates(layers: layers, at: clock)
            if let total = rates.last, total > 0 { measured = rates.map { Double($0) / Double(total) } }
        }
        let reducible = participants.map { $0.downlink.reductionBlockedUntil.map { clock >= $0 } ?? true }
        var onFirstEncode = Array(participants.indices)
        if configuration.simulcast {
            // With layers, what a participant must carry of the first encode to stay on it:
            // its base layer, judged as the layer allocator judges it; the whole encode
            // once its base layer did not fit (its reduction abandoned and still held off).
            // One in its first seconds counts at the base layer: it will be reducible by the
            // time a move would be confirmed and held, and a move back costs a keyframe.
            // Until an upper layer's frames are measured (just after the layers came on),
            // the base layer looks like the whole stream: that says nothing of its share.
            let upperLayersMeasured = measured.count > 1 && measured[measured.count - 2] < 1
            let baseShare = max(layerAllocator.configuration.minimumBaseShare, upperLayersMeasured ? measured[0] : 0)
            let shares = layers > 1
                ? participants.indices.map { participants[$0].downlink.reductionsAbandoned > 0 && !reducible[$0] ? 1 : baseShare }
                : []
            let split = allocateSimulcast(budgets: budgets, baseShares: shares)
            guard layers > 1 else {
                video.setTargetBitrate(split.bitrate)
                return
            }
            onFirstEncode = participants.indices.filter { !split.second[$0] }
        }
        let allocation = layerAllocator.allocate(
            budgets: onFirstEncode.map { budgets[$0] },
            current: onFirstEncode.map { participants[$0].downlink.layers.targetLayer },
            minimum: configuration.minimumBitrate, maximum: configuration.maximumBitrate,
            measured: measured, reducible: onFirstEncode.map { reducible[$0] })
        let top = UInt8(layers - 1)
        var targetLayers = Array(repeating: top, count: participants.count)
        for (index, layer) in zip(onFirstEncode, allocation.layers) { targetLayers[index] = layer }
        for (participant, layer) in zip(participants, targetLayers) {
            // One on the small encode (a single layer) is given the first's every layer, to
            // have when it comes back; the allocator takes them down again if need be.
            participant.downlink.layers.targetLayer = layer
            // A participant that gets fewer layers is on a link far below the composite's
            // rate: a keyframe sized for the composite is a second of its link, and sent as
            // one burst it overflows the link's queue (then the participant asks for another).
            // Paced at its estimate, the keyframe arrives late but whole.
            // Back at full layers, what was queued drains at the usual pacing factor.
            let transport = participant.downlink.transport
            if layer < top {
                transport.setPacing(factor: Self.reducedPacingFactor)
            } else {
                transport.setPacing(factor: configuration.paces || transport.queuedBytes > 0 ? Pacer.pacingFactor : nil)
            }
        }
        layerAllocation = allocation
        video.setTemporalLayers(allocation.baseLayerShare == nil ? 1 : layers)
        video.setTargetBitrate(allocation.bitrate, baseLayerShare: allocation.baseLayerShare)
        // Every keyframe goes to every participant: sized for the composite's rate it would
        // be seconds of a reduced participant's link. Kept to what that link carries in
        // ``reducedKeyframeDuration``, it costs the others a softer keyframe, briefly.
        video.setKeyframeSizeLimit(allocation.weakestReducedBudget.map {
            Int(Double($0) * Self.reducedKeyframeDuration.seconds)
        })
    }

    /// Splits the participants between the two encodes (``SimulcastAllocator``) and sets
    /// the small encode's bitrate. A participant is not moved in its first ``simulcastWarmUp`` (its
    /// estimate is a guess) nor while held after its last move (``initialStreamSwitchHold``,
    /// doubling with each move: each costs a keyframe, of everyone's encode when it moves
    /// back), and it moves to the small encode only once the allocator has wanted that for
    /// ``simulcastConfirmation``.
    ///
    /// `baseShares` are the shares of the first encode each participant must carry to
    /// follow it (see ``SimulcastAllocator/allocate(budgets:current:movable:minimum:maximum:baseShares:)``);
    /// the first encode's bitrate is the caller's to set.
    private func allocateSimulcast(budgets: [Int], baseShares: [Double]) -> SimulcastAllocator.Allocation {
        let small = HostPipelineVideo.smallStream
        let settled = participants.map { participant in
            let downlink = participant.downlink
            let held = downlink.streamHeldUntil.map { clock < $0 } ?? false
            return clock - downlink.joinedAt >= Self.simulcastWarmUp && !held
        }
        var movable = settled
        let current = participants.map { $0.downlink.layers.targetStream == small }
        func allocate() -> SimulcastAllocator.Allocation {
            simulcastAllocator.allocate(budgets: budgets, current: current, movable: movable,
                                        minimum: configuration.minimumBitrate, maximum: configuration.maximumBitrate,
                                        baseShares: baseShares)
        }
        var allocation = allocate()
        // A move to the small encode waits until the allocator has wanted it for
        // ``simulcastConfirmation``: a dip in one estimate is not worth two switches.
        var delayed = false
        for (index, participant) in participants.enumerated() {
            let downlink = participant.downlink
            guard allocation.second[index], !current[index] else {
                downlink.wantsSmallEncodeSince = nil
                continue
            }
            let since = downlink.wantsSmallEncodeSince ?? clock
            downlink.wantsSmallEncodeSince = since
            if clock - since < Self.simulcastConfirmation {
                movable[index] = false
                delayed = true
            }
        }
        if delayed { allocation = allocate() }
        for (participant, isSmall) in zip(participants, allocation.second) {
            let stream = isSmall ? small : 0
            guard participant.downlink.layers.targetStream != stream else { continue }
            let downlink = participant.downlink
            downlink.layers.targetStream = stream
            downlink.lastStreamChange = clock
            downlink.streamHeldUntil = clock + downlink.streamSwitchHold
            downlink.streamSwitchHold = min(downlink.streamSwitchHold * Int64(2), Self.maximumStreamSwitchHold)
        }
        video.setSmallBitrate(allocation.secondBitrate)
        return allocation
    }

    /// How long after joining a participant stays on the first encode. Shorter than
    /// ``reductionWarmUp``: start-up probing has measured most paths by then, and while
    /// nobody is moved the weakest link sets everyone's bitrate. An estimate that
    /// overshoots only keeps its participant on the first encode a little longer.
    static let simulcastWarmUp = TimeDelta.seconds(1)

    /// How long the allocator must want a participant on the small encode before it moves:
    /// under 30 ms of jitter with 3 % loss, estimates dip for a few hundred milliseconds
    /// (most at start-up, while probing runs again), and each dip would cost two switches
    /// and a keyframe of everyone's encode. Longer waits cost the others frames while a
    /// truly weak member still sets their bitrate (1 s: 25.7 fps instead of 27.7 with a
    /// member behind 300 kbit/s, over a 10 s meeting).
    static let simulcastConfirmation = TimeDelta.milliseconds(500)

    /// How long a participant stays on the encode it was first moved to before it may move
    /// again; each move doubles it, up to ``maximumStreamSwitchHold``. Most moves are one
    /// dip at start-up (under jitter, two to four members of nine), and the member is back
    /// on the first encode 2 s later instead of the 5 s a fixed hold kept it; a member whose
    /// link keeps swinging moves ever more rarely, as the layer reductions back off.
    static let initialStreamSwitchHold = TimeDelta.seconds(2)

    /// The longest a participant is held on an encode.
    static let maximumStreamSwitchHold = TimeDelta.seconds(16)

    /// The pacing factor for a participant that gets fewer layers: its stream is far below
    /// its estimate except for keyframes, which must not leave faster than its link.
    static let reducedPacingFactor = 1.0

    /// A participant given fewer layers whose pacer holds more than this much of its
    /// estimate's worth of packets cannot carry even the base layer: the layers it gets
    /// are put back and the composite follows its link again (as without layers).
    static let maximumReducedBacklog = TimeDelta.seconds(1)
    /// How long after joining a participant is not given fewer layers: start-up probing
    /// overshoots a capped path for a second or so, and a decision on that estimate sets
    /// the composite's rate for everyone.
    static let reductionWarmUp = TimeDelta.seconds(2)
    /// How long a participant whose base layer did not fit is first kept at full layers.
    static let initialReductionBackoff = TimeDelta.seconds(5)
    /// The longest it is kept so.
    static let maximumReductionBackoff = TimeDelta.seconds(60)

    /// Gives back its layers to each participant whose base layer did not fit its link
    /// (its pacer's backlog over ``maximumReducedBacklog``), and keeps it from being
    /// reduced again for a while that doubles with each failure.
    func checkReducedBacklogs(at now: Timestamp) {
        let top = UInt8(configuration.effectiveTemporalLayers - 1)
        var changed = false
        for participant in participants where participant.downlink.layers.targetLayer < top {
            let downlink = participant.downlink
            let estimate = Double(downlink.transport.estimator.targetBitrate.bitsPerSecond)
            guard Double(downlink.transport.queuedBytes * 8) > estimate * Self.maximumReducedBacklog.seconds else { continue }
            downlink.reductionBlockedUntil = now + downlink.reductionBackoff
            downlink.reductionBackoff = min(downlink.reductionBackoff * Int64(2), Self.maximumReductionBackoff)
            downlink.reductionsAbandoned += 1
            changed = true
        }
        if changed { updateCompositeBitrate() }
    }

    /// How much of the weakest reduced participant's link one keyframe may take.
    static let reducedKeyframeDuration = TimeDelta.milliseconds(500)

    /// How often a participant that gets fewer layers may have a keyframe made for it:
    /// each costs its link about ``reducedKeyframeDuration``, and everyone a keyframe.
    static let reducedKeyframeRequestInterval = TimeDelta.seconds(2)

    /// How often a participant given fewer layers than the composite has is probed for more.
    static let layerProbeInterval = TimeDelta.seconds(3)

    /// Asks the estimate towards each participant that gets fewer layers for a probe at the
    /// next layer's rate (with the allocator's headroom) every ``layerProbeInterval``.
    func requestLayerProbes(at now: Timestamp) {
        guard configuration.probesBandwidth, let allocation = layerAllocation, let share = allocation.baseLayerShare else { return }
        let top = UInt8(configuration.effectiveTemporalLayers - 1)
        for participant in participants where participant.downlink.layers.targetLayer < top {
            let downlink = participant.downlink
            if let last = downlink.lastLayerProbe, now - last < Self.layerProbeInterval { continue }
            downlink.lastLayerProbe = now
            let next = layerAllocator.cumulativeBitrate(through: Int(downlink.layers.targetLayer) + 1,
                                                        of: allocation.bitrate, baseShare: share)
            let rate = Double(next) * layerAllocator.configuration.upSwitchHeadroom + Double(configuration.audioBitrate)
            downlink.transport.estimator.requestProbe(at: .bitsPerSecond(Int64(rate)), now: now)
        }
    }
}
