import ArgumentParser
import Foundation
import Confer
import ConferMedia
import ConferNet
import ConferMixer
import ConferJobs
import ConferSimulation

struct MeetingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meeting",
        abstract: "Run a whole meeting in virtual time: participants, the compositing host, the network, a renderer.",
        discussion: """
        Every participant (a synthetic camera and a voice that takes turns by default; recorded files with \
        --inputs) sends over its own simulated path to the host. The host decodes everyone, lays them out \
        on one canvas, encodes it once and sends it back to all, and mixes audio for each listener without \
        their own voice. Participant 1's received composite goes to -o and its mix to --audio-out; its \
        display is modelled with a frame pacer (the composite and a self view sharing the draw budget). \
        The report has per-member figures (frame rate and resolution received, bytes and packets sent, \
        received and lost both ways, audio packet rates, speaking), the host's and the renderer's.

        Examples:
          confer meeting
          confer meeting --participants 9 --loss 3 --jitter 20 --layout speaker -o call.ivf --audio-out mix.wav
          confer meeting --inputs a.y4m b.y4m c.y4m --audio-inputs a.wav b.wav c.wav --report report.json
        """)

    @Option(help: "How many participants, each with a synthetic camera and voice.")
    var participants = 4
    @Option(parsing: .upToNextOption, help: "Recorded video per participant (.y4m, .ivf, .h264); sets the count.")
    var inputs: [String] = []
    @Option(name: .customLong("audio-inputs"), parsing: .upToNextOption,
            help: "Recorded audio per participant (.wav, .opus), in the same order; the others talk in turns.")
    var audioInputs: [String] = []
    @Option(help: ArgumentHelp("Seconds of media each participant sends.", valueName: "S"))
    var duration: Double = 10
    @OptionGroup var network: NetworkConditionOptions<MeetingCommand>
    @Option(help: "grid, speaker, pip, presenter, or a FILE.json layout (participant numbers from 1).")
    var layout = "grid"
    @Option(help: "Video codec of every stream: vp8, vp9 or h264.")
    var codec: VideoCodec = .vp8
    @Option(help: "Canvas size, WIDTHxHEIGHT. (default: 1280x720)", transform: VideoSize.parse)
    var size = VideoSize(width: 1280, height: 720)
    @Option(help: "Composite frame rate.")
    var fps: Double = 30
    @Option(help: ArgumentHelp("The composite's bitrate ceiling in kbit/s.", valueName: "KBPS"))
    var bitrate = 1500
    @Option(name: .customLong("temporal-layers"), help: ArgumentHelp(
        "Temporal layers in the composite (1–3, VP8 or VP9): participants on weak links get fewer, at a lower frame rate; the second encode serves only links too weak for the base layer.",
        valueName: "N"))
    var temporalLayers = 1
    @Flag(name: .customLong("vp9-layers-as-one"), help: """
        With --codec vp9 and --temporal-layers: describe the layers to members as one stream (no layer byte, picture \
        ids renumbered per member), as FFmpeg 5.1 reads VP9, instead of RFC 9628 flexible mode.
        """)
    var vp9LayersAsOne = false
    @Flag(name: .customLong("no-simulcast"), help: """
        Encode the composite once only: members on weak links set everyone's bitrate instead of getting a second, \
        smaller encode (with --temporal-layers, only the layers serve them).
        """)
    var noSimulcast = false
    @Flag(inversion: .prefixedNo, help: "Pace video packets at 2.5 × the bandwidth estimate (the default), or send each frame as one burst.")
    var pacing = true
    @Option(help: ArgumentHelp("Draws per second participant 1's display affords.", valueName: "N"))
    var budget = 120
    @Option(help: ArgumentHelp("Participant 1's display refresh rate in Hz.", valueName: "HZ"))
    var refresh = 60
    @Flag(name: .customLong("no-srtp"), help: "Send plain RTP instead of SRTP.")
    var noSRTP = false
    @Option(name: .shortAndLong, help: ArgumentHelp(
        "Where to write the composite participant 1 received: .ivf (VP8/VP9) or .h264 as it arrived, .y4m as rendered "
            + "(default: /tmp/confer-meeting/composite.ivf, .h264 for H.264).", valueName: "COMPOSITE.ivf"))
    var output: String?
    @Option(help: ArgumentHelp("Where to write participant 1's mix (.wav or .opus).", valueName: "MIX.wav"))
    var audioOut = "/tmp/confer-meeting/mix.wav"
    @Option(help: ArgumentHelp("Also write the full report as JSON to this file.", valueName: "REPORT.json"))
    var report = "/tmp/confer-meeting/report.json"
    @Option(help: ArgumentHelp("The host kicks participant N at S seconds (repeatable).", valueName: "N@S"))
    var kick: [String] = []
    @Option(help: ArgumentHelp(
        "Participant N's own path (repeatable): bandwidth (kbit/s), delay, jitter (ms), loss (%), both ways or with up-/down-, e.g. 9:down-bandwidth=300.",
        valueName: "N:KEY=VALUE,…"))
    var member: [String] = []
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        if !inputs.isEmpty && participants != 4 && participants != inputs.count {
            throw ValidationError("--participants \(participants) but \(inputs.count) --inputs: give one or the other")
        }
        // --loss, --delay, --jitter and --bandwidth are checked by NetworkConditionOptions.
        let count = inputs.isEmpty ? participants : inputs.count
        for text in member where try MemberPathArgument(parsing: text).member > count {
            throw ValidationError("--member \(text) names a participant beyond the \(count) in the meeting")
        }
        try OptionCheck.bitrate(bitrate, in: 50 ... 50_000)
        guard (1...3).contains(temporalLayers) else {
            throw ValidationError("--temporal-layers \(temporalLayers) is outside 1…3")
        }
        if temporalLayers > 1 && codec == .h264 {
            throw ValidationError("--temporal-layers \(temporalLayers) needs --codec vp8 or vp9 (H.264 is encoded in one layer); "
                                  + "drop --temporal-layers to serve weak links with the second encode instead")
        }
        if vp9LayersAsOne && (codec != .vp9 || temporalLayers < 2) {
            throw ValidationError("--vp9-layers-as-one describes VP9's temporal layers: add --codec vp9 --temporal-layers 2 or 3")
        }
        let lowered = layout.lowercased()
        if !MixLayout.names.contains(lowered) && !["active-speaker", "picture-in-picture"].contains(lowered)
            && !lowered.hasSuffix(".json") {
            throw ValidationError("unknown --layout '\(layout)': use grid, speaker, pip, presenter or a FILE.json")
        }
    }

    /// The meeting the options describe (the layout file is read here).
    func meetingOptions() throws -> MeetingOptions {
        // --bandwidth caps the downlinks only.
        let downlink = network.conditions()
        var uplink = downlink
        uplink.bandwidth = nil
        var options = MeetingOptions(
            participants: inputs.isEmpty ? participants : inputs.count, videoInputs: inputs, audioInputs: audioInputs,
            duration: .seconds(duration), uplink: uplink, downlink: downlink, layout: try MixLayout(argument: layout),
            codec: codec.mediaCodec, canvasWidth: size.width, canvasHeight: size.height, frameRate: fps,
            compositeBitrate: bitrate * 1000, srtp: !noSRTP, drawBudget: budget, refreshRate: refresh, seed: network.seed)
        options.temporalLayers = temporalLayers
        options.vp9LayerSignalling = vp9LayersAsOne ? .pictureIDsOnly : .flexibleMode
        options.simulcast = !noSimulcast
        options.pacing = pacing
        options.kicks = try kick.map { text in
            let parts = text.split(separator: "@")
            guard parts.count == 2, let member = Int(parts[0]), let seconds = Double(parts[1]), member >= 1, seconds >= 0 else {
                throw ValidationError("--kick takes PARTICIPANT@SECONDS, e.g. 2@3.5 (got \(text))")
            }
            return (member: member - 1, at: .seconds(seconds))
        }
        for text in member {
            let argument = try MemberPathArgument(parsing: text)
            // Repeating a member adds to what it set before.
            options.memberPaths[argument.member - 1] = argument.path(
                uplink: options.memberPaths[argument.member - 1]?.uplink ?? uplink,
                downlink: options.memberPaths[argument.member - 1]?.downlink ?? downlink)
        }
        try options.validate()
        return options
    }

    /// The composite file: as given, or the default for the codec.
    var compositePath: String { output ?? "/tmp/confer-meeting/composite." + (codec == .h264 ? "h264" : "ivf") }

    func run() throws {
        let options = try meetingOptions()
        for path in [compositePath, audioOut, report] {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        }
        let progress = outputOptions.progress("meeting")
        let result = try Meeting.run(options: options, compositeOutput: compositePath, mixOutput: audioOut) { fraction in
            progress.update(Int(fraction * 100), of: 100, unit: "percent")
        }
        progress.finish()
        try reportJSON(result).write(to: URL(fileURLWithPath: report))
        try outputOptions.emit(MeetingCommandReport(report: result, reportFile: report))
    }
}

