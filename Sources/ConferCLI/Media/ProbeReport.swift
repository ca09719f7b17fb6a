import Confer
import ConferMedia
import ConferJobs
import ConferCodecs

extension TranscodeReport: CommandReport {
    var humanSummary: [String] {
        var lines = ["\(input) → \(output)"]
        if kind == "video" {
            lines.append("  \(unitsWritten) frames \(width ?? 0)x\(height ?? 0) @ \(fixed(frameRate ?? 0, 2)) fps, \(outputCodec)"
                         + (framesDropped > 0 ? ", \(framesDropped) dropped by rate control" : "")
                         + (keyframes > 0 ? ", \(keyframes) keyframes" : ""))
            lines.append("  \(fixed(mediaSeconds, 2)) s of video in \(fixed(wallSeconds, 2)) s: \(fixed(speed, 1)) fps")
        } else {
            lines.append("  \(unitsWritten) samples at 48 kHz (\(fixed(mediaSeconds, 2)) s), \(outputCodec)")
            lines.append("  done in \(fixed(wallSeconds, 2)) s: \(fixed(speed, 1))× real time")
        }
        lines.append("  \(formatBytes(outputBytes))" + (bitrateKbps.map { ", \(fixed($0, 1)) kbit/s" } ?? ""))
        return lines
    }
}

extension GenerateReport: CommandReport {
    var humanSummary: [String] {
        ["\(output): \(kind), \(pattern), \(units) \(kind == "video" ? "frames" : "samples"), \(fixed(seconds, 2)) s, \(formatBytes(bytes))"]
    }
}

extension ComparisonReport: CommandReport {
    var humanSummary: [String] {
        var lines = ["\(test) against \(reference): \(frames) frames compared"]
        if referenceFrames != testFrames {
            lines.append("  note: the reference has \(referenceFrames) frames, the test \(testFrames)")
        }
        lines += table([
            ["", "Y", "U", "V", "frame"],
            ["PSNR mean (dB)"] + [summary.meanPSNR.y, summary.meanPSNR.u, summary.meanPSNR.v, summary.meanPSNR.frame].map { fixed($0, 2) },
            ["PSNR min (dB)"] + [summary.minPSNR.y, summary.minPSNR.u, summary.minPSNR.v, summary.minPSNR.frame].map { fixed($0, 2) },
            ["SSIM mean"] + [summary.meanSSIM.y, summary.meanSSIM.u, summary.meanSSIM.v, summary.meanSSIM.frame].map { fixed($0, 4) },
            ["SSIM min"] + [summary.minSSIM.y, summary.minSSIM.u, summary.minSSIM.v, summary.minSSIM.frame].map { fixed($0, 4) },
        ]).map { "  " + $0 }
        return lines
    }
}

extension MediaFileInfo: CommandReport {
    var humanSummary: [String] {
        var parts = ["\(format.rawValue), \(codec)"]
        if let width, let height { parts.append("\(width)x\(height)") }
        if let frameRate { parts.append("\(fixed(frameRate, 2)) fps") }
        if let sampleRate { parts.append("\(sampleRate) Hz") }
        if let channels { parts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels") }
        if let frameCount { parts.append("\(frameCount) \(width != nil ? "frames" : "samples")") }
        if let keyframeCount { parts.append("\(keyframeCount) keyframes") }
        if let duration { parts.append("\(fixed(duration.seconds, 3)) s") }
        return [parts.joined(separator: ", ")]
    }
}

/// `confer probe`'s output: the file's name and what is in it.
struct ProbeReport: CommandReport {
    var file: String
    var info: MediaFileInfo
    var humanSummary: [String] { ["\(file): " + info.humanSummary[0]] }
}

extension DemoReport: CommandReport {
    var humanSummary: [String] {
        var rows: [[String]] = [["codec", "size", "kbit/s", "encode", "decode", "PSNR dB", "SSIM", "audio corr", "in→out"]]
        for r in results {
            let unit = r.codec.isVideo ? " fps" : "× rt"
            rows.append([r.codec.rawValue, formatBytes(r.bytes), fixed(r.bitrateKbps, 0), fixed(r.encodeSpeed, 0) + unit,
                         fixed(r.decodeSpeed, 0) + unit, r.psnr.map { fixed($0, 2) } ?? "-", r.ssim.map { fixed($0, 4) } ?? "-",
                         r.correlation.map { fixed($0, 4) } ?? "-", "\(r.unitsIn)→\(r.unitsOut)"])
        }
        return ["Confer demo: a generated test card and tone through every codec (files in \(directory))", ""]
            + table(rows)
            + ["", "Try: confer probe \(directory)/encoded.vp8.ivf   ·   confer compare \(sourceVideo) \(directory)/decoded-vp8.y4m --json"]
    }
}
