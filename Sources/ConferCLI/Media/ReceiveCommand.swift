import Foundation
import ArgumentParser
import Synchronization
import Confer
import ConferMedia
import ConferNet
import ConferSRTP
import ConferLive

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive one RTP (or SRTP) stream over UDP and write it to a file.",
        discussion: """
        The stream goes through the jitter buffers in real time, as a participant's app would play it: .y4m gets \
        the pictures as they render, .wav (or .opus) the audio as it plays, .ivf and .h264 the frames the jitter \
        buffer hands the decoder. NACK, PLI, transport-cc feedback and receiver reports go back over the same \
        socket (RTCP multiplexed) to wherever the media comes from; `confer send` answers them, other senders may \
        ignore them. --no-jitter-buffer records instead: every frame as soon as it is assembled, no feedback, audio \
        kept in RTP time however fast it came. Reception ends after --duration, after --idle-timeout seconds \
        without a packet (once one has come), on the sender's BYE, or on Ctrl-C; what the buffers still hold is \
        then played out.
          confer receive --listen 0.0.0.0:5004 --codec vp8 -o out.y4m
          confer receive --sdp stream.sdp -o out.wav
        """)

    @Option(help: "HOST:PORT to listen on (with --sdp, the port defaults to the SDP's).")
    var listen: String?
    @Option(help: "Codec expected: vp8, vp9, h264 or opus (or take it from --sdp).")
    var codec: Codec?
    @Option(name: .shortAndLong, help: "The output file: .y4m, .wav, .opus, .ivf or .h264.")
    var output: String
    @Option(help: "RTP payload type accepted (default 96 for video, 111 for Opus).")
    var payloadType: Int?
    @Option(help: "Stop after this many seconds.")
    var duration: Double?
    @Option(help: "Stop once no packet has come for this many seconds (after the first).")
    var idleTimeout: Double = 2
    @Option(help: "SRTP key as PROFILE:BASE64.")
    var srtp: String?
    @Option(help: "Read codec, payload type, port and SRTP key from this SDP file.")
    var sdp: String?
    @Option(help: "Frame rate written in a .y4m header.")
    var fps: Double = 30
    @Option(help: "Audio channels written (1 or 2).")
    var channels: Int?
    @Flag(help: "Record without the jitter buffers: write each frame as soon as it is assembled, send no feedback.")
    var noJitterBuffer = false
    @Flag(help: "Do not ask for lost video packets again (no NACK); keyframe requests still go out.")
    var noNack = false
    @Flag(help: "Send no RTCP back at all (no NACK, PLI, transport-cc or receiver reports).")
    var noFeedback = false
    @Option(help: "Payload type of retransmissions (RFC 4588 RTX; default: the media's plus one).")
    var rtxPayloadType: Int?
    @OptionGroup var outputOptions: LiveOutputOptions

    func validate() throws {
        if sdp == nil {
            guard let listen, UDPAddress(parsing: listen) != nil else { throw ValidationError("--listen HOST:PORT is needed (or --sdp)") }
            guard codec != nil else { throw ValidationError("--codec is needed (or --sdp)") }
        } else if let listen, UDPAddress(parsing: listen) == nil {
            throw ValidationError("--listen must be HOST:PORT")
        }
        try OptionCheck.payloadType(payloadType)
        if let rtxPayloadType, !(0...127).contains(rtxPayloadType) || rtxPayloadType == payloadType {
            throw ValidationError("--rtx-payload-type must be 0…127 and not the media's")
        }
        try OptionCheck.positiveDuration(duration)
        if !(idleTimeout > 0) { throw ValidationError("--idle-timeout must be positive") }
        if let channels, channels != 1 && channels != 2 { throw ValidationError("--channels must be 1 or 2") }
        try OptionCheck.frameRate(fps)
    }

    func run() async throws {
        var options: LiveReceiverOptions
        if let sdp {
            let text: String
            do { text = try String(contentsOfFile: sdp, encoding: .utf8) } catch { throw ValidationError("cannot read \(sdp): \(error)") }
            let description = try SessionDescription(parsing: text)
            let address = listen.flatMap(UDPAddress.init(parsing:))
            options = try LiveReceiverOptions(sessionDescription: description, output: output, host: address?.host ?? "0.0.0.0")
            if let address { options.listen = address }
            if let codec { options.codec = codec }
        } else {
            options = LiveReceiverOptions(listen: UDPAddress(parsing: listen!)!, codec: codec!, output: output)
        }
        if let payloadType { options.payloadType = UInt8(payloadType) }
        if let srtp {
            do { options.srtpKey = try SRTPMasterKey(commandLineForm: srtp) } catch { throw ValidationError("--srtp: \(error)") }
        }
        if let channels { options.channels = channels }
        if let rtxPayloadType { options.rtxPayloadType = UInt8(rtxPayloadType) }
        options.usesJitterBuffer = !noJitterBuffer
        options.nack = !noNack
        options.sendsFeedback = !noFeedback
        options.maxDuration = duration
        options.idleTimeout = idleTimeout
        options.frameRate = fps
        let quiet = outputOptions.quiet
        let chosen = options
        let printer = outputOptions.printer()
        let progress = Mutex(outputOptions.progress("receive"))
        let unit = chosen.codec.isVideo ? "frames" : "packets"
        // Ctrl-C ends reception the way the idle timeout does, so the file is still completed.
        let reception = Task {
            try await LiveReceiver.run(options: chosen, ready: { port in
                let address = UDPAddress(host: chosen.listen.host, port: port)
                printer.print("listening", ["address": address.description, "port": port])
                if !quiet { printError("receive: listening on \(address)") }
            }, second: { second, report in
                printer.print("second", Self.figures(report, second: second))
                progress.withLock { $0.update(report.framesDecoded, of: nil, unit: unit) }
            })
        }
        let interrupt = reception.cancelledOnInterrupt()
        defer { interrupt.cancel() }
        let report = try await reception.value
        progress.withLock { $0.finish() }
        try outputOptions.finish(report, printer: printer, ["reason": report.endReason])
    }

    /// What `--events` says each second: the totals so far.
    static func figures(_ report: LiveReceiveReport, second: Int) -> [String: Any] {
        var fields: [String: Any] = [
            "second": second, "datagrams": report.datagrams, "bytes": report.bytes, "packetsAccepted": report.packetsAccepted,
            "lost": report.lost, "framesDecoded": report.framesDecoded, "framesWritten": report.framesWritten,
            "jitterMs": (report.jitterMilliseconds * 10).rounded() / 10,
        ]
        if let ssrc = report.streams.first?.ssrc { fields["ssrc"] = ssrc }
        if let video = report.pipeline?.video {
            fields["freezes"] = video.freezeCount
            fields["nacksSent"] = video.nackCount
            fields["keyframeRequestsSent"] = video.pliCount + video.firCount
        }
        return fields
    }
}

