public import ConferMedia
import ConferCodecs
import ConferRTP
import ConferCongestion

/// The sending side of a call: frames in, datagrams out, feedback in.
///
/// ```
/// VideoFrame ─► encoder ─► payloader ─► RTP (+ transport-wide seq) ─► history ─► SRTP ─► output
/// AudioFrame ─► Opus ──────────────────► RTP (+ transport-wide seq) ───────────► SRTP ─► output
/// RTCP in: NACK ─► RTX from the history · PLI/FIR ─► keyframe · transport-cc/REMB/RR ─► bandwidth estimate ─► encoder bitrate
/// RTCP out: sender reports with SDES, every ``SendPipelineConfiguration/reportInterval``
/// ```
///
/// Everything is synchronous and takes the time it happens at, so the same object runs in
/// a virtual-time simulation (``Simulation``) and behind a socket in real time: call
/// ``sendVideo(_:at:)`` and ``sendAudio(_:at:)`` as media is captured,
/// ``receiveRTCP(_:at:)`` for each control datagram from the receiver, and ``poll(at:)`` at
/// ``nextPollTime`` or later. Every datagram goes to the `output` closure given at
/// creation, in a buffer valid only during that call; RTP and RTCP share the transport
/// (RFC 5761), the receiver tells them apart by packet type.
///
/// The bandwidth estimate starts at the start bitrate (300 kbit/s unless configured) and
/// the first frames are preceded by probe bursts — padding-only packets on the RTX stream,
/// sent at the cluster's rate from ``poll(at:)`` — so it reaches the path's capacity in a
/// second or two. The encoder gets the estimate less the audio bitrate. There is no
/// pacer: a frame's packets leave together (libwebrtc without its pacer).
///
/// Not `Sendable`: one owner drives it (an actor or a task), as with the codecs inside.
public final class SendPipeline {
    /// The configuration in use.
    public let configuration: SendPipelineConfiguration
    let transport: SendPipelineTransport
    package let video: SendPipelineVideoStream?
    package let audio: SendPipelineAudioStream?
    /// The next time a sender report is due.
    var nextReport: Timestamp?
    /// The round-trip time from the last receiver report about one of our streams.
    var reportRoundTripTime: TimeDelta?
    /// The far end's cumulative loss per stream of ours, from its latest receiver report block.
    var reportedLost: [UInt32: Int] = [:]
    /// The last receiver reference time (RFC 3611 RRTR) each receiver sent, and when it
    /// came: answered with a DLRR in the next sender report, so receive-only endpoints learn
    /// the round-trip time. At most ``maximumXRReceivers`` receivers are remembered.
    var receiverReferenceTimes: [UInt32: (time: CompactNTPTime, arrival: Timestamp)] = [:]
    static let maximumXRReceivers = 16
    /// The probe burst in progress.
    var probe = SendPipelineProbe()
    /// Reads RTCP from the receiver, which protects it with the same key.
    let controlInput: SendPipelineControlInput

    /// A pipeline sending what `configuration` describes to `output`.
    ///
    /// - Throws: ``SendPipelineError`` for a configuration it cannot send, or the codec's
    ///   or SRTP's error when one cannot be created.
    public init(configuration: SendPipelineConfiguration, output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        guard configuration.video != nil || configuration.audio != nil else {
            throw SendPipelineError(.invalidConfiguration, "a send pipeline needs a video or an audio stream")
        }
        if let video = configuration.video, let audio = configuration.audio {
            guard Set([video.ssrc, video.rtxSSRC, audio.ssrc]).count == 3,
                  Set([video.payloadType, video.rtxPayloadType, audio.payloadType]).count == 3 else {
                throw SendPipelineError(.invalidConfiguration, "every stream needs its own SSRC and payload type")
            }
        }
        self.configuration = configuration
        var random = SeededRandom(seed: configuration.seed)
        let audioBitrate = configuration.audio?.settings.bitrate ?? 0
        let maximum = (configuration.video?.maximumBitrate ?? 0) + audioBitrate
        let minimum = (configuration.video?.minimumBitrate ?? 0) + audioBitrate
        let start = (configuration.video?.effectiveStartBitrate ?? 0) + audioBitrate
        // Probes are padding on the RTX stream, measured by transport-cc.
        let probing = configuration.probesBandwidth && configuration.adaptsBitrate && configuration.video != nil
            && configuration.transportSequenceNumberID != nil
        let estimator = SendSideBandwidthEstimator(configuration: .init(
            startBitrate: .bitsPerSecond(Int64(start)), minimumBitrate: .bitsPerSecond(Int64(minimum)),
            maximumBitrate: .bitsPerSecond(Int64(maximum)), probing: probing))
        let transport = try SendPipelineTransport(
            configuration: configuration, estimator: estimator,
            firstTransportSequenceNumber: UInt16(truncatingIfNeeded: random.next()), output: output)
        self.transport = transport
        video = try configuration.video.map {
            try SendPipelineVideoStream(configuration: $0, pipeline: configuration, transport: transport, random: &random)
        }
        audio = try configuration.audio.map {
            try SendPipelineAudioStream(configuration: $0, pipeline: configuration, transport: transport, random: &random)
        }
        controlInput = try SendPipelineControlInput(srtpKey: configuration.srtpKey)
    }

    /// Encodes and sends `frame`, whose timestamp is its capture time, at `now`.
    ///
    /// - Throws: ``SendPipelineError`` when there is no video stream or the frame's size is
    ///   not the stream's; the encoder's error if it fails.
    public func sendVideo(_ frame: VideoFrame, at now: Timestamp) throws {
        guard let video else { throw SendPipelineError(.wrongInput, "this pipeline sends no video") }
        startReports(at: now)
        sendProbes(at: now)
        try video.send(frame, at: now, transport: transport)
    }

