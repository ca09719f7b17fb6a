import ConferSession
import ConferTokens
import Foundation
import Logging
import Synchronization
import WSClient
import ToolSupport

/// Load on one `confer serve`: `--rooms` rooms of `--members` members each (one host, which
/// approves every request, and participants) join over real WebSockets, each room chats, and
/// everyone leaves. Reports joins per second, join latency (join sent → admitted, the host's
/// approval round trip included), message fan-out latency (sent → received by each other
/// member) and the server's memory per member (its RSS, from /proc).
///
///     SignalLoad --server http://127.0.0.1:7880 --secret S --server-pid PID [--rooms 100] [--members 10] [--in-flight 16]
@main
struct SignalLoad {
    static func main() async throws {
        let arguments = ToolArguments(usage: "SignalLoad --server URL --secret S [--server-pid PID] [--rooms N] [--members N] [--messages N] [--in-flight N]")
        let server = arguments.required("--server"), secret = arguments.required("--secret")
        let rooms = arguments.int("--rooms", default: 100)
        let perRoom = arguments.int("--members", default: 10)
        let messages = arguments.int("--messages", default: 3)
        let inFlight = arguments.int("--in-flight", default: 16)
        let pid = arguments["--server-pid"].flatMap { Int32($0) }
        let url = server.replacingOccurrences(of: "http://", with: "ws://") + "/v1/signal"
        let issuer = try await TokenIssuer(secret: secret)
        let recorder = Recorder()
        let rssBefore = pid.map(rss) ?? 0

        // Join: every room's host first, then its participants, at most --in-flight joins at once.
        var members: [LoadMember] = []
        for room in 0 ..< rooms {
            for index in 0 ..< perRoom {
                let identity = index == 0 ? "host-\(room)" : "m\(room)-\(index)"
                let claims = TokenClaims(identity: identity, room: "room-\(room)", role: index == 0 ? .host : .participant,
                                         notBefore: SessionTime.now(), lifetime: .seconds(3600))
                members.append(LoadMember(identity: identity, room: "room-\(room)", isHost: index == 0, token: await issuer.sign(claims),
                                          recorder: recorder))
            }
        }
        let joinStart = ContinuousClock.now
        let hosts = members.filter(\.isHost)
        let participants = members.filter { !$0.isHost }
        let (finished, done) = AsyncStream<Void>.makeStream()
        let runners = Task {
            await withTaskGroup(of: Void.self) { group in
                // Hosts first (a room's requests go to its host), then participants with at most
                // --in-flight joins under way, so the figure is the server's, not a connection storm's.
                for member in hosts { group.addTask { await member.run(url: url) } }
                try? await admit(hosts, recorder: recorder)
                for (index, member) in participants.enumerated() {
                    while index - (recorder.admitted - hosts.count) >= inFlight { try? await Task.sleep(for: .milliseconds(1)) }
                    group.addTask { await member.run(url: url) }
                }
                done.yield()
            }
        }
        var waitForLaunch = finished.makeAsyncIterator()
        _ = await waitForLaunch.next()
        try await admit(participants, recorder: recorder)
        let joinSeconds = (ContinuousClock.now - joinStart).seconds
        let rssAfter = pid.map(rss) ?? 0
        let joinLatencies = participants.compactMap { recorder.joinLatency($0.identity) }

        // Fan-out: in each room, the first participant sends; everyone else notes the arrival.
        for round in 0 ..< messages {
            for room in 0 ..< rooms {
                let sender = members[room * perRoom + 1]
                sender.send(.send(to: nil, kind: nil, text: "\(round)"), sentAt: ContinuousClock.now, key: "room-\(room)/\(round)")
            }
            try await Task.sleep(for: .milliseconds(300))
        }
        let expected = rooms * messages * (perRoom - 1)
        let deadline = ContinuousClock.now + .seconds(10)
        while recorder.deliveries < expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let fanOut = recorder.fanOutLatencies

        // Leave.
        let leaveStart = ContinuousClock.now
        for member in members { member.send(.leave) }
        await runners.value
        let leaveSeconds = (ContinuousClock.now - leaveStart).seconds

        let report: [String: Any] = [
            "rooms": rooms, "membersPerRoom": perRoom, "members": members.count, "joinsInFlight": inFlight,
            "joined": recorder.admitted, "joinSeconds": joinSeconds, "joinsPerSecond": Double(recorder.admitted) / joinSeconds,
            "joinP50Milliseconds": percentile(joinLatencies, 0.5), "joinP99Milliseconds": percentile(joinLatencies, 0.99),
            "fanOutDeliveries": fanOut.count, "fanOutExpected": expected,
            "fanOutP50Milliseconds": percentile(fanOut, 0.5), "fanOutP99Milliseconds": percentile(fanOut, 0.99),
            "leaveSeconds": leaveSeconds, "refusals": recorder.refusals,
            "serverRSSBeforeKiB": rssBefore, "serverRSSAfterKiB": rssAfter,
            "serverKiBPerMember": members.isEmpty ? 0 : Double(rssAfter - rssBefore) / Double(members.count),
        ]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Waits until every one of `members` is admitted (at most 60 s).
    static func admit(_ members: [LoadMember], recorder: Recorder) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        for member in members {
            while recorder.joinLatency(member.identity) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    static func rss(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// What every member saw, with the times.
final class Recorder: Sendable {
    private struct State {
        var joinSent: [String: ContinuousClock.Instant] = [:]
        var joined: [String: Double] = [:]
        var sent: [String: ContinuousClock.Instant] = [:]
        var fanOut: [Double] = []
        var refusals: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func joinSent(_ identity: String, at time: ContinuousClock.Instant) { state.withLock { $0.joinSent[identity] = time } }
    func admitted(_ identity: String, at time: ContinuousClock.Instant) {
        state.withLock { state in
            guard state.joined[identity] == nil, let sent = state.joinSent[identity] else { return }
            state.joined[identity] = (time - sent).seconds * 1000
        }
    }
    func joinLatency(_ identity: String) -> Double? { state.withLock { $0.joined[identity] } }
    var admitted: Int { state.withLock { $0.joined.count } }
    func sent(_ key: String, at time: ContinuousClock.Instant) { state.withLock { $0.sent[key] = time } }
    func received(_ key: String, at time: ContinuousClock.Instant) {
        state.withLock { state in
            guard let sent = state.sent[key] else { return }
            state.fanOut.append((time - sent).seconds * 1000)
        }
    }
    var deliveries: Int { state.withLock { $0.fanOut.count } }
    var fanOutLatencies: [Double] { state.withLock { $0.fanOut } }
    func refused(_ reason: SessionRefusal) { state.withLock { $0.refusals[reason.rawValue, default: 0] += 1 } }
    var refusals: [String: Int] { state.withLock { $0.refusals } }
}

/// One member's WebSocket: joins, approves every request if it is the host, notes when it
/// was admitted and when each message arrived.
final class LoadMember: Sendable {
    let identity: String
    let room: String
    let isHost: Bool
    let token: String
    let recorder: Recorder
    private let outgoing: AsyncStream<ClientMessage>.Continuation
    private let stream: AsyncStream<ClientMessage>

    init(identity: String, room: String, isHost: Bool, token: String, recorder: Recorder) {
        self.identity = identity
        self.room = room
        self.isHost = isHost
        self.token = token
        self.recorder = recorder
        (stream, outgoing) = AsyncStream<ClientMessage>.makeStream()
    }

    func send(_ message: ClientMessage, sentAt time: ContinuousClock.Instant? = nil, key: String? = nil) {
        if let time, let key { recorder.sent(key, at: time) }
        outgoing.yield(message)
    }

    func run(url: String) async {
        var logger = Logger(label: "load")
        logger.logLevel = .critical
        let stream = stream, outgoing = outgoing, recorder = recorder, identity = identity, isHost = isHost, room = room
        recorder.joinSent(identity, at: ContinuousClock.now)
        outgoing.yield(.join(token: token, room: room))
        _ = try? await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, writer, _ in
            let reader = Task {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    let now = ContinuousClock.now
                    guard case .text(let text) = message, let decoded = try? SignalCodec.decodeServer(Array(text.utf8)) else { continue }
                    switch decoded {
                    case .joined(let snapshot):
                        recorder.admitted(identity, at: now)
                        // Requests made before the host was in wait in its snapshot.
                        if isHost { for request in snapshot.joinRequests { outgoing.yield(.approve(identity: request.identity)) } }
                    case .event(.joinRequested(let request)) where isHost: outgoing.yield(.approve(identity: request.identity))
                    case .event(.message(let chat)) where chat.from != identity: recorder.received("\(room)/\(chat.text)", at: now)
                    case .refused(_, let reason): recorder.refused(reason)
                    case .disconnected: outgoing.finish()
                    default: break
                    }
                }
                outgoing.finish()
            }
            for await message in stream { try await writer.write(.text(String(decoding: SignalCodec.encode(message), as: UTF8.self))) }
            reader.cancel()
        }
        outgoing.finish()
    }
}
