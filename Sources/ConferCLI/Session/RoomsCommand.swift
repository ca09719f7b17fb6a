import ArgumentParser
import ConferClient
import ConferSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `confer rooms`: the admin API from the command line.
struct RoomsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rooms",
        abstract: "List, inspect and manage a server's rooms through its admin API.",
        discussion: """
          confer rooms list --server http://127.0.0.1:7880 --admin-token T
          confer rooms create standup --name "Daily standup" --member-limit 8 --server … --admin-token T
          confer rooms show standup --server … --admin-token T --json
          confer rooms watch standup --server … --admin-token T --interval 2
          confer rooms role standup carol observer --server … --admin-token T
          confer rooms kick standup bob --server … --admin-token T
        """,
        subcommands: [List.self, Create.self, Show.self, Watch.self, Kick.self, Role.self, Close.self, Say.self])

    struct Connection: ParsableArguments {
        @Option(help: "The server's URL (as `confer serve` printed it).")
        var server: String
        @Option(help: "The server's admin token.")
        var adminToken: String
        @Flag(help: "Print the server's JSON instead of a summary.")
        var json = false

        /// Sends one request; returns the body, or throws with the server's message.
        func request(_ method: String, _ path: String, body: [String: Any]? = nil) async throws -> Data {
            var base = server
            while base.hasSuffix("/") { base.removeLast() }
            guard let url = URL(string: base + path), url.scheme == "http" || url.scheme == "https" else {
                throw ValidationError("--server must be an http:// or https:// URL (got \(server))")
            }
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let data: Data
            let response: URLResponse
            do { (data, response) = try await URLSession.shared.data(for: request) } catch {
                throw RoomsError(message: "cannot reach \(base): \(error.localizedDescription) (is `confer serve` running?)")
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200 ..< 300).contains(status) else {
                let message = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["message"] as? String
                throw RoomsError(message: "the server answered \(status): \(message ?? String(decoding: data, as: UTF8.self))")
            }
            return data
        }

        /// Sends a request that answers with no body, then says `done` unless printing JSON.
        func act(_ method: String, _ path: String, body: [String: Any]? = nil, done: String) async throws {
            _ = try await request(method, path, body: body)
            if !json { print(done) }
        }

        func printJSON(_ data: Data) {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }

    struct RoomsError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List open rooms.")
        @OptionGroup var connection: Connection

        func run() async throws {
            let data = try await connection.request("GET", "/v1/rooms")
            if connection.json { return connection.printJSON(data) }
            let rooms = try JSONDecoder().decode([RoomSummaryRow].self, from: data)
            if rooms.isEmpty { return print("no open rooms") }
            print(table([["room", "host", "members", "online", "waiting"]]
                + rooms.map { [$0.room.id, $0.host ?? "-", "\($0.members)", "\($0.online)", "\($0.waiting)"] }).joined(separator: "\n"))
        }
    }

    struct RoomSummaryRow: Decodable {
        var room: RoomInfo
        var host: String?
        var members: Int
        var online: Int
        var waiting: Int
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a room's members and their live figures.")
        @Argument(help: "The room.") var room: String
        @OptionGroup var connection: Connection

        func run() async throws {
            let data = try await connection.request("GET", "/v1/rooms/\(Self.escape(room))")
            if connection.json { return connection.printJSON(data) }
            print(Self.lines(try JSONDecoder().decode(RoomSnapshot.self, from: data)).joined(separator: "\n"))
        }

        /// The room for people: a line about the room, then a row per member with its figures.
        static func lines(_ snapshot: RoomSnapshot) -> [String] {
            ["room \(snapshot.room.id) (\(snapshot.room.name)), host \(snapshot.host ?? "none"), \(snapshot.members.count) members, "
                + "\(snapshot.joinRequests.count) waiting"]
            + table([["member", "role", "online", "mic", "cam", "recv fps", "recv size", "send fps", "audio pkt/s in", "lost"]]
                + snapshot.members.map { m in
                    let info = m.connectInfo
                    // An observer sends nothing: its devices are not off, they are not there.
                    let device = { (on: Bool) in m.role.sends ? (on ? "on" : "off") : "-" }
                    return [m.identity, m.role.rawValue, m.online ? "yes" : "no", device(m.devices.microphone),
                            device(m.devices.camera), info.map { fixed($0.receiveFrameRate) } ?? "-",
                            info.map { "\($0.receiveWidth)x\($0.receiveHeight)" } ?? "-", info.map { fixed($0.sendFrameRate) } ?? "-",
                            info.map { fixed($0.audioPacketsReceivedPerSecond) } ?? "-", info.map { "\($0.packetsLost)" } ?? "-"]
                })
        }

        static func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? text }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a room's members and their live figures as they change, until Ctrl-C or the room closes.",
            discussion: """
            The server sends the room at once and again at every change (its admin WebSocket, /v1/rooms/ROOM/watch); \
            the newest state is printed at most once per --interval seconds, for people only when what the table \
            shows changed. With --json, one line of the server's JSON per update, stamped with `t` (seconds since \
            the start). Exits 0 when the room closes, 4 when the server shuts down or the connection drops.
            """)
        @Argument(help: "The room.") var room: String
        @Option(help: "Seconds between two updates at the least (changes in between show as the newest).") var interval = 1.0
        @Option(help: "Stop after this many updates (default: until Ctrl-C or the room closes).") var count: Int?
        @Option(help: "PEM certificates to trust for an https:// server (a self-signed one).") var trust: String?
        @OptionGroup var connection: Connection

        func validate() throws {
            if !(interval >= 0.1 && interval <= 3600) { throw ValidationError("--interval is between 0.1 and 3600 seconds") }
            if let count, count < 1 { throw ValidationError("--count is 1 or more") }
        }

        func run() async throws {
            let watch: RoomWatch
            do { watch = try RoomWatch(server: connection.server, adminToken: connection.adminToken, room: room, trustedCertificates: trust) } catch {
                throw ValidationError("\(error)")
            }
            let start = ContinuousClock.now
            var updates = 0
            var shown: [String] = []
            let snapshots = watch.snapshots()
            let printing = Task {
                for try await snapshot in snapshots {
                    let printed = ContinuousClock.now
                    updates += 1
                    let since = ContinuousClock.now - start
                    let elapsed = Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18
                    if connection.json {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys]
                        var object = (try? JSONSerialization.jsonObject(with: encoder.encode(snapshot)) as? [String: Any]) ?? [:]
                        object["t"] = (elapsed * 1000).rounded() / 1000
                        if let line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) { connection.printJSON(line) }
                    } else {
                        let lines = Show.lines(snapshot)
                        if lines != shown {
                            shown = lines
                            print((["[\(String(format: "%6.1f", elapsed)) s]"] + lines).joined(separator: "\n") + "\n")
                        }
                    }
                    if let count, updates >= count { return }
                    // At most one update per interval: what comes meanwhile folds into the newest,
                    // which the stream keeps for the next look.
                    try? await Task.sleep(until: printed + .milliseconds(Int64(interval * 1000)))
                }
                // Ctrl-C ends the sequence too, and is no closing of the room.
                guard !Task.isCancelled else { return }
                FileHandle.standardError.write(Data("confer: \(room) has closed\n".utf8))
            }
            let interrupt = Task {
                await InterruptSignal.wait()
                printing.cancel()
            }
            defer { interrupt.cancel() }
            do {
                try await printing.value
            } catch is CancellationError {
                return
            } catch let error as RoomWatchError {
                switch error {
                case .connectionLost, .serverShutdown:
                    FileHandle.standardError.write(Data("confer: the watch of \(room) ended: \(error)\n".utf8))
                    throw ExitCode(4)
                default:
                    throw RoomsError(message: "\(error)")
                }
            }
        }
    }

    struct Kick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member from a room.")
        @Argument(help: "The room.") var room: String
        @Argument(help: "The member's identity.") var identity: String
        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.act("DELETE", "/v1/rooms/\(Show.escape(room))/members/\(Show.escape(identity))", done: "kicked \(identity) from \(room)")
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a room, ending every member's session.")
        @Argument(help: "The room.") var room: String
        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.act("DELETE", "/v1/rooms/\(Show.escape(room))", done: "closed \(room)")
        }
    }

    struct Say: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a message from the server to everyone in a room (or to some members).")
        @Argument(help: "The room.") var room: String
        @Argument(help: "The text.") var text: String
        @Option(help: "Only to these members: ID,ID,…")
        var to: String?
        @OptionGroup var connection: Connection

        var recipients: [String]? {
            to.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }

        func validate() throws {
            if let recipients, recipients.isEmpty { throw ValidationError("--to names members: ID,ID,…") }
        }

        func run() async throws {
            var body: [String: Any] = ["text": text]
            if let recipients { body["to"] = recipients }
            try await connection.act("POST", "/v1/rooms/\(Show.escape(room))/messages", body: body,
                                     done: "sent to \(recipients?.joined(separator: ", ") ?? room)")
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a room ahead of its members.",
            discussion: "The room waits for a first member as long as `confer serve --unused-timeout` says (30 s by default).")
        @Argument(help: "The room's id (what tokens name with --room).") var room: String
        @Option(help: "Its display name.") var name: String?
        @Option(help: "What it is for.") var description: String?
        @Option(help: "The most sending members (host and participants) it takes.") var memberLimit: Int?
        @OptionGroup var connection: Connection

        func validate() throws {
            if room.isEmpty || room.utf8.count > 256 { throw ValidationError("a room's id is 1 to 256 bytes") }
            if let memberLimit, memberLimit < 1 { throw ValidationError("--member-limit is 1 or more") }
        }

        func run() async throws {
            var body: [String: Any] = ["id": room]
            if let name { body["name"] = name }
            if let description { body["description"] = description }
            if let memberLimit { body["memberLimit"] = memberLimit }
            let data = try await connection.request("POST", "/v1/rooms", body: body)
            if connection.json { return connection.printJSON(data) }
            print("opened \(room)" + (memberLimit.map { " for at most \($0) sending members" } ?? ""))
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a member's role: host (a participant only), participant or observer.")
        @Argument(help: "The room.") var room: String
        @Argument(help: "The member's identity.") var identity: String
        @Argument(help: "The new role.") var role: MemberRole
        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.act("PUT", "/v1/rooms/\(Show.escape(room))/members/\(Show.escape(identity))/role",
                                     body: ["role": role.rawValue], done: "\(identity) is now \(role.rawValue) in \(room)")
        }
    }
}
