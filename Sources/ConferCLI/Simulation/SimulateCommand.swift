import ArgumentParser
import Foundation
import Confer
import ConferMedia
import ConferNet
import ConferSimulation

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Send a clip through a simulated network to a receiver, in virtual time, and report what arrived.",
        discussion: """
        The real send and receive pipelines (encoder, RTP, congestion control, NACK/RTX, jitter buffers, \
        decoder) run against a seeded network model both ways, faster than real time. RECEIVED.y4m has \
        one frame per input frame: the picture the receiver rendered for it, or the last one rendered \
        before it when it never rendered (a freeze), so `confer compare INPUT RECEIVED.y4m` is meaningful. \
        The audio the receiver played, pulled every 10 ms from the first capture, goes to --audio-out.

        Examples:
          confer simulate clip.y4m --codec vp8 --loss 5 --delay 50 --jitter 30 -o received.y4m
          confer simulate clip.y4m voice.wav --loss 10 --burst 3 -o received.y4m --audio-out received.wav
          confer simulate clip.y4m --bandwidth 400 --report report.json -o received.y4m
        """)

    @Argument(help: "The input video (.y4m, or .ivf / .h264, which is decoded first).")
    var input: String
    @Argument(help: "Optional input audio (.wav or .opus).")
    var audioInput: String?
    @Option(help: "Codec: vp8, vp9 or h264.")
    var codec: VideoCodec = .vp8
    @OptionGroup var network: NetworkConditionOptions<SimulateCommand>
    @Option(help: ArgumentHelp("Random loss on the feedback path in percent.", valueName: "PCT"))
    var feedbackLoss: Double = 0
    @Option(help: ArgumentHelp("Video bitrate to start at and never exceed, in kbit/s (default: about 0.1 bit per pixel).", valueName: "KBPS"))
    var bitrate: Int?
    @Option(help: ArgumentHelp("Only the first this many seconds of the input.", valueName: "S"))
    var duration: Double?
    @Flag(name: .customLong("no-nack"), help: "Do not ask for lost video packets again (no NACK/RTX).")
    var noNack = false
    @Flag(name: .customLong("no-fec"), help: "No Opus in-band forward error correction.")
    var noFEC = false
    @Option(help: ArgumentHelp("Drop-tail queue limit of the bandwidth cap, in milliseconds of data (netsim's model).", valueName: "MS"))
    var queue: Double = 200
    @Flag(inversion: .prefixedNo, help: "Pace video packets at 2.5 × the bandwidth estimate (the default), or send each frame as one burst.")
    var pacing = true
    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the received video (.y4m).", valueName: "RECEIVED.y4m"))
    var output: String
    @Option(help: ArgumentHelp("Where to write the received audio (.wav or .opus).", valueName: "RECEIVED.wav"))
    var audioOut: String?
    @Option(help: ArgumentHelp("Also write the full report as JSON to this file.", valueName: "REPORT.json"))
    var report: String?
    @OptionGroup var outputOptions: OutputOptions

    func validate() throws {
        // --loss, --burst, --delay, --jitter and --bandwidth are checked by NetworkConditionOptions.
        if !(0...100).contains(feedbackLoss) { throw ValidationError("--feedback-loss is a percentage, 0…100") }
        try OptionCheck.bitrate(bitrate, in: 30 ... 100_000)
        if let duration, !(duration > 0 && duration <= 3600) { throw ValidationError("--duration must be between 0 and 3600 seconds") }
        if !(queue >= 1 && queue <= 60_000) { throw ValidationError("--queue is in milliseconds, 1…60000") }
    }

    /// The simulation the options describe.
    var options: SimulationOptions {
        // The feedback path has the media path's delay but only its own loss.
        let backward = NetworkConditions(delay: network.delayTime, loss: feedbackLoss / 100)
        var forward = network.conditions()
        forward.queueLimit = .duration(milliseconds(queue))
        var options = SimulationOptions(
            codec: codec.mediaCodec, forward: forward, backward: backward, seed: network.seed, nack: !noNack, fec: !noFEC,
            videoBitrate: bitrate.map { $0 * 1000 }, maximumDuration: duration.map { .seconds($0) })
        options.pacing = pacing
        return options
    }

    func run() throws {
        let progress = outputOptions.progress("simulate")
        let result = try Simulation.run(input: input, audioInput: audioInput, output: output, audioOutput: audioOut,
                                        options: options) { fraction in
            progress.update(Int(fraction * 100), of: 100, unit: "percent")
        }
        progress.finish()
        if let report {
            try reportJSON(result).write(to: URL(fileURLWithPath: report))
        }
        try outputOptions.emit(SimulateReport(input: input, output: output, report: result))
    }
}

