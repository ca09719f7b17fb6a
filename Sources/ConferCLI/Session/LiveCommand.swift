import ArgumentParser
import ConferJobs
import ConferSession
import ConferTokens
import Foundation
import Synchronization

/// `confer live`: a whole live meeting on loopback, every member its own process.
struct LiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Run a live meeting on loopback: a signaling server, a host and participants, each its own process.",
        discussion: """
        Starts `confer serve` on a free loopback port, mints tokens, starts `confer host --approve all` and \
        `confer join` for each participant, and prints what happens: join requests and approvals, then every \
        member's live figures once a second (frames per second and resolution received, audio packets per second \
        both ways, bytes). Participant 1 writes the composite it receives and the mix it plays; everyone's \
        report is gathered into one JSON file. Real sockets, real SRTP, the wall clock: use a release build \
        (a debug build cannot keep real time on two cores).
          confer live --participants 3 --duration 10
        """)

    @Option(help: "Participants besides the host.")
    var participants = 3
    @Option(help: "Seconds the participants stay.")
    var duration = 10.0
    @Option(help: "The composite's codec: vp8, vp9 or h264.")
    var codec: VideoCodec = .vp8
    @Option(name: .shortAndLong, help: "Participant 1's composite (.ivf/.h264 as received, .y4m as rendered).")
    var output = "/tmp/confer-live/composite.ivf"
    @Option(help: "Participant 1's mix (.wav).")
    var audioOut = "/tmp/confer-live/mix.wav"
    @Option(help: "Where the gathered report goes.")
    var report = "/tmp/confer-live/report.json"
    @Flag(help: "Print the gathered report as JSON on stdout instead of a summary.")
    var json = false
    @Flag(help: "Print one JSON object per line on stdout: the server, the host's events, everyone's figures each second, then the gathered report (instead of --json).")
    var events = false

    func validate() throws {
        if events && json { throw ValidationError("--events ends with the gathered report as its last line; leave out --json") }
        if !(1 ... 8).contains(participants) { throw ValidationError("--participants must be 1…8") }
        if !(duration >= 2 && duration <= 600) { throw ValidationError("--duration must be 2…600 seconds") }
    }

    static let names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]

    func run() async throws {
        // A bare name ("-o composite.ivf") lives in the working directory.
        func folder(of path: String) -> String {
            let parent = (path as NSString).deletingLastPathComponent
            return parent.isEmpty ? "." : parent
        }
        let directory = folder(of: report)
        for path in [output, audioOut, report] {
            do {
                try FileManager.default.createDirectory(atPath: folder(of: path), withIntermediateDirectories: true)
            } catch {
                throw JobError(.io, "cannot make the folder for \(path): \(error.localizedDescription)")
            }
        }
        let json = json
        let printer = EventPrinter(json: events, quiet: true)
        let note: @Sendable (String) -> Void = { text in if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) } }
        let secret = (0 ..< 32).map { _ in String(UInt8.random(in: 0 ... 15), radix: 16) }.joined()
        let admin = (0 ..< 16).map { _ in String(UInt8.random(in: 0 ... 15), radix: 16) }.joined()
        let url = Mutex<String?>(nil)
        // The demo places no calls: its call log stays in memory, leaving no file behind.
        let server = try ChildProcess(name: "serve", arguments: ["serve", "--listen", "127.0.0.1:0", "--secret", secret, "--admin-token", admin,
                                                                 "--memory-db"]) { line in
            url.withLock { if $0 == nil { $0 = line } }
        }
        defer { server.signal(SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(20)
        while url.withLock({ $0 }) == nil, ContinuousClock.now < deadline, server.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        guard let serverURL = url.withLock({ $0 }) else {
            // A failure, not a wrong option: status 1, not ValidationError's 64.
            printError("Error: the server did not start: \(server.stderr)")
            throw ExitCode.failure
        }
        note("server    \(serverURL)")
        printer.print("server", ["url": serverURL])

        let issuer = try await TokenIssuer(secret: secret)
        func token(_ identity: String, _ role: MemberRole) async -> String {
            await issuer.sign(TokenClaims(identity: identity, room: "live", role: role, notBefore: SessionTime.now(), lifetime: .seconds(3600)))
        }
        let figures = Mutex<[String: ConnectInfo]>([:])
        let hostReport = directory + "/host.json"
        let host = try ChildProcess(name: "host", arguments: ["host", "--server", serverURL, "--token", await token("host", .host),
                                                              "--approve", "all", "--codec", codec.rawValue, "--events", "--report", hostReport]) { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let event = object["event"] as? String else { return }
            // The host's own events go on as they came, said to be the host's; its members'
            // figures go into the `second` events instead.
            if event != "memberConnectInfo" {
                var relayed = object
                relayed["from"] = "host"
                relayed.removeValue(forKey: "event")
                printer.print(event, relayed)
            }
            switch event {
            case "joinRequested":
                let identity = (object["data"] as? [String: Any])?["identity"] as? String ?? "?"
                note("host      \(identity) asks to join")
            case "joinRequestEnded":
                note("host      \(object["identity"] as? String ?? "?"): \(object["outcome"] as? String ?? "?")")
            case "memberLeft":
                note("host      \(object["identity"] as? String ?? "?") left (\(object["reason"] as? String ?? "?"))")
            case "memberConnectInfo":
                guard let identity = object["identity"] as? String, let info = object["info"],
                      let data = try? JSONSerialization.data(withJSONObject: info),
                      let decoded = try? JSONDecoder().decode(ConnectInfo.self, from: data) else { return }
                figures.withLock { $0[identity] = decoded }
            default: break
            }
        }
        defer { host.signal(SIGKILL) }
        try await Task.sleep(for: .milliseconds(500))

        var members: [(String, ChildProcess, String)] = []
        for index in 0 ..< participants {
            let name = Self.names[index]
            let memberReport = directory + "/\(name).json"
            var arguments = ["join", "--server", serverURL, "--token", await token(name, .participant), "--duration", "\(duration)",
                             "--report", memberReport, "--quiet"]
            if index == 0 { arguments += ["-o", output, "--audio-out", audioOut] }
            members.append((name, try ChildProcess(name: name, arguments: arguments) { _ in }, memberReport))
        }

        let started = ContinuousClock.now
        var lastPrinted = 0
        while members.contains(where: { $0.1.isRunning }) {
            try await Task.sleep(for: .milliseconds(250))
            let second = Int((ContinuousClock.now - started).components.seconds)
            guard second > lastPrinted else { continue }
            lastPrinted = second
            let now = figures.withLock { $0 }
            guard !now.isEmpty else { continue }
            printer.print("second", ["second": second, "members": EventPrinter.encoded(now)])
            note(String(format: "t=%3ds    ", second) + now.keys.sorted().map { identity in
                let info = now[identity]!
                return "\(identity) \(fixed(info.receiveFrameRate, 0)) fps \(info.receiveWidth)x\(info.receiveHeight), audio \(fixed(info.audioPacketsSentPerSecond, 0))↑/\(fixed(info.audioPacketsReceivedPerSecond, 0))↓ pkt/s"
            }.joined(separator: " | "))
        }
        var statuses: [String: Int32] = [:]
        for (name, process, _) in members {
            statuses[name] = await process.wait(timeout: 30)
            if statuses[name] != 0 { FileHandle.standardError.write(Data("\(name) failed:\n\(process.stderr)\n".utf8)) }
        }
        host.signal(SIGINT)
        _ = await host.wait(timeout: 10)
        server.signal(SIGTERM)
        _ = await server.wait(timeout: 10)

        var gathered: [String: Any] = ["server": serverURL, "codec": codec.rawValue, "duration": duration, "composite": output, "mix": audioOut]
        var rows = [["member", "slot", "recv fps", "recv size", "frames in", "frames out", "audio in", "audio out", "status"]]
        for (name, _, path) in [("host", host, hostReport)] + members.map({ ($0.0, $0.1, $0.2) }) {
            guard let data = FileManager.default.contents(atPath: path),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
            gathered[name] = object
            let media = object["media"] as? [String: Any] ?? [:]
            let info = media["connectInfo"] as? [String: Any] ?? [:]
            rows.append([name, "\(object["slot"] as? Int ?? 0)", fixed(info["receiveFrameRate"] as? Double ?? 0),
                         "\(info["receiveWidth"] as? Int ?? 0)x\(info["receiveHeight"] as? Int ?? 0)", "\(media["framesReceived"] as? Int ?? 0)",
                         "\(media["framesSent"] as? Int ?? 0)", "\(media["audioPacketsReceived"] as? Int ?? 0)",
                         "\(media["audioPacketsSent"] as? Int ?? 0)", name == "host" ? "-" : "\(statuses[name] ?? -1)"])
        }
        let data = try JSONSerialization.data(withJSONObject: gathered, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: report))
        if events {
            printer.print("ended", ["statuses": statuses, "report": gathered])
        } else if json {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else {
            print(table(rows).joined(separator: "\n"))
            print("composite \(output), mix \(audioOut), report \(report)")
        }
        if statuses.values.contains(where: { $0 != 0 }) { throw ExitCode.failure }
    }
}