    /// Sends `frame`, already encoded in the video stream's codec (its timestamp is its
    /// capture time), as it is, at `now`: packetized, kept for retransmission, counted.
    ///
    /// - Throws: ``SendPipelineError`` when there is no video stream or the frame is of
    ///   another codec; the payloader's error when the frame cannot be packetized.
    public func sendEncodedVideo(_ frame: EncodedFrame, at now: Timestamp) throws {
        guard let video else { throw SendPipelineError(.wrongInput, "this pipeline sends no video") }
        startReports(at: now)
        sendProbes(at: now)
        try video.send(encoded: frame, at: now, transport: transport)
    }

    /// Takes `frame`'s samples (any number; its timestamp is its first sample's capture
    /// time) and sends a packet for each Opus frame they complete, at `now`.
    public func sendAudio(_ frame: AudioFrame, at now: Timestamp) throws {
        guard let audio else { throw SendPipelineError(.wrongInput, "this pipeline sends no audio") }
        startReports(at: now)
        try audio.send(frame, at: now, transport: transport)
    }

    /// Sends what is due at `now`: probe packets, and a sender report when its interval has passed.
    public func poll(at now: Timestamp) {
        transport.poll(at: now)
        if nextReport != nil { sendProbes(at: now) }
        guard let due = nextReport, now >= due else { return }
        sendReport(at: now)
        nextReport = max(due + configuration.reportInterval, now)
    }

    /// The next time ``poll(at:)`` has something to do, if any.
    public var nextPollTime: Timestamp? {
        // Asked on every turn of a caller's loop: no array, no allocation.
        var next = nextReport
        if let probeTime = probe.nextSendTime { next = min(next ?? probeTime, probeTime) }
        if let pacedTime = transport.nextPacedSendTime { next = min(next ?? pacedTime, pacedTime) }
        return next
    }

    /// When the next packet waiting for the pacer may leave; nil when none waits. A caller
    /// that stops sending polls until this is nil, so the last frame is not cut short.
    public var nextPacedSendTime: Timestamp? { transport.nextPacedSendTime }

    /// The RTP timestamp a video frame captured at `time` is sent with (for matching what a
    /// receiver rendered to what was captured), or nil without video.
    public func videoRTPTimestamp(at time: Timestamp) -> UInt32? { video?.packetizer.rtpTimestamp(at: time) }

    /// The bitrate the congestion controller allows now, in bits per second (audio included).
    public var targetBitrate: Int { Int(transport.estimator.targetBitrate.bitsPerSecond) }

    /// The round-trip time measured last: from receiver reports when fresh, else from transport-cc.
    public var roundTripTime: TimeDelta? {
        reportRoundTripTime ?? transport.estimator.snapshot.roundTripTime
    }

    /// Counters and state now.
    public var statistics: SendPipelineStatistics {
        var videoStatistics = video?.currentStatistics
        if let history = video?.historyStatistics {
            videoStatistics?.retransmittedPacketsSent = history.retransmissionsSent
            videoStatistics?.retransmittedBytesSent = history.retransmittedBytesSent
            videoStatistics?.retransmissionsOverBudget = history.requestsOverBudget
        }
        videoStatistics?.packetsPaced = transport.packetsPaced
        videoStatistics?.pacerOverflows = transport.pacerOverflows
        return SendPipelineStatistics(
            video: videoStatistics, audio: audio?.statistics, rtpPacketsSent: transport.rtpPacketsSent,
            rtpBytesSent: transport.rtpBytesSent, rtcpPacketsSent: transport.rtcpPacketsSent,
            rtcpPacketsReceived: controlInput.packetsReceived, rtcpPacketsMalformed: controlInput.packetsMalformed,
            sendFailures: transport.sendFailures, roundTripTime: roundTripTime?.seconds,
            bandwidth: transport.estimator.snapshot, packetsLostReportedByReceiver: reportedLost.values.reduce(0, +))
    }

    /// Sends the probe packets due at `now`, taking the next cluster from the congestion
    /// controller when none is in progress (its first call starts start-up probing).
    private func sendProbes(at now: Timestamp) {
        guard let video else { return }
        while true {
            if probe.cluster == nil {
                guard let cluster = transport.estimator.nextProbe(at: now) else { return }
                probe.start(cluster, at: now)
                transport.activeProbeClusterID = cluster.id
            }
            guard let cluster = probe.cluster, let due = probe.nextSendTime, due <= now else { return }
            let size = video.sendPadding(size: probe.nextPacketSize(maximum: video.maximumPaddingPacketSize),
                                         probeClusterID: cluster.id, at: now, transport: transport)
            probe.sent(size, at: now)
            transport.activeProbeClusterID = probe.cluster?.id
        }
    }

    /// The first media sent starts the report schedule: the first report goes out at once,
    /// so the receiver can map RTP time to NTP time early.
    private func startReports(at now: Timestamp) {
        guard nextReport == nil else { return }
        nextReport = now
    }

    /// Gives the encoder the bandwidth the congestion controller allows, less the audio.
    func applyBandwidthEstimate() {
        guard configuration.adaptsBitrate, let video else { return }
        let audioBitrate = configuration.audio?.settings.bitrate ?? 0
        video.setTargetBitrate(Int(transport.estimator.targetBitrate.bitsPerSecond) - audioBitrate)
    }
}