extension SimulateCommand: NetworkConditionCommand {
    typealias BurstLoss = BurstLossOption
    static let lossHelp = "Random loss on the media path in percent."
    static let delayHelp = "One-way delay in milliseconds (both ways)."
    static let defaultDelay = 0.0
    static let jitterHelp = "Delay variation on the media path in milliseconds (normal distribution; order is kept)."
    static let maximumMilliseconds = 10_000
    static let bandwidthHelp = "Bandwidth cap on the media path in kbit/s (IP+UDP overhead counted, 200 ms drop-tail queue)."
    static let bandwidthRange = 10...1_000_000
    static let seedHelp = "Random seed: the same seed and options give the same run."
}

/// What `confer simulate` prints: the simulation report with the files it read and wrote.
struct SimulateReport: CommandReport {
    var input: String
    var output: String
    var report: SimulationReport

    func encode(to encoder: any Encoder) throws { try report.encode(to: encoder) }

    var humanSummary: [String] {
        let r = report
        let forward = r.network.forward
        var lines = ["\(input) → \(output): \(r.codec) \(r.width)x\(r.height) @ \(fixed(r.frameRate, 2)) fps, seed \(r.seed)"
                     + (r.nack ? "" : ", no NACK") + (r.fec ? "" : ", no FEC")]
        lines.append("  network: \(fixed(Double(forward.delay.microseconds) / 1000, 0)) ms one way"
                     + ", jitter \(fixed(Double(forward.jitter.amount.microseconds) / 1000, 0)) ms"
                     + ", loss \(fixed(r.network.forwardStatistics.lossRate * 100, 2)) % of \(r.network.forwardStatistics.packetsSent) packets"
                     + (forward.bandwidth.map { ", cap \($0 / 1000) kbit/s" } ?? ""))
        if let v = r.video {
            lines += table([
                ["video", "value"],
                ["frames in / out", "\(r.inputFrames) / \(r.outputFrames)"],
                ["framesDecoded / framesRendered", "\(v.framesDecoded) / \(v.framesRendered)"],
                ["framesDropped", "\(v.framesDropped)"],
                ["keyFramesDecoded", "\(v.keyFramesDecoded)"],
                ["packetsReceived / packetsLost", "\(v.packetsReceived) / \(v.packetsLost)"],
                ["jitter (ms)", fixed(v.jitter * 1000, 1)],
                ["freezeCount / totalFreezesDuration (s)", "\(v.freezeCount) / \(fixed(v.totalFreezesDuration, 2))"],
                ["jitterBufferDelay per frame (ms)", fixed(perFrame(v.jitterBufferDelay, v.jitterBufferEmittedCount), 1)],
                ["jitterBufferTargetDelay per frame (ms)", fixed(perFrame(v.jitterBufferTargetDelay, v.jitterBufferEmittedCount), 1)],
                ["nackCount / pliCount / firCount", "\(v.nackCount) / \(v.pliCount) / \(v.firCount)"],
                ["RTX sent / received", "\(r.sender.video?.retransmittedPacketsSent ?? 0) / \(r.receiver.retransmissionsReceived)"],
                ["PSNR mean / min (dB)", "\(fixed(r.quality.meanPSNR.frame, 2)) / \(fixed(r.quality.minPSNR.frame, 2))"],
                ["frames shown / repeated / blank", "\(r.quality.framesShown) / \(r.quality.framesRepeated) / \(r.quality.framesBlank)"],
                ["end-to-end delay p50 / p95 / p99 (ms)",
                 "\(fixed(r.endToEndDelay.p50, 1)) / \(fixed(r.endToEndDelay.p95, 1)) / \(fixed(r.endToEndDelay.p99, 1))"],
                ["bitrate target at end (kbit/s)", "\((r.sender.video?.targetBitrate ?? 0) / 1000)"],
            ]).map { "  " + $0 }
        }
        if let a = r.audio {
            lines += table([
                ["audio", "value"],
                ["packetsReceived / packetsLost", "\(a.packetsReceived) / \(a.packetsLost)"],
                ["concealedSamples", "\(a.concealedSamples) (\(fixed(r.audioConcealedFraction * 100, 2)) %)"],
                ["insertedSamplesForDeceleration", "\(a.insertedSamplesForDeceleration)"],
                ["removedSamplesForAcceleration", "\(a.removedSamplesForAcceleration)"],
                ["fecPacketsRecovered", "\(a.fecPacketsRecovered)"],
                ["audioLevel / totalAudioEnergy", "\(fixed(a.audioLevel, 3)) / \(fixed(a.totalAudioEnergy, 3))"],
            ]).map { "  " + $0 }
        }
        lines.append("  \(fixed(r.simulatedSeconds, 1)) simulated seconds in \(fixed(r.wallSeconds, 2)) s: \(fixed(r.speed, 1))× real time")
        return lines
    }

    private func perFrame(_ total: Double, _ count: Int) -> Double { count > 0 ? total / Double(count) * 1000 : 0 }
}
