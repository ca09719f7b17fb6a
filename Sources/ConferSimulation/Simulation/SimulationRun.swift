import ConferMedia
import ConferCodecs
import ConferNet
import ConferJitter
import Confer
import ConferJobs

/// Pictures the receiver rendered, waiting for the loop to line them up with the input.
/// A class so the receive pipeline's render closure can fill it without holding the loop.
private final class RenderQueue {
    var frames: [ReceivedVideoFrame] = []
}

/// One run of a ``Simulation``: the event loop in virtual time and its state.
///
/// Each turn finds the earliest thing due — a capture, a datagram arriving at either end,
/// a pipeline's poll time, an audio pull, a change of network, a timeline sample — moves
/// the clock there and does everything due then, in a fixed order (arrivals at the
/// receiver, arrivals at the sender, network changes, a sender restart, captures, polls,
/// the audio pull, the sample), so a run is deterministic for a seed.
final class SimulationRun {
    private let media: SimulationMedia
    private let options: SimulationOptions
    private let network: SimulationNetwork
    private var sender: SendPipeline
    private let receiver: ReceivePipeline
    private let recorder: SimulationRecorder
    private let rendered = RenderQueue()
    private let senderConfiguration: SendPipelineConfiguration
    private let hasAudio: Bool

    private var now = Timestamp.zero
    private var frameIndex = 0
    private var videoDone = false
    /// The capture time after the last frame: the run ends `drainTime` after it.
    private var inputEnd: Timestamp?
    private var audioChunk = 0
    private var audioDone = false
    private var audioInput: AudioFrame
    private var audioOutput: AudioFrame
    private var nextPull = Timestamp.zero
    /// Whether the receiver's audio is still pulled: until everything sent has played out.
    private var audioPlaying = true
    private var inputAudioFrames = 0
    private var outputAudioFrames = 0
    private var pendingChanges: [SimulationOptions.NetworkChange]
    private var restartDone = false
    private var restarts = 0
    private var nextSample = Timestamp.zero
    private var lastSampleBytes = 0
    private var lastSampleDelays = 0
    private var timeline: [SimulationReport.Sample] = []
    /// Which input frame each sent RTP timestamp belongs to, by SSRC and timestamp.
    private var captureIndex: [UInt64: Int] = [:]

    static let audioChunkFrames = 480

    init(media: SimulationMedia, options: SimulationOptions) throws {
        guard options.codec.isVideo else { throw JobError(.invalidOptions, "--codec must be vp8, vp9 or h264") }
        guard media.frameRate > 0, media.frameRate <= 240 else { throw JobError(.invalidInput, "the input's frame rate \(media.frameRate) is outside 0…240") }
        self.media = media
        self.options = options
        hasAudio = media.audioChannels > 0
        network = SimulationNetwork(forward: options.forward, backward: options.backward, trace: options.forwardTrace,
                                    seed: options.seed)
        pendingChanges = options.networkChanges.sorted { $0.time < $1.time }
        audioInput = AudioFrame(silenceOf: Self.audioChunkFrames, channels: max(media.audioChannels, 1))
        audioOutput = AudioFrame(silenceOf: Self.audioChunkFrames, channels: max(media.audioChannels, 1))

        let bitrate = options.effectiveVideoBitrate(width: media.width, height: media.height, frameRate: media.frameRate)
        let lossPercent = Int((options.forward.expectedLossRate * 100).rounded(.up))
        senderConfiguration = SendPipelineConfiguration(
            video: .init(codec: options.codec, width: media.width, height: media.height, frameRate: media.frameRate,
                         maximumBitrate: bitrate, minimumBitrate: min(50_000, bitrate),
                         // A positive cpu-used lets libvpx's VP8 pick its speed from measured (wall-clock)
                         // encode times, so a run would depend on the machine's load; negative fixes it.
                         speed: options.codec == .vp8 ? -abs(options.speed) : options.speed,
                         allowsFrameDropping: options.allowsFrameDropping),
            audio: hasAudio ? .init(settings: AudioEncoderSettings(
                channels: media.audioChannels, bitrate: options.audioBitrate, inbandFEC: options.fec,
                expectedLossPercent: options.fec ? min(max(lossPercent, 1), 30) : 0)) : nil,
            maximumPacketSize: options.maximumPacketSize, paces: options.pacing, seed: options.seed)
        let network = self.network
        sender = try SendPipeline(configuration: senderConfiguration) { network.sendForward($0) }
        let queue = rendered
        receiver = try ReceivePipeline(
            configuration: ReceivePipelineConfiguration(
                video: .init(codec: options.codec, jitterBuffer: VideoJitterBufferConfiguration(nackEnabled: options.nack)),
                audio: hasAudio ? .init(jitterBuffer: AudioJitterBufferConfiguration(channels: media.audioChannels)) : nil),
            output: { network.sendBackward($0) },
            render: { queue.frames.append($0) })
        recorder = SimulationRecorder(width: media.width, height: media.height, output: media.writeVideo)
    }

