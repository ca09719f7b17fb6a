import ConferJobs
import ConferTestSupport
import Foundation
import Testing

/// `--events` on the live media commands, as a script would use them: `confer receive` and
/// `confer netsim` on port 0 say in their first line where they listen, every process then
/// prints one JSON object a second whose totals only grow, and its last line is the report
/// the summary would have shown. A 3 s clip goes send → netsim (10 % loss) → receive; `confer
/// live` relays its host's events and everyone's figures.
@Suite(.serialized, .timeLimit(.minutes(2)), .wallClockExclusive)
struct LiveEventsProcessTests {
    /// The `second` events' `key` values, in order.
    func series(_ process: ConferProcess, _ key: String, in object: String? = nil) -> [Int] {
        process.events.filter { $0["event"] as? String == "second" }.compactMap { event in
            let source = object.map { event[$0] as? [String: Any] ?? [:] } ?? event
            return (source[key] as? NSNumber)?.intValue
        }
    }

    /// The `report` of the last event, which must be `ended`.
    func report(_ process: ConferProcess) throws -> [String: Any] {
        let last = try #require(process.events.last, "\(process.arguments.first ?? "") printed no event: \(process.stderr)")
        #expect(last["event"] as? String == "ended")
        return try #require(last["report"] as? [String: Any])
    }

    /// The port a process's `listening` event names, once it has come.
    func port(of process: ConferProcess) async throws -> Int {
        await process.wait(upTo: 20) { $0.eventNames.contains("listening") }
        let listening = try #require(process.events.first, "no listening event: \(process.stderr)")
        #expect(listening["event"] as? String == "listening", "the first line says where it listens")
        return try #require((listening["port"] as? NSNumber)?.intValue)
    }

