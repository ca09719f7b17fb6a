// The compositing host's steady-state work with N participants joined and sending
// (`confer meeting`'s defaults: 640×360 VP8 cameras, a 1280×720 30 fps VP8 grid):
//
// - "composite frame": one output frame — compose N slots, encode once, packetize once,
//   stamp and send (protect with each participant's key, with SRTP) to all N. The composite
//   runs at 1.5 Mbit/s, where a meeting's participants' estimates take it (with no
//   participant feedback here the host would stay at its 300 kbit/s start, where libvpx
//   skips most 720p frames), and the encoder may not skip frames, so every sample is a
//   whole frame;
// - "audio step": one 10 ms mixer step — pull N participants' audio, mix-minus, encode the
//   shared mix and the speaker's own, send to all N. The host here uses 10 ms Opus frames,
//   so every step encodes (with the default 20 ms every other step does).
//
// Participants' traffic is recorded up front (real SendPipelines, the first participant
// talking, the others' microphones quiet) and fed to the host between measured polls:
// each iteration feeds and polls everything due before its instant unmeasured (the
// receive chains decode there), then measures the host's poll at the instant a composite
// frame (or a mixer step) is due, and nothing else is. Instants where a frame and a mixer
// step coincide (every 100 ms) are done unmeasured and skipped.
import Benchmark
import Confer
import ConferMedia
import ConferMixer
import ConferSRTP

/// A host with `participants` joined at time zero, fed from recorded traffic.
final class HostBench {
    /// One recorded datagram: when it reaches the host and from whom.
    struct Datagram {
        var time: Timestamp
        var from: ParticipantID
        var bytes: [UInt8]
    }

    let host: HostPipeline
    private let traffic: [Datagram]
    private var nextDatagram = 0
    private let sink = Sink()
    private var frameIndex: Int64 = 0
    private var stepIndex: Int64 = 0

    /// Counts what the host sends (the closure must not allocate, or the figure would be ours).
    final class Sink {
        var datagrams = 0
        var bytes = 0
    }

    /// Records `seconds` of the participants' traffic, then joins them to a new host.
    init(participants count: Int, srtp: Bool, audioFrameDuration: Int, seconds: Int) throws {
        var random = SeededRandom(seed: 11)
        let keys = (0 ..< count).map { _ in
            srtp ? (SRTPMasterKey.random(profile: .aes128CmHmacSha1_80, using: &random),
                    SRTPMasterKey.random(profile: .aes128CmHmacSha1_80, using: &random)) as (SRTPMasterKey, SRTPMasterKey)? : nil
        }
        traffic = try Self.record(participants: count, uplinkKeys: keys.map { $0?.0 }, seconds: seconds)
        host = try HostPipeline(configuration: HostPipelineConfiguration(
            codec: .vp8, width: 1280, height: 720, frameRate: 30, maximumBitrate: 1_500_000,
            startBitrate: 1_500_000, audioFrameDuration: audioFrameDuration, allowsFrameDropping: false))
        let sink = sink
        for index in 0 ..< count {
            let receive = ReceivePipelineConfiguration(video: .init(codec: .vp8), audio: .init(),
                                                       ssrc: 0x6000_0000 + UInt32(index), srtpKey: keys[index]?.0)
            try host.addParticipant(ParticipantID(UInt32(index + 1)),
                                    configuration: HostParticipantConfiguration(receive: receive, srtpKey: keys[index]?.1),
                                    at: .zero) { datagram in
                sink.datagrams += 1
                sink.bytes += datagram.count
            }
        }
    }

    /// Each participant's SendPipeline for `seconds`: the test card at 30 fps, its capture
    /// clock 7 ms off the host's (so pictures do not fall due on the host's frame instants),
    /// 20 ms one way; participant 1 talks, the others send silence.
    private static func record(participants count: Int, uplinkKeys: [SRTPMasterKey?], seconds: Int) throws -> [Datagram] {
        var traffic: [Datagram] = []
        let delay = TimeDelta.milliseconds(20), offset = TimeDelta.milliseconds(7)
        for index in 0 ..< count {
            let id = ParticipantID(UInt32(index + 1))
            var now = Timestamp.zero
            let sender = try SendPipeline(configuration: SendPipelineConfiguration(
                video: .init(codec: .vp8, width: 640, height: 360, maximumBitrate: 600_000, speed: -8),
                audio: .init(), probesBandwidth: false, cname: "participant-\(index + 1)", srtpKey: uplinkKeys[index],
                seed: UInt64(100 + index))) { traffic.append(Datagram(time: now + delay, from: id, bytes: Array($0))) }
            var camera = TestPatternSource(width: 640, height: 360, colorIndex: index, seed: UInt64(index))
            var microphone = ToneSource(index: index, amplitude: index == 0 ? 0.3 : 0, pattern: .continuous)
            let frames = seconds * 30
            var audioChunk = 0
            for frame in 0 ..< frames {
                now = .zero + offset + (camera.timestamp(ofFrame: frame) - .zero)
                while .zero + offset + .milliseconds(Int64(audioChunk) * 10) <= now {
                    var chunk = microphone.next(frameCount: 480)
                    chunk.timestamp = .zero + offset + .milliseconds(Int64(audioChunk) * 10)
                    try sender.sendAudio(chunk, at: now)
                    audioChunk += 1
                }
                var picture = camera.next()
                picture.timestamp = now
                try sender.sendVideo(picture, at: now)
                sender.poll(at: now)
            }
        }
        traffic.sort { $0.time < $1.time }   // stable: each participant's order is kept
        return traffic
    }

