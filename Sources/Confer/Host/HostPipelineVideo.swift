import ConferMedia
import ConferCodecs
import ConferRTP
import ConferJitter
import ConferMixer
import ConferSRTP

/// The host's composite video: the compositing step (``HostComposer``), and one encoder, one payloader, one RTP
/// writer (one SSRC, one RTX SSRC) and one packet history for everyone, with a second,
/// smaller encode (``HostPipelineSmallEncode``) while some participant's link needs it.
///
/// Each composite frame is composed, encoded and packetized once; every packet is written
/// once, in plaintext, into ``packet`` and stored in the history, then handed to each
/// participant's ``HostPipelineDownlink``, which stamps its own transport-wide sequence
/// number and protects it with its own key. The plaintext packets are therefore identical
/// for every participant, and so are their sequence numbers and timestamps.
final class HostPipelineVideo {
    let configuration: HostPipelineConfiguration
    var composer: HostComposer
    /// Encodes the canvas at the size its bitrate affords.
    private let encoder: ScalingVideoEncoder
    private(set) var packetizer: RTPPacketizer
    /// Writes padding-only probe packets on the RTX stream.
    private var rtxWriter: RTPPacketizer
    private(set) var history: RTPPacketHistory
    private var encoded: EncodedFrame
    /// Told every composite frame as encoded (for a recording of what everyone receives).
    var compositeHandler: ((EncodedFrame) -> Void)?
    /// Where each composite packet is written once, before any participant's transport copies it.
    private let packet: UnsafeMutableRawBufferPointer
    /// The payload size that leaves room for the header, the RTX sequence number and any SRTP tag.
    private let maximumPayloadSize: Int
    /// The RTP timestamp of the last frame sent, for padding packets.
    private var lastRTPTimestamp: UInt32 = 0
    var throttle: HostPipelineKeyframeThrottle
    /// The bitrate the encoder was last set to.
    private(set) var encoderBitrate: Int
    private var sendRate = HostPipelineRateMeter()
    /// What each temporal layer cost over the last second.
    private(set) var layerRates = HostPipelineLayerRates()
    /// The second, smaller encode; nil until a participant first needs it.
    private(set) var small: HostPipelineSmallEncode?

    /// Where the picture id sits in a composite packet's payload (VP8's descriptor starts X,
    /// then I/L/T/K, then the 15-bit id), for the forwarders to shift while some participant
    /// may get less than every frame of the first encode; nil for H.264, which has none.
    private var pictureIDOffset: Int? {
        guard configuration.effectiveTemporalLayers > 1 || configuration.simulcast else { return nil }
        switch configuration.codec {
        case .vp8: return 2
        case .vp9: return 1     // I/P/L/F/B/E/V/Z, then M and the 15-bit id
        default: return nil
        }
    }

    /// The time of the host's latest entry point (for pictures that arrive inside a receive
    /// pipeline's call, which does not pass the time on).
    var now = Timestamp.zero

    private(set) var framesComposed = 0
    private(set) var framesEncoded = 0
    private(set) var framesDroppedByEncoder = 0
    private(set) var framesSent = 0
    private(set) var keyFramesEncoded = 0
    private(set) var bytesEncoded = 0
    private(set) var bitrateChanges = 0