extension LiveReceiveReport: CommandReport {
    var humanSummary: [String] {
        var lines = ["\(listen) → \(output): \(codec), payload type \(payloadType)" + (srtpProfile.map { ", SRTP \($0)" } ?? "")
                     + ", ended by \(endReason) after \(fixed(wallSeconds, 2)) s"]
        lines += table([
            ["datagrams", "bytes", "lost", "duplicates", "out of order", "malformed", "SRTP auth", "SRTP replay", "other PT", "jitter ms"],
            ["\(datagrams)", "\(bytes)", "\(lost)", "\(duplicates)", "\(outOfOrder)", "\(malformed + malformedPayloads)",
             "\(srtpAuthenticationFailures)", "\(srtpReplays)", "\(wrongPayloadType)", fixed(jitterMilliseconds, 2)],
        ]).map { "  " + $0 }
        lines += table([
            ["frames assembled", "incomplete", "decoded", "not decoded", "written"],
            ["\(framesAssembled)", "\(framesIncomplete + framesMalformed)", "\(framesDecoded)", "\(framesNotDecoded)", "\(framesWritten)"],
        ]).map { "  " + $0 }
        if let video = pipeline?.video {
            let delay = video.jitterBufferEmittedCount > 0 ? 1000 * video.jitterBufferDelay / Double(video.jitterBufferEmittedCount) : 0
            lines += table([
                ["rendered", "dropped", "freezes", "frozen s", "buffer delay ms", "NACKs", "retransmitted", "PLIs", "FIRs"],
                ["\(video.framesRendered)", "\(video.framesDropped)", "\(video.freezeCount)", fixed(video.totalFreezesDuration, 2),
                 fixed(delay, 1), "\(video.nackCount)", "\(video.retransmittedPacketsReceived)", "\(video.pliCount)", "\(video.firCount)"],
            ]).map { "  " + $0 }
        }
        if let audio = pipeline?.audio {
            let delay = audio.jitterBufferEmittedCount > 0 ? 1000 * audio.jitterBufferDelay / Double(audio.jitterBufferEmittedCount) : 0
            lines += table([
                ["played s", "concealed s", "accelerated s", "decelerated s", "late", "buffer delay ms"],
                [fixed(audio.totalSamplesDuration, 2), fixed(Double(audio.concealedSamples) / 48_000, 2),
                 fixed(Double(audio.removedSamplesForAcceleration) / 48_000, 2), fixed(Double(audio.insertedSamplesForDeceleration) / 48_000, 2),
                 "\(audio.packetsDiscarded)", fixed(delay, 1)],
            ]).map { "  " + $0 }
        }
        if let feedbackDestination {
            lines.append("  \(feedbackDatagramsSent) RTCP datagrams back to \(feedbackDestination)"
                         + (feedbackSendFailures > 0 ? ", \(feedbackSendFailures) refused" : ""))
        }
        if codec == "opus" {
            lines.append("  \(samplesWritten) samples at 48 kHz (\(fixed(Double(samplesWritten) / 48_000, 2)) s), \(samplesConcealed) concealed")
        } else if width > 0 {
            lines.append("  \(width)x\(height)")
        }
        lines.append("  \(formatBytes(outputBytes)) written")
        lines += diagnoses.map { "  note: " + $0 }
        return lines
    }

    /// What most likely went wrong when datagrams came and nothing was decoded, with the option
    /// to check: the counters say it already, but not which option a person has to fix.
    var diagnoses: [String] {
        // Written counts too: without the jitter buffer, .ivf and .h264 store frames undecoded.
        guard datagrams > rtcpPackets, framesDecoded == 0, framesWritten == 0, samplesWritten == 0 else { return [] }
        var notes: [String] = []
        if packetsAccepted == 0, srtpAuthenticationFailures > 0 {
            notes.append("no packet passed SRTP authentication: is --srtp the sender's key?")
        }
        if packetsAccepted == 0, wrongPayloadType > 0 {
            notes.append("\(wrongPayloadType) RTP packets had another payload type than \(payloadType): give the sender's with --payload-type")
        }
        if packetsAccepted > 0, srtpProfile == nil {
            notes.append("packets came but none decoded: if the sender uses SRTP, give its key with --srtp; otherwise check --codec (\(codec))")
        }
        return notes
    }
}
