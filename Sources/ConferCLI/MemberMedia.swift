import ConferSession

/// A member's running media (the host's composite, a participant's send and receive), as
/// `confer host` / `confer join` start it once admitted and stop it at the end.
protocol MemberMedia: Sendable {
    /// Stops sending and receiving; the figures of the whole run.
    func stop() async -> MemberMediaReport
}

/// A member's media figures for the report.
struct MemberMediaReport: Codable, Sendable {
    var connectInfo: ConnectInfo
    var framesSent: Int
    var framesReceived: Int
    var audioPacketsSent: Int
    var audioPacketsReceived: Int
    var output: String?
    var slots: [String: [Int]]?

    var humanSummary: [String] {
        ["media: sent \(framesSent) frames and \(audioPacketsSent) audio packets, received \(framesReceived) frames and "
            + "\(audioPacketsReceived) audio packets" + (output.map { ", wrote \($0)" } ?? "")]
    }
}