    /// The capture time of input frame `index`.
    private func captureTime(_ index: Int) -> Timestamp {
        Timestamp(microseconds: Int64((Double(index) * 1_000_000 / media.frameRate).rounded()))
    }

    /// Runs to the end and reports.
    func run(progress: (Double) -> Void) throws -> SimulationReport {
        let wallStart = ContinuousClock.now
        var stalled = 0
        while true {
            guard let next = nextEventTime() else { break }
            if let end = inputEnd.map({ $0 + options.drainTime }), next > end { break }
            if next <= now {
                stalled += 1
                // Every source of events moves past `now` when handled; this guards against a bug.
                if stalled > 100_000 {
                    throw JobError(.internalFailure, "the simulation stopped advancing at \(now): network \(String(describing: network.nextDeliveryTime)), "
                                   + "sender \(String(describing: sender.nextPollTime)), receiver \(String(describing: receiver.nextPollTime)) (video \(String(describing: receiver.video?.jitterBuffer.nextWakeup)))")
                }
            } else {
                stalled = 0
            }
            now = max(now, next)
            network.now = now
            try step()
            if now >= nextSample {
                sample()
                if let total = media.expectedFrameCount, total > 0 {
                    progress(min(1, now.seconds / (captureTime(total) + options.drainTime).seconds))
                }
            }
        }
        try recorder.finish()
        let wallSeconds = max((ContinuousClock.now - wallStart) / .seconds(1), 1e-9)
        return makeReport(wallSeconds: wallSeconds)
    }

    private func nextEventTime() -> Timestamp? {
        var times: [Timestamp?] = [
            network.nextDeliveryTime, sender.nextPollTime, receiver.nextPollTime, pendingChanges.first.map { .zero + $0.time },
        ]
        if !videoDone { times.append(captureTime(frameIndex)) }
        if hasAudio && !audioDone { times.append(Timestamp(microseconds: Int64(audioChunk) * 10_000)) }
        if hasAudio && audioPlaying { times.append(nextPull) }
        if !videoDone || inputEnd != nil { times.append(nextSample) }
        return times.compactMap { $0 }.min()
    }

    /// Does everything due at `now`.
    private func step() throws {
        while let datagram = network.nextForwardDelivery(until: now) {
            datagram.withUnsafeBytes { _ = receiver.receive($0, at: now) }
            try drainRendered()
        }
        var heardBack = false
        while let datagram = network.nextBackwardDelivery(until: now) {
            datagram.withUnsafeBytes { _ = sender.receiveRTCP($0, at: now) }
            heardBack = true
        }
        if heardBack, let rtt = sender.roundTripTime { receiver.setRoundTripTime(rtt) }
        while let change = pendingChanges.first, .zero + change.time <= now {
            pendingChanges.removeFirst()
            network.change(forward: change.forward, backward: change.backward)
        }
        if let restart = options.senderRestart, !restartDone, now >= .zero + restart {
            try restartSender()
        }
        if !videoDone, captureTime(frameIndex) <= now { try captureVideo() }
        if hasAudio, !audioDone, Timestamp(microseconds: Int64(audioChunk) * 10_000) <= now { try captureAudio() }
        sender.poll(at: now)
        receiver.poll(at: now)
        try drainRendered()
        if hasAudio, audioPlaying, nextPull <= now {
            // Once the input has ended and its last packet has arrived and played, stop:
            // pulling on would only count concealment of audio that was never sent.
            // (The buffer level can keep a remnant shorter than one pull.)
            if audioDone, network.forwardPacketsInFlight == 0,
               (receiver.audio?.jitterBuffer.bufferLevel ?? .zero) < .milliseconds(10) {
                audioPlaying = false
                return
            }
            receiver.pullAudio(at: now, into: &audioOutput)
            outputAudioFrames += audioOutput.frameCount
            try media.writeAudio(audioOutput)
            nextPull = nextPull + .milliseconds(10)
        }
    }

    private func captureVideo() throws {
        if let limit = options.maximumDuration, captureTime(frameIndex) - .zero >= limit {
            finishVideo()
            return
        }
        guard var frame = try media.nextVideoFrame() else {
            finishVideo()
            return
        }
        guard frame.width == media.width, frame.height == media.height else {
            throw JobError(.invalidInput, "input frame \(frameIndex) is \(frame.width)x\(frame.height), not \(media.width)x\(media.height)")
        }
        frame.timestamp = captureTime(frameIndex)
        recorder.captured(frame, index: frameIndex)
        if let rtp = sender.videoRTPTimestamp(at: frame.timestamp), let ssrc = sender.configuration.video?.ssrc {
            captureIndex[UInt64(ssrc) << 32 | UInt64(rtp)] = frameIndex
        }
        try sender.sendVideo(frame, at: now)
        frameIndex += 1
    }

