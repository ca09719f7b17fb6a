import ConferMedia
import ConferCodecs
import ConferNet
import ConferRTP
import Confer
import ConferJobs

/// One run of ``LiveSender``: the ``SendPipeline`` fed from the file at each frame's time,
/// the RTCP the receiver sends back, and where each datagram goes. It runs inside a
/// ``RealtimeLoop``, which calls ``handle(_:at:socket:progress:)`` for every event.
///
/// One item of the file is read ahead, so the next capture time is always known (IVF
/// timestamps need not be regular). Paced, an item goes out when its media time comes on
/// the clock; unpaced, one goes out per turn of the loop, so feedback is still read between.
final class LiveSenderSession<Clock: MediaClock> {
    let pool = UDPBufferPool(capacity: 64)
    private let source: LiveSenderSource
    private let options: LiveSenderOptions
    private let clock: Clock
    private let pipeline: SendPipeline
    private let outgoing: DatagramQueue
    private let destination: UDPDestination
    /// Where RTCP goes while the receiver has not been heard multiplexing: the port above.
    private let control: UDPDestination?
    /// The clock's time at media time zero.
    private let start: Timestamp
    private let ssrc: UInt32
    private let rtxSSRC: UInt32?

    private var picture: VideoFrame?
    private var encoded: EncodedFrame
    private var audio: AudioFrame
    private var hasPending = false
    private var nextCapture: Timestamp?
    private var lastMediaAt: Timestamp?
    private var mediaEnd = Timestamp.zero
    private var itemsSent = 0
    private var rtcpSent = 0
    private var feedbackHeard = false
    private var multiplexed = false
    /// Each whole second of media sent so far, and the RTP bytes counted at its start.
    private var timeline: [LiveSendSecond] = []
    private var bytesAtSecondStart = 0

    /// Whole seconds of media sent so far (the timeline's length).
    var secondsSent: Int { timeline.count }

    init(source: LiveSenderSource, options: LiveSenderOptions, ssrc: UInt32, rtxSSRC: UInt32, seed: UInt64,
         destination: UDPDestination, control: UDPDestination?, clock: Clock, ntpClock: NTPClockMapping) throws {
        self.source = source
        self.options = options
        self.clock = clock
        self.destination = destination
        self.control = control
        multiplexed = options.rtcpMux
        self.ssrc = ssrc
        let payloadType = options.effectivePayloadType
        let video = source.kind != .audio
        let ceiling = (options.bitrateKbps
            ?? TranscodeOptions.defaultVideoBitrateKbps(width: max(source.width, 16), height: max(source.height, 16))) * 1000
        let startBitrate = min(ceiling, (options.startBitrateKbps ?? Int.max / 1000) * 1000)
        var configuration = SendPipelineConfiguration(
            maximumPacketSize: options.mtu, transportSequenceNumberID: 3, adaptsBitrate: true,
            // Started at the bitrate asked for, there is nothing to probe for, and a plain
            // peer gets no padding packets it would not know what to do with.
            probesBandwidth: video && startBitrate < ceiling, paces: video && options.paces && options.isPaced && options.packetSpread <= .zero,
            cname: String(options.cname.utf8.prefix(255)) ?? "confer",
            ntpClock: ntpClock, srtpKey: options.srtpKey, seed: seed)
        switch source.kind {
        case .audio:
            let bitrate = (options.bitrateKbps ?? (source.channels == 2 ? 64 : 32)) * 1000
            configuration.audio = .init(
                settings: AudioEncoderSettings(channels: source.channels, bitrate: bitrate, frameDurationMs: 20),
                ssrc: ssrc, payloadType: payloadType)
            self.rtxSSRC = nil
        case .pictures, .encoded:
            configuration.video = .init(
                codec: options.codec, width: source.width, height: source.height, frameRate: source.frameRate,
                maximumBitrate: ceiling, startBitrate: startBitrate, minimumBitrate: min(50_000, startBitrate), speed: 8,
                threads: options.threads, keyframeInterval: max(0, Int((options.keyframeIntervalSeconds * source.frameRate).rounded())),
                // Unless asked, every picture is encoded, so frames sent match frames read.
                allowsFrameDropping: options.dropsFrames, ssrc: ssrc, payloadType: payloadType, rtxSSRC: rtxSSRC,
                rtxPayloadType: LiveSender.defaultRTXPayloadType(for: payloadType), encodesFrames: source.kind == .pictures)
            self.rtxSSRC = rtxSSRC
        }
        let outgoing = DatagramQueue()
        self.outgoing = outgoing
        pipeline = try SendPipeline(configuration: configuration) { outgoing.append($0) }
        encoded = EncodedFrame(codec: options.codec)
        audio = AudioFrame(silenceOf: LiveSenderSource.audioBlockFrames, channels: source.channels)
        // Media time zero on a whole millisecond, so frame times map to whole RTP ticks.
        start = Timestamp(microseconds: (clock.now.microseconds / 1000 + 1) * 1000)
        try readNext()
    }

