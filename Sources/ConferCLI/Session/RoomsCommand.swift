import ArgumentParser
import ConferClient
import ConferSession
import Foundation

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
          confer rooms forward standup --video 10.0.0.5:5004 --video-rtcp 10.0.0.5:5005 --server … --admin-token T
        """,
        subcommands: [List.self, Create.self, Show.self, Watch.self, Kick.self, Role.self, Close.self, Say.self, Forward.self])

    struct Connection: ParsableArguments {
        @Option(help: "The server's URL (as `confer serve` printed it).")
        var server: String
        @Option(help: "The server's admin token.")
        var adminToken: String
        @Option(help: "PEM certificates to trust for an https:// server (a self-signed one).")
        var trust: String?
        @Flag(help: "Print the server's JSON instead of a summary.")
        var json = false

        /// Runs `action` on the admin API; a refusal or a failure becomes the message the
        /// command exits with.
        func perform<Value>(_ action: (AdminClient) async throws(AdminError) -> Value) async throws -> Value {
            let client: AdminClient
            do { client = try AdminClient(server: server, adminToken: adminToken, trustedCertificates: trust) } catch {
                throw ValidationError("\(error)")
            }
            do { return try await action(client) } catch {
                // A plain server reads a TLS hello as the start of a request and waits for the rest.
                let hint = error == .timedOut && server.hasPrefix("https://") ? " (does it serve TLS? one started without --cert never answers https://)" : ""
                throw RoomsError(message: "\(error)\(hint)")
            }
        }

        /// Runs an action that answers nothing, then says `done` unless printing JSON.
        func act(done: String, _ action: (AdminClient) async throws(AdminError) -> Void) async throws {
            try await perform(action)
            if !json { print(done) }
        }

        /// `value` as the server's JSON: one line, keys sorted.
        func printJSON(_ value: some Encodable) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            printJSON((try? encoder.encode(value)) ?? Data("null".utf8))
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
            let rooms = try await connection.perform { client throws(AdminError) in try await client.rooms() }
            if connection.json { return connection.printJSON(rooms) }
            if rooms.isEmpty { return print("no open rooms") }
            print(table([["room", "host", "members", "online", "waiting"]]
                + rooms.map { [$0.room.id, $0.host ?? "-", "\($0.members)", "\($0.online)", "\($0.waiting)"] }).joined(separator: "\n"))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a room's members and their live figures.")
        @Argument(help: "The room.") var room: String
        @OptionGroup var connection: Connection

        func run() async throws {
            let snapshot = try await connection.perform { client throws(AdminError) in try await client.room(room) }
            if connection.json { return connection.printJSON(snapshot) }
            print(Self.lines(snapshot).joined(separator: "\n"))
        }

        /// The room for people: a line about the room, then a row per member with its figures.
        static func lines(_ snapshot: RoomSnapshot) -> [String] {
            ["room \(snapshot.room.id) (\(snapshot.room.name)), host \(snapshot.host ?? "none"), \(snapshot.members.count) members, "
                + "\(snapshot.joinRequests.count) waiting"]
            + (snapshot.forward.map { ["forward: " + Forward.describe($0)] } ?? [])
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
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a room's members and their live figures as they change, until Ctrl-C or the room closes.",
            discussion: """
            The server sends the room at once and again at every change (its admin WebSocket, /v1/rooms/ROOM/watch); \
            the newest state is printed at most once per --interval seconds, for people only when what the table \
            shows changed. With --json, one line of the server's JSON per update, stamped with `t` (seconds since \
            the start). With --wait, a room not open yet is waited for (looked for once a second). Exits 0 when \
            the room closes, 4 when the server shuts down or the connection drops.
            """)
        @Argument(help: "The room.") var room: String
        @Option(help: "Seconds between two updates at the least (changes in between show as the newest).") var interval = 1.0
        @Option(help: "Stop after this many updates (default: until Ctrl-C or the room closes).") var count: Int?
        @Flag(help: "If the room is not open yet, wait for it to open instead of exiting.") var wait = false
        @OptionGroup var connection: Connection

        func validate() throws {
            if !(interval >= 0.1 && interval <= 3600) { throw ValidationError("--interval is between 0.1 and 3600 seconds") }
            if let count, count < 1 { throw ValidationError("--count is 1 or more") }
        }

        func run() async throws {
            let watch: RoomWatch
            do { watch = try RoomWatch(server: connection.server, adminToken: connection.adminToken, room: room, trustedCertificates: connection.trust) } catch {
                throw ValidationError("\(error)")
            }
            let start = ContinuousClock.now
            var updates = 0
            var shown: [String] = []
            let printing = Task {
                /// Prints the room's updates until the watch ends (false) or `--count` is reached (true).
                func follow() async throws -> Bool {
                    for try await snapshot in watch.snapshots() {
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
                        if let count, updates >= count { return true }
                        // At most one update per interval: what comes meanwhile folds into the newest,
                        // which the stream keeps for the next look.
                        try? await Task.sleep(until: printed + .milliseconds(Int64(interval * 1000)))
                    }
                    return false
                }
                var waiting = false
                while true {
                    do {
                        if try await follow() { return }
                        break
                    } catch RoomWatchError.unknownRoom where wait && updates == 0 {
                        // Not open yet: look again in a second (Ctrl-C cancels the sleep).
                        if !waiting { FileHandle.standardError.write(Data("confer: waiting for \(room) to open\n".utf8)) }
                        waiting = true
                        try await Task.sleep(for: .seconds(1))
                    }
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
            try await connection.act(done: "kicked \(identity) from \(room)") { client throws(AdminError) in try await client.kick(identity, from: room) }
        }
    }

    struct Forward: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set where a room's host forwards the meeting for an outside audience, or stop it.",
            discussion: """
            Whoever hosts the room sends a plain-RTP copy of the composite (payload type 96) to --video and of \
            the whole mix (Opus, 111) to --audio, as `confer host --forward-video` does, and goes on when the \
            host role moves to another member. The room's setting takes the place of the host's own \
            --forward-* options while it is set. The copy is not encrypted: name addresses on a network you trust.
            """)
        @Argument(help: "The room.") var room: String
        @Option(help: "IP:PORT for the composite's RTP (a Janus mountpoint's video port).") var video: String?
        @Option(help: "IP:PORT of the SFU's RTCP for the composite (Janus: rtcpport).") var videoRtcp: String?
        @Option(help: "IP:PORT for the mix's RTP.") var audio: String?
        @Option(help: "IP:PORT of the SFU's RTCP for the mix; needs --audio.") var audioRtcp: String?
        @Flag(help: "Stop the room's forward.") var stop = false
        @OptionGroup var connection: Connection

        var forward: RoomForward? {
            video.map { RoomForward(video: $0, videoRTCP: videoRtcp, audio: audio, audioRTCP: audioRtcp) }
        }

        func validate() throws {
            if stop {
                if video != nil || videoRtcp != nil || audio != nil || audioRtcp != nil {
                    throw ValidationError("--stop takes no addresses")
                }
                return
            }
            guard let forward else { throw ValidationError("name the composite's address with --video IP:PORT (or --stop)") }
            do throws(RoomForwardError) { try forward.validate() } catch {
                let option = ["video": "--video", "videoRTCP": "--video-rtcp", "audio": "--audio", "audioRTCP": "--audio-rtcp"][error.field] ?? error.field
                throw ValidationError(error.needsAudio ? "\(option) goes with --audio"
                                      : "\(option) must be an IP address and a port, A.B.C.D:PORT or [IPv6]:PORT (got \(error.value))")
            }
        }

        func run() async throws {
            let forward = forward
            try await connection.act(done: forward.map { "\(room) forwards " + Self.describe($0) } ?? "\(room) forwards nothing now") {
                client throws(AdminError) in try await client.setForward(forward, in: room)
            }
        }

        /// Where a forward goes, for people.
        static func describe(_ forward: RoomForward) -> String {
            var parts = ["the composite to \(forward.video)" + (forward.videoRTCP.map { " (RTCP \($0))" } ?? "")]
            if let audio = forward.audio { parts.append("the mix to \(audio)" + (forward.audioRTCP.map { " (RTCP \($0))" } ?? "")) }
            return parts.joined(separator: ", ")
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a room, ending every member's session.")
        @Argument(help: "The room.") var room: String
        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.act(done: "closed \(room)") { client throws(AdminError) in try await client.closeRoom(room) }
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
            try await connection.act(done: "sent to \(recipients?.joined(separator: ", ") ?? room)") { client throws(AdminError) in
                try await client.send(text, to: recipients, in: room)
            }
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
            let summary = try await connection.perform { client throws(AdminError) in
                try await client.createRoom(room, name: name, description: description, memberLimit: memberLimit)
            }
            if connection.json { return connection.printJSON(summary) }
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
            try await connection.act(done: "\(identity) is now \(role.rawValue) in \(room)") { client throws(AdminError) in
                try await client.setRole(of: identity, to: role, in: room)
            }
        }
    }
}