    /// A fresh directory holding `clip.y4m`, a generated test clip of `size` and `seconds`;
    /// the caller removes it.
    func directoryWithClip(_ name: String, size: String, seconds: Int) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confer-\(name)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let generate = try ConferProcess(["generate", "-o", "\(directory)/clip.y4m", "--size", size, "--duration", "\(seconds)", "-q"])
        #expect(await generate.exitStatus() == 0, "\(generate.stderr)")
        return directory
    }

    /// `confer receive --events` of VP8 on a free loopback port, and that port.
    func receiver(writing output: String, _ arguments: [String] = []) async throws -> (ConferProcess, Int) {
        let receiver = try ConferProcess(["receive", "--listen", "127.0.0.1:0", "--codec", "vp8", "-o", output, "--events", "-q"] + arguments)
        return (receiver, try await port(of: receiver))
    }

    @Test func sendThroughNetsimToReceive() async throws {
        let directory = try await directoryWithClip("events", size: "320x180", seconds: 3)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (receiver, receivePort) = try await receiver(writing: "\(directory)/out.y4m", ["--idle-timeout", "2"])
        let relay = try ConferProcess(["netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(receivePort)", "--loss", "10",
                                       "--seed", "3", "--duration", "60", "--events", "-q"])
        let relayPort = try await port(of: relay)
        let sender = try ConferProcess(["send", "\(directory)/clip.y4m", "--codec", "vp8", "--to", "127.0.0.1:\(relayPort)",
                                        "--events", "-q"])
        #expect(await sender.exitStatus() == 0, "\(sender.stderr)")
        #expect(await receiver.exitStatus() == 0, "\(receiver.stderr)")
        relay.signal(SIGINT)
        #expect(await relay.exitStatus() == 0, "\(relay.stderr)")

        // Each process's seconds count up from 1 and its totals never fall.
        for (process, key) in [(sender, "packets"), (receiver, "datagrams")] {
            let seconds = series(process, "second")
            #expect(seconds.count >= 2 && seconds == Array(1 ... seconds.count), "\(process.arguments[0]): \(seconds)")
            let totals = series(process, key)
            #expect(totals.count == seconds.count && zip(totals, totals.dropFirst()).allSatisfy { $0 <= $1 } && (totals.first ?? 0) > 0,
                    "\(process.arguments[0]) \(key): \(totals)")
        }
        let relayed = series(relay, "packetsSent", in: "forward")
        #expect(relayed.count >= 2 && zip(relayed, relayed.dropFirst()).allSatisfy { $0 <= $1 }, "netsim: \(relayed)")

        // The last line is the report, and it holds at least what the last second said.
        let sent = try report(sender)
        #expect(sent["frames"] as? Int == 90)
        #expect(try #require(sent["packets"] as? Int) >= series(sender, "packets").last ?? .max)
        #expect(try #require(sent["nacksReceived"] as? Int) > 0, "10 % loss on the way: the receiver asked again")
        let received = try report(receiver)
        #expect(received["endReason"] as? String == "bye")
        #expect(try #require(received["datagrams"] as? Int) >= series(receiver, "datagrams").last ?? .max)
        #expect(try #require(received["framesDecoded"] as? Int) >= 80, "retransmissions fill most losses: \(received)")
        let relayReport = try report(relay)
        let forward = try #require((relayReport["statistics"] as? [String: Any])?["forward"] as? [String: Any])
        #expect(try #require(forward["lostRandom"] as? Int) > 0)
        #expect(try #require(forward["packetsSent"] as? Int) >= relayed.last ?? .max)
    }

    /// Datagrams that come but decode to nothing get a note naming the option to check:
    /// another SRTP key, another payload type.
    @Test func aReceiverThatDecodesNothingSaysWhichOptionToCheck() async throws {
        let directory = try await directoryWithClip("diagnose", size: "160x90", seconds: 1)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func key() -> String { "AES_CM_128_HMAC_SHA1_80:" + Data((0 ..< 30).map { _ in UInt8.random(in: 0 ... 255) }).base64EncodedString() }
        let shared = key()
        let cases: [(receive: [String], send: [String], note: String?)] = [
            (["--srtp", key()], ["--srtp", key()], "note: no packet passed SRTP authentication: is --srtp the sender's key?"),
            (["--payload-type", "100"], [], "RTP packets had another payload type than 100: give the sender's with --payload-type"),
            // Frames stored as they came, undecoded, are no failure: no note.
            (["--srtp", shared, "--no-jitter-buffer"], ["--srtp", shared], nil),
        ]
        for (receive, send, note) in cases {
            let receiver = try ConferProcess(["receive", "--listen", "127.0.0.1:0", "--codec", "vp8", "-o", "\(directory)/out.ivf",
                                              "--idle-timeout", "1"] + receive)
            #expect(await receiver.wait(upTo: 20) { $0.stderr.contains("listening on 127.0.0.1:") })
            let port = try #require(receiver.stderr.split(separator: "\n").first { $0.contains("listening on") }?.split(separator: ":").last
                .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }, "\(receiver.stderr)")
            let sender = try ConferProcess(["send", "\(directory)/clip.y4m", "--codec", "vp8", "--to", "127.0.0.1:\(port)", "--linger", "0.2", "-q"] + send)
            #expect(await sender.exitStatus() == 0, "\(sender.stderr)")
            #expect(await receiver.exitStatus() == 0, "\(receiver.stderr)")
            if let note {
                #expect(receiver.stdout.contains(note), "\(receive): \(receiver.stdout)")
                #expect(receiver.stdout.components(separatedBy: "note:").count == 2, "one note, the right one: \(receiver.stdout)")
            } else {
                #expect(!receiver.stdout.contains("note:"), "\(receive): \(receiver.stdout)")
                let stored = (try? FileManager.default.attributesOfItem(atPath: "\(directory)/out.ivf")[.size] as? Int) ?? 0
                #expect(stored > 32 * 30, "the frames were stored: \(stored) bytes")
            }
        }
    }

    @Test func aLiveMeetingsEvents() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("confer-live-events-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Bare file names, in the working directory (they once failed to make the folder "").
        let live = try ConferProcess(["live", "--participants", "1", "--duration", "3", "--events", "-o", "composite.ivf",
                                      "--audio-out", "mix.wav", "--report", "report.json"], directory: directory)
        #expect(await live.exitStatus(timeout: 60) == 0, "\(live.stderr)")
        for name in ["composite.ivf", "mix.wav", "report.json", "host.json", "alice.json"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)")[.size] as? Int) ?? 0
            #expect(size > 0, "\(name) is written in the working directory")
        }
        let events = live.events
        #expect(events.first?["event"] as? String == "server")
        let approvals = events.filter { $0["event"] as? String == "joinRequestEnded" }
        #expect(approvals.count == 1 && approvals.first?["identity"] as? String == "alice" && approvals.first?["outcome"] as? String == "approved"
                && approvals.first?["from"] as? String == "host", "\(approvals)")
        let seconds = events.filter { $0["event"] as? String == "second" }
        #expect(!seconds.isEmpty && seconds.allSatisfy { ($0["members"] as? [String: Any])?["alice"] != nil }, "\(seconds)")
        let ended = try #require(events.last)
        #expect(ended["event"] as? String == "ended")
        #expect((ended["statuses"] as? [String: Any])?["alice"] as? Int == 0)
        let report = try #require(ended["report"] as? [String: Any])
        #expect(report["alice"] is [String: Any] && report["host"] is [String: Any])
        #expect(!live.stdout.contains("uplinkKey") && !live.stdout.contains("downlinkKey"), "SRTP keys stay out of the event stream")
        #expect(events.contains { $0["event"] as? String == "mediaGranted" && $0["slot"] as? Int == 1 })
    }

    /// Ctrl-C on `confer send` ends the media as the file's end would: the receiver hears a
    /// BYE (not its 10 s idle timeout) and the sender prints its report.
    @Test func ctrlCEndsSendingWithABye() async throws {
        let directory = try await directoryWithClip("interrupt", size: "160x90", seconds: 1)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (receiver, port) = try await receiver(writing: "\(directory)/out.ivf", ["--idle-timeout", "10"])
        let sender = try ConferProcess(["send", "\(directory)/clip.y4m", "--codec", "vp8", "--to", "127.0.0.1:\(port)", "--loop",
                                        "--events", "-q"])
        #expect(await sender.wait(upTo: 20) { $0.eventNames.contains("second") }, "\(sender.stderr)")
        sender.signal(SIGINT)
        #expect(await sender.exitStatus(timeout: 5) == 0, "\(sender.stderr)")
        let sent = try report(sender)
        #expect(try #require(sent["frames"] as? Int) >= 30, "a second or more went out before the interrupt")
        #expect(await receiver.exitStatus(timeout: 5) == 0, "\(receiver.stderr)")
        let received = try report(receiver)
        #expect(received["endReason"] as? String == "bye")
        #expect(received["framesAssembled"] as? Int == sent["frames"] as? Int, "every frame sent arrived: \(received)")
    }

    /// SIGTERM (what `timeout`, systemd and container runtimes send) ends `confer receive` as
    /// Ctrl-C does: the file completed, the report printed, status 0.
    @Test func sigtermEndsReceivingWithItsReport() async throws {
        let directory = try await directoryWithClip("sigterm", size: "160x90", seconds: 1)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (receiver, port) = try await receiver(writing: "\(directory)/out.ivf")
        let sender = try ConferProcess(["send", "\(directory)/clip.y4m", "--codec", "vp8", "--to", "127.0.0.1:\(port)", "--loop",
                                        "--duration", "30", "-q"])
        #expect(await receiver.wait(upTo: 20) { $0.eventNames.filter { $0 == "second" }.count >= 2 }, "\(receiver.stderr)")
        receiver.signal(SIGTERM)
        #expect(await receiver.exitStatus(timeout: 10) == 0, "\(receiver.stderr)")
        sender.signal(SIGTERM)
        #expect(await sender.exitStatus(timeout: 10) == 0, "\(sender.stderr)")
        let received = try report(receiver)
        #expect(received["endReason"] as? String == "cancelled")
        let written = try #require(received["framesWritten"] as? Int)
        #expect(written >= 30, "two seconds or so of a 30 fps clip")
        let file = try VideoFileReader(path: "\(directory)/out.ivf")
        var frames = 0
        while try file.next() != nil { frames += 1 }
        #expect(frames == written, "the file is complete and holds what the report says")
    }

    @Test func eventsAndJSONTogetherAreRefused() async throws {
        let both = try ConferProcess(["receive", "--listen", "127.0.0.1:0", "--codec", "vp8", "-o", "/tmp/never.y4m", "--events", "--json"])
        #expect(await both.exitStatus() == 64)
        #expect(both.stderr.contains("leave out --json"), "\(both.stderr)")
    }
}