    /// One turn of the loop: the receiver's RTCP if that is what came, the next frame if
    /// its time has come, the pipeline's timers, and the end.
    func handle(_ event: RealtimeEvent, at now: Timestamp, socket: UDPSocket, progress: (Int) -> Void) async throws -> RealtimeNext {
        if case .datagram(let datagram, let arrival) = event {
            datagram.bytes.withUnsafeBytes { _ = pipeline.receiveRTCP($0, at: arrival) }
            feedbackHeard = true
            if datagram.source == destination.address { multiplexed = true }
            pool.recycle(datagram.bytes)
            try await flush(on: socket)
        }
        if hasPending, let due = nextCapture, due <= now {
            try sendPending(at: now)
            itemsSent += 1
            progress(itemsSent)
            try readNext()
            try await flush(on: socket, spreadFrom: options.isPaced && source.kind != .audio ? due : nil)
        }
        if let due = pipeline.nextPollTime, due <= now {
            pipeline.poll(at: now)
            try await flush(on: socket)
        }
        guard !hasPending else {
            return .wait(until: earliest(nextCapture, pipeline.nextPollTime))
        }
        // The media is over: answer feedback a little longer if there is any, then say goodbye.
        let end = feedbackHeard ? (lastMediaAt ?? now) + .seconds(options.linger) : now
        // Packets still waiting for the pacer go first.
        if let paced = pipeline.nextPacedSendTime { return .wait(until: pipeline.nextPollTime ?? paced) }
        if now >= end {
            if itemsSent > 0 { pipeline.sendGoodbye(at: now) }
            try await flush(on: socket)
            return .stop
        }
        return .wait(until: min(end, pipeline.nextPollTime ?? end))
    }

    /// Ends the media here, as if the file had: what follows is the end's, feedback answered
    /// a little longer, then goodbye.
    func endMedia() {
        hasPending = false
        picture = nil
        nextCapture = nil
    }

    /// Hands the item read ahead to the pipeline, stamped with its capture time.
    private func sendPending(at now: Timestamp) throws {
        switch source.kind {
        case .pictures: if let picture { noteSeconds(before: picture.timestamp) }
        case .encoded: noteSeconds(before: encoded.timestamp)
        case .audio: break
        }
        let mediaTime: Timestamp
        switch source.kind {
        case .pictures:
            guard var frame = picture else { return }
            picture = nil
            mediaTime = frame.timestamp
            frame.timestamp = start + (mediaTime - .zero)
            try pipeline.sendVideo(frame, at: now)
        case .encoded:
            mediaTime = encoded.timestamp
            encoded.timestamp = start + (mediaTime - .zero)
            try pipeline.sendEncodedVideo(encoded, at: now)
        case .audio:
            mediaTime = audio.timestamp
            audio.timestamp = start + (mediaTime - .zero)
            try pipeline.sendAudio(audio, at: now)
        }
        mediaEnd = mediaTime + source.frameInterval
        lastMediaAt = now
    }

    /// Closes the timeline's seconds that end at or before `mediaTime`: the target now, and
    /// what was sent since the last second closed.
    private func noteSeconds(before mediaTime: Timestamp) {
        while Int64(timeline.count + 1) * 1_000_000 <= mediaTime.microseconds {
            let statistics = pipeline.statistics
            timeline.append(LiveSendSecond(second: timeline.count, targetKbps: pipeline.targetBitrate / 1000,
                                           sentKbps: (statistics.rtpBytesSent - bytesAtSecondStart) * 8 / 1000))
            bytesAtSecondStart = statistics.rtpBytesSent
        }
    }

