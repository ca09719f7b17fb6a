import ConferLive
import ConferSession

/// A member's media figures for the report.
struct MemberMediaReport: Codable, Sendable {
    var connectInfo: ConnectInfo
    var framesSent: Int
    var framesReceived: Int
    var audioPacketsSent: Int
    var audioPacketsReceived: Int
    var output: String?
    var figures: LiveMeetingControl.Figures

    init(_ figures: LiveMeetingControl.Figures, output: String?) {
        var info = ConnectInfo()
        // Per stream received: a host's total is every member's frames together.
        info.receiveFrameRate = figures.framesReceived > 0 && figures.seconds > 0
            ? Double(figures.framesReceived) / figures.seconds / Double(max(figures.streamsReceived, 1)) : 0
        info.receiveWidth = figures.receiveWidth
        info.receiveHeight = figures.receiveHeight
        info.sendFrameRate = figures.seconds > 0 ? Double(figures.framesSent) / figures.seconds : 0
        info.audioPacketsSentPerSecond = figures.seconds > 0 ? Double(figures.audioPacketsSent) / figures.seconds : 0
        info.audioPacketsReceivedPerSecond = figures.seconds > 0 ? Double(figures.audioPacketsReceived) / figures.seconds : 0
        info.bytesSent = figures.bytesSent
        info.bytesReceived = figures.bytesReceived
        info.packetsLost = figures.packetsLost
        info.roundTripMilliseconds = figures.roundTripMilliseconds
        connectInfo = info
        framesSent = figures.framesSent
        framesReceived = figures.framesReceived
        audioPacketsSent = figures.audioPacketsSent
        audioPacketsReceived = figures.audioPacketsReceived
        self.output = output
        self.figures = figures
    }

    var humanSummary: [String] {
        var lines = ["media: sent \(framesSent) frames and \(audioPacketsSent) audio packets, received \(framesReceived) frames and "
            + "\(audioPacketsReceived) audio packets" + (output.map { ", wrote \($0)" } ?? "")]
        // Said only when something is amiss: an address that never answered (wrong, unreachable
        // or not its owner's), checks that were forged or replayed, strangers' datagrams.
        var amiss: [String] = []
        if figures.consentChallengesSent > 0, figures.consentGrants == 0 {
            amiss.append("no address answered its \(figures.consentChallengesSent) challenges, so no media went")
        }
        if figures.consentChecksRefused > 0 { amiss.append("refused \(figures.consentChecksRefused) checks") }
        if figures.datagramsFromUnknownAddresses > 0 {
            amiss.append("dropped \(figures.datagramsFromUnknownAddresses) datagrams from addresses no member announced")
        }
        if !amiss.isEmpty { lines.append("consent: " + amiss.joined(separator: "; ")) }
        // Not amiss, but worth knowing: someone was not where it said (behind a NAT, or moved).
        if figures.membersMoved > 0 { lines.append("addresses: \(figures.membersMoved) times a member's media came from another address than it announced, and was answered there") }
        if figures.peerMoves > 0 { lines.append("addresses: the host's media came from another address than it announced, and was answered there") }
        if let seen = figures.reflexiveAddress { lines.append("addresses: the server's STUN responder saw this media at \(seen), which was announced") }
        if figures.stunUnanswered { lines.append("addresses: the server's STUN responder did not answer; the bound address was announced") }
        if let peer = figures.peerAddress { lines.append("addresses: media goes to the host at \(peer)") }
        if figures.packetsForwarded > 0 || figures.forwardReportsSent > 0 {
            var forward = "forward: sent \(figures.packetsForwarded) packets (\(figures.bytesForwarded / 1000) kB)"
            if figures.forwardReportsSent > 0 {
                forward += ", \(figures.forwardReportsSent) sender reports; \(figures.forwardKeyframeRequests) keyframe requests came back"
            }
            if figures.forwardFeedbackDropped > 0 { forward += "; dropped \(figures.forwardFeedbackDropped) datagrams that were not RTCP" }
            lines.append(forward)
        }
        return lines
    }
}
