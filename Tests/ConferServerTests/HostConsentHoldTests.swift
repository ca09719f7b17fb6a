import ConferLive
import ConferMedia
import ConferRTP
import ConferSRTP
import ConferTestSupport
import Foundation
import Testing

/// A live host keeps what it sends a new member until the member's address consents, and
/// sends it with the grant: the keyframe the join asked for is encoded while the check runs.
/// Against a real host on a real UDP socket; the member is a bare socket that answers the
/// host's challenge when the test says.
@Suite(.serialized, .timeLimit(.minutes(1)), .wallClockExclusive)
struct HostConsentHoldTests {
    static let uplinkKey = (0 ..< 30).map { UInt8($0) }
    static let downlinkKey = (0 ..< 30).map { UInt8(100 + $0) }

    @Test func whatWasKeptGoesWithTheGrantKeyframeFirst() async throws {
        let (figures, received) = try await Self.join(answeringAfter: .milliseconds(200))
        #expect(figures.consentGrants == 1)
        #expect(figures.datagramsReleasedAtConsent > 0, "200 ms of audio and video were kept and sent at the grant")
        #expect(figures.datagramsWithheld == 0, "nothing dropped")
        #expect(received.beforeAnswer.allSatisfy { $0.count <= 64 }, "only challenges before the answer: \(received.beforeAnswer.map(\.count))")
        let firstVideo = try #require(received.videoAfterAnswer.first, "video after the grant")
        #expect(firstVideo.startsFrame && firstVideo.isKeyframe, "the first video to arrive starts the keyframe")
    }

    @Test func anAddressThatAnswersAfterTheHoldEndedGetsAFreshKeyframeAndNothingStale() async throws {
        // The hold keeps nothing older than 500 ms: answered after 900 ms, what was kept is dropped.
        let (figures, received) = try await Self.join(answeringAfter: .milliseconds(900))
        #expect(figures.consentGrants == 1)
        #expect(figures.datagramsReleasedAtConsent == 0)
        #expect(figures.datagramsWithheld > 0, "what was kept, and what came after the hold ended, dropped")
        #expect(received.beforeAnswer.allSatisfy { $0.count <= 64 }, "only challenges before the answer")
        let firstVideo = try #require(received.videoAfterAnswer.first, "video after the grant")
        #expect(firstVideo.startsFrame && firstVideo.isKeyframe, "the grant asked for a keyframe, and it comes first")
    }

    struct Received {
        var beforeAnswer: [[UInt8]]
        var videoAfterAnswer: [VP8PayloadDescriptor]
    }

    /// Runs a host, adds member 1 at a bare socket's address, answers the host's challenge
    /// after `delay`, reads what arrives for 400 ms more, and stops the host.
    static func join(answeringAfter delay: Duration) async throws -> (LiveMeetingControl.Figures, Received) {
        let member = try CountingUDPSocket()
        defer { member.close() }
        let control = LiveMeetingControl()
        let configuration = LiveMeetingHostConfiguration(plan: LiveMeetingPlan(codec: .vp8, canvasWidth: 320, canvasHeight: 180, frameRate: 24))
        let host = Task { try await LiveMeetingHost.run(configuration, control: control) }
        var hostPort: Int?
        for _ in 0 ..< 200 where hostPort == nil {
            hostPort = control.localPort
            if hostPort == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let port = try #require(hostPort, "the host bound its socket")
        control.send(.add(identity: "bob", slot: 1, uplinkKey: uplinkKey, downlinkKey: downlinkKey, sends: true))
        control.send(.address(identity: "bob", host: "127.0.0.1", port: member.port))
        try await Task.sleep(for: delay)
        let beforeAnswer = member.datagrams()
        let uplink = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: uplinkKey)
        let downlink = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: downlinkKey)
        let checks = try ConsentChannel(ssrc: LiveMeetingPlan.consentSSRC(slot: 1), sendKey: uplink, receiveKey: downlink)
        let challenge = try #require(beforeAnswer.last { $0.withUnsafeBytes { LiveMeetingPlan.isConsentCheck($0) } })
        let nonce = try #require(challenge.withUnsafeBytes { checks.open($0) }?.nonce)
        member.send(try #require(checks.seal(.answer, nonce: nonce)), toPort: port)
        try await Task.sleep(for: .milliseconds(400))
        let afterAnswer = member.datagrams()
        control.stop()
        let figures = try await host.value
        let media = try SRTPSession(key: downlink, direction: .inbound)
        var video: [VP8PayloadDescriptor] = []
        for datagram in afterAnswer where !datagram.withUnsafeBytes({ LiveMeetingPlan.isConsentCheck($0) }) {
            guard datagram.withUnsafeBytes({ RTPDatagramRoute(classifying: $0) }) == .media else { continue }
            var bytes = datagram
            try media.unprotectRTP(&bytes)
            let packet = try RTPPacket(parsing: bytes)
            guard packet.header.payloadType == 96 else { continue }
            video.append(try packet.payload.withUnsafeBytes { try VP8PayloadDescriptor.parse($0) })
        }
        return (figures, Received(beforeAnswer: beforeAnswer, videoAfterAnswer: video))
    }
}
