import ConferJobs
import ConferMedia
import ConferTestSupport
import Foundation
import Testing

/// The composite fanned out by Janus: `confer host --forward-video/--forward-audio` sends a
/// plain-RTP copy of the composite and of the whole mix to a Janus streaming mountpoint (type
/// `rtp`), which an audience of any size watches through Janus. Janus records what it
/// ingests, and the recording must be the meeting: every frame Janus took decodes, the
/// member's colour is in the picture, and the mix is not silence.
@Suite(.serialized, .timeLimit(.minutes(2)), .wallClockExclusive,
       .enabled(if: JanusServer.isInstalled && hasFFmpegTools, "needs janus, janus-tools and ffmpeg (Scripts/install-deps installs them)"))
struct JanusFanOutTests {
    @Test func janusTakesTheCompositeAndTheMixTheHostForwards() async throws {
        let directory = NSTemporaryDirectory() + "confer-janus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let janus = try await JanusServer(directory: directory)
        // Port 0: Janus picks the mountpoint's ports, and says which.
        let created = try await janus.streaming(["request": "create", "type": "rtp", "id": 77, "media": [
            ["type": "video", "mid": "v", "port": 0, "pt": 96, "codec": "vp8", "videobufferkf": true],
            ["type": "audio", "mid": "a", "port": 0, "pt": 111, "codec": "opus"],
        ]])
        let ports = try #require((created["stream"] as? [String: Any])?["ports"] as? [[String: Any]], "\(created)")
        let videoPort = try #require(ports.first { $0["type"] as? String == "video" }?["port"] as? Int)
        let audioPort = try #require(ports.first { $0["type"] as? String == "audio" }?["port"] as? Int)
        let recording = try await janus.streaming(["request": "recording", "action": "start", "id": 77, "media": [
            ["mid": "v", "filename": "\(directory)/video"], ["mid": "a", "filename": "\(directory)/audio"],
        ]])
        #expect(recording["streaming"] as? String == "ok", "\(recording)")

        let server = try await TestServer()
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "all", "--json", "--size", "320x180", "--fps", "15",
                                      "--forward-video", "127.0.0.1:\(videoPort)", "--forward-audio", "127.0.0.1:\(audioPort)"])
        #expect(await host.wait(upTo: 20) { $0.stderr.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--json", "--duration", "3", "--camera-size", "160x90"])
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        let info = try await janus.streaming(["request": "info", "id": 77])
        let media = try #require((info["info"] as? [String: Any])?["media"] as? [[String: Any]], "\(info)")
        for stream in media {
            // Janus's age of a stream: milliseconds since its last packet.
            #expect((stream["age_ms"] as? Int ?? .max) < 1500, "Janus heard the \(stream["type"] ?? "?") lately: \(stream)")
        }
        // Alice has left; the host goes on forwarding its canvas, without her.
        try await Task.sleep(for: .seconds(1))
        host.signal(SIGINT)
        #expect(await host.exitStatus() == 0, "host: \(host.stderr)")
        _ = try await janus.streaming(["request": "recording", "action": "stop", "id": 77, "media": [["mid": "v"], ["mid": "a"]]])
        await janus.stop()
        await server.stop()

        let hostReport = try #require(try JSONSerialization.jsonObject(with: Data(host.stdout.utf8)) as? [String: Any])
        let figures = try #require((hostReport["media"] as? [String: Any])?["figures"] as? [String: Any])
        let forwarded = figures["packetsForwarded"] as? Int ?? 0
        #expect(forwarded >= 150, "3 s of composite and mix forwarded: \(forwarded) packets")
        let slot = try #require((try JSONSerialization.jsonObject(with: Data(alice.stdout.utf8)) as? [String: Any])?["slot"] as? Int)

        // Janus's recordings, through its own converter, then read as Confer reads files.
        for (recording, output) in [("video.mjr", "video.webm"), ("audio.mjr", "audio.opus")] {
            let convert = try ConferProcess(executable: "/usr/bin/janus-pp-rec", ["\(directory)/\(recording)", "\(directory)/\(output)"])
            #expect(await convert.exitStatus() == 0, "janus-pp-rec \(recording): \(convert.stdout)")
        }
        let remux = try ConferProcess(executable: "/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", "\(directory)/video.webm", "-c", "copy", "\(directory)/video.ivf"])
        #expect(await remux.exitStatus() == 0, "\(remux.stderr)")
        let frames = try MediaProcessTests().frames("\(directory)/video.ivf")
        #expect(frames.count >= 30, "Janus took about 3 s of the composite at 15 fps: \(frames.count) frames")
        #expect(frames.first.map { ($0.width, $0.height) == (320, 180) } == true)
        let shown = frames.map { MediaProcessTests().coverage(of: TestPalette.color(at: slot - 1), in: $0) }
        #expect(shown.contains { $0 > 0.02 }, "alice's tile in what Janus took")
        #expect((shown.last ?? 1) < 0.005, "and not once she left: the audience does not keep her last frame (\(shown.suffix(5)))")
        let audio = try AudioFileReader(path: "\(directory)/audio.opus")
        var energy = 0.0, samples = 0
        var frame = AudioFrame(silenceOf: 480, channels: audio.channels)
        while try audio.read(into: &frame, frameCount: 480) {
            energy += frame.samples.reduce(0) { $0 + Double($1) * Double($1) }
            samples += frame.samples.count / audio.channels
        }
        #expect(samples >= 48_000 * 2, "Janus took about 3 s of the mix: \(samples) samples")
        #expect((energy / Double(max(samples * audio.channels, 1))).squareRoot() > 0.01, "alice's voice in the mix")
    }

    /// A viewer who starts watching mid-meeting gets a picture at once: Janus asks for a
    /// keyframe on the video's RTCP port (a PLI, as the viewer starts), which the host
    /// latched with its sender reports, and the host encodes the composite's next frame as
    /// one. The viewer is a WebRTC peer as a browser is (aiortc: ICE, DTLS-SRTP), and Janus
    /// keeps no keyframe for new viewers here, so nothing else could give it the picture:
    /// without `--forward-video-rtcp` it decodes nothing in those seconds. VP8 and H.264
    /// (aiortc 1.4 has no VP9); and VP8 with the forward the room's administrator set
    /// mid-meeting (`confer rooms forward`) instead of the host's options.
    @Test(.enabled(if: JanusServer.hasViewer, "needs python3-aiortc (Scripts/install-deps installs it)"),
          arguments: [("vp8", false), ("h264", false), ("vp8", true)])
    func aViewerWhoStartsWatchingGetsAKeyframeAskedForOverRTCP(codec: String, roomForward: Bool) async throws {
        let directory = NSTemporaryDirectory() + "confer-janus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let janus = try await JanusServer(directory: directory)
        var video: [String: Any] = ["type": "video", "mid": "v", "port": 0, "rtcpport": 0, "pt": 96, "codec": codec]
        // What Confer's x264 sends: constrained baseline, FU-A fragments.
        if codec == "h264" { video["fmtp"] = "profile-level-id=42e01f;packetization-mode=1" }
        let created = try await janus.streaming(["request": "create", "type": "rtp", "id": 78, "media": [
            video,
            ["type": "audio", "mid": "a", "port": 0, "pt": 111, "codec": "opus"],
        ]])
        let ports = try #require((created["stream"] as? [String: Any])?["ports"] as? [[String: Any]], "\(created)")
        let videoPorts = try #require(ports.first { $0["type"] as? String == "video" })
        let (videoPort, rtcpPort) = (try #require(videoPorts["port"] as? Int), try #require(videoPorts["rtcp_port"] as? Int, "\(videoPorts)"))
        let audioPort = try #require(ports.first { $0["type"] as? String == "audio" }?["port"] as? Int)

        let server = try await TestServer()
        let forward = ["--video", "127.0.0.1:\(videoPort)", "--video-rtcp", "127.0.0.1:\(rtcpPort)", "--audio", "127.0.0.1:\(audioPort)"]
        let host = try server.member("host", token: try await server.token("boss", role: "host"),
                                     ["--approve", "all", "--json", "--size", "320x180", "--fps", "15", "--codec", codec]
                                        + (roomForward ? [] : forward.map { $0.hasPrefix("--") ? "--forward-" + $0.dropFirst(2) : $0 }))
        #expect(await host.wait(upTo: 20) { $0.stderr.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--json", "--duration", "9", "--camera-size", "160x90"])
        if roomForward {
            let set = try await server.rooms(["forward", "room"] + forward)
            #expect(set.status == 0, "\(set.output)")
        }
        // Alice's join had its keyframe long before the viewer comes.
        try await Task.sleep(for: .seconds(4))
        let watched = try await janus.watch(78, seconds: 3, y4m: "\(directory)/last.y4m")
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        host.signal(SIGINT)
        #expect(await host.exitStatus() == 0, "host: \(host.stderr)")
        await janus.stop()
        await server.stop()

        let frames = watched["frames"] as? Int ?? 0
        #expect(frames >= 25, "3 s at 15 fps, from the first frame on: \(watched)")
        let first = try #require(watched["firstFrameSeconds"] as? Double, "a picture came: \(watched)")
        // Timed from the first audio frame: the connection (ICE, DTLS) takes what it takes,
        // a second at times on a loaded machine; the keyframe is what is measured.
        let connected = try #require(watched["firstAudioSeconds"] as? Double, "the mix came: \(watched)")
        #expect(first - connected < 0.7, "the keyframe asked for comes soon after the connection: \(first) s, audio at \(connected) s")
        #expect(watched["sizes"] as? [String] == ["320x180"])
        #expect((watched["audioFrames"] as? Int ?? 0) >= 50, "the mix too: \(watched)")
        let slot = try #require((try JSONSerialization.jsonObject(with: Data(alice.stdout.utf8)) as? [String: Any])?["slot"] as? Int)
        let last = try #require(try MediaProcessTests().frames("\(directory)/last.y4m").last)
        #expect(MediaProcessTests().coverage(of: TestPalette.color(at: slot - 1), in: last) > 0.02, "alice's tile in what the viewer saw")

        let hostReport = try #require(try JSONSerialization.jsonObject(with: Data(host.stdout.utf8)) as? [String: Any])
        let figures = try #require((hostReport["media"] as? [String: Any])?["figures"] as? [String: Any])
        #expect((figures["forwardKeyframeRequests"] as? Int ?? 0) >= 1, "Janus's PLI reached the host: \(figures)")
        #expect((figures["forwardReportsSent"] as? Int ?? 0) >= 5, "a sender report a second: \(figures)")
        #expect(figures["forwardFeedbackDropped"] as? Int == 0)
    }

    /// The room's forward follows the host role to another machine without the audience
    /// noticing more than a moment: a viewer watching through Janus while the role moves
    /// keeps decoding, and what it decodes after is the new host's composite (its own canvas
    /// size), whose first frame is a keyframe. Both hosts send under the forward's one SSRC,
    /// each with its own numbers; Janus and the viewer take the jump with the keyframe.
    @Test(.enabled(if: JanusServer.hasViewer, "needs python3-aiortc (Scripts/install-deps installs it)"))
    func aViewerKeepsThePictureWhenTheHostRoleMoves() async throws {
        let directory = NSTemporaryDirectory() + "confer-janus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let janus = try await JanusServer(directory: directory)
        let created = try await janus.streaming(["request": "create", "type": "rtp", "id": 79, "media": [
            ["type": "video", "mid": "v", "port": 0, "rtcpport": 0, "pt": 96, "codec": "vp8"],
        ]])
        let ports = try #require((created["stream"] as? [String: Any])?["ports"] as? [[String: Any]], "\(created)")
        let (videoPort, rtcpPort) = (try #require(ports.first?["port"] as? Int), try #require(ports.first?["rtcp_port"] as? Int, "\(ports)"))

        let server = try await TestServer()
        let canvas = ["--size", "320x180", "--fps", "15"]
        let host = try server.member("host", token: try await server.token("boss", role: "host"), ["--approve", "all", "--json"] + canvas)
        #expect(await host.wait(upTo: 20) { $0.stderr.contains("joined") }, "host: \(host.stderr)")
        let alice = try server.member("join", token: try await server.token("alice"), ["--json", "--camera-size", "160x90"])
        #expect(await alice.wait(upTo: 20) { $0.stderr.contains("joined") }, "alice: \(alice.stderr)")
        let set = try await server.rooms(["forward", "room", "--video", "127.0.0.1:\(videoPort)", "--video-rtcp", "127.0.0.1:\(rtcpPort)"])
        #expect(set.status == 0, "\(set.output)")
        try await Task.sleep(for: .seconds(2))

        // The viewer watches for 9 s; 3 s in, the role moves.
        let viewer = try ConferProcess(executable: JanusServer.viewerScript, [janus.url, "79", "9"])
        try await Task.sleep(for: .seconds(3))
        let moved = ContinuousClock.now
        let role = try await server.rooms(["role", "room", "alice", "host"])
        #expect(role.status == 0, "\(role.output)")
        #expect(await viewer.exitStatus(timeout: 40) == 0, "janus-viewer: \(viewer.stderr)")
        let watched = try #require(try JSONSerialization.jsonObject(with: Data(viewer.stdout.utf8)) as? [String: Any], "\(viewer.stdout)")
        let movedAfter = (ContinuousClock.now - moved).components.seconds
        for process in [alice, host] { process.signal(SIGINT) }
        #expect(await alice.exitStatus() == 0, "alice: \(alice.stderr)")
        #expect(await host.exitStatus() == 0, "boss: \(host.stderr)")
        await janus.stop()
        await server.stop()

        // The viewer's clock starts at its answer, about when the watch began; the role
        // moved some 3 s later. Its last 3 s are well after the move: the new host's frames.
        let seconds = watched["frameSeconds"] as? [Double] ?? []
        let end = seconds.last ?? 0
        #expect(seconds.filter { $0 < 3 }.count >= 20, "frames before the move: \(watched)")
        #expect(seconds.filter { $0 > end - 3 }.count >= 30, "frames in the last 3 s, from alice's machine: \(seconds), moved \(movedAfter) s before the end")
        let gaps = zip(seconds, seconds.dropFirst()).map { $1 - $0 }
        #expect((gaps.max() ?? 9) < 2.5, "the picture stalls for a moment at most: \(gaps.max() ?? 9) s")
        let aliceReport = try #require(try JSONSerialization.jsonObject(with: Data(alice.stdout.utf8)) as? [String: Any], "\(alice.stdout)")
        let figures = try #require((aliceReport["media"] as? [String: Any])?["figures"] as? [String: Any], "\(aliceReport)")
        #expect((figures["packetsForwarded"] as? Int ?? 0) > 100, "alice's machine forwarded: \(figures)")
        #expect(watched["sizes"] as? [String] == ["320x180", "640x360"], "boss's canvas, then alice's (join's default): \(watched)")
    }
}

/// Whether FFmpeg's command-line tool is installed.
let hasFFmpegTools = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