    private func finishVideo() {
        videoDone = true
        inputEnd = captureTime(frameIndex)
    }

    private func captureAudio() throws {
        if let end = inputEnd, Timestamp(microseconds: Int64(audioChunk) * 10_000) >= end {
            audioDone = true
            return
        }
        guard try media.readAudio(&audioInput, Self.audioChunkFrames), audioInput.frameCount > 0 else {
            audioDone = true
            return
        }
        audioInput.timestamp = Timestamp(microseconds: Int64(audioChunk) * 10_000)
        inputAudioFrames += audioInput.frameCount
        try sender.sendAudio(audioInput, at: now)
        audioChunk += 1
    }

    /// Replaces the sender with a new one: new SSRCs, sequence numbers and timestamps.
    private func restartSender() throws {
        restartDone = true
        restarts += 1
        var configuration = senderConfiguration
        configuration.seed = options.seed &+ 0x1234_5678
        configuration.video?.ssrc &+= 0x100
        configuration.video?.rtxSSRC &+= 0x100
        configuration.audio?.ssrc &+= 0x100
        let network = self.network
        sender = try SendPipeline(configuration: configuration) { network.sendForward($0) }
    }

    /// Lines up what the receiver rendered with the input frames.
    private func drainRendered() throws {
        guard !rendered.frames.isEmpty else { return }
        for received in rendered.frames {
            guard let index = captureIndex[UInt64(received.ssrc) << 32 | UInt64(received.rtpTimestamp)] else { continue }
            try recorder.rendered(received.frame, captureIndex: index, captureTime: captureTime(index),
                                  renderTime: received.renderTime)
        }
        rendered.frames.removeAll(keepingCapacity: true)
    }

    private func sample() {
        let statistics = sender.statistics
        let receiverVideo = receiver.video?.jitterBuffer
        let bytes = network.forwardBytesSent
        let elapsed = options.sampleInterval.seconds
        timeline.append(SimulationReport.Sample(
            time: now.seconds, targetBitrate: sender.targetBitrate, encoderBitrate: statistics.video?.targetBitrate ?? 0,
            sendBitrate: Int(Double(bytes - lastSampleBytes) * 8 / elapsed),
            videoTargetDelay: receiverVideo?.targetDelay.seconds, audioTargetDelay: receiver.audio?.jitterBuffer.targetDelay.seconds,
            roundTripTime: statistics.roundTripTime, framesRendered: recorder.endToEndDelays.count,
            endToEndDelay: recorder.endToEndDelays[lastSampleDelays...].max()?.seconds))
        lastSampleBytes = bytes
        lastSampleDelays = recorder.endToEndDelays.count
        nextSample = nextSample + options.sampleInterval
    }

    private func makeReport(wallSeconds: Double) -> SimulationReport {
        var receiverStatistics = receiver.statistics
        let video = receiverStatistics.video
        let audio = receiverStatistics.audio
        receiverStatistics.video = nil
        receiverStatistics.audio = nil
        let quality = recorder.quality
        let simulated = now.seconds
        let played = Double(max(audio?.totalSamplesReceived ?? 0, 1))
        let concealed = Double(audio?.concealedSamples ?? 0) / played
        let audible = Double((audio?.concealedSamples ?? 0) - (audio?.silentConcealedSamples ?? 0)) / played
        return SimulationReport(
            codec: options.codec, width: media.width, height: media.height, frameRate: media.frameRate, seed: options.seed,
            nack: options.nack, fec: options.fec, inputFrames: frameIndex, outputFrames: recorder.framesWritten,
            inputAudioSeconds: Double(inputAudioFrames) / Double(conferSampleRate),
            outputAudioSeconds: Double(outputAudioFrames) / Double(conferSampleRate),
            simulatedSeconds: simulated, wallSeconds: wallSeconds, speed: simulated / wallSeconds,
            video: video, audio: audio, audioConcealedFraction: concealed, audioAudibleConcealedFraction: audible,
            sender: sender.statistics, receiver: receiverStatistics,
            quality: SimulationReport.Quality(
                framesCompared: quality.frameCount, framesShown: recorder.framesShown, framesRepeated: recorder.framesRepeated,
                framesBlank: recorder.framesBlank, meanPSNR: quality.meanPSNR, minPSNR: quality.minPSNR,
                meanSSIM: quality.meanSSIM),
            endToEndDelay: SimulationPercentiles(recorder.endToEndDelays),
            network: SimulationReport.Network(
                forward: options.forward, backward: options.backward, forwardStatistics: network.forwardStatistics,
                backwardStatistics: network.backwardStatistics, forwardDelay: SimulationPercentiles(network.forwardDelays)),
            timeline: timeline, senderRestarts: restarts)
    }
}
