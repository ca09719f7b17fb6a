import ConferMedia
import ConferRTP
import ConferCongestion

/// The host's send side towards one participant: its own transport (transport-wide
/// sequence numbers, bandwidth estimate, SRTP with the downlink key), its RTCP input, its
/// own audio RTP stream, its probe bursts and sender reports, and what was sent to it.
///
/// The composite's packets are written once by ``HostPipelineVideo``; this copies each into
/// the transport's buffer, where the participant's transport-wide sequence number is
/// stamped and its key applied. Audio gets an RTP writer per participant, so the
/// participant's stream keeps one SSRC and unbroken sequence numbers whether its packets
/// come from the shared encoder or from an encoder of its own.
final class HostPipelineDownlink {
    let transport: SendPipelineTransport
    /// Reads the participant's feedback, protected with the downlink key.
    let control: SendPipelineControlInput
    private var audioPacketizer: RTPPacketizer
    private let audioMaximumPayloadSize: Int
    /// The probe burst in progress.
    var probe = SendPipelineProbe()
    /// When the next sender report is due; nil until media has been sent.
    private(set) var nextReport: Timestamp?
    private let reportInterval: TimeDelta
    /// The round-trip time from the participant's last receiver report about our streams.
    var reportRoundTripTime: TimeDelta?
    /// Which composite packets went to this participant again, and when.
    var retransmissions: HostPipelineRetransmissionThrottle
    /// The command sequence number of the last FIR acted on (RFC 5104 §4.3.1.2: repeats are ignored).
    var lastFIRSequenceNumber: UInt8?
    /// Which of the composite's temporal layers go to this participant, renumbered.
    var layers: LayerForwarder
    /// When this participant's keyframe request last reached the throttle.
    var lastKeyframeRequest: Timestamp?
    /// Keyframe requests not passed on because this participant gets fewer layers and had one lately.
    var keyframeRequestsIgnored = 0
    /// Until when this participant is not given fewer layers again: its base layer alone
    /// did not fit its link (see ``HostPipeline/checkReducedBacklogs(at:)``).
    var reductionBlockedUntil: Timestamp?
    /// Times its base layer did not fit.
    var reductionsAbandoned = 0
    /// How long the next block lasts; doubles with each failure.
    var reductionBackoff = HostPipeline.initialReductionBackoff
    /// When the participant joined.
    var joinedAt = Timestamp.zero
    /// Since when the allocator has wanted it on the small encode (nil: it does not now).
    var wantsSmallEncodeSince: Timestamp?
    /// When this participant was last moved between the composite's two encodes.
    var lastStreamChange: Timestamp?
    /// Until when it stays on the encode it was last moved to.
    var streamHeldUntil: Timestamp?
    /// How long its next move holds it; doubles with each move.
    var streamSwitchHold = HostPipeline.initialStreamSwitchHold
    /// When a probe last asked whether this participant's path carries more layers.
    var lastLayerProbe: Timestamp?

    private(set) var videoPacketsSent = 0
    private(set) var videoBytesSent = 0
    /// Payload octets of those packets (headers excluded), for this participant's sender reports.
    private(set) var videoPayloadOctetsSent = 0
    private(set) var audioPacketsSent = 0
    private(set) var audioBytesSent = 0
    private(set) var retransmittedPacketsSent = 0
    private(set) var retransmittedBytesSent = 0
    private(set) var paddingPacketsSent = 0
    private(set) var paddingBytesSent = 0
    var nacksReceived = 0
    /// Requested retransmissions not sent: the packets were of the encode it had left.
    var retransmissionsOfFormerEncode = 0
    /// Holds what is resent to this participant to its link's target, as a sender's own
    /// stream is held (the shared history cannot: each link has its own target).
    var retransmissionLimiter = RetransmissionRateLimiter()
    /// Requested retransmissions not sent because the limiter's budget was spent.
    var retransmissionsOverBudget = 0
    var plisReceived = 0
    var firsReceived = 0

