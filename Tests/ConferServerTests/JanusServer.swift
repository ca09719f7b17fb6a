import Foundation
import Testing

/// Janus (Debian's `janus`) with only its streaming plugin and its HTTP transport, on a port
/// of its own, in a folder of its own; its API spoken through curl. The reference SFU for
/// fanning a composite out (DESIGN.md, "Beyond one machine").
final class JanusServer {
    /// Whether Janus with its streaming plugin, its recording converter and curl are
    /// installed (Scripts/install-deps).
    static let isInstalled = libraries != nil && ["janus", "janus-pp-rec", "curl"].allSatisfy { name in
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }
    /// Where Debian puts Janus's plugins on this machine's architecture.
    static let libraries = ["x86_64-linux-gnu", "aarch64-linux-gnu"].map { "/usr/lib/\($0)/janus" }
        .first { FileManager.default.fileExists(atPath: "\($0)/plugins/libjanus_streaming.so") }

    let directory: String
    let url: String
    private let process: ConferProcess
    private var session: UInt64 = 0
    private var handle: UInt64 = 0

    /// Starts Janus configured in `directory` and attaches to its streaming plugin.
    init(directory: String) async throws {
        self.directory = directory
        let libraries = try #require(Self.libraries, "Janus's streaming plugin is installed")
        let port = try Self.freeTCPPort()
        url = "http://127.0.0.1:\(port)/janus"
        let disabled = ["audiobridge", "duktape", "echotest", "lua", "nosip", "recordplay", "sip", "textroom", "videocall",
                        "videoroom", "voicemail"].map { "libjanus_\($0).so" }.joined(separator: ",")
        let files = [
            "janus.jcfg": """
                general: {
                    configs_folder = "\(directory)"
                    plugins_folder = "\(libraries)/plugins"
                    transports_folder = "\(libraries)/transports"
                    events_folder = "\(libraries)/events"
                    loggers_folder = "\(libraries)/loggers"
                    debug_level = 3
                }
                plugins: { disable = "\(disabled)" }
                transports: { disable = "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so,libjanus_websockets.so" }
                events: { broadcast = false }
                """,
            "janus.transport.http.jcfg": """
                general: { json = "compact", base_path = "/janus", http = true, port = \(port), ip = "127.0.0.1", https = false }
                admin: { admin_http = false }
                """,
            "janus.plugin.streaming.jcfg": "general: { }\n",
        ]
        for (name, text) in files { try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8) }
        process = try ConferProcess(executable: "/usr/bin/janus", ["-F", directory, "-C", "\(directory)/janus.jcfg", "-o"])
        var info: [String: Any]?
        for _ in 0 ..< 100 where info == nil {
            info = try? await Self.post(url + "/info", nil, method: "GET")
            if info == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(info?["janus"] as? String == "server_info", "Janus answers at \(url): \(process.stdout.suffix(2000))")
        session = try #require(((try await request(url, ["janus": "create"]))["data"] as? [String: Any])?["id"] as? UInt64)
        handle = try #require(((try await request("\(url)/\(session)", ["janus": "attach", "plugin": "janus.plugin.streaming"]))["data"]
                as? [String: Any])?["id"] as? UInt64)
    }

    /// Sends `body` to the streaming plugin; its reply's plugin data.
    func streaming(_ body: [String: Any]) async throws -> [String: Any] {
        let reply = try await request("\(url)/\(session)/\(handle)", ["janus": "message", "body": body])
        return try #require((reply["plugindata"] as? [String: Any])?["data"] as? [String: Any], "\(reply)")
    }

    /// Whether `Scripts/janus-viewer` can run: Debian's python3 with aiortc (Scripts/install-deps).
    static let hasViewer: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import aiortc"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// The repository's `Scripts/janus-viewer`: a WebRTC viewer (aiortc) of a mountpoint.
    static let viewerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/janus-viewer").path

    /// Watches `mountpoint` over WebRTC, as a browser would, for `seconds` after answering
    /// Janus's offer: what the viewer decoded (frames, firstFrameSeconds, sizes, audioFrames),
    /// with the last picture written to `y4m`.
    func watch(_ mountpoint: Int, seconds: Double, y4m: String) async throws -> [String: Any] {
        let viewer = try ConferProcess(executable: Self.viewerScript, [url, "\(mountpoint)", "\(seconds)", "--y4m", y4m])
        let status = await viewer.exitStatus(timeout: seconds + 30)
        #expect(status == 0, "janus-viewer: \(viewer.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(viewer.stdout.utf8)) as? [String: Any], "\(viewer.stdout)")
    }

    /// Stops Janus: its session ended first, then a SIGINT; killed if it lingers (what it
    /// recorded is on disk once a recording is stopped).
    func stop() async {
        _ = try? await request("\(url)/\(session)", ["janus": "destroy"])
        process.signal(SIGINT)
        if !(await process.wait(upTo: 5) { !$0.isRunning }) { process.signal(SIGKILL) }
    }

    private func request(_ url: String, _ body: [String: Any]) async throws -> [String: Any] {
        var body = body
        body["transaction"] = UUID().uuidString
        return try await Self.post(url, body, method: "POST")
    }

    private static func post(_ url: String, _ body: [String: Any]?, method: String) async throws -> [String: Any] {
        var arguments = ["-s", "--max-time", "5", "-X", method, url]
        if let body { arguments += ["-d", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)] }
        let curl = try ConferProcess(executable: "/usr/bin/curl", arguments)
        _ = await curl.exitStatus(timeout: 10)
        return try #require(try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [String: Any], "\(url): \(curl.stdout)")
    }

    /// A TCP port nothing listens on now (bound, read, closed: Janus takes it a moment later).
    static func freeTCPPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        guard let port = bindToLoopback(descriptor) else { throw POSIXError(.EADDRINUSE) }
        return port
    }
}
