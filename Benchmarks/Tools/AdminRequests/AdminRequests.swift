import ConferClient
import ConferSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ToolSupport

/// One administrator's requests to `confer serve`'s admin API, one after another: `--requests`
/// requests in turn reading a room (`GET /v1/rooms/ROOM`) and posting a chat line to it, first through ``AdminClient`` (what `confer rooms` runs: over NIO, one
/// connection kept between requests) and then through Foundation's URLSession (what `confer rooms` ran before:
/// libcurl, which keeps the connection open; and again with a session per request, so a
/// connection per request as a command that makes one request has). Prints each client's p50/p99 per
/// request and requests per second, as JSON.
///
///     AdminRequests --server URL --admin-token T [--requests 500] [--trust PEM]
@main
struct AdminRequests {
    static func main() async throws {
        let arguments = ToolArguments(usage: "AdminRequests --server URL --admin-token T [--requests N] [--trust PEM]")
        let server = arguments.required("--server"), token = arguments.required("--admin-token")
        let requests = arguments.int("--requests", default: 500)
        let admin = try AdminClient(server: server, adminToken: token, trustedCertificates: arguments["--trust"])
        let room = "benchmark-\(UInt32.random(in: 0 ... .max))"
        _ = try await admin.createRoom(room, name: "Admin requests")

        var results: [String: Any] = ["requests": requests, "tls": server.hasPrefix("https")]
        results["AdminClient"] = try await measure(requests) { index in
            if index % 2 == 0 { _ = try await admin.room(room) } else { try await admin.send("line \(index)", in: room) }
        }
        if !server.hasPrefix("https") {
            // URLSession on Linux cannot trust a self-signed server, so it runs over http only.
            let session = URLSession(configuration: .ephemeral)
            func call(_ method: String, _ path: String, _ body: Data?, reuse: Bool = true) async throws {
                var request = URLRequest(url: URL(string: server + path)!)
                request.httpMethod = method
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                if let body {
                    request.httpBody = body
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                }
                // A session of its own per request: a fresh connection, as a command that makes one
                // request has. (`Connection: close` left libcurl waiting out its timeout.)
                let fresh = reuse ? session : URLSession(configuration: .ephemeral)
                defer { if !reuse { fresh.finishTasksAndInvalidate() } }
                let (_, response) = try await fresh.data(for: request)
                guard let status = (response as? HTTPURLResponse)?.statusCode, (200 ..< 300).contains(status) else {
                    throw URLError(.badServerResponse)
                }
            }
            let path = "/v1/rooms/\(room)"
            for reuse in [true, false] {
                results[reuse ? "URLSession" : "URLSessionFreshConnection"] = try await measure(requests) { index in
                    if index % 2 == 0 { try await call("GET", path, nil, reuse: reuse) } else {
                        try await call("POST", path + "/messages", try JSONSerialization.data(withJSONObject: ["text": "line \(index)"]),
                                       reuse: reuse)
                    }
                }
            }
        }
        try await admin.closeRoom(room)
        let json = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// Runs `request` `count` times in a row (after 20 unmeasured), and sums up the times.
    @MainActor
    static func measure(_ count: Int, _ request: (Int) async throws -> Void) async throws -> [String: Double] {
        for index in 0 ..< 20 { try await request(index) }
        var milliseconds: [Double] = []
        let start = ContinuousClock.now
        for index in 0 ..< count {
            let begun = ContinuousClock.now
            try await request(index)
            let took = ContinuousClock.now - begun
            milliseconds.append(Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15)
        }
        let total = ContinuousClock.now - start
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        let sorted = milliseconds.sorted()
        func percentile(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))] }
        return ["p50Ms": (percentile(0.5) * 100).rounded() / 100, "p99Ms": (percentile(0.99) * 100).rounded() / 100,
                "requestsPerSecond": (Double(count) / seconds).rounded()]
    }
}