    init(configuration: HostPipelineConfiguration, random: inout SeededRandom) throws {
        self.configuration = configuration
        guard configuration.codec.isVideo else {
            throw HostPipelineError(.invalidConfiguration, "opus is an audio codec; the composite needs vp8, vp9 or h264")
        }
        guard configuration.width >= 16, configuration.height >= 16, configuration.width % 2 == 0,
              configuration.height % 2 == 0 else {
            throw HostPipelineError(.invalidConfiguration, "a canvas of \(configuration.width)x\(configuration.height): sizes must be even and at least 16")
        }
        guard configuration.frameRate > 0, configuration.frameRate <= 240 else {
            throw HostPipelineError(.invalidConfiguration, "a frame rate of \(configuration.frameRate) is outside 0…240")
        }
        guard configuration.minimumBitrate > 0, configuration.maximumBitrate >= configuration.minimumBitrate else {
            throw HostPipelineError(.invalidConfiguration, "video bitrates must satisfy 0 < minimum ≤ maximum")
        }
        composer = HostComposer(compositor: VideoCompositor(
            configuration: VideoCompositor.Configuration(
                width: configuration.width, height: configuration.height, frameRate: configuration.frameRate,
                placeholderTimeout: configuration.placeholderTimeout),
            layoutKind: configuration.layout))
        encoderBitrate = configuration.effectiveStartBitrate
        let speed = configuration.codec == .vp8 ? -abs(configuration.speed) : configuration.speed
        encoder = try ScalingVideoEncoder(
            codec: configuration.codec,
            settings: VideoEncoderSettings(
                width: configuration.width, height: configuration.height, frameRate: configuration.frameRate,
                bitrate: encoderBitrate, threads: configuration.threads, speed: speed, errorResilient: true,
                keyframeInterval: 0, maximumTemporalLayers: configuration.effectiveTemporalLayers),
            allowsFrameDropping: configuration.allowsFrameDropping, adaptsResolution: configuration.adaptsResolution)
        packetizer = try RTPPacketizer(
            stream: configuration.codec, ssrc: configuration.videoSSRC, payloadType: configuration.videoPayloadType,
            random: &random, transportSequenceNumberID: configuration.transportSequenceNumberID, absoluteSendTimeID: nil,
            writesTemporalLayers: configuration.effectiveTemporalLayers > 1, vp9Layers: configuration.vp9LayerSignalling,
            error: { HostPipelineError(.invalidConfiguration, $0) })
        rtxWriter = try RTPPacketizer(
            rtxOf: configuration.codec, ssrc: configuration.rtxSSRC, payloadType: configuration.rtxPayloadType,
            transportSequenceNumberID: configuration.transportSequenceNumberID, absoluteSendTimeID: nil,
            error: { HostPipelineError(.invalidConfiguration, $0) })
        // Participants join later with keys of any profile: leave room for the largest tag.
        let tag = SRTPProfile.allCases.map(\.rtpOverhead).max() ?? 0
        let maximumRTPSize = configuration.maximumPacketSize - tag
        guard maximumRTPSize >= 200 else {
            throw HostPipelineError(.invalidConfiguration, "a maximum packet size of \(configuration.maximumPacketSize) bytes leaves too little room for media")
        }
        history = RTPPacketHistory(
            configuration: .init(capacity: configuration.historyCapacity, maxAge: .seconds(1), maxPacketSize: maximumRTPSize),
            rtxSSRC: configuration.rtxSSRC, rtxPayloadType: configuration.rtxPayloadType,
            firstRTXSequenceNumber: UInt16(truncatingIfNeeded: random.next()))
        maximumPayloadSize = maximumRTPSize - packetizer.headerSize - RTXPacket.originalSequenceNumberSize
        packet = .allocate(byteCount: maximumRTPSize, alignment: 16)
        encoded = EncodedFrame(codec: configuration.codec)
        throttle = HostPipelineKeyframeThrottle(interval: configuration.keyframeRequestInterval)
    }

    deinit { packet.deallocate() }

    /// The size the composite is encoded at now.
    var encodedSize: (width: Int, height: Int) { encoder.encodedSize }

    /// How many times the composite's encoded size changed.
    var sizeChanges: Int { encoder.sizeChanges }

    /// Where the transport-wide sequence number sits in every composite and RTX packet.
    var transportSequenceOffset: Int? { packetizer.transportSequenceOffset }

