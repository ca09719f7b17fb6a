import ConferMedia
import ConferNet
import ConferRTP
import ConferJitter
import Confer

/// `confer receive`: a ``ReceivePipeline`` behind the socket on the wall clock, played out
/// as a participant's app would run it or, without the jitter buffer, recording.
///
/// Datagrams go to the pipeline as they arrive (stamped when the socket task read them);
/// the pipeline is polled at its ``ReceivePipeline/nextPollTime`` and, when playing audio
/// out, pulled every 10 ms from the first packet. Pictures are written as they render, played
/// audio as it plays (leading silence and the synthesis after the stream's end left out, see
/// ``TrailingAudio``), and IVF or Annex-B get the encoded frames the jitter buffer delivers.
/// Recording (``ReceivePipelineMode/recording(reorderWindow:)``), pictures are written as
/// soon as their frames complete and Opus packets are decoded here as they come, losses
/// concealed so the file keeps RTP time. When playing out, the pipeline's RTCP — NACK, PLI,
/// transport-cc, receiver reports — goes back from the listening socket (RTCP multiplexed,
/// RFC 5761) to the address the media comes from; with a sender that ignores it (FFmpeg,
/// GStreamer) it is simply unanswered.
///
/// Reception ends after the duration, once no datagram has come for the idle timeout, on
/// a BYE for the stream, or when the task is cancelled. Whatever the buffers still hold is
/// then played out in virtual time — as if the stream had paused — so no frame that
/// arrived is lost to the ending, and the files are completed.
final class LiveReceiverSession {
    private let options: LiveReceiverOptions
    private let pipeline: ReceivePipeline
    private let output: LiveReceiverOutput
    private let feedback: DatagramQueue
    private let pool = UDPBufferPool(capacity: 256)
    private var feedbackDestination: UDPDestination?
    private var feedbackSent = 0
    private var feedbackFailures = 0
    private var start: Timestamp?
    private var lastArrival: Timestamp?
    /// Called once a second of reception with its number (from 1) and the report so far; nil
    /// when nobody asked.
    private let second: (@Sendable (Int, LiveReceiveReport) -> Void)?
    private var seconds = SecondTicker()
    private(set) var endReason = "cancelled"

    private var nextPull: Timestamp?
    private var played: AudioFrame
    private var trailing: TrailingAudio
    private var hasPlayed = false
    private var lastEmitted: Int64 = 0
    private var lastConcealed: Int64 = 0

    /// Audio pulls further behind than this are skipped rather than caught up (the process was stalled).
    static let maximumPullBacklog = TimeDelta.milliseconds(500)
    /// How far past the end the buffers are run in virtual time to play out what they hold:
    /// beyond the video buffer's delay cap plus its lateness, and the audio buffer's storage.
    static let drainHorizon = TimeDelta.seconds(2)

    init(options: LiveReceiverOptions, second: (@Sendable (Int, LiveReceiveReport) -> Void)? = nil) throws {
        self.options = options
        self.second = second
        // The pipeline decodes video; a recording's Opus is decoded here, in RTP time.
        let output = try LiveReceiverOutput(path: options.output, codec: options.codec, channels: options.channels,
                                           frameRate: options.frameRate, threads: options.threads,
                                           decodes: !options.usesJitterBuffer && !options.codec.isVideo)
        self.output = output
        let feedback = DatagramQueue(reservingBytes: 16 * 1500, datagrams: 16)
        self.feedback = feedback
        var configuration = ReceivePipelineConfiguration(
            srtpKey: options.srtpKey,
            mode: options.usesJitterBuffer ? .playout : .recording(reorderWindow: options.reorderWindow))
        if options.codec.isVideo {
            configuration.video = .init(
                codec: options.codec, payloadType: options.effectivePayloadType, rtxPayloadType: options.effectiveRTXPayloadType,
                jitterBuffer: VideoJitterBufferConfiguration(nackEnabled: options.nack && options.sendsFeedback),
                decoderThreads: options.threads)
        } else {
            configuration.audio = .init(payloadType: options.effectivePayloadType,
                                        jitterBuffer: AudioJitterBufferConfiguration(channels: options.channels))
        }
        let sendsFeedback = options.sendsFeedback
        pipeline = try ReceivePipeline(
            configuration: configuration,
            output: { datagram in if sendsFeedback { feedback.append(datagram) } },
            render: { frame in output.writeDeferringErrors(picture: frame.frame, encoded: nil) })
        if output.takesEncodedFrames {
            pipeline.encodedFrameHandler = { frame in output.writeDeferringErrors(picture: nil, encoded: frame) }
        }
        played = AudioFrame(silenceOf: AudioJitterBuffer.framesPerPull, channels: options.channels)
        // Enough to hold the idle timeout's worth of trailing synthesis, up to 10 s.
        trailing = TrailingAudio(capacity: Int(min(max(options.idleTimeout, 0) + 0.5, 10) * 100))
    }

