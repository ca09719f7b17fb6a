import ConferMedia
import ConferCodecs
package import ConferRTP
import ConferJitter

/// The video half of a ``SendPipeline``: encoder, payloader, RTP writer, and the packet
/// history that answers NACKs with RTX.
package final class SendPipelineVideoStream {
    let configuration: SendPipelineConfiguration.Video
    /// Nil when the app sends frames already encoded.
    private let encoder: ScalingVideoEncoder?
    package private(set) var packetizer: RTPPacketizer
    /// Writes padding-only packets on the RTX stream (probes).
    private var rtxWriter: RTPPacketizer
    private var history: RTPPacketHistory
    /// Retransmissions within the target bitrate over half a second.
    private var retransmissionLimiter = RetransmissionRateLimiter()
    /// The RTP timestamp of the last frame sent, for padding packets.
    private var lastRTPTimestamp: UInt32 = 0
    private var encoded: EncodedFrame
    /// The payload size that leaves room for the header, the RTX sequence number and SRTP.
    private let maxPayloadSize: Int

    /// When the last keyframe was encoded.
    private var lastKeyframeAt: Timestamp?
    /// A keyframe was asked for and not yet encoded.
    private var keyframePending = false
    /// The sequence number of the last FIR acted on (RFC 5104 §4.3.1.2: repeats are ignored).
    private var lastFIRSequenceNumber: UInt8?
    /// The bitrate the encoder was last set to.
    private(set) var encoderBitrate: Int

    private(set) var statistics = VideoSendStatistics()

    init(configuration: SendPipelineConfiguration.Video, pipeline: SendPipelineConfiguration, transport: SendPipelineTransport,
         random: inout SeededRandom) throws {
        self.configuration = configuration
        guard !configuration.encodesFrames || configuration.width >= 16 && configuration.height >= 16
            && configuration.width % 2 == 0 && configuration.height % 2 == 0 else {
            throw SendPipelineError(.invalidConfiguration, "video of \(configuration.width)x\(configuration.height): sizes must be even and at least 16")
        }
        guard configuration.frameRate > 0, configuration.frameRate <= 240 else {
            throw SendPipelineError(.invalidConfiguration, "a frame rate of \(configuration.frameRate) is outside 0…240")
        }
        guard configuration.minimumBitrate > 0, configuration.maximumBitrate >= configuration.minimumBitrate else {
            throw SendPipelineError(.invalidConfiguration, "video bitrates must satisfy 0 < minimum ≤ maximum")
        }
        guard configuration.rtxSSRC != configuration.ssrc, configuration.rtxPayloadType != configuration.payloadType else {
            throw SendPipelineError(.invalidConfiguration, "the RTX stream needs its own SSRC and payload type")
        }
        guard configuration.codec.isVideo else {
            throw SendPipelineError(.invalidConfiguration, "opus is an audio codec; the video stream needs vp8, vp9 or h264")
        }
        let settings = VideoEncoderSettings(
            width: configuration.width, height: configuration.height, frameRate: configuration.frameRate,
            bitrate: configuration.effectiveStartBitrate, threads: configuration.threads, speed: configuration.speed,
            errorResilient: true, keyframeInterval: configuration.keyframeInterval)
        encoder = configuration.encodesFrames
            // A stream that may not drop frames keeps every one at any bitrate.
            ? try ScalingVideoEncoder(codec: configuration.codec, settings: settings, allowsFrameDropping: configuration.allowsFrameDropping,
                                      adaptsResolution: configuration.adaptsResolution,
                                      reducesFrameRate: configuration.allowsFrameDropping)
            : nil
        encoderBitrate = configuration.effectiveStartBitrate
        packetizer = try RTPPacketizer(
            stream: configuration.codec, ssrc: configuration.ssrc, payloadType: configuration.payloadType, random: &random,
            transportSequenceNumberID: pipeline.transportSequenceNumberID, absoluteSendTimeID: pipeline.absoluteSendTimeID,
            error: { SendPipelineError(.invalidConfiguration, $0) })
        rtxWriter = try RTPPacketizer(
            rtxOf: configuration.codec, ssrc: configuration.rtxSSRC, payloadType: configuration.rtxPayloadType,
            transportSequenceNumberID: pipeline.transportSequenceNumberID, absoluteSendTimeID: pipeline.absoluteSendTimeID,
            error: { SendPipelineError(.invalidConfiguration, $0) })
        history = RTPPacketHistory(
            configuration: .init(capacity: configuration.historyCapacity, maxAge: .seconds(1), maxPacketSize: transport.maximumRTPSize),
            rtxSSRC: configuration.rtxSSRC, rtxPayloadType: configuration.rtxPayloadType,
            firstRTXSequenceNumber: UInt16(truncatingIfNeeded: random.next()))
        maxPayloadSize = transport.maximumRTPSize - packetizer.headerSize - RTXPacket.originalSequenceNumberSize
        encoded = EncodedFrame(codec: configuration.codec)
    }

    /// Encodes `frame` (its timestamp is the capture time) and sends its packets.
    func send(_ frame: VideoFrame, at now: Timestamp, transport: SendPipelineTransport) throws {
        guard let encoder else { throw SendPipelineError(.wrongInput, "this video stream is sent encoded: use sendEncodedVideo") }
        guard frame.width == configuration.width, frame.height == configuration.height else {
            throw SendPipelineError(.wrongInput, "a \(frame.width)x\(frame.height) frame reached a \(configuration.width)x\(configuration.height) video stream")
        }
        statistics.framesCaptured += 1
        var requested = false
        if keyframePending, lastKeyframeAt.map({ now - $0 >= configuration.minimumKeyframeInterval }) ?? true {
            encoder.requestKeyframe()
            keyframePending = false
            requested = true
        }
        let skipped = encoder.framesSkippedForFrameRate
        guard try encoder.encode(frame, at: now, into: &encoded) else {
            if encoder.framesSkippedForFrameRate == skipped {
                statistics.framesDroppedByEncoder += 1
            } else if requested {
                // Left out for the frame rate: the request stands for the next frame encoded.
                keyframePending = true
            }
            return
        }
        statistics.framesEncoded += 1
        statistics.bytesEncoded += encoded.data.count
        if encoded.isKeyframe {
            statistics.keyFramesEncoded += 1
            if requested { statistics.keyFramesOnRequest += 1 }
            lastKeyframeAt = now
            keyframePending = false
        }
        try packetize(encoded, captureTime: frame.timestamp, at: now, transport: transport)
    }

    /// Sends `frame`, already encoded (its timestamp is the capture time), as it is.
    func send(encoded frame: EncodedFrame, at now: Timestamp, transport: SendPipelineTransport) throws {
        guard frame.codec == configuration.codec else {
            throw SendPipelineError(.wrongInput, "a \(frame.codec) frame reached a \(configuration.codec) video stream")
        }
        statistics.framesCaptured += 1
        statistics.framesEncoded += 1
        statistics.bytesEncoded += frame.data.count
        if frame.isKeyframe {
            statistics.keyFramesEncoded += 1
            lastKeyframeAt = now
        }
        try packetize(frame, captureTime: frame.timestamp, at: now, transport: transport)
    }

    /// Splits `frame` into packets, keeps each in the history and sends it.
    private func packetize(_ frame: EncodedFrame, captureTime: Timestamp, at now: Timestamp,
                           transport: SendPipelineTransport) throws {
        let rtpTimestamp = packetizer.rtpTimestamp(at: captureTime)
        lastRTPTimestamp = rtpTimestamp
        // Stored before SRTP protects it in place: RTX is protected on its own, and its
        // transport-wide sequence number is stamped afresh when it goes out.
        let sent = try transport.send(frame, with: &packetizer, rtpTimestamp: rtpTimestamp, captureTime: captureTime,
                                      maxPayloadSize: maxPayloadSize, at: now, paced: true) { packet in
            if let view = try? RTPPacketView(packet) { history.store(view, sentAt: now) }
        }
        statistics.packetsSent += sent.packets
        statistics.bytesSent += sent.bytes
        statistics.framesSent += 1
    }

    /// Answers a NACK: RTX packets for those of `sequenceNumbers` still in the history,
    /// within what ``RetransmissionRateLimiter`` allows at `bitrate` (the target).
    func retransmit(_ sequenceNumbers: [UInt16], rtt: TimeDelta, bitrate: Int, at now: Timestamp,
                    transport: SendPipelineTransport) {
        statistics.nackCount += 1
        let transportOffset = packetizer.transportSequenceOffset
        let sendTimeOffset = packetizer.absoluteSendTimeOffset
        let budget = retransmissionLimiter.budget(at: now, bitrate: bitrate)
        history.retransmit(sequenceNumbers, now: now, rtt: rtt, budget: budget) { packet in
            // Paced while the transport paces, ahead of the video waiting.
            transport.sendRTP(copying: packet, transportSequenceOffset: transportOffset,
                              absoluteSendTimeOffset: sendTimeOffset, at: now, paced: transport.isPacing, retransmission: true)
            retransmissionLimiter.record(packet.count, at: now)
            statistics.retransmittedPacketsSent += 1
            statistics.retransmittedBytesSent += packet.count
        }
    }

    /// Sends a padding-only packet of about `size` bytes on the RTX stream for probe
    /// cluster `probeClusterID`; returns the bytes sent.
    func sendPadding(size: Int, probeClusterID: Int, at now: Timestamp, transport: SendPipelineTransport) -> Int {
        let padding = min(max(size - rtxWriter.headerSize, 1), 255)
        let length = rtxWriter.writePadding(padding, sequenceNumber: history.nextRTXSequenceNumber,
                                            rtpTimestamp: lastRTPTimestamp, into: transport.buffer)
        guard length > 0 else { return 0 }
        history.nextRTXSequenceNumber &+= 1
        transport.sendRTP(length: length, transportSequenceOffset: rtxWriter.transportSequenceOffset,
                          absoluteSendTimeOffset: rtxWriter.absoluteSendTimeOffset, at: now, probeClusterID: probeClusterID)
        statistics.paddingPacketsSent += 1
        statistics.paddingBytesSent += length
        return length
    }

    /// The largest padding-only packet: a header and 255 bytes of padding.
    var maximumPaddingPacketSize: Int { rtxWriter.headerSize + 255 }

    /// A PLI arrived: the next frame is a keyframe, unless one went out too recently, in
    /// which case the first frame after ``SendPipelineConfiguration/Video/minimumKeyframeInterval`` is.
    func pictureLost(at now: Timestamp) {
        statistics.pliCount += 1
        keyframePending = true
    }

    /// A FIR arrived with command sequence number `sequenceNumber`.
    func fullIntraRequested(sequenceNumber: UInt8, at now: Timestamp) {
        guard sequenceNumber != lastFIRSequenceNumber else { return }
        lastFIRSequenceNumber = sequenceNumber
        statistics.firCount += 1
        keyframePending = true
    }

    /// Sets the encoder's target to `bitrate` (clamped to the stream's bounds) when it
    /// differs enough from the current one to matter.
    func setTargetBitrate(_ bitrate: Int) {
        let clamped = min(max(bitrate, configuration.minimumBitrate), configuration.maximumBitrate)
        statistics.targetBitrate = clamped
        guard let encoder, abs(clamped - encoderBitrate) * 50 >= encoderBitrate else { return }   // 2 %
        guard (try? encoder.setBitrate(clamped)) != nil else { return }
        encoderBitrate = clamped
        statistics.bitrateChanges += 1
    }

    /// The counters, with the encoder's current size.
    var currentStatistics: VideoSendStatistics {
        var result = statistics
        if let encoder {
            (result.encodedWidth, result.encodedHeight) = encoder.encodedSize
            result.sizeChanges = encoder.sizeChanges
            result.framesSkippedForFrameRate = encoder.framesSkippedForFrameRate
            result.encodedFrameRate = encoder.encodedFrameRate
        }
        return result
    }

    /// The RTX history's counters.
    var historyStatistics: RTPPacketHistory.Statistics { history.statistics }
}