    /// Composes composite frame `frame` (due at `frameTime`) from the pictures received since
    /// the last one, encodes it once (and again, smaller, while someone gets the small
    /// encode) and sends each packet to every one of `participants` whose forwarder takes
    /// that encode, at `now`.
    func sendFrame(_ frame: Int, at frameTime: Timestamp, now: Timestamp, to participants: [HostPipelineParticipant]) throws {
        let canvas = try composer.compose(frame: frame, at: frameTime)
        framesComposed += 1
        if throttle.takeKeyframe(at: now) { encoder.requestKeyframe() }
        let mainEncoded = try encoder.encode(canvas, at: now, into: &encoded)
        if !mainEncoded { framesDroppedByEncoder += 1 }
        var smallEncoded = false
        if let small, participants.contains(where: { $0.downlink.layers.getsStream(Self.smallStream) }) {
            smallEncoded = try small.encode(canvas, at: now)
        } else {
            small?.pause()
        }
        guard mainEncoded || smallEncoded else { return }
        let rtpTimestamp = packetizer.rtpTimestamp(at: frameTime)
        lastRTPTimestamp = rtpTimestamp
        for participant in participants {
            let layers = participant.downlink.layers
            let targetHasKeyframe = layers.targetStream == Self.smallStream
                ? smallEncoded && small?.encoded.isKeyframe == true : mainEncoded && encoded.isKeyframe
            participant.downlink.layers.beginFrameTime(targetHasKeyframe: targetHasKeyframe)
        }
        if mainEncoded { try sendMainFrame(frameTime: frameTime, rtpTimestamp: rtpTimestamp, now: now, to: participants) }
        if smallEncoded, let small { try sendSmallFrame(small, frameTime: frameTime, rtpTimestamp: rtpTimestamp, now: now, to: participants) }
    }

    /// The first encode's frame just encoded, to everyone whose forwarder takes it.
    private func sendMainFrame(frameTime: Timestamp, rtpTimestamp: UInt32, now: Timestamp, to participants: [HostPipelineParticipant]) throws {
        framesEncoded += 1
        bytesEncoded += encoded.data.count
        if encoded.isKeyframe {
            keyFramesEncoded += 1
            throttle.keyframeEncoded(at: now)
        }
        if let compositeHandler {
            encoded.timestamp = frameTime
            compositeHandler(encoded)
        }
        let layer = encoded.vp8?.temporalLayer ?? encoded.vp9?.temporalLayer ?? 0
        let isSwitchingPoint = encoded.vp8?.layerSync ?? encoded.vp9?.switchingUpPoint ?? false
        layerRates.record(layer: layer, bytes: encoded.data.count, at: now)
        for participant in participants {
            participant.downlink.layers.beginFrame(layer: layer, isSwitchingPoint: isSwitchingPoint, isKeyframe: encoded.isKeyframe)
        }
        try send(encoded, rtpTimestamp: rtpTimestamp, captureTime: frameTime, packetizer: &packetizer, history: &history,
                 now: now, to: participants)
        framesSent += 1
        sendRate.record(at: now)
    }

    /// The small encode's frame just encoded, to everyone whose forwarder takes it.
    private func sendSmallFrame(_ small: HostPipelineSmallEncode, frameTime: Timestamp, rtpTimestamp: UInt32, now: Timestamp,
                                to participants: [HostPipelineParticipant]) throws {
        for participant in participants {
            participant.downlink.layers.beginFrame(stream: Self.smallStream, layer: 0, isSwitchingPoint: false,
                                                   isKeyframe: small.encoded.isKeyframe)
        }
        try send(small.encoded, rtpTimestamp: rtpTimestamp, captureTime: frameTime, packetizer: &small.packetizer,
                 history: &small.history, now: now, to: participants)
    }

