import ConferClient
import ConferSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import ToolSupport

/// How administrators follow a room on one `confer serve`, pushed against polled: `--watchers`
/// watchers follow a room while an administrator posts `--changes` chat lines `--gap-ms` apart
/// (each changes the room). Pushed, each watcher holds the admin WebSocket
/// (`/v1/rooms/ROOM/watch`, ``RoomWatch``); polled, each asks `GET /v1/rooms/ROOM` every
/// `--interval` seconds from a random phase, as `rooms watch` did before. For each watcher and
/// line: the time from the post being sent to the watcher first holding a room with it. Also
/// the server's CPU time per second of each run (utime + stime from /proc) and what it sent.
///
///     RoomWatchLoad --server URL --admin-token T --server-pid PID [--watchers 20] [--changes 100] [--gap-ms 50] [--interval 1]
@main
struct RoomWatchLoad {
    static func main() async throws {
        let arguments = ToolArguments(
            usage: "RoomWatchLoad --server URL --admin-token T [--server-pid PID] [--watchers N] [--changes N] [--gap-ms MS] [--interval S]")
        let server = arguments.required("--server"), admin = arguments.required("--admin-token")
        let watchers = arguments.int("--watchers", default: 20)
        let changes = arguments.int("--changes", default: 100)
        let gap = arguments.double("--gap-ms", default: 50)
        let interval = arguments.double("--interval", default: 1)
        let pid = arguments["--server-pid"].flatMap { Int32($0) }
        let api = AdminAPI(server: server, token: admin)

        var results: [String: Any] = ["watchers": watchers, "changes": changes, "gapMs": gap, "pollIntervalSeconds": interval]
        for mode in ["push", "poll"] {
            let room = "watched-\(mode)"
            try await api.send("POST", "/v1/rooms", ["id": room])
            let seen = Seen()
            let followers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0 ..< watchers {
                        group.addTask {
                            if mode == "push" {
                                guard let watch = try? RoomWatch(server: server, adminToken: admin, room: room) else { return }
                                _ = try? await watch.run { snapshot in seen.record(index, snapshot.messages.map(\.text)) }
                            } else {
                                try? await Task.sleep(for: .milliseconds(Int64(Double.random(in: 0 ..< interval) * 1000)))
                                while !Task.isCancelled {
                                    let asked = ContinuousClock.now
                                    if let data = try? await api.send("GET", "/v1/rooms/\(room)"),
                                       let snapshot = try? JSONDecoder().decode(RoomSnapshot.self, from: data) {
                                        seen.record(index, snapshot.messages.map(\.text), requests: 1)
                                    }
                                    try? await Task.sleep(until: asked + .milliseconds(Int64(interval * 1000)))
                                }
                            }
                        }
                    }
                }
            }
            // Every watcher holds the room before the first change.
            let ready = ContinuousClock.now + .seconds(30)
            while seen.watchersSeen < watchers, ContinuousClock.now < ready { try await Task.sleep(for: .milliseconds(10)) }
            let cpuBefore = pid.map(cpuSeconds) ?? 0
            let start = ContinuousClock.now
            for change in 0 ..< changes {
                let text = "change-\(change)"
                seen.posted(text, at: ContinuousClock.now)
                try await api.send("POST", "/v1/rooms/\(room)/messages", ["text": text])
                try await Task.sleep(until: start + .milliseconds(Int64(gap * Double(change + 1))))
            }
            // Long enough for the slowest poller to look once more.
            let settle = ContinuousClock.now + .milliseconds(Int64(interval * 1000) + 500)
            while seen.complete(changes: changes, watchers: watchers) == false, ContinuousClock.now < settle {
                try await Task.sleep(for: .milliseconds(10))
            }
            let elapsed = (ContinuousClock.now - start).seconds
            let cpu = (pid.map(cpuSeconds) ?? 0) - cpuBefore
            followers.cancel()
            await followers.value
            try await api.send("DELETE", "/v1/rooms/\(room)")
            let latencies = seen.latencies()
            results[mode] = [
                "latencyP50Ms": percentile(latencies, 0.5) * 1000, "latencyP99Ms": percentile(latencies, 0.99) * 1000,
                "seen": latencies.count, "expected": changes * watchers,
                "serverCPUPercent": cpu / elapsed * 100, "seconds": elapsed,
                "snapshotsReceived": seen.snapshots, "requests": seen.requests,
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// The server's user and system CPU time so far, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}

/// The admin HTTP API, one request at a time.
struct AdminAPI: Sendable {
    let server: String
    let token: String

    @discardableResult
    func send(_ method: String, _ path: String, _ body: [String: String]? = nil) async throws -> Data {
        var request = URLRequest(url: URL(string: server + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200 ..< 300).contains(status) else {
            throw AdminAPIError(message: "\(method) \(path): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}

struct AdminAPIError: Error { var message: String }

/// When each line was posted and when each watcher first held a room with it.
final class Seen: Sendable {
    private struct State {
        var posted: [String: ContinuousClock.Instant] = [:]
        var first: [Int: [String: ContinuousClock.Instant]] = [:]
        var snapshots = 0
        var requests = 0
    }
    private let state = Mutex(State())

    func posted(_ text: String, at time: ContinuousClock.Instant) { state.withLock { $0.posted[text] = time } }

    func record(_ watcher: Int, _ texts: [String], requests: Int = 0) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.snapshots += 1
            state.requests += requests
            var first = state.first[watcher] ?? [:]
            for text in texts where first[text] == nil { first[text] = now }
            state.first[watcher] = first
        }
    }

    var watchersSeen: Int { state.withLock { $0.first.count } }
    var snapshots: Int { state.withLock { $0.snapshots } }
    var requests: Int { state.withLock { $0.requests } }

    func complete(changes: Int, watchers: Int) -> Bool { latencies().count >= changes * watchers }

    /// Seconds from each post to each watcher holding it.
    func latencies() -> [Double] {
        state.withLock { state in
            state.first.values.flatMap { first in
                state.posted.compactMap { text, sent in first[text].map { ($0 - sent).seconds } }
            }
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
