public import ConferMedia
import ConferCodecs
import ConferNet
import ConferRTP
import Synchronization
import ConferJobs

/// Receives one RTP stream over UDP and writes it to a file: `confer receive`.
///
/// By default the stream goes through the jitter buffers of a ``ReceivePipeline`` on the
/// wall clock, and its feedback (NACK, PLI, transport-cc, receiver reports) goes back to
/// the sender over the same socket: what a participant would see and hear. With
/// ``LiveReceiverOptions/usesJitterBuffer`` off it records instead, as follows.
///
/// Datagrams go through ``LiveReceiverPipeline`` (SRTP, parse, filter, statistics, frame
/// assembly with a small reorder window) into the decoder and writer. Reception ends after
/// ``LiveReceiverOptions/maxDuration``, once no datagram has come for
/// ``LiveReceiverOptions/idleTimeout`` after the first, or when the calling task is
/// cancelled; frames still buffered are then flushed and the file completed. Memory stays
/// bounded whatever arrives: one datagram buffer, at most 1024 packets in assembly,
/// statistics for at most 32 sources.
public enum LiveReceiver {
    /// Receives as `options` say. `ready(port)` is called once the socket is bound (with the
    /// port picked, when listening on port 0), before any datagram is read.
    public static func run(options: LiveReceiverOptions, clock: some MediaClock = WallClock(),
                           ready: @Sendable (Int) -> Void = { _ in }) async throws -> LiveReceiveReport {
        if options.usesJitterBuffer {
            return try await LiveReceiverPlayout.run(options: options, clock: clock, ready: ready)
        }
        // Check the output and key before binding, so a mistake is reported before any wait.
        try LiveReceiverOutput.validate(path: options.output, codec: options.codec)
        let wallStart = ContinuousClock.now
        let activity = ReceiveActivity()
        let result = try await UDPSocket.withSocket(bindingTo: options.listen) { socket in
            ready(socket.localPort)
            return try await withThrowingTaskGroup(of: ReceiveOutcome?.self) { group in
                let start = clock.now
                group.addTask {
                    try await receive(from: socket, options: options, clock: clock, activity: activity)
                }
                group.addTask {
                    try await watch(options: options, clock: clock, start: start, activity: activity)
                    return nil
                }
                var outcome: ReceiveOutcome?
                while let next = try await group.next() {
                    // Either the watchdog decided it is time, or reception ended by itself.
                    group.cancelAll()
                    if let next { outcome = next }
                }
                guard let outcome else { throw JobError(.internalFailure, "reception ended without a result") }
                return outcome
            }
        }
        var report = result.report
        report.listen = UDPAddress(host: options.listen.host, port: result.port).description
        report.endReason = activity.endReason
        report.wallSeconds = (ContinuousClock.now - wallStart).seconds
        return report
    }

    private struct ReceiveOutcome: Sendable {
        var report: LiveReceiveReport
        var port: Int
    }

    /// The pipeline for the options' codec, as an existential so one loop drives all four.
    private static func makePipeline(_ options: LiveReceiverOptions) throws -> any ReceivingPipeline {
        let output = try LiveReceiverOutput(path: options.output, codec: options.codec, channels: options.channels,
                                           frameRate: options.frameRate, threads: options.threads)
        let pt = options.effectivePayloadType
        let window = options.reorderWindow
        switch options.codec {
        case .vp8: return try LiveReceiverPipeline(depacketizer: VP8Depacketizer(), payloadType: pt, srtpKey: options.srtpKey,
                                                  reorderWindow: window, output: output)
        case .vp9: return try LiveReceiverPipeline(depacketizer: VP9Depacketizer(), payloadType: pt, srtpKey: options.srtpKey,
                                                  reorderWindow: window, output: output)
        case .h264: return try LiveReceiverPipeline(depacketizer: H264Depacketizer(), payloadType: pt, srtpKey: options.srtpKey,
                                                   reorderWindow: window, output: output)
        case .opus: return try LiveReceiverPipeline(depacketizer: OpusDepacketizer(), payloadType: pt, srtpKey: options.srtpKey,
                                                   reorderWindow: window, output: output)
        }
    }

    /// Reads datagrams until the stream ends or the task is cancelled, then completes the output.
    private static func receive(from socket: UDPSocket, options: LiveReceiverOptions, clock: some MediaClock,
                                activity: ReceiveActivity) async throws -> ReceiveOutcome {
        let pipeline = try makePipeline(options)
        do {
            for try await datagram in socket.datagrams {
                let now = clock.now
                activity.arrived(at: now)
                try pipeline.receive(datagram.bytes, at: now)
                if Task.isCancelled { break }
            }
        } catch is CancellationError {
            // The watchdog (or the caller) ended reception: what arrived is still written.
        }
        return ReceiveOutcome(report: try pipeline.finish(options: options), port: socket.localPort)
    }

