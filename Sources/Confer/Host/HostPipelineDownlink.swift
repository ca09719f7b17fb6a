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

    private(set) var videoPacketsSent = 0
    private(set) var videoBytesSent = 0
    private(set) var audioPacketsSent = 0
    private(set) var audioBytesSent = 0
    private(set) var retransmittedPacketsSent = 0
    private(set) var retransmittedBytesSent = 0
    private(set) var paddingPacketsSent = 0
    private(set) var paddingBytesSent = 0
    var nacksReceived = 0
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
            firstTransportSequenceNumber: UInt16(truncatingIfNeeded: random.next()), paces: host.paces, output: output)
        control = try SendPipelineControlInput(srtpKey: participant.srtpKey)
        audioPacketizer = try RTPPacketizer(
            stream: .opus, ssrc: host.audioSSRC, payloadType: host.audioPayloadType, random: &random,
            transportSequenceNumberID: host.transportSequenceNumberID, absoluteSendTimeID: nil, marksTalkspurts: true,
            error: { HostPipelineError(.invalidConfiguration, $0) })
        audioMaximumPayloadSize = transport.maximumRTPSize - audioPacketizer.headerSize
        reportInterval = host.reportInterval
        retransmissions = HostPipelineRetransmissionThrottle(capacity: host.historyCapacity)
    }

    /// The audio stream's SSRC.
    var audioSSRC: UInt32 { audioPacketizer.ssrc }

    /// The round-trip time measured last: from receiver reports when fresh, else from transport-cc.
    var roundTripTime: TimeDelta? { reportRoundTripTime ?? transport.estimator.snapshot.roundTripTime }

    /// Sends a composite packet (plaintext, written once for everyone), stamped for this participant.
    func sendVideo(_ packet: UnsafeRawBufferPointer, transportSequenceOffset: Int?, at now: Timestamp) {
        startReports(at: now)
        let size = transport.sendRTP(copying: packet, transportSequenceOffset: transportSequenceOffset,
                                     absoluteSendTimeOffset: nil, at: now, paced: true)
        guard size > 0 else { return }
        videoPacketsSent += 1
        videoBytesSent += size
    }

    /// Sends an RTX packet from the shared history to this participant only.
    func sendRetransmission(_ packet: UnsafeRawBufferPointer, transportSequenceOffset: Int?, at now: Timestamp) {
        let size = transport.sendRTP(copying: packet, transportSequenceOffset: transportSequenceOffset,
                                     absoluteSendTimeOffset: nil, at: now)
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

    /// Sends a sender report for the composite (`video`, shared by every participant) and
    /// for this participant's audio stream, with the CNAME, when one is due at `now`.
    func sendReportIfDue(video: RTPSenderStatistics, cname: String, clock: NTPClockMapping, at now: Timestamp) {
        guard let due = nextReport, now >= due else { return }
        nextReport = max(due + reportInterval, now)
        var packets: [RTCPPacket] = []
        if video.packetsSent > 0 { packets.append(.senderReport(video.makeSenderReport(now: now, clock: clock))) }
        if audioPacketizer.statistics.packetsSent > 0 {
            packets.append(.senderReport(audioPacketizer.statistics.makeSenderReport(now: now, clock: clock)))
        }
        guard case .senderReport(let first) = packets.first else { return }
        packets.append(.sourceDescription(RTCPSourceDescription(ssrc: first.ssrc, cname: cname)))
        transport.sendRTCP(packets)
    }
}
