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
/// Every other call has bob behind a NAT: he announces an address where nothing answers
/// (his inside one), so alice reaches him only by moving to where his authenticated
/// datagrams come from (ConferNet's `MediaConsent`). Both kinds alternate in one run, so
/// the difference between them is the cost of that move.
///
/// While each call runs, carol dials bob too and is told at once that he is busy
/// (``SessionRefusal/calleeBusy``): dial → refusal is the time a second caller waits, where a
/// server that rang bob through his call would keep carol waiting for the ringing timeout.
///
///     CallLatency --server http://127.0.0.1:7880 --secret S [--calls 20]   # 20 of each
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
        let carol = try await client("carol")
        var busy: [Double] = []
        var ringing: [Double] = []
        var firstFrame: [Double] = []
        var firstFrameBehindNAT: [Double] = []
        var moves = 0
        var incoming = bob.incoming.events.makeAsyncIterator()
        // Bob's inside address behind the NAT: a port whose socket nobody reads.
        let (inside, insidePort) = try LoopbackSocket.bind()
        defer { close(inside) }
        for index in 0 ..< 2 * count {
            let behindNAT = index % 2 == 1
            let dialed = ContinuousClock.now
            let call = try await alice.dial("bob", video: true)
            guard let answer = await incoming.next() else { break }
            ringing.append(milliseconds(ContinuousClock.now - dialed))

            let (frames, frameSeen) = AsyncStream<ContinuousClock.Instant>.makeStream()
            let aliceControl = LiveMeetingControl(), bobControl = LiveMeetingControl()
            let aliceMedia = Task { try await CallMediaSession.run(call, control: aliceControl) { frameSeen.yield($0) } }
            var bobOptions = CallMediaOptions()
            if behindNAT { bobOptions.announcedAddress = AnnouncedMediaAddress(host: "127.0.0.1", port: insidePort) }
            let accepted = ContinuousClock.now
            await answer.accept()
            let bobMedia = Task { [bobOptions] in try await CallMediaSession.run(answer, options: bobOptions, control: bobControl) }
            var frameIterator = frames.makeAsyncIterator()
            if let seen = await frameIterator.next() {
                let elapsed = milliseconds(seen - accepted)
                if behindNAT { firstFrameBehindNAT.append(elapsed) } else { firstFrame.append(elapsed) }
            }
            let dialedBusy = ContinuousClock.now
            do {
                _ = try await carol.dial("bob", video: true)
                arguments.fail("carol's dial rang bob in the middle of his call: is the server running with --ring-through-calls?")
            } catch CallClientError.refused(.calleeBusy) {
                busy.append(milliseconds(ContinuousClock.now - dialedBusy))
            }
            await call.end()
            moves += try await aliceMedia.value.peerMoves
            _ = try await bobMedia.value
            let last = (behindNAT ? firstFrameBehindNAT.last : firstFrame.last) ?? 0
            FileHandle.standardError.write(Data("call \(index + 1)/\(2 * count)\(behindNAT ? " (callee behind a NAT)" : ""): ringing \(ringing.last ?? 0) ms, first frame \(last) ms\n".utf8))
        }
        await alice.stop()
        await bob.stop()
        await carol.stop()
        let report: [String: Any] = [
            "calls": ringing.count,
            "dialToRingingMs": ["p50": percentile(ringing, 0.5), "p95": percentile(ringing, 0.95)],
            "acceptToFirstFrameMs": ["p50": percentile(firstFrame, 0.5), "p95": percentile(firstFrame, 0.95)],
            "acceptToFirstFrameCalleeBehindNATMs": ["p50": percentile(firstFrameBehindNAT, 0.5), "p95": percentile(firstFrameBehindNAT, 0.95)],
            "callerMovesBehindNAT": moves,
            "dialToBusyMs": ["p50": percentile(busy, 0.5), "p95": percentile(busy, 0.95)],
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
