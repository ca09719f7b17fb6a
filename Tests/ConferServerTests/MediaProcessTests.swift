import ConferJobs
import ConferMedia
import ConferTestSupport
import Foundation
import Testing

/// Live meetings with media between separate processes: a host compositing on one UDP
/// socket, participants sending test patterns in their slot's colour and writing the
/// composite they decode. Wall clock, loopback, generous margins (debug builds on two cores).
@Suite(.serialized, .timeLimit(.minutes(3)), .wallClockExclusive)
struct MediaProcessTests {
    static let canvas = ["--size", "320x180", "--fps", "15", "--bitrate", "600"]
    /// Small cameras: four debug processes encode and decode on two cores beside other tests.
    static let camera = ["--camera-size", "160x90"]

    /// Decoded frames of a composite the member wrote.
    func frames(_ path: String) throws -> [VideoFrame] {
        let reader = try VideoFileReader(path: path)
        var frames: [VideoFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return frames
    }

    /// The fraction of a frame (sampled every 4 pixels) within `tolerance` of `color`.
    func coverage(of color: YUVColor, in frame: VideoFrame, tolerance: Double = 14) -> Double {
        var hits = 0, samples = 0
        for y in stride(from: 0, to: frame.height, by: 4) {
            let luma = frame.y.row(y), u = frame.u.row(y / 2), v = frame.v.row(y / 2)
            for x in stride(from: 0, to: frame.width, by: 4) {
                samples += 1
                if YUVColor(y: luma[x], u: u[x / 2], v: v[x / 2]).distance(to: color) < tolerance { hits += 1 }
            }
        }
        return Double(hits) / Double(max(samples, 1))
    }

    func report(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The latest of a process's once-a-second `connectInfo` figures, as numbers.
    func latestFigures(_ process: ConferProcess) -> [String: Any]? {
        process.events.last { ($0["event"] as? String) == "connectInfo" }?["info"] as? [String: Any]
    }

    @Test func everyApprovedMemberIsInEveryonesCompositeAndTheDeclinedOneNowhere() async throws {
        let directory = NSTemporaryDirectory() + "confer-live-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "alice,bob,carol", "--events", "--report", "\(directory)/host.json",
                                      "-o", "\(directory)/host.ivf"] + Self.canvas)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        var members: [(String, ConferProcess)] = []
        for name in ["alice", "bob", "carol"] {
            members.append((name, try server.member("join", token: try await server.token(name),
                                                    ["--events", "-o", "\(directory)/\(name).ivf", "--report", "\(directory)/\(name).json"] + Self.camera)))
        }
        let dave = try server.member("join", token: try await server.token("dave"), ["--report", "\(directory)/dave.json"])
        #expect(await dave.exitStatus() == 3)
        let daveReport = try report("\(directory)/dave.json")
        #expect(daveReport["admitted"] as? Bool == false && daveReport["media"] == nil, "a declined member never sends media")

        // Members start one after another and a busy machine starts them slowly, so the checks
        // are tied to events, not to durations: from the second the host decodes all three,
        // each member's decoded-frame count and the host's sent-frame count mark where the
        // composite must show everyone; five more seconds of it, then everyone leaves.
        #expect(await host.wait(upTo: 60) { (self.latestFigures($0)?["streamsReceived"] as? Int ?? 0) == 3 },
                "the host decoded every member: \(host.stderr)")
        let hostSentAtAllThree = latestFigures(host)?["framesSent"] as? Int ?? 0
        var decodedAtAllThree: [String: Int] = [:]
        for (name, process) in members { decodedAtAllThree[name] = latestFigures(process)?["framesReceived"] as? Int ?? 0 }
        for (name, process) in members {
            let start = decodedAtAllThree[name] ?? 0
            #expect(await process.wait(upTo: 30) { (self.latestFigures($0)?["framesReceived"] as? Int ?? 0) >= start + 75 },
                    "\(name) decoded five seconds of composites with everyone: \(process.stderr)")
        }
        for (_, process) in members { process.signal(SIGINT) }

        var slots: [String: Int] = [:]
        var composites: [String: Int] = [:]
        for (name, process) in members {
            #expect(await process.exitStatus(timeout: 60) == 0, "\(name): \(process.stderr)")
            let result = try report("\(directory)/\(name).json")
            slots[name] = try #require(result["slot"] as? Int)
            let media = try #require(result["media"] as? [String: Any])
            composites[name] = media["framesReceived"] as? Int ?? 0
            #expect((media["audioPacketsReceived"] as? Int ?? 0) >= 100, "\(name) heard the mix")
            #expect((media["audioPacketsSent"] as? Int ?? 0) >= 200, "\(name) sent its voice")
        }
        #expect(Set(slots.values) == [1, 2, 3])
        for (name, _) in members {
            let decoded = try frames("\(directory)/\(name).ivf")
            // Thirty composites after the mark: at least a second after the host had everyone
            // (the figures lag up to a second), and three or more before the member left.
            let index = (decodedAtAllThree[name] ?? 0) + 30
            #expect(decoded.count >= index + 30, "\(name) decoded \(decoded.count) composites")
            let frame = decoded[min(index, decoded.count - 1)]
            #expect(frame.width == 320 && frame.height == 180)
            for (other, slot) in slots {
                let share = coverage(of: TestPalette.color(at: slot - 1), in: frame)
                #expect(share > 0.02, "\(name) sees \(other) (slot \(slot)) on \(share * 100)% of composite \(index)")
            }
            #expect(coverage(of: TestPalette.color(at: 3), in: frame) < 0.005, "nobody in slot 4's colour")
        }
        host.signal(SIGINT)
        #expect(await host.exitStatus() == 0)
        let hostReport = try report("\(directory)/host.json")
        #expect((hostReport["declined"] as? [String]) == ["dave"])
        let hostMedia = try #require(hostReport["media"] as? [String: Any])
        // Every composite a member decoded, the host sent and recorded. Against the mark, the
        // members' five seconds count from figures up to a second older than the host's
        // (15 frames), so four seconds are sure.
        let hostSent = hostMedia["framesSent"] as? Int ?? 0
        #expect(hostSent >= composites.values.max() ?? .max && hostSent >= hostSentAtAllThree + 60, "\(hostSent) sent, \(composites) decoded")
        // The host's own recording is the composite everyone received.
        let recorded = try frames("\(directory)/host.ivf")
        #expect(recorded.count >= composites.values.max() ?? .max, "\(recorded.count) recorded, \(composites) decoded")
        let middle = recorded[min(hostSentAtAllThree + 30, recorded.count - 1)]
        for (other, slot) in slots {
            #expect(coverage(of: TestPalette.color(at: slot - 1), in: middle) > 0.02, "the host's recording shows \(other)")
        }
        await server.stop()
    }

    /// A member whose media cannot run (a camera file that is not there) says why and leaves
    /// at once with status 1, instead of staying its whole --duration sending nothing.
    @Test func aMemberWhoseMediaCannotRunSaysWhyAndLeaves() async throws {
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--events"] + Self.canvas)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let started = ContinuousClock.now
        let alice = try server.member("join", token: try await server.token("alice"),
                                      ["--input", "/nonexistent-camera.y4m", "--duration", "30", "--events"])
        #expect(await alice.exitStatus(timeout: 20) == 1, "\(alice.stderr)")
        #expect(ContinuousClock.now - started < .seconds(15), "it left, not waited out its 30 s")
        #expect(alice.stderr.contains("the media could not run") && alice.stderr.contains("/nonexistent-camera.y4m"), "\(alice.stderr)")
        let failed = alice.events.first { $0["event"] as? String == "mediaFailed" }
        #expect((failed?["error"] as? String)?.contains("/nonexistent-camera.y4m") == true, "\(alice.stdout)")
        #expect(await host.wait(upTo: 10) { $0.events.contains { $0["event"] as? String == "memberLeft" && $0["identity"] as? String == "alice" } })
        host.signal(SIGINT)
        await server.stop()
    }

    @Test func aKickedMemberLeavesTheCanvasWithinASecondWhileTheOthersGoOn() async throws {
        let directory = NSTemporaryDirectory() + "confer-kick-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--events"] + Self.canvas)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("joined") })
        let alice = try server.member("join", token: try await server.token("alice"), ["--report", "\(directory)/alice.json"] + Self.camera)
        #expect(await host.wait(upTo: 20) { $0.eventNames.contains("memberJoined") })
        let bob = try server.member("join", token: try await server.token("bob"),
                                    ["--events", "--duration", "9", "-o", "\(directory)/bob.ivf", "--report", "\(directory)/bob.json"] + Self.camera)
        // Both on bob's canvas and counted before the kick.
        #expect(await bob.wait(upTo: 30) { process in
            process.events.contains { ($0["event"] as? String) == "connectInfo" && ((($0["info"] as? [String: Any])?["framesReceived"] as? Int) ?? 0) > 20 }
        })
        // An observer sends nothing, so the host's average frame rate received leaves it out.
        let carol = try server.member("join", token: try await server.token("carol", role: "observer"), ["--duration", "20"])
        #expect(await host.wait(upTo: 20) { $0.events.filter { ($0["event"] as? String) == "memberJoined" }.count >= 3 })
        #expect((try await server.rooms(["kick", "room", "alice"])).status == 0)
        #expect(await alice.exitStatus(timeout: 10) == 4)
        #expect(await bob.exitStatus(timeout: 60) == 0, "bob goes on: \(bob.stderr)")
        carol.signal(SIGINT)
        // From two seconds after the kick on, bob is the only camera the host receives.
        let hostEvents = host.events
        let kickedAt = try #require(hostEvents.first { $0["event"] as? String == "memberLeft" }?["t"] as? Double)
        let alone = hostEvents.filter { ($0["event"] as? String) == "connectInfo" && ($0["t"] as? Double ?? 0) > kickedAt + 2 }
            .compactMap { $0["info"] as? [String: Any] }
            .filter { (($0["members"] as? [String: Double])?["bob"] ?? 0) > 0 }
        #expect(!alone.isEmpty, "the host received bob after the kick")
        for info in alone {
            let bobRate = (info["members"] as? [String: Double])?["bob"] ?? 0, average = info["receiveFrameRate"] as? Double ?? 0
            #expect(abs(average - bobRate) < 0.01, "the host's average is bob's alone (\(bobRate)), not \(average)")
        }

        let aliceSlot = try #require(try report("\(directory)/alice.json")["slot"] as? Int)
        let bobSlot = try #require(try report("\(directory)/bob.json")["slot"] as? Int)
        // Frames bob had decoded when he heard of the kick, from his once-a-second figures.
        let events = bob.events
        let leftAt = try #require(events.first { $0["event"] as? String == "memberLeft" }?["t"] as? Double)
        let samples = events.filter { $0["event"] as? String == "connectInfo" }.compactMap { event -> (Double, Int)? in
            guard let t = event["t"] as? Double, let frames = (event["info"] as? [String: Any])?["framesReceived"] as? Int else { return nil }
            return (t, frames)
        }
        let after = try #require(samples.first { $0.0 >= leftAt })
        let decoded = try frames("\(directory)/bob.ivf")
        // Everything decoded from one second after the kick (and the figure sampled after it) on.
        let cut = after.1 + 15
        #expect(decoded.count > cut + 15, "bob went on decoding: \(decoded.count) frames, kick near frame \(after.1)")
        for (index, frame) in decoded.enumerated().dropFirst(cut) {
            #expect(coverage(of: TestPalette.color(at: aliceSlot - 1), in: frame) < 0.005, "alice still in frame \(index)")
            #expect(coverage(of: TestPalette.color(at: bobSlot - 1), in: frame) > 0.02, "bob missing in frame \(index)")
        }
        let before = try #require(decoded.dropFirst(max(0, after.1 - 30)).first)
        #expect(coverage(of: TestPalette.color(at: aliceSlot - 1), in: before) > 0.02, "alice was on the canvas before")
        host.signal(SIGINT)
        await server.stop()
    }
}