    /// Feeds every datagram and runs every poll due before `time`.
    func run(before time: Timestamp) throws {
        while true {
            let datagramTime = nextDatagram < traffic.count ? traffic[nextDatagram].time : nil
            let pollTime = host.nextPollTime
            guard let next = [datagramTime, pollTime].compactMap({ $0 }).min(), next < time else { return }
            if let datagramTime, datagramTime == next {
                let datagram = traffic[nextDatagram]
                nextDatagram += 1
                datagram.bytes.withUnsafeBytes { _ = host.receive($0, from: datagram.from, at: next) }
            } else {
                try host.poll(at: next)
            }
        }
    }

    /// The next composite frame's instant that no mixer step shares, after running (and
    /// skipping) any that one does.
    func nextFrameTime() throws -> Timestamp {
        while true {
            let time = Timestamp.zero + TimeDelta(microseconds: Int64((Double(frameIndex) * 1_000_000 / 30).rounded()))
            frameIndex += 1
            if time.microseconds % 10_000 != 0 { return time }
            try run(before: time)
            try host.poll(at: time)
        }
    }

    /// The next mixer step's instant that no composite frame shares, after running (and
    /// skipping) any that one does.
    func nextStepTime() throws -> Timestamp {
        while true {
            let time = Timestamp.zero + .milliseconds(stepIndex * 10)
            stepIndex += 1
            if stepIndex % 10 != 1 { return time }   // frames fall on every 100 ms
            try run(before: time)
            try host.poll(at: time)
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 30,
        scalingFactor: .one,
        maxDuration: .seconds(60),
        maxIterations: 200
    )

    for participants in [4, 9] {
        for srtp in [false, true] {
            let transport = srtp ? "SRTP" : "plain RTP"
            // 30 warm-up + 200 measured frames, and every third frame skipped, fit in 13 s.
            var frames: HostBench?
            Benchmark("composite frame, \(participants) participants, \(transport)") { benchmark in
                if frames == nil { frames = try! HostBench(participants: participants, srtp: srtp, audioFrameDuration: 20, seconds: 13) }
                let bench = frames!
                let time = try! bench.nextFrameTime()
                try! bench.run(before: time)
                let before = bench.host.statistics
                benchmark.startMeasurement()
                try! bench.host.poll(at: time)
                benchmark.stopMeasurement()
                let after = bench.host.statistics
                // Measured iterations (after the warm-up's first second) are all steady state:
                // every slot shows a picture and every frame is encoded and sent.
                precondition(time < .seconds(1) || (after.videoFramesSent == before.videoFramesSent + 1
                             && after.compositor.placeholderSlots == before.compositor.placeholderSlots))
            }
            // 100 warm-up + 200 measured steps, and every tenth skipped, fit in 4 s.
            var steps: HostBench?
            Benchmark("audio step 10 ms, \(participants) participants, \(transport)",
                      configuration: .init(warmupIterations: 100)) { benchmark in
                if steps == nil { steps = try! HostBench(participants: participants, srtp: srtp, audioFrameDuration: 10, seconds: 4) }
                let bench = steps!
                let time = try! bench.nextStepTime()
                try! bench.run(before: time)
                let before = bench.host.statistics.audioFramesEncoded
                benchmark.startMeasurement()
                try! bench.host.poll(at: time)
                benchmark.stopMeasurement()
                let after = bench.host.statistics
                // After the warm-up's first second the speaker is detected: every measured step
                // encodes the shared mix for the listeners and the speaker's own.
                precondition(time < .seconds(1) || (after.audioFramesEncoded == before + 2 && after.audioEncodersInUse == 2))
            }
        }
    }
}