    init(host: HostPipelineConfiguration, participant: HostParticipantConfiguration, random: inout SeededRandom,
         output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        let audio = host.audioBitrate
        let probing = host.probesBandwidth
        let estimator = SendSideBandwidthEstimator(configuration: .init(
            startBitrate: .bitsPerSecond(Int64(host.effectiveStartBitrate + audio)),
            minimumBitrate: .bitsPerSecond(Int64(host.minimumBitrate + audio)),
            maximumBitrate: .bitsPerSecond(Int64(host.maximumBitrate + audio)), probing: probing))
        transport = try SendPipelineTransport(
            maximumPacketSize: host.maximumPacketSize, srtpKey: participant.srtpKey, estimator: estimator,
            firstTransportSequenceNumber: UInt16(truncatingIfNeeded: random.next()), paces: host.paces || host.effectiveTemporalLayers > 1, output: output)
        // With layers, the pacer waits until the participant gets fewer of them (see ``HostPipeline``).
        transport.setPacing(factor: host.paces ? Pacer.pacingFactor : nil)
        control = try SendPipelineControlInput(srtpKey: participant.srtpKey)
        audioPacketizer = try RTPPacketizer(
            stream: .opus, ssrc: host.audioSSRC, payloadType: host.audioPayloadType, random: &random,
            transportSequenceNumberID: host.transportSequenceNumberID, absoluteSendTimeID: nil, marksTalkspurts: true,
            error: { HostPipelineError(.invalidConfiguration, $0) })
        audioMaximumPayloadSize = transport.maximumRTPSize - audioPacketizer.headerSize
        reportInterval = host.reportInterval
        retransmissions = HostPipelineRetransmissionThrottle(capacity: host.historyCapacity)
        // VP9 layers in flexible mode name references by picture id (P_DIFF) and a gap in
        // the ids is not loss: shifting the ids would break the references.
        let flexible = host.codec == .vp9 && host.effectiveTemporalLayers > 1 && !host.vp9LayerSignalling.shiftsPictureIDs
        layers = LayerForwarder(layer: UInt8(host.effectiveTemporalLayers - 1), history: host.historyCapacity,
                                shiftsPictureIDs: !flexible)
    }

    /// The audio stream's SSRC.
    var audioSSRC: UInt32 { audioPacketizer.ssrc }

    /// The round-trip time measured last: from receiver reports when fresh, else from transport-cc.
    var roundTripTime: TimeDelta? { reportRoundTripTime ?? transport.estimator.snapshot.roundTripTime }

    /// Sends a composite packet (plaintext, written once for everyone), stamped for this
    /// participant and renumbered, unless its frame's layer is one this participant does
    /// not get; the picture id at `pictureIDOffset`, if any, is shifted to match (by nothing
    /// for VP9 in flexible mode, whose forwarder keeps the ids).
    func sendVideo(_ packet: UnsafeRawBufferPointer, headerSize: Int, transportSequenceOffset: Int?, pictureIDOffset: Int?,
                   at now: Timestamp) {
        guard packet.count >= 4 else { return }
        let original = UInt16(packet[2]) << 8 | UInt16(packet[3])
        guard let forwarded = layers.forward(original, pictureID: pictureID(in: packet, at: pictureIDOffset)) else { return }
        startReports(at: now)
        let size = transport.sendRTP(copying: packet, transportSequenceOffset: transportSequenceOffset,
                                     absoluteSendTimeOffset: nil, at: now, paced: true,
                                     rewriting: forwarded == original ? nil : (2, forwarded),
                                     rewritingAlso: shiftedPictureID(in: packet, at: pictureIDOffset, by: layers.pictureIDShift))
        guard size > 0 else { return }
        videoPacketsSent += 1
        videoBytesSent += size
        videoPayloadOctetsSent += max(packet.count - headerSize, 0)
    }

    /// The 15-bit picture id at `offset` of `packet`, when there is one (M bit set).
    private func pictureID(in packet: UnsafeRawBufferPointer, at offset: Int?) -> UInt16? {
        guard let offset, offset + 2 <= packet.count, packet[offset] & 0x80 != 0 else { return nil }
        return (UInt16(packet[offset]) << 8 | UInt16(packet[offset + 1])) & 0x7FFF
    }

    /// The 15-bit picture id field (M bit set) at `offset` of `packet`, shifted by `shift`;
    /// nil when there is nothing to change.
    private func shiftedPictureID(in packet: UnsafeRawBufferPointer, at offset: Int?, by shift: UInt16) -> (offset: Int, value: UInt16)? {
        guard shift != 0, let offset, offset + 2 <= packet.count else { return nil }
        let field = UInt16(packet[offset]) << 8 | UInt16(packet[offset + 1])
        guard field & 0x8000 != 0 else { return nil }
        return (offset, 0x8000 | LayerForwarder.shifted(field & 0x7FFF, by: shift))
    }