    /// Receives as `options` say (see the type's documentation).
    static func run(options: LiveReceiverOptions, clock: some MediaClock, ready: @Sendable (Int) -> Void,
                    second: (@Sendable (Int, LiveReceiveReport) -> Void)? = nil) async throws -> LiveReceiveReport {
        try LiveReceiverOutput.validate(path: options.output, codec: options.codec)
        let wallStart = ContinuousClock.now
        var report = try await UDPSocket.withSocket(bindingTo: options.listen) { socket in
            ready(socket.localPort)
            let playout = try LiveReceiverSession(options: options, second: second)
            let ending = try await RealtimeLoop.run(socket: socket, clock: clock, pool: playout.pool) { event, now in
                try await playout.handle(event, at: now, socket: socket)
            }
            if ending == .cancelled { playout.endReason = "cancelled" }
            try playout.playOut(from: clock.now)
            return try playout.finish(port: socket.localPort)
        }
        report.wallSeconds = (ContinuousClock.now - wallStart).seconds
        return report
    }

    /// One turn of the loop: the datagram if any, then everything due by its arrival (or
    /// by `now` for a wake-up). Going by arrival times keeps the pipeline's view in order
    /// when the loop falls behind: the audio pulls due before a queued datagram arrived
    /// happen before it goes in, as they would have had the loop kept up.
    private func handle(_ event: RealtimeEvent, at now: Timestamp, socket: UDPSocket) async throws -> RealtimeNext {
        if start == nil { start = now }
        if second != nil { seconds.start(at: now) }
        var time = now
        if case .datagram(let datagram, let arrival) = event {
            time = arrival
            try pullAudio(until: arrival)
            let accepted = pipeline.counters.rtpPacketsReceived
            datagram.bytes.withUnsafeBytes { _ = pipeline.receive($0, at: arrival) }
            lastArrival = arrival
            // Feedback follows the media: to wherever the stream's packets come from now.
            if pipeline.counters.rtpPacketsReceived != accepted, feedbackDestination?.address != datagram.source {
                feedbackDestination = try? UDPSocket.resolve(datagram.source)
            }
            if nextPull == nil, options.usesJitterBuffer, pipeline.audio?.ssrc != nil { nextPull = arrival }
            pool.recycle(datagram.bytes)
        }
        if let due = pipeline.nextPollTime, due <= time { pipeline.poll(at: time) }
        try pullAudio(until: time)
        try output.throwDeferredError()
        await sendFeedback(on: socket)

        if let second, seconds.isDue(at: now) { second(seconds.count, report(port: socket.localPort, outputBytes: 0)) }

        let idleEnd = lastArrival.map { $0 + .seconds(options.idleTimeout) }
        let durationEnd = options.maxDuration.map { (start ?? now) + .seconds($0) }
        if let durationEnd, now >= durationEnd {
            endReason = "duration"
            return .stop
        }
        if pipeline.counters.goodbyesReceived > 0 {
            endReason = "bye"
            return .stop
        }
        if let idleEnd, now >= idleEnd {
            endReason = "idle"
            return .stop
        }
        return .wait(until: earliest(earliest(earliest(pipeline.nextPollTime, nextPull), earliest(idleEnd, durationEnd)), seconds.next))
    }

    /// Sends the RTCP the pipeline wrote, to where the media comes from.
    private func sendFeedback(on socket: UDPSocket) async {
        defer { feedback.removeAll() }
        guard let destination = feedbackDestination else { return }
        for index in 0 ..< feedback.count {
            do {
                try await socket.send(feedback[index], to: destination)
                feedbackSent += 1
            } catch {
                // A refused datagram is the network's loss; reception goes on.
                feedbackFailures += 1
            }
        }
    }

    /// Pulls 10 ms of audio for every pull due by `time` and writes it.
    private func pullAudio(until time: Timestamp) throws {
        guard pipeline.audio != nil else { return }
        while let due = nextPull, due <= time {
            if time - due > Self.maximumPullBacklog {
                nextPull = time
                continue
            }
            try pull(at: due)
            nextPull = due + .milliseconds(10)
        }
    }

    /// One pull: written once audio has played, synthesis held back (see ``TrailingAudio``).
    private func pull(at time: Timestamp) throws {
        guard let audio = pipeline.audio else { return }
        pipeline.pullAudio(at: time, into: &played)
        let statistics = audio.jitterBuffer.statistics
        let decoded = statistics.jitterBufferEmittedCount - lastEmitted
        let concealed = Int(statistics.concealedSamples - lastConcealed)
        lastEmitted = statistics.jitterBufferEmittedCount
        lastConcealed = statistics.concealedSamples
        let output = self.output
        if decoded > 0 {
            hasPlayed = true
            try trailing.release { try output.write(played: $0, concealed: $1) }
            try output.write(played: played, concealed: concealed)
        } else if hasPlayed {
            try trailing.hold(played, concealedFrames: concealed) { try output.write(played: $0, concealed: $1) }
        }
    }

