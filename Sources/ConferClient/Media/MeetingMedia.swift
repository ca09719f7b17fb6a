public import ConferLive
public import ConferSession
public import ConferMedia
import ConferNet
import Synchronization

/// A member's media behind a ``MeetingClient``: the host composites everyone on a UDP socket
/// (``LiveMeetingHost``); a participant sends its camera and voice to the host's address and
/// receives the composite (``LiveMeetingParticipant``). What to run follows the room as the
/// signaling describes it — grants, announced addresses, devices, members leaving — by
/// comparing the room with what runs after every event, so an event missed during a
/// reconnection is made good by the snapshot that follows. Once a second the member's
/// figures are reported to the server and published in ``connectInfo``.
public actor MeetingMedia {
    /// This member's live figures, current value first.
    public nonisolated let connectInfo = ObservedValue<ConnectInfo?>(nil)
    /// When the first composite was rendered (a participant), nil until then.
    public nonisolated let firstFrame = ObservedValue<SessionTime?>(nil)
    /// Why the media stopped by itself, for a person: a camera or voice file that cannot be
    /// read, an output that cannot hold what arrives, a socket that cannot be bound; nil until
    /// then. The session goes on without media: an app shows this and leaves (as `confer
    /// join` does), or lets the member fix it.
    public nonisolated let failure = ObservedValue<String?>(nil)

    private let client: MeetingClient
    private let options: MeetingMediaOptions
    private var runner: Task<Void, Never>?
    private var control: LiveMeetingControl?
    private var media: Task<LiveMeetingControl.Figures, any Error>?
    /// Host: the members added to the pipeline, by identity.
    private var applied: [String: Applied] = [:]
    /// Host: where the running media forwards the meeting.
    private var runningForward: LiveForwardTarget?
    /// Participant: the host description the running media was started for.
    private var runningFor: MediaDescription?
    /// Participant: whether the running media sends (an observer's does not).
    private var runningSends = true
    /// Participant: the device states the running media was last told.
    private var runningDevices: DeviceStates?
    private var started: SessionTime?
    private var totals = LiveMeetingControl.Figures()
    /// How this member renders others, by identity (what the app chose; the default shows
    /// and plays everyone, each tile as its layout says).
    private var rendering: [String: Rendering] = [:]

    /// How one member is rendered here.
    public struct Rendering: Sendable, Hashable {
        /// Its video is drawn.
        public var video = true
        /// Its voice is played.
        public var audio = true
        /// Letterboxed or cropped in its view.
        public var mode = FitFill.Mode.fit

        /// Shown, heard, letterboxed.
        public init() {}
    }

    private struct Applied: Equatable {
        var slot: UInt32
        var sends: Bool
        var media: MediaDescription?
        var devices: DeviceStates
    }

    /// Media for `client`'s member, not yet started.
    public init(client: MeetingClient, options: MeetingMediaOptions = MeetingMediaOptions()) {
        self.client = client
        self.options = options
    }

    /// Starts following the room; returns at once.
    public func start() {
        guard runner == nil else { return }
        let events = client.events.events
        runner = Task {
            await self.reconcile()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in events { await self.reconcile() }
                }
                group.addTask {
                    var ticker = ContinuousClock.now + .seconds(1)
                    while !Task.isCancelled {
                        try? await Task.sleep(until: ticker, clock: .continuous)
                        ticker = ticker + .seconds(1)
                        await self.report()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Stops the media; the whole run's figures.
    @discardableResult
    public func stop() async -> LiveMeetingControl.Figures {
        runner?.cancel()
        runner = nil
        await stopMedia()
        return totals
    }

    // MARK: - Rendering, per member (from the next frame)

    /// Draws `identity`'s video or not. The host hides (or shows again) the member's tile in
    /// the composite it draws; a participant, whose one picture is the composite, stops (or
    /// resumes) rendering it when `identity` is the host — decoding goes on, so it comes
    /// back without waiting for a keyframe.
    public func enableVideoRender(_ identity: String, _ enabled: Bool) { change(identity) { $0.video = enabled } }

    /// Plays `identity`'s voice or not (the host: in the mix it makes; a participant: the
    /// mix it receives from the host).
    public func enableAudioPlay(_ identity: String, _ enabled: Bool) { change(identity) { $0.audio = enabled } }

    /// Letterboxes (`.fit`) or crops (`.fill`) `identity`'s picture in its view (the host:
    /// its tile in the composite).
    public func setVideoRenderMode(_ identity: String, _ mode: FitFill.Mode) { change(identity) { $0.mode = mode } }

    /// How `identity` is rendered here.
    public func rendering(of identity: String) -> Rendering { rendering[identity] ?? Rendering() }

    private func change(_ identity: String, _ edit: (inout Rendering) -> Void) {
        var value = rendering[identity] ?? Rendering()
        edit(&value)
        rendering[identity] = value
        control?.send(.render(identity: identity, video: value.video, audio: value.audio, mode: value.mode))
    }

    /// Tells freshly started media (or a member just added to the host's) what the app chose.
    private func sendRendering(_ identities: some Sequence<String>) {
        for identity in identities {
            guard let value = rendering[identity] else { continue }
            control?.send(.render(identity: identity, video: value.video, audio: value.audio, mode: value.mode))
        }
    }

    /// The figures so far (of the media running now, or the last run).
    public var figures: LiveMeetingControl.Figures { control?.figures ?? totals }

    private func stopMedia() async {
        control?.stop()
        if let media, let figures = try? await media.value { totals = figures }
        media = nil
        control = nil
        runningFor = nil
        runningDevices = nil
        runningForward = nil
        applied.removeAll()
    }

    private func report() async {
        guard let control else { return }
        let figures = control.figures
        var info = ConnectInfo()
        info.receiveFrameRate = figures.receiveFrameRate
        info.receiveWidth = figures.receiveWidth
        info.receiveHeight = figures.receiveHeight
        info.sendFrameRate = figures.sendFrameRate
        info.audioPacketsSentPerSecond = figures.audioPacketsSentPerSecond
        info.audioPacketsReceivedPerSecond = figures.audioPacketsReceivedPerSecond
        info.speaking = figures.speaking
        info.bytesSent = figures.bytesSent
        info.bytesReceived = figures.bytesReceived
        info.packetsLost = figures.packetsLost
        info.remotePacketsLost = figures.remotePacketsLost
        info.roundTripMilliseconds = figures.roundTripMilliseconds
        if !figures.memberBytesReceived.isEmpty {
            info.receivedFrom = figures.memberBytesReceived.reduce(into: [:]) { result, entry in
                result[entry.key] = ConnectInfo.Reception(bytes: entry.value, packetsLost: figures.memberPacketsLost[entry.key] ?? 0)
            }
        }
        info.since = started
        connectInfo.set(info)
        await client.report(info)
    }

    // MARK: - Following the room

    private func reconcile() async {
        // A session that ended (left, kicked, room closed) takes its media with it; one that
        // is reconnecting keeps it going.
        if case .disconnected = client.connection.current {
            await stopMedia()
            return
        }
        guard let room = client.room.current else { return }
        if room.host == client.identity { await reconcileHost(room) } else { await reconcileParticipant(room) }
    }

    private func reconcileHost(_ room: RoomSnapshot) async {
        if runningFor != nil { await stopMedia() } // was a participant (host transfer)
        // The room's forward, set by its administrator, goes with the host role; this
        // member's own only while the room has none.
        let forward = if let set = room.forward { LiveForwardTarget(room: set) } else { options.forward }
        if control == nil {
            let control = LiveMeetingControl()
            self.control = control
            var configuration = LiveMeetingHostConfiguration(plan: LiveMeetingPlan(
                codec: options.codec, canvasWidth: options.canvasWidth, canvasHeight: options.canvasHeight, frameRate: options.frameRate))
            configuration.layout = options.layout
            configuration.maximumBitrate = options.maximumBitrate
            configuration.simulcast = options.simulcast
            configuration.temporalLayers = options.temporalLayers
            configuration.bindHost = options.bindHost
            configuration.stunServer = options.usesSTUN && options.announcedAddress == nil ? await client.stunServer : nil
            configuration.output = options.compositeOutput
            configuration.forward = forward
            runningForward = forward
            let options = options
            let client = client
            started = SessionTime.now()
            let failure = failure
            media = Task {
                try await Self.reportingFailure(to: failure) {
                    try await LiveMeetingHost.run(configuration, control: control) { port in
                        let announced = AnnouncedMediaAddress.announcing(options.announcedAddress, bindHost: options.bindHost, boundPort: port,
                                                                         reflexive: control.reflexive)
                        await client.announceMedia(MediaDescription(host: announced.host, port: announced.port, alternates: announced.alternates,
                                                                    codec: options.codec.rawValue, width: options.canvasWidth, height: options.canvasHeight,
                                                                    frameRate: options.frameRate))
                    }
                }
            }
        }
        guard let control else { return }
        if forward != runningForward {
            control.send(.forward(forward))
            runningForward = forward
        }
        var desired: [String: Applied] = [:]
        for member in room.members where member.identity != client.identity {
            guard let grant = room.media[member.identity] else { continue }
            desired[member.identity] = Applied(slot: grant.slot, sends: member.role.sends, media: member.media, devices: member.devices)
        }
        for (identity, _) in applied where desired[identity] == nil {
            control.send(.remove(identity: identity))
            applied.removeValue(forKey: identity)
        }
        for (identity, want) in desired {
            let have = applied[identity]
            if have?.slot != want.slot || have?.sends != want.sends, let grant = room.media[identity] {
                control.send(.add(identity: identity, slot: grant.slot, uplinkKey: grant.uplinkKey, downlinkKey: grant.downlinkKey, sends: want.sends))
                sendRendering([identity])
                if let media = want.media {
                    control.send(.address(identity: identity, host: media.host, port: media.port, alternates: media.alternateUDPAddresses))
                }
            } else if have?.media != want.media, let media = want.media {
                control.send(.address(identity: identity, host: media.host, port: media.port, alternates: media.alternateUDPAddresses))
            }
            if have?.devices != want.devices, want.sends {
                control.send(.devices(identity: identity, camera: want.devices.camera, microphone: want.devices.microphone))
            }
            applied[identity] = want
        }
    }

    private func reconcileParticipant(_ room: RoomSnapshot) async {
        if !applied.isEmpty || (control != nil && runningFor == nil) { await stopMedia() } // was the host
        let hostMedia = room.host.flatMap { room.member($0) }?.media
        guard let hostMedia, let grant = room.media[client.identity], let codec = Codec(rawValue: hostMedia.codec) else {
            if runningFor != nil { await stopMedia() } // the host left: nothing to send to
            return
        }
        let me = room.member(client.identity)
        let sends = me?.role.sends ?? true
        // Same host, same role: the media goes on. An observer made a participant restarts
        // its media so that it starts sending.
        if runningFor != hostMedia || runningSends != sends {
            await startParticipant(room, host: hostMedia, grant: grant, codec: codec, sends: sends)
        }
        // A device turned off, by the member or the host, stops at the source: no camera
        // frame leaves this machine and the microphone sends silence. The host hiding the
        // tile is not enough: the host is another member's process, which could keep what it
        // is sent.
        if let devices = me?.devices, devices != runningDevices {
            control?.send(.devices(identity: client.identity, camera: devices.camera, microphone: devices.microphone))
            runningDevices = devices
        }
    }

    private func startParticipant(_ room: RoomSnapshot, host hostMedia: MediaDescription, grant: MediaGrant, codec: Codec, sends: Bool) async {
        if runningFor != nil { await stopMedia() }
        var configuration = LiveMeetingParticipantConfiguration(
            plan: LiveMeetingPlan(codec: codec, canvasWidth: hostMedia.width, canvasHeight: hostMedia.height, frameRate: hostMedia.frameRate),
            host: UDPAddress(host: hostMedia.host, port: hostMedia.port), slot: grant.slot, uplinkKey: grant.uplinkKey,
            downlinkKey: grant.downlinkKey)
        configuration.hostAlternates = hostMedia.alternateUDPAddresses
        configuration.sends = sends
        runningSends = sends
        configuration.cameraFile = options.cameraFile
        configuration.microphoneFile = options.microphoneFile
        configuration.cameraWidth = options.cameraWidth
        configuration.cameraHeight = options.cameraHeight
        configuration.videoOutput = options.videoOutput
        configuration.audioOutput = options.audioOutput
        configuration.bindHost = options.bindHost
        configuration.stunServer = options.usesSTUN && options.announcedAddress == nil ? await client.stunServer : nil
        let firstFrame = firstFrame
        configuration.onRender = { _, _ in
            firstFrame.update { if $0 == nil { $0 = SessionTime.now() } }
        }
        let control = LiveMeetingControl()
        self.control = control
        runningFor = hostMedia
        if let host = room.host { sendRendering([host]) }
        started = SessionTime.now()
        let client = client
        let bindHost = options.bindHost, announcedAddress = options.announcedAddress
        let width = configuration.cameraWidth, height = configuration.cameraHeight
        let failure = failure
        media = Task {
            try await Self.reportingFailure(to: failure) {
                try await LiveMeetingParticipant.run(configuration, control: control) { port in
                    let announced = AnnouncedMediaAddress.announcing(announcedAddress, bindHost: bindHost, boundPort: port,
                                                                     reflexive: control.reflexive)
                    await client.announceMedia(MediaDescription(host: announced.host, port: announced.port, alternates: announced.alternates,
                                                                codec: codec.rawValue, width: width, height: height, frameRate: hostMedia.frameRate))
                }
            }
        }
    }

    /// Runs `media`, publishing its error in `failure` before passing it on.
    private static func reportingFailure(to failure: ObservedValue<String?>,
                                         _ media: () async throws -> LiveMeetingControl.Figures) async throws -> LiveMeetingControl.Figures {
        do {
            return try await media()
        } catch {
            failure.set("\(error)")
            throw error
        }
    }
}

extension LiveForwardTarget {
    /// The forward a room's administrator set (``RoomForward``, whose addresses the server
    /// checked); nil, no forward at all, should its video address not parse.
    init?(room forward: RoomForward) {
        func address(_ text: String?) -> UDPAddress? { text.flatMap(UDPAddress.init(parsing:)) }
        guard let video = address(forward.video) else { return nil }
        self.init(video: video, audio: address(forward.audio), videoRTCP: address(forward.videoRTCP), audioRTCP: address(forward.audioRTCP))
    }
}