    /// Reads the next item and when it is due; none after the end or past the duration.
    private func readNext() throws {
        let mediaTime: Timestamp?
        switch source.kind {
        case .pictures:
            picture = try source.nextPicture()
            mediaTime = picture?.timestamp
        case .encoded:
            mediaTime = try source.nextEncoded(into: &encoded) ? encoded.timestamp : nil
        case .audio:
            mediaTime = try source.nextAudio(into: &audio) ? audio.timestamp : nil
        }
        hasPending = mediaTime != nil
        // An item that starts within half an interval of the limit would end past it.
        if let mediaTime, let limit = options.maxDuration,
           (mediaTime + TimeDelta(microseconds: source.frameInterval.microseconds / 2)).seconds > limit {
            hasPending = false
        }
        guard hasPending, let mediaTime else {
            picture = nil
            nextCapture = nil
            return
        }
        nextCapture = options.isPaced ? start + (mediaTime - .zero) : start
    }

    /// Sends what the pipeline wrote: RTP to the destination, RTCP where the receiver
    /// reads it (or nowhere without RTCP). With `spreadFrom`, a frame's packets are spread
    /// over ``LiveSenderOptions/packetSpread`` from that time instead of leaving in one burst.
    private func flush(on socket: UDPSocket, spreadFrom due: Timestamp? = nil) async throws {
        defer { outgoing.removeAll() }
        let count = outgoing.count
        let spread = due == nil ? .zero : options.packetSpread
        for index in 0 ..< count {
            let datagram = outgoing[index]
            if RTPDatagramRoute.isRTCP(datagram) {
                guard options.sendsRTCP, let target = multiplexed ? destination : control else { continue }
                try await socket.send(datagram, to: target)
                rtcpSent += 1
                continue
            }
            if let due, spread > .zero, count > 1, index > 0 {
                try await clock.sleep(until: due + TimeDelta(microseconds: spread.microseconds * Int64(index) / Int64(count - 1)))
            }
            try await socket.send(datagram, to: destination)
        }
    }

    /// What was sent, for the report.
    func report(input: String) -> LiveSendReport {
        let statistics = pipeline.statistics
        let overhead = options.srtpKey?.profile.rtpOverhead ?? 0
        let packets = statistics.video?.packetsSent ?? statistics.audio?.packetsSent ?? 0
        let headerAndPayload = statistics.video?.bytesSent ?? statistics.audio?.bytesSent ?? 0
        let writer = pipeline.video?.packetizer ?? pipeline.audio?.packetizer
        let video = statistics.video
        return LiveSendReport(
            input: input, destination: options.destination.description, codec: options.codec.rawValue,
            payloadType: Int(options.effectivePayloadType), ssrc: ssrc, srtpProfile: options.srtpKey?.profile.rawValue,
            passThrough: source.isPassThrough, frames: video?.framesSent ?? statistics.audio?.framesEncoded ?? 0,
            keyframes: video?.keyFramesEncoded ?? 0, packets: packets, bytes: headerAndPayload + packets * overhead,
            payloadBytes: Int(writer?.statistics.octetsSent ?? 0), rtcpPackets: rtcpSent,
            mediaSeconds: mediaEnd.seconds, wallSeconds: 0, sdpPath: options.sdpPath,
            rtxSSRC: rtxSSRC, rtcpPacketsReceived: statistics.rtcpPacketsReceived, rtcpMultiplexed: multiplexed,
            nacksReceived: video?.nackCount ?? 0, retransmissionsSent: video?.retransmittedPacketsSent ?? 0,
            keyframeRequestsReceived: (video?.pliCount ?? 0) + (video?.firCount ?? 0),
            keyframesOnRequest: video?.keyFramesOnRequest ?? 0,
            finalTargetBitrate: video.map { _ in pipeline.targetBitrate }, roundTripTime: statistics.roundTripTime,
            pipeline: statistics, paced: options.paces && options.isPaced && options.packetSpread <= .zero && source.kind != .audio, timeline: timeline)
    }
}
