import ConferMedia
import ConferRTP

extension HostPipeline {
    /// Handles one feedback compound from `participant` about what the host sends it: NACKs
    /// are answered with RTX to it alone, PLI and new FIRs ask the throttle for a keyframe,
    /// transport-cc, REMB and receiver reports feed its bandwidth estimate, and a changed
    /// estimate re-sets the composite's bitrate (the weakest participant's) and the RTT its
    /// receive chain plans with.
    func receiveFeedback(_ datagram: UnsafeRawBufferPointer, from participant: HostPipelineParticipant, at now: Timestamp) -> Bool {
        var estimateChanged = false
        let authenticated = participant.downlink.control.read(datagram) { packet in
            estimateChanged = handle(packet, from: participant, at: now) || estimateChanged
        }
        guard estimateChanged else { return authenticated }
        updateCompositeBitrate()
        if let rtt = participant.downlink.roundTripTime { participant.receive.setRoundTripTime(rtt) }
        return authenticated
    }

    /// Acts on one feedback packet; true when it fed the bandwidth estimate.
    private func handle(_ packet: RTCPPacket, from participant: HostPipelineParticipant, at now: Timestamp) -> Bool {
        let downlink = participant.downlink
        switch packet {
        case .receiverReport(let report):
            return handleReportBlocks(report.reportBlocks, from: downlink, at: now)
        case .senderReport(let report):
            return handleReportBlocks(report.reportBlocks, from: downlink, at: now)
        case .genericNACK(let nack):
            guard nack.mediaSSRC == configuration.videoSSRC else { return false }
            video.retransmit(nack.lostSequenceNumbers, to: downlink, at: now)
            return false
        case .pictureLossIndication(let pli):
            guard pli.mediaSSRC == configuration.videoSSRC else { return false }
            downlink.plisReceived += 1
            requestKeyframe(for: downlink, at: now)
            return false
        case .fullIntraRequest(let fir):
            for entry in fir.entries where entry.ssrc == configuration.videoSSRC {
                // RFC 5104 §4.3.1.2: a repeated command sequence number is the same request.
                guard entry.sequenceNumber != downlink.lastFIRSequenceNumber else { continue }
                downlink.lastFIRSequenceNumber = entry.sequenceNumber
                downlink.firsReceived += 1
                requestKeyframe(for: downlink, at: now)
            }
            return false
        case .transportFeedback(let feedback):
            downlink.transport.estimator.onTransportFeedback(feedback, at: now)
            return true
        case .receiverEstimatedMaxBitrate(let remb):
            downlink.transport.estimator.onREMB(remb, at: now)
            return true
        default:
            return false
        }
    }

    /// Asks the throttle for a keyframe for `downlink`'s participant, unless it gets fewer
    /// layers and had one made less than ``HostPipeline/reducedKeyframeRequestInterval`` ago.
    private func requestKeyframe(for downlink: HostPipelineDownlink, at now: Timestamp) {
        let top = UInt8(configuration.effectiveTemporalLayers - 1)
        if downlink.layers.targetLayer < top, let last = downlink.lastKeyframeRequest,
           now - last < Self.reducedKeyframeRequestInterval {
            downlink.keyframeRequestsIgnored += 1
            return
        }
        downlink.lastKeyframeRequest = now
        // A participant on the small encode needs a keyframe of that one only.
        video.requestKeyframe(of: downlink.layers.currentStream)
    }

    /// Takes the round-trip time and loss from the first block about one of the host's
    /// streams to this participant.
    private func handleReportBlocks(_ blocks: [RTCPReportBlock], from downlink: HostPipelineDownlink, at now: Timestamp) -> Bool {
        let video = configuration.videoSSRC, audio = downlink.audioSSRC
        guard let block = blocks.first(where: { $0.ssrc == video || $0.ssrc == audio }) else { return false }
        let rtt = block.roundTripTime(receivedAt: configuration.ntpClock.ntpTime(at: now))
        if let rtt, rtt > .zero { downlink.reportRoundTripTime = rtt }
        downlink.transport.estimator.onReceiverReport(block, rtt: rtt, at: now)
        return true
    }
}
