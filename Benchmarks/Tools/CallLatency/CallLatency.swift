import ConferClient
import ConferLive
import ConferSession
import ConferTokens
import Foundation
import ToolSupport

/// Call set-up on loopback against one `confer serve`: `--calls` video calls from alice to
/// bob, each measured from the dial to the call ringing at bob's device (signaling only),
/// and from bob's accept to the first picture of bob's camera decoded at alice (keys and
/// addresses through the server, then SRTP straight between the two, a VP8 keyframe
/// encoded, sent, decoded). Both devices live in this process, each with its own
/// WebSocket, UDP socket and pipelines.
///
///     CallLatency --server http://127.0.0.1:7880 --secret S [--calls 20]
@main
struct CallLatency {
    static func main() async throws {
        let arguments = ToolArguments(usage: "CallLatency --server URL --secret S [--calls N]")
        let server = arguments.required("--server"), secret = arguments.required("--secret")
        let count = arguments.int("--calls", default: 20)
        let issuer = try await TokenIssuer(secret: secret)
        func client(_ identity: String) async throws -> CallClient {
            let token = await issuer.sign(TokenClaims(callsFor: identity, notBefore: SessionTime.now(), lifetime: .seconds(3600)))
            let client = try CallClient(configuration: CallClientConfiguration(server: server, token: token, device: "bench"))
            try await client.start()
            return client
        }
        let alice = try await client("alice")
        let bob = try await client("bob")
        var ringing: [Double] = []
        var firstFrame: [Double] = []
        var incoming = bob.incoming.events.makeAsyncIterator()
        for index in 0 ..< count {
            let dialed = ContinuousClock.now
            let call = try await alice.dial("bob", video: true)
            guard let answer = await incoming.next() else { break }
            ringing.append(milliseconds(ContinuousClock.now - dialed))

            let (frames, frameSeen) = AsyncStream<ContinuousClock.Instant>.makeStream()
            let aliceControl = LiveMeetingControl(), bobControl = LiveMeetingControl()
            let aliceMedia = Task { try await CallMediaSession.run(call, control: aliceControl) { frameSeen.yield($0) } }
            let accepted = ContinuousClock.now
            await answer.accept()
            let bobMedia = Task { try await CallMediaSession.run(answer, control: bobControl) }
            var frameIterator = frames.makeAsyncIterator()
            if let seen = await frameIterator.next() { firstFrame.append(milliseconds(seen - accepted)) }
            await call.end()
            _ = try await aliceMedia.value
            _ = try await bobMedia.value
            FileHandle.standardError.write(Data("call \(index + 1)/\(count): ringing \(ringing.last ?? 0) ms, first frame \(firstFrame.last ?? 0) ms\n".utf8))
        }
        await alice.stop()
        await bob.stop()
        let report: [String: Any] = [
            "calls": ringing.count,
            "dialToRingingMs": ["p50": percentile(ringing, 0.5), "p95": percentile(ringing, 0.95)],
            "acceptToFirstFrameMs": ["p50": percentile(firstFrame, 0.5), "p95": percentile(firstFrame, 0.95)],
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return (sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))] * 10).rounded() / 10
    }
}