    /// Returns when reception should end: the duration is up, or the stream went idle.
    private static func watch(options: LiveReceiverOptions, clock: some MediaClock, start: Timestamp,
                              activity: ReceiveActivity) async throws {
        let idle = TimeDelta.seconds(options.idleTimeout)
        let end = options.maxDuration.map { start + .seconds($0) }
        do {
            while true {
                let now = clock.now
                if let end, now >= end {
                    activity.end(.duration)
                    return
                }
                var wake = now + .milliseconds(100)
                if let last = activity.lastArrival {
                    if now >= last + idle {
                        activity.end(.idle)
                        return
                    }
                    wake = last + idle
                }
                if let end, end < wake { wake = end }
                try await clock.sleep(until: wake)
            }
        } catch is CancellationError {
            activity.end(.cancelled)
        }
    }
}

/// What the receiving task and the watchdog share: when the last datagram came, and why
/// reception ended. Atomics, so neither waits for the other.
private final class ReceiveActivity: Sendable {
    enum Reason: Int {
        case running, duration, idle, cancelled
    }

    private let last = Atomic<Int64>(Int64.min)
    private let reason = Atomic<Int>(Reason.running.rawValue)

    var lastArrival: Timestamp? {
        let value = last.load(ordering: .acquiring)
        return value == Int64.min ? nil : Timestamp(microseconds: value)
    }

    func arrived(at time: Timestamp) { last.store(time.microseconds, ordering: .releasing) }

    /// Records the first reason given.
    func end(_ why: Reason) {
        _ = reason.compareExchange(expected: Reason.running.rawValue, desired: why.rawValue, ordering: .acquiringAndReleasing)
    }

    var endReason: String {
        switch Reason(rawValue: reason.load(ordering: .acquiring)) ?? .running {
        case .running: "stream error"
        case .duration: "duration"
        case .idle: "idle"
        case .cancelled: "cancelled"
        }
    }
}

/// A receiving pipeline of any codec.
private protocol ReceivingPipeline: AnyObject {
    func receive(_ datagram: [UInt8], at arrival: Timestamp) throws
    func finish(options: LiveReceiverOptions) throws -> LiveReceiveReport
}

extension LiveReceiverPipeline: ReceivingPipeline {
    /// Flushes assembly and the output and gathers every counter.
    func finish(options: LiveReceiverOptions) throws -> LiveReceiveReport {
        try finish()
        let outputBytes = try output.finish()
        let srtp = srtpStats
        let assembly = assemblerStats
        let streams = sourceOrder.compactMap { sources[$0] }.map { s in
            LiveStreamStatistics(ssrc: s.ssrc, packetsReceived: s.packetsReceived, packetsExpected: s.expectedPackets,
                                cumulativeLost: s.cumulativeLost, duplicates: s.duplicatePackets, outOfOrder: s.reorderedPackets,
                                jitterMilliseconds: s.jitterSeconds * 1000)
        }
        let main = streams.first { $0.ssrc == receivedSSRC }
        return LiveReceiveReport(
            listen: options.listen.description, output: options.output, codec: options.codec.rawValue,
            payloadType: Int(options.effectivePayloadType), srtpProfile: options.srtpKey?.profile.rawValue, endReason: "",
            jitterBuffer: false,
            datagrams: datagrams, bytes: bytes, rtcpPackets: rtcpPackets, malformed: malformed,
            srtpAuthenticationFailures: Int(srtp.authenticationFailures), srtpReplays: Int(srtp.replays),
            srtpOtherFailures: Int(srtp.otherFailures), wrongPayloadType: wrongPayloadType, otherSSRC: otherSSRC,
            packetsAccepted: packetsAccepted, payloadBytes: payloadBytes,
            lost: main?.cumulativeLost ?? 0, duplicates: main?.duplicates ?? 0, outOfOrder: main?.outOfOrder ?? 0,
            jitterMilliseconds: main?.jitterMilliseconds ?? 0,
            malformedPayloads: assembly.packetsMalformed, latePackets: assembly.packetsLate,
            framesAssembled: assembly.framesEmitted, framesIncomplete: assembly.framesIncomplete,
            framesMalformed: assembly.framesMalformed, framesDecoded: output.framesDecoded,
            framesNotDecoded: output.framesNotDecoded, framesWritten: output.framesWritten,
            samplesWritten: output.samplesWritten, samplesConcealed: output.samplesConcealed,
            width: output.width, height: output.height, outputBytes: outputBytes, wallSeconds: 0, streams: streams,
            pipeline: nil, feedbackDestination: nil, feedbackDatagramsSent: 0, feedbackSendFailures: 0)
    }
}
