// Host scale: how many participants one compositing host keeps up with on this machine.
//
// For each N: N distinct VP8 640×360 30 fps streams (encoded up front, not timed) are
// decoded frame by frame, laid out on a 1280×720 grid and the canvas is encoded once with
// VP8 realtime cpu-used 8 at 1.5 Mbit/s. Prints one markdown row per run: the real-time
// factor (media seconds per wall second), the CPU seconds it took (all threads) and what
// that means at 30 fps: the cores a live host needs.
//
//   swift run -c release --package-path Benchmarks HostScale [--participants 4,9,16,25]
//       [--content card,noise] [--threads 1,2] [--encoder-threads 1] [--seconds 10] [--clip-seconds 10]
//       [--slot-sized]   (participants send the size, bitrate and frame rate their tile asks for, not 640×360)
import Foundation
import HostScaleKit

struct Options {
    var participants = [4, 9, 16, 25]
    var contents: [HostScaleContent] = [.card, .noise]
    var threads = [1, 2]
    var encoderThreads = 1
    var seconds = 10.0
    var clipSeconds = 10.0
    /// Participants send what their grid tile shows (the host's REMB per slot), not 640×360.
    var slotSized = false

    init(_ arguments: [String]) {
        var i = 0
        func value() -> String {
            i += 1
            guard i < arguments.count else { fail("\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        func integers(_ text: String) -> [Int] {
            text.split(separator: ",").map { item in
                guard let number = Int(item), number > 0 else { fail("'\(item)' is not a positive whole number") }
                return number
            }
        }
        func number(_ text: String) -> Double {
            guard let number = Double(text), number > 0 else { fail("'\(text)' is not a positive number") }
            return number
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--participants": participants = integers(value())
            case "--threads": threads = integers(value())
            case "--encoder-threads": encoderThreads = integers(value())[0]
            case "--content":
                contents = value().split(separator: ",").map { item in
                    guard let content = HostScaleContent(rawValue: String(item)) else { fail("content is card or noise, not \(item)") }
                    return content
                }
            case "--seconds": seconds = number(value())
            case "--clip-seconds": clipSeconds = number(value())
            case "--slot-sized": slotSized = true
            default: fail("unknown argument \(arguments[i])")
            }
            i += 1
        }
    }
}

func fail(_ message: String) -> Never {
    log("HostScale: \(message)")
    exit(2)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes a line to standard output now (print buffers when the output is a file or a pipe).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// CPU seconds this process has used so far, on all its threads.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

func loadAverage() -> String {
    var loads = [Double](repeating: 0, count: 3)
    guard getloadavg(&loads, 3) == 3 else { return "?" }
    return loads.map { String(format: "%.2f", $0) }.joined(separator: " ")
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let frames = Int((options.seconds * HostScaleHost.frameRate).rounded())
let clipFrames = Int((options.clipSeconds * HostScaleClips.frameRate).rounded())
let warmUpFrames = 30

emit("| participants | content | participant streams | loop threads | encoder threads | media s | wall s | real-time factor (wall) | CPU s | CPU s per media s | reads on encoder thread | output kbit/s | load (1/5/15 min) |")
emit("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for content in options.contents {
    log("encoding \(options.participants.max() ?? 0) \(content) clips of \(clipFrames) frames…")
    let shared = options.slotSized
        ? nil : try HostScaleClips(participants: options.participants.max() ?? 0, frames: clipFrames, content: content)
    for participants in options.participants {
        let slot = HostScaleClips.slotSized(participants: participants)
        let clips = try shared ?? HostScaleClips(participants: participants, frames: clipFrames, content: content,
                                                 size: slot.size, bitrate: slot.bitrate, frameRateDivisor: slot.frameRateDivisor)
        let streams = "\(clips.size.width)x\(clips.size.height)"
            + (shared == nil ? " @ \(slot.bitrate / 1000)k, \(Int(HostScaleClips.frameRate) / slot.frameRateDivisor) fps" : " @ 800k")
        for threads in options.threads {
            let host = try HostScaleHost(clips: clips, participants: participants, threads: threads,
                                         encoderThreads: options.encoderThreads)
            // Untimed: the first keyframes and the encoder's first frames.
            try host.run(frames: warmUpFrames)
            let readsBefore = host.loop.statistics.readsOnConsumerThread, allReadsBefore = host.loop.statistics.reads
            let bytesBefore = host.encodedBytes
            let (cpu0, wall0) = (processCPUSeconds(), wallSeconds())
            try host.run(frames: frames)
            let (cpu, wall) = (processCPUSeconds() - cpu0, wallSeconds() - wall0)
            let media = Double(frames) / HostScaleHost.frameRate
            let stats = host.loop.statistics
            let helped = Double(stats.readsOnConsumerThread - readsBefore) / Double(max(1, stats.reads - allReadsBefore))
            let kbps = Double(host.encodedBytes - bytesBefore) * 8 / media / 1000
            let figures: [String] = [
                "\(participants)", content.rawValue, streams, "\(threads)", "\(options.encoderThreads)", format(media, 1), format(wall, 2), format(media / wall, 2),
                format(cpu, 2), format(cpu / media, 2), format(helped * 100, 0) + " %", format(kbps, 0), loadAverage(),
            ]
            emit("| " + figures.joined(separator: " | ") + " |")
            log("  waits: consumer \(format(stats.consumerWaitSeconds, 2)) s, producer for reads \(format(stats.producerWaitForReadsSeconds, 2)) s, for room \(format(stats.producerWaitForRoomSeconds, 2)) s")
        }
    }
}