    /// Plays out what the buffers hold, in virtual time from `now`: frames still waiting
    /// render (or are given up), audio still buffered plays; feedback is no longer sent.
    private func playOut(from now: Timestamp) throws {
        feedback.removeAll()
        let horizon = now + Self.drainHorizon
        var time = now
        var steps = 0
        while let next = pipeline.nextPollTime, next <= horizon, steps < 100_000 {
            time = max(time, next)
            pipeline.poll(at: time)
            feedback.removeAll()
            // A poll that leaves its time due again would spin: step on.
            if let again = pipeline.nextPollTime, again <= time { time = time + .milliseconds(1) }
            steps += 1
        }
        if let audio = pipeline.audio, var due = nextPull {
            due = max(due, now)
            while audio.jitterBuffer.bufferLevel >= .milliseconds(10), due <= horizon {
                try pull(at: due)
                due = due + .milliseconds(10)
            }
        }
        trailing.discard()
        try output.throwDeferredError()
    }

    /// Completes the output and gathers every counter.
    private func finish(port: Int) throws -> LiveReceiveReport {
        report(port: port, outputBytes: try output.finish())
    }

    /// Every counter so far, with `outputBytes` as the size of the output.
    private func report(port: Int, outputBytes: Int) -> LiveReceiveReport {
        let statistics = pipeline.statistics
        let srtp = statistics.srtp
        let reception = pipeline.video?.reception ?? pipeline.audio?.reception
        let stream = reception.map { s in
            LiveStreamStatistics(ssrc: s.ssrc, packetsReceived: s.packetsReceived, packetsExpected: s.expectedPackets,
                                cumulativeLost: s.cumulativeLost, duplicates: s.duplicatePackets, outOfOrder: s.reorderedPackets,
                                jitterMilliseconds: s.jitterSeconds * 1000)
        }
        let video = statistics.video
        let counters = pipeline.counters
        // Opus: the jitter buffer's counts when played out, the recorder's and the decoder's here when recorded.
        var audioMalformed = 0, audioLate = 0, audioFrames = 0, audioDecoded = 0, audioNotDecoded = 0
        if let audio = pipeline.audio {
            if options.usesJitterBuffer {
                let played = audio.jitterBuffer.statistics
                audioMalformed = Int(played.packetsUndecodable)
                audioFrames = Int(played.packetsReceived)
                audioDecoded = Int(played.packetsReceived - played.packetsDiscarded - played.packetsUndecodable)
                audioNotDecoded = Int(played.packetsUndecodable)
            } else {
                audioMalformed = audio.packetsMalformed
                audioLate = audio.packetsLate
                audioFrames = audio.packetsRecorded
                audioDecoded = output.framesDecoded
                audioNotDecoded = output.framesNotDecoded
            }
        }
        return LiveReceiveReport(
            listen: UDPAddress(host: options.listen.host, port: port).description, output: options.output,
            codec: options.codec.rawValue, payloadType: Int(options.effectivePayloadType),
            srtpProfile: options.srtpKey?.profile.rawValue, endReason: endReason, jitterBuffer: options.usesJitterBuffer,
            datagrams: counters.datagramsReceived, bytes: counters.bytesReceived, rtcpPackets: counters.rtcpPacketsReceived,
            malformed: counters.malformedPackets, srtpAuthenticationFailures: Int(srtp?.authenticationFailures ?? 0),
            srtpReplays: Int(srtp?.replays ?? 0), srtpOtherFailures: Int(srtp?.otherFailures ?? 0),
            wrongPayloadType: counters.packetsOfUnknownPayloadType, otherSSRC: counters.packetsFromOtherSources + counters.packetsOnProbation,
            packetsAccepted: pipeline.video?.packetsInserted ?? pipeline.audio?.packetsInserted ?? 0,
            payloadBytes: pipeline.video?.payloadBytesInserted ?? pipeline.audio?.payloadBytesInserted ?? 0,
            lost: stream?.cumulativeLost ?? 0, duplicates: stream?.duplicates ?? 0, outOfOrder: stream?.outOfOrder ?? 0,
            jitterMilliseconds: stream?.jitterMilliseconds ?? 0,
            malformedPayloads: video?.packetsMalformed ?? audioMalformed,
            latePackets: video?.packetsLate ?? audioLate,
            framesAssembled: video?.framesReceived ?? audioFrames,
            framesIncomplete: 0, framesMalformed: 0,
            framesDecoded: video?.framesDecoded ?? audioDecoded,
            framesNotDecoded: statistics.decoderFailures + statistics.framesWithoutPicture + audioNotDecoded,
            framesWritten: output.framesWritten, samplesWritten: output.samplesWritten, samplesConcealed: output.samplesConcealed,
            width: output.width, height: output.height, outputBytes: outputBytes, wallSeconds: 0,
            streams: stream.map { [$0] } ?? [], pipeline: statistics,
            feedbackDestination: feedbackSent > 0 ? feedbackDestination?.address.description : nil,
            feedbackDatagramsSent: feedbackSent, feedbackSendFailures: feedbackFailures)
    }
}
