public import ConferMedia
import ConferRTP

extension SendPipeline {
    /// Handles one RTCP compound from the receiver that arrived at `now`: NACKs are answered
    /// with RTX, PLI and FIR make the next frame a keyframe, transport-cc, REMB and receiver
    /// reports feed the congestion controller, whose new estimate goes to the encoder.
    ///
    /// A compound that does not authenticate or parse is counted and dropped; the packets
    /// before a malformed one in it still count. Returns whether the compound authenticated
    /// (without SRTP: whether it could be read), which is what consent to send to the
    /// receiver (ConferNet's `MediaConsent`) goes by.
    @discardableResult
    public func receiveRTCP(_ datagram: UnsafeRawBufferPointer, at now: Timestamp) -> Bool {
        var estimateChanged = false
        let authenticated = controlInput.read(datagram) { packet in
            estimateChanged = handle(packet, at: now) || estimateChanged
        }
        if estimateChanged { applyBandwidthEstimate() }
        return authenticated
    }

    /// Acts on one RTCP packet; true when it fed the congestion controller.
    private func handle(_ packet: RTCPPacket, at now: Timestamp) -> Bool {
        switch packet {
        case .receiverReport(let report):
            return handleReportBlocks(report.reportBlocks, at: now)
        case .senderReport(let report):
            return handleReportBlocks(report.reportBlocks, at: now)
        case .genericNACK(let nack):
            guard let video, nack.mediaSSRC == video.configuration.ssrc else { return false }
            let rtt = roundTripTime ?? .milliseconds(100)
            video.retransmit(nack.lostSequenceNumbers, rtt: rtt, bitrate: targetBitrate, at: now, transport: transport)
            return false
        case .pictureLossIndication(let pli):
            guard let video, pli.mediaSSRC == video.configuration.ssrc else { return false }
            video.pictureLost(at: now)
            return false
        case .fullIntraRequest(let fir):
            guard let video else { return false }
            for entry in fir.entries where entry.ssrc == video.configuration.ssrc {
                video.fullIntraRequested(sequenceNumber: entry.sequenceNumber, at: now)
            }
            return false
        case .transportFeedback(let feedback):
            transport.estimator.onTransportFeedback(feedback, at: now)
            return true
        case .receiverEstimatedMaxBitrate(let remb):
            transport.estimator.onREMB(remb, at: now)
            return true
        case .extendedReport(let report):
            for case .receiverReferenceTime(let time) in report.blocks {
                if receiverReferenceTimes[report.ssrc] == nil, receiverReferenceTimes.count >= Self.maximumXRReceivers,
                   let oldest = receiverReferenceTimes.min(by: { $0.value.arrival < $1.value.arrival })?.key {
                    receiverReferenceTimes.removeValue(forKey: oldest)
                }
                receiverReferenceTimes[report.ssrc] = (time.compact, now)
            }
            return false
        default:
            return false
        }
    }

    /// Takes the round-trip time and loss from the first block about one of our streams.
    private func handleReportBlocks(_ blocks: [RTCPReportBlock], at now: Timestamp) -> Bool {
        let ours: Set<UInt32> = [configuration.video?.ssrc, configuration.audio?.ssrc].reduce(into: []) { set, ssrc in
            if let ssrc { set.insert(ssrc) }
        }
        for block in blocks where ours.contains(block.ssrc) { reportedLost[block.ssrc] = max(0, Int(block.cumulativeLost)) }
        guard let block = blocks.first(where: { ours.contains($0.ssrc) }) else { return false }
        let rtt = block.roundTripTime(receivedAt: configuration.ntpClock.ntpTime(at: now))
        if let rtt, rtt > .zero { reportRoundTripTime = rtt }
        transport.estimator.onReceiverReport(block, rtt: rtt, at: now)
        return true
    }

    /// Says goodbye (RFC 3550 §6.6): a last sender report for each stream that sent
    /// something, the CNAME and a BYE for every SSRC, sent at once. Call it when sending
    /// ends; the receiver then knows the streams are over without waiting for them to go quiet.
    public func sendGoodbye(at now: Timestamp) {
        let ssrcs = [configuration.video?.ssrc, configuration.video?.rtxSSRC, configuration.audio?.ssrc].compactMap { $0 }
        sendReport(at: now, goodbye: RTCPBye(ssrcs: ssrcs))
    }

    /// Sends a sender report for each stream that has sent something, with the CNAME (and a BYE when given).
    func sendReport(at now: Timestamp, goodbye: RTCPBye? = nil) {
        var packets: [RTCPPacket] = []
        var firstSSRC: UInt32?
        for writer in [video?.packetizer, audio?.packetizer].compactMap({ $0 }) where writer.statistics.packetsSent > 0 {
            packets.append(.senderReport(writer.statistics.makeSenderReport(now: now, clock: configuration.ntpClock)))
            firstSSRC = firstSSRC ?? writer.ssrc
        }
        guard let firstSSRC else { return }
        packets.append(.sourceDescription(RTCPSourceDescription(ssrc: firstSSRC, cname: configuration.cname)))
        if !receiverReferenceTimes.isEmpty {
            // RFC 3611 §4.5: for each receiver, its last RRTR and how long ago it came.
            let entries = receiverReferenceTimes.sorted { $0.key < $1.key }.map { ssrc, last in
                RTCPExtendedReport.DelaySinceLastReceiverReport(ssrc: ssrc, lastReceiverReport: last.time,
                                                                delay: CompactNTPTime(now - last.arrival))
            }
            packets.append(.extendedReport(RTCPExtendedReport(ssrc: firstSSRC, blocks: [.delaySinceLastReceiverReport(entries)])))
        }
        if let goodbye { packets.append(.bye(goodbye)) }
        transport.sendRTCP(packets)
    }
}
