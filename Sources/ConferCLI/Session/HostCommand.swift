import ArgumentParser
import Foundation
import ConferClient
import ConferSession
import ConferJobs
import ConferMedia

struct HostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "Join a room as its host: answer join requests and composite everyone into one stream.",
        discussion: """
        --approve answers each join request as it comes: all, none, or a comma-separated list of identities \
        (others are declined). With --commands, the host types what it does once admitted: approve ID, \
        decline ID, kick ID, mute ID mic, ask ID camera, transfer ID, close, say TEXT, leave (help lists them); \
        --approve manual leaves every request to those. Runs for --duration seconds (or until Ctrl-C, or \
        leave), then leaves. A refused join exits with status 3; a session the server ends (room closed by \
        someone else, replaced, timed out) with status 4; media that cannot run (say, -o into a folder that \
        is not there) with status 1.
          confer host --server http://127.0.0.1:7880 --token "$HOST_TOKEN" --approve all --duration 10 --events
          confer host --server http://127.0.0.1:7880 --token "$HOST_TOKEN" --approve manual --commands
        --forward-video (and --forward-audio) send a plain-RTP copy of the composite (and of the whole mix, \
        payload types 96 and 111) for an audience outside the meeting: to a Janus streaming mountpoint of type \
        rtp, say, which fans it out. It is not encrypted: send it on loopback or a network you trust. \
        --forward-video-rtcp names the mountpoint's RTCP port for the video (Janus: rtcpport): the host sends \
        sender reports there, and a viewer who starts watching gets a keyframe at once, asked for from there; \
        --forward-audio-rtcp takes the audio's reports.
          confer host … --approve all --forward-video 127.0.0.1:10000 --forward-video-rtcp 127.0.0.1:10001 --forward-audio 127.0.0.1:10002
        """)

    @OptionGroup var member: MemberOptions
    @Option(help: "Answer join requests: all, none, ID,ID,… (others declined), or manual (you type approve ID or decline ID; needs --commands).")
    var approve: ApprovalPolicy = .all
    @Option(help: "The composite's codec: vp8, vp9 or h264.")
    var codec: VideoCodec = .vp8
    @Option(help: "grid, speaker, pip, presenter, or a FILE.json layout (members by slot, from 1).")
    var layout = "grid"
    @Option(help: "The canvas, WIDTHxHEIGHT. (default: 640x360)", transform: VideoSize.parse)
    var size = VideoSize(width: 640, height: 360)
    @Option(help: "Composite frames per second.")
    var fps = 24.0
    @Option(help: "The composite's top bitrate in kbit/s.")
    var bitrate = 1200
    @Flag(name: .customLong("no-simulcast"), help: "Encode the composite once only: members on weak links set everyone's bitrate.")
    var noSimulcast = false
    @Option(name: .customLong("temporal-layers"), help: ArgumentHelp(
        "Temporal layers in the composite (1–3, VP8 or VP9): members on weak links get fewer; the second encode serves only links too weak for the base layer.",
        valueName: "N"))
    var temporalLayers = 1
    @Option(name: .shortAndLong, help: "Write the composite as encoded, what every member receives: .ivf (VP8/VP9) or .h264.")
    var output: String?
    @Flag(help: "Signaling only: answer requests without compositing.")
    var noMedia = false
    @OptionGroup var forward: ForwardOptions

    func validate() throws {
        if approve == .manual, !member.commands {
            throw ValidationError("--approve manual leaves requests to you: add --commands to type approve ID or decline ID")
        }
        if let output {
            let ext = (output as NSString).pathExtension.lowercased()
            guard codec == .h264 ? ["h264", "264"].contains(ext) : ext == "ivf" else {
                throw ValidationError("-o takes the composite as encoded: .ivf for vp8/vp9, .h264 for h264 (got \(output))")
            }
        }
        if !(fps > 0 && fps <= 60) { throw ValidationError("--fps must be between 0 and 60") }
        if noMedia, forward.forwardVideo != nil { throw ValidationError("--no-media sends nothing to forward: leave out --forward-video") }
        if !(1 ... 3).contains(temporalLayers) { throw ValidationError("--temporal-layers \(temporalLayers) is outside 1…3") }
        if temporalLayers > 1 && codec == .h264 {
            throw ValidationError("--temporal-layers \(temporalLayers) needs --codec vp8 or vp9 (H.264 is encoded in one layer); "
                                  + "drop --temporal-layers to serve weak links with the second encode instead")
        }
        if !(50 ... 50_000).contains(bitrate) { throw ValidationError("--bitrate is in kbit/s, 50…50000") }
        // The layout's own error says which: an unknown name, a file it cannot read, a field.
        do { _ = try MixLayout(argument: layout) } catch { throw ValidationError("--layout: \(error)") }
    }

    func mediaOptions() throws -> MeetingMediaOptions {
        var options = MeetingMediaOptions()
        options.codec = codec.mediaCodec
        options.canvasWidth = size.width
        options.canvasHeight = size.height
        options.frameRate = fps
        options.maximumBitrate = bitrate * 1000
        options.simulcast = !noSimulcast
        options.temporalLayers = temporalLayers
        options.compositeOutput = output
        options.forward = forward.target
        options.layout = try MixLayout(argument: layout).kind(participants: [])
        return options
    }

    func run() async throws {
        let client = try member.client()
        guard client.claims.role == .host else { throw ValidationError("the token's role is \(client.claims.role.rawValue); `confer host` needs a host token") }
        var media: MeetingMediaOptions?
        if !noMedia {
            var options = try mediaOptions()
            try await member.mediaAddress.apply(to: &options, server: member.connection.server)
            media = options
        }
        try await member.session(client: client, approval: approve, cutSignalingAfter: nil).run(media: media, output: output)
    }
}
