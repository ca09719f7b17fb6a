@testable import ConferServer
import Hummingbird
import Logging
import Synchronization
import Testing
import WSClient

/// A WebSocket the server upgraded lets go of what it held once it closed. Through
/// hummingbird-websocket's router every upgrade's request context stayed in a reference cycle
/// with its handler, and with them the connection's logger: 0.63 MB of heap a thousand joins,
/// never given back (`Benchmarks/peers/signal-load.sh` with `ROUNDS`, under heaptrack).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WebSocketReleaseTests {
    /// Counts the metadata storages alive: each logger given metadata of its own (the server
    /// gives every connection one, with its request id) holds one until the last copy goes.
    final class LiveCount: Sendable {
        let value = Atomic(0)
    }

    /// A log handler whose metadata lives in an object that counts itself, so the test can
    /// tell how many loggers with metadata of their own something still holds.
    struct CountingLogHandler: LogHandler {
        final class Storage: Sendable {
            let metadata: Logger.Metadata
            let count: LiveCount
            init(_ metadata: Logger.Metadata, count: LiveCount) {
                self.metadata = metadata
                self.count = count
                count.value.add(1, ordering: .relaxed)
            }
            deinit { count.value.subtract(1, ordering: .relaxed) }
        }

        private var storage: Storage
        var logLevel = Logger.Level.critical

        init(count: LiveCount) { storage = Storage([:], count: count) }

        var metadata: Logger.Metadata {
            get { storage.metadata }
            set { storage = Storage(newValue, count: storage.count) }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { storage.metadata[key] }
            set {
                var metadata = storage.metadata
                metadata[key] = newValue
                self.metadata = metadata
            }
        }

        func log(event: LogEvent) {}
    }

    @Test func theUpgradePathNamesTheWebSocket() {
        #expect(WebSocketRoute(path: "/v1/signal") == .signal)
        #expect(WebSocketRoute(path: "/v1/signal/") == .signal)
        #expect(WebSocketRoute(path: "/v1/signal?x=1") == .signal)
        #expect(WebSocketRoute(path: "/v1/calls") == .calls)
        #expect(WebSocketRoute(path: "/v1/rooms/stand%20up/watch") == .watch(room: "stand up"))
        #expect(WebSocketRoute(path: "/v1/rooms/r%C3%A9union/watch") == .watch(room: "réunion"))
        // What does not decode is the room's name as written, as the admin API's routes take it.
        #expect(WebSocketRoute(path: "/v1/rooms/%ZZ/watch") == .watch(room: "%ZZ"))
        #expect(WebSocketRoute(path: "/v1/rooms/%/watch") == .watch(room: "%"))
        #expect(WebSocketRoute(path: "/v1/signal#x") == .signal)
        #expect(WebSocketRoute(path: "/v1/" + String(repeating: "a/", count: 50_000) + "signal") == nil)
        for other in ["", "/", "/v1", "/v1/signals", "/v2/signal", "/v1/rooms/watch", "/v1/rooms//watch", "/v1/rooms/a/b/watch",
                      "/V1/signal", "/healthz", "/v1/rooms/r"] {
            #expect(WebSocketRoute(path: other) == nil, "\(other)")
        }
    }

    @Test func closedWebSocketsLeaveNothingBehind() async throws {
        let live = LiveCount()
        let logger = Logger(label: "confer.test") { _ in CountingLogHandler(count: live) }
        var configuration = SignalServerConfiguration(secret: String(repeating: "k", count: 32))
        configuration.port = 0
        configuration.adminToken = "admin"
        let server = try await SignalServer(configuration: configuration, logger: logger)
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let application = try server.buildApplication(onListening: { listening.yield($0) })
        let running = Task { try await application.runService() }
        var portIterator = ports.makeAsyncIterator()
        let port = try #require(await portIterator.next())

        var quiet = Logger(label: "test.client")
        quiet.logLevel = .critical
        /// Opens a WebSocket at `path` and closes it at once (the watch after its first message).
        func openAndClose(_ path: String) async throws {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", configuration: .init(maxFrameSize: 1 << 20),
                                                  logger: quiet) { _, outbound, _ in
                if path.hasSuffix("/watch") { try await outbound.write(.text(#"{"watch":"r"}"#)) }
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
        /// Waits (up to 5 s) until at most `bound` storages are alive; how many are.
        func settle(atMost bound: Int) async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(5)
            while live.value.load(ordering: .relaxed) > bound, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            return live.value.load(ordering: .relaxed)
        }

        // The first connections make what the server keeps for good (pools, caches): after them, the baseline.
        for _ in 0 ..< 3 { try await openAndClose("/v1/signal") }
        try await Task.sleep(for: .milliseconds(300))
        let baseline = live.value.load(ordering: .relaxed)
        let rounds = 30
        for _ in 0 ..< rounds {
            try await openAndClose("/v1/signal")
            try await openAndClose("/v1/calls")
            try await openAndClose("/v1/rooms/r/watch")
        }
        // A path no WebSocket serves is not upgraded (the client gets no WebSocket), and the
        // server goes on taking the ones it serves.
        await #expect(throws: (any Error).self) { try await openAndClose("/v1/nothing") }
        try await openAndClose("/v1/signal")
        let after = try await settle(atMost: baseline)
        #expect(after <= baseline + 2, "\(after - baseline) loggers of \(3 * rounds) closed WebSockets are still held (baseline \(baseline))")

        running.cancel()
        _ = await running.result
    }
}