    /// Packetizes `frame` once into ``packet``, stores each packet in `history` and hands it
    /// to every participant (whose forwarder decides whether it goes).
    private func send(_ frame: EncodedFrame, rtpTimestamp: UInt32, captureTime: Timestamp, packetizer: inout RTPPacketizer,
                      history: inout RTPPacketHistory, now: Timestamp, to participants: [HostPipelineParticipant]) throws {
        let buffer = UnsafeMutableRawBufferPointer(packet)
        let transportOffset = packetizer.transportSequenceOffset
        // Read here: the packetizer is being mutated while it calls back.
        let pictureIDOffset = pictureIDOffset.map { packetizer.headerSize + $0 }
        let headerSize = packetizer.headerSize
        do {
            try packetizer.packetize(frame, rtpTimestamp: rtpTimestamp, captureTime: captureTime, maxPayloadSize: maximumPayloadSize,
                                     into: buffer) { length in
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])
                if let view = try? RTPPacketView(bytes) { history.store(view, sentAt: now) }
                for participant in participants {
                    participant.downlink.sendVideo(bytes, headerSize: headerSize, transportSequenceOffset: transportOffset,
                                                   pictureIDOffset: pictureIDOffset, at: now)
                }
            }
        } catch {
            throw error.payloadError
        }
    }

    /// The stream number of the small encode in the participants' forwarders (the first encode is 0).
    static let smallStream: UInt8 = 1

    /// Answers `participant`'s NACK: RTX from the history of the encode each packet came
    /// from, to that participant only, each packet at most once per its round-trip time.
    /// The NACK names the numbers the participant's packets carried (see ``LayerForwarder``);
    /// the histories know the encodes' own.
    func retransmit(_ sequenceNumbers: [UInt16], to downlink: HostPipelineDownlink, at now: Timestamp) {
        downlink.nacksReceived += 1
        // The participant's numbers are unique to it across both encodes; the encodes' own are not.
        downlink.retransmissions.filter(sequenceNumbers, rtt: downlink.roundTripTime ?? .milliseconds(100), at: now)
        let transportOffset = packetizer.transportSequenceOffset
        // The per-participant record throttled; the shared history must not (rtt zero).
        var budget = downlink.retransmissionLimiter.budget(at: now, bitrate: Int(clamping: downlink.transport.estimator.targetBitrate.bitsPerSecond))
        for forwarded in downlink.retransmissions.allowed {
            guard let (stream, original, shift) = downlink.layers.originalAndShift(ofForwarded: forwarded) else { continue }
            // A packet of the encode it left is useless to it (the new one started with a
            // keyframe) and, on the link that made it leave, costly.
            guard stream == downlink.layers.currentStream else {
                downlink.retransmissionsOfFormerEncode += 1
                continue
            }
            func resend(_ packet: UnsafeRawBufferPointer) {
                budget -= packet.count
                downlink.retransmissionLimiter.record(packet.count, at: now)
                // The RTX payload starts with the original sequence number: the participant's.
                guard let view = try? RTPPacketView(packet) else { return }
                downlink.sendRetransmission(packet, payloadOffset: view.headerSize, forwarded: forwarded, pictureIDShift: shift,
                                            pictureIDOffset: pictureIDOffset, transportSequenceOffset: transportOffset, at: now)
            }
            let refusedBefore = history.statistics.requestsOverBudget + (small?.history.statistics.requestsOverBudget ?? 0)
            if stream == Self.smallStream, let small {
                // Retransmissions of both encodes go out on the one RTX stream: one counter.
                small.history.nextRTXSequenceNumber = history.nextRTXSequenceNumber
                _ = small.history.retransmit(CollectionOfOne(original), now: now, rtt: .zero, budget: budget, resend)
                history.nextRTXSequenceNumber = small.history.nextRTXSequenceNumber
            } else {
                _ = history.retransmit(CollectionOfOne(original), now: now, rtt: .zero, budget: budget, resend)
            }
            if history.statistics.requestsOverBudget + (small?.history.statistics.requestsOverBudget ?? 0) > refusedBefore {
                downlink.retransmissionsOverBudget += 1
                downlink.retransmissions.forget(forwarded)
            }
        }
    }

    /// Sends a padding-only packet of about `size` bytes on the RTX stream to `downlink`
    /// for probe cluster `probeClusterID`; returns the bytes sent.
    func sendPadding(size: Int, probeClusterID: Int, to downlink: HostPipelineDownlink, at now: Timestamp) -> Int {
        let padding = min(max(size - rtxWriter.headerSize, 1), 255)
        let length = rtxWriter.writePadding(padding, sequenceNumber: history.nextRTXSequenceNumber,
                                            rtpTimestamp: lastRTPTimestamp, into: downlink.transport.buffer)
        guard length > 0 else { return 0 }
        history.nextRTXSequenceNumber &+= 1
        return downlink.sendPadding(length: length, transportSequenceOffset: rtxWriter.transportSequenceOffset,
                                    probeClusterID: probeClusterID, at: now)
    }

    /// The largest padding-only packet: a header and 255 bytes of padding.
    var maximumPaddingPacketSize: Int { rtxWriter.headerSize + 255 }

    /// Sets the encoder's target to `bitrate` (clamped to the bounds) when it differs enough
    /// from the current one to matter.
    func setTargetBitrate(_ bitrate: Int, baseLayerShare: Double? = nil) {
        let clamped = min(max(bitrate, configuration.minimumBitrate), configuration.maximumBitrate)
        let shareChanged = abs((baseLayerShare ?? 0) - (encoderBaseLayerShare ?? 0)) >= 0.02
        guard abs(clamped - encoderBitrate) * 50 >= encoderBitrate || shareChanged else { return }   // 2 %
        guard (try? encoder.setBitrate(clamped, baseLayerShare: baseLayerShare)) != nil else { return }
        encoderBitrate = clamped
        encoderBaseLayerShare = baseLayerShare
        bitrateChanges += 1
    }

    /// Sets the small encode's bitrate (clamped to the bounds), creating it the first time;
    /// nil: nobody needs it (it pauses once nobody gets it).
    func setSmallBitrate(_ bitrate: Int?) {
        guard let bitrate else { return }
        let clamped = min(max(bitrate, configuration.minimumBitrate), configuration.maximumBitrate)
        if let small {
            small.setBitrate(clamped)
        } else {
            // An encoder that cannot be made leaves those participants on the first encode.
            small = try? HostPipelineSmallEncode(configuration: configuration, bitrate: clamped, packetizer: packetizer, history: history)
        }
    }

    /// Asks for a keyframe of encode `stream` (0: the first, ``smallStream``: the small one);
    /// for a receiver only now reachable, `promptly`, by the next frame.
    func requestKeyframe(of stream: UInt8, promptly: Bool = false) {
        if stream == Self.smallStream, let small {
            if promptly { small.throttle.requestForNewReceiver() } else { small.throttle.request() }
        } else {
            if promptly { throttle.requestForNewReceiver() } else { throttle.request() }
        }
    }

    /// Encodes `layers` temporal layers from the next frame on (one while every participant
    /// gets them all: a layered stream costs more bits for the same picture).
    func setTemporalLayers(_ layers: Int) {
        guard layers != encoder.temporalLayers else { return }
        guard (try? encoder.setTemporalLayers(layers)) != nil else { return }
        temporalLayerChanges += 1
        // What the layers cost is measured from here: frames of the other pattern say nothing of it.
        layerRates = HostPipelineLayerRates()
    }

    /// The temporal layers encoded now.
    var temporalLayers: Int { encoder.temporalLayers }

    /// How many times the composite's temporal layers were turned on or off.
    private(set) var temporalLayerChanges = 0

    /// Caps the composite's keyframes at about `bits` (nil: the encoder's own cap).
    func setKeyframeSizeLimit(_ bits: Int?) {
        guard bits != encoder.keyframeSizeLimit else { return }
        try? encoder.setKeyframeSizeLimit(bits)
    }

    /// The base layer's share the encoder was last set to (nil: its default).
    private(set) var encoderBaseLayerShare: Double?

    /// Composite frames sent per second over the last second, at `now`.
    func sendFrameRate(at now: Timestamp) -> Double { sendRate.rate(at: now) }
}
