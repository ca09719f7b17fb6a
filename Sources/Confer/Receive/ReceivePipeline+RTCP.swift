import ConferMedia
import ConferRTP

extension ReceivePipeline {
    /// Reads an RTCP compound from the sender: sender reports are remembered for the next
    /// receiver report's LSR and DLSR, a BYE naming a stream received is counted; the rest
    /// is of no use to a receiver and is skipped. A compound with a packet that does not
    /// parse counts as malformed (the packets before it still count).
    func receiveControl(_ bytes: UnsafeRawBufferPointer, at arrival: Timestamp) {
        var reader = RTCPCompoundReader(bytes)
        while true {
            do throws(RTCPError) {
                guard let slice = try reader.next() else { break }
                switch slice.packetType {
                case RTCPPacketType.senderReport:
                    let report = try RTCPSenderReport(parsing: slice)
                    if let video, video.reception?.ssrc == report.ssrc {
                        video.reception?.receivedSenderReport(ntpTime: report.ntpTime, at: arrival)
                    }
                    if let audio, audio.reception?.ssrc == report.ssrc {
                        audio.reception?.receivedSenderReport(ntpTime: report.ntpTime, at: arrival)
                    }
                case RTCPPacketType.extendedReport:
                    // RFC 3611 DLRR: the sender's answer to this receiver's RRTR gives the
                    // round-trip time a receive-only endpoint has no other way to learn.
                    let report = try RTCPExtendedReport(parsing: slice)
                    for case .delaySinceLastReceiverReport(let entries) in report.blocks {
                        for entry in entries where entry.ssrc == configuration.ssrc {
                            guard let rtt = entry.roundTripTime(receivedAt: configuration.ntpClock.ntpTime(at: arrival)), rtt > .zero,
                                  rtt < .seconds(10) else { continue }
                            counters.roundTripTime = rtt.seconds
                            counters.roundTripTimesMeasured += 1
                            video?.updateRTT(rtt)
                        }
                    }
                case RTCPPacketType.bye:
                    let bye = try RTCPBye(parsing: slice)
                    let streams = [video?.ssrc, audio?.ssrc].compactMap { $0 }
                    if bye.ssrcs.contains(where: streams.contains) { counters.goodbyesReceived += 1 }
                default:
                    continue
                }
            } catch {
                discardMalformed()
                return
            }
        }
        counters.rtcpPacketsReceived += 1
    }

    /// Sends transport-cc feedback for the packets that arrived since the last.
    func sendTransportFeedback() {
        let mediaSSRC = video?.ssrc ?? audio?.ssrc ?? 0
        for message in transportFeedback.makeFeedback(senderSSRC: configuration.ssrc, mediaSSRC: mediaSSRC) {
            sendControl([.transportFeedback(message)])
        }
    }

    /// Sends a receiver report about every stream heard, with the CNAME.
    func sendReport(at now: Timestamp) {
        var blocks: [RTCPReportBlock] = []
        if let block = video?.reception?.makeReportBlock(now: now) { blocks.append(block) }
        if let block = audio?.reception?.makeReportBlock(now: now) { blocks.append(block) }
        counters.receiverReportsSent += 1
        var packets: [RTCPPacket] = [
            .receiverReport(RTCPReceiverReport(ssrc: configuration.ssrc, reportBlocks: blocks)),
            .sourceDescription(RTCPSourceDescription(ssrc: configuration.ssrc, cname: configuration.cname)),
            // RFC 3611 RRTR: the sender answers with a DLRR, from which this end measures the RTT.
            .extendedReport(RTCPExtendedReport(ssrc: configuration.ssrc,
                                               blocks: [.receiverReferenceTime(configuration.ntpClock.ntpTime(at: now))])),
        ]
        if requestedMaximumBitrate != nil, let remb = maximumBitrateRequest { packets.append(remb) }
        sendControl(packets)
    }
}