    /// Sends an RTX packet from the shared history to this participant only, its original
    /// sequence number (the first two bytes of the payload at `payloadOffset`) set to
    /// `forwarded`, the number this participant knows the packet by, and its picture id
    /// (at `pictureIDOffset` into the original payload) shifted as it was the first time.
    func sendRetransmission(_ packet: UnsafeRawBufferPointer, payloadOffset: Int, forwarded: UInt16, pictureIDShift: UInt16,
                            pictureIDOffset: Int?, transportSequenceOffset: Int?, at now: Timestamp) {
        // Paced like the video while the transport paces (on a link the stream already fills,
        // retransmissions sent at once are more loss), ahead of the video waiting.
        let pictureID = pictureIDOffset.flatMap {
            shiftedPictureID(in: packet, at: payloadOffset + RTXPacket.originalSequenceNumberSize + $0, by: pictureIDShift)
        }
        let size = transport.sendRTP(copying: packet, transportSequenceOffset: transportSequenceOffset,
                                     absoluteSendTimeOffset: nil, at: now, paced: transport.isPacing, retransmission: true,
                                     rewriting: (payloadOffset, forwarded), rewritingAlso: pictureID)
        guard size > 0 else { return }
        retransmittedPacketsSent += 1
        retransmittedBytesSent += size
    }

    /// Sends a padding packet the video stream wrote into ``transport``'s buffer.
    func sendPadding(length: Int, transportSequenceOffset: Int?, probeClusterID: Int, at now: Timestamp) -> Int {
        let size = transport.sendRTP(length: length, transportSequenceOffset: transportSequenceOffset,
                                     absoluteSendTimeOffset: nil, at: now, probeClusterID: probeClusterID)
        guard size > 0 else { return 0 }
        paddingPacketsSent += 1
        paddingBytesSent += size
        return size
    }

    /// Sends an Opus packet, captured at `captureTime`, on this participant's audio stream.
    func sendAudio(_ encoded: EncodedFrame, captureTime: Timestamp, at now: Timestamp) {
        startReports(at: now)
        let rtpTimestamp = audioPacketizer.rtpTimestamp(at: captureTime)
        let buffer = transport.buffer
        let transportOffset = audioPacketizer.transportSequenceOffset
        let maximum = audioMaximumPayloadSize
        // An Opus packet always fits (the encoder writes at most 1275 bytes of a 20 ms
        // frame at these bitrates); one that does not is counted by the transport.
        _ = try? audioPacketizer.packetize(encoded, rtpTimestamp: rtpTimestamp, captureTime: captureTime, maxPayloadSize: maximum,
                                           into: buffer) { length in
            let size = transport.sendRTP(length: length, transportSequenceOffset: transportOffset,
                                         absoluteSendTimeOffset: nil, at: now)
            guard size > 0 else { return }
            audioPacketsSent += 1
            audioBytesSent += size
        }
    }

    /// The first media sent starts the report schedule: the first report goes out at once.
    private func startReports(at now: Timestamp) {
        if nextReport == nil { nextReport = now }
    }

    /// Sends a sender report for the composite (`video`: its timing, shared by every
    /// participant) and for this participant's audio stream, with the CNAME, when one is
    /// due at `now`.
    func sendReportIfDue(video: RTPSenderStatistics, cname: String, clock: NTPClockMapping, at now: Timestamp) {
        guard let due = nextReport, now >= due else { return }
        nextReport = max(due + reportInterval, now)
        var packets: [RTCPPacket] = []
        if videoPacketsSent > 0 {
            var report = video.makeSenderReport(now: now, clock: clock)
            // What this participant was sent, as an SFU reports per receiver: of the encode
            // it gets and the layers it gets, not everything the host encoded.
            report.packetCount = UInt32(truncatingIfNeeded: videoPacketsSent)
            report.octetCount = UInt32(truncatingIfNeeded: videoPayloadOctetsSent)
            packets.append(.senderReport(report))
        }
        if audioPacketizer.statistics.packetsSent > 0 {
            packets.append(.senderReport(audioPacketizer.statistics.makeSenderReport(now: now, clock: clock)))
        }
        guard case .senderReport(let first) = packets.first else { return }
        packets.append(.sourceDescription(RTCPSourceDescription(ssrc: first.ssrc, cname: cname)))
        transport.sendRTCP(packets)
    }
}