extension MeetingCommand: NetworkConditionCommand {
    /// A meeting's loss is always independent.
    typealias BurstLoss = NoBurstLossOption
    static let lossHelp = "Random loss on every path, both ways, in percent."
    static let delayHelp = "One-way delay between each participant and the host, in milliseconds."
    /// Unlike netsim's and simulate's, a meeting's paths have a delay unless told otherwise.
    static let defaultDelay = 25.0
    static let jitterHelp = "Delay variation on every path in milliseconds (normal distribution, order kept)."
    static let maximumMilliseconds = 10_000
    static let bandwidthHelp = "Bandwidth cap of every downlink in kbit/s."
    static let bandwidthRange = 50...1_000_000
    static let seedHelp = "Random seed: the same seed and options give the same meeting."
}

/// What `confer meeting` prints.
struct MeetingCommandReport: CommandReport {
    var report: MeetingReport
    var reportFile: String

    func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }

    var humanSummary: [String] {
        let r = report
        let up = r.uplinkConditions
        var lines = ["\(r.participants) participants, \(fixed(r.mediaSeconds, 1)) s, \(r.layout) layout on \(r.canvas) "
                     + "\(r.codec) @ \(fixed(r.frameRate, 0)) fps" + (r.srtp ? ", SRTP" : "") + ", seed \(r.seed)"]
        lines.append("  network each way: \(fixed(Double(up.delay.microseconds) / 1000, 0)) ms"
                     + ", jitter \(fixed(Double(up.jitter.amount.microseconds) / 1000, 0)) ms, loss \(fixed(up.loss * 100, 1)) %"
                     + (r.downlinkConditions.bandwidth.map { ", downlink cap \($0 / 1000) kbit/s" } ?? ""))
        let admitted = r.session.filter { $0.event == "joinRequestEnded" && $0.detail == "approved" }.count
        let left = r.session.filter { $0.event == "memberLeft" }.map { "\($0.identity) (\($0.detail ?? "")) at \(fixed($0.time, 1)) s" }
        lines.append("  room: \(admitted) join requests approved by the host" + (left.isEmpty ? "" : "; left: " + left.joined(separator: ", ")))
        lines.append("  host: \(fixed(r.hostSendFrameRate, 1)) fps sent, keyframes \(r.host.keyFramesEncoded) "
                     + "for \(r.host.keyframeRequestsReceived) requests, audio encoders at most \(r.host.maximumAudioEncodersInUse)")
        // The composite's size and frame rate second by second, when the size followed the bitrate.
        if r.host.resolutionChanges > 0 {
            let sizes = r.timeline.map { "\($0.compositeResolution)@\(Int($0.compositeFramesPerSecond))" }
            lines.append("  composite encoded at (each second, size@fps): " + sizes.joined(separator: " "))
        }
        // Who got fewer temporal layers, second by second.
        if r.timeline.contains(where: { $0.compositeLayers > 1 }) {
            let reduced = r.timeline.map { sample in
                let members = sample.members.enumerated().filter { $0.element.layers < sample.compositeLayers }
                return members.isEmpty ? "-" : members.map { "\($0.offset + 1):\($0.element.layers)/\(sample.compositeLayers)" }
                    .joined(separator: ",")
            }
            lines.append("  members given fewer temporal layers (each second, member:layers): " + reduced.joined(separator: " "))
        }
        // Who got the small encode, second by second.
        if r.timeline.contains(where: { $0.smallEncodeResolution != nil }) {
            let small = r.timeline.map { sample in
                let members = sample.members.enumerated().filter(\.element.smallEncode).map { "\($0.offset + 1)" }
                guard let size = sample.smallEncodeResolution, !members.isEmpty else { return "-" }
                return members.joined(separator: ",") + "@" + size + "/" + "\((sample.smallEncodeBitrate ?? 0) / 1000)k"
            }
            lines.append("  members given the small encode (each second, members@size/bitrate): " + small.joined(separator: " "))
        }
        var rows = [["member", "sends", "host gets", "up kB / lost", "down kB / lost", "streams v+a", "recv fps", "resolution",
                     "freezes", "audio pkt/s out / in", "speaking s (sched)"]]
        for m in r.members {
            rows.append([
                "\(m.id)", "\(m.sentResolution) \(m.sendBitrate / 1000)k",
                "\(m.hostReceivedResolution) \(fixed(m.hostReceiveFrameRate, 1)) fps",
                "\(m.uplink.bytesSent / 1000) / \(m.uplink.packetsLost)",
                "\(m.downlink.bytesDelivered / 1000) / \(m.downlink.packetsLost)",
                "\(m.videoStreamsReceived)+\(m.audioStreamsReceived)", fixed(m.receiveFrameRate, 1), m.receivedResolution,
                "\(m.freezeCount)", "\(fixed(m.audioPacketsSentPerSecond, 0)) / \(fixed(m.audioPacketsReceivedPerSecond, 0))",
                fixed(m.speakingSeconds, 1) + (m.scheduledTalkSeconds.map { " (\(fixed($0, 1)))" } ?? ""),
            ])
        }
        lines += table(rows).map { "  " + $0 }
        let renderer = r.renderer
        let views = renderer.views.map { v in "view \(v.view.rawValue) \(fixed(v.averageDrawnFPS, 1)) fps, "
            + "\(v.dropped.superseded + v.dropped.budget) dropped" }.joined(separator: "; ")
        lines.append("  participant 1's renderer: \(renderer.budget) draws/s at \(renderer.refreshRate) Hz, "
                     + "utilization \(fixed(renderer.utilization * 100, 0)) % — \(views)")
        lines.append("  wrote \(r.compositeFile ?? "-") (\(r.compositeFramesWritten) frames), \(r.mixFile ?? "-") "
                     + "(\(fixed(r.mixSeconds, 1)) s), \(reportFile)")
        lines.append("  \(fixed(r.simulatedSeconds, 1)) simulated seconds in \(fixed(r.wallSeconds, 2)) s: \(fixed(r.speed, 1))× real time")
        return lines
    }
}
