import Foundation
import Testing
@testable import Confer
import ConferMedia
import ConferNet
@testable import ConferLive
@testable import ConferJobs
import ConferTestSupport

/// What one `confer send` → `confer netsim` → `confer receive` run gave.
struct RelayedRun {
    var sent: LiveSendReport
    var received: LiveReceiveReport
    var network: UDPRelayStatistics
}

/// Sends `input` through a ``UDPRelay`` (what `confer netsim` runs) with `forward` and
/// `backward` conditions into a receiver with `receiver`'s options, all over loopback in
/// this process: the receiver listens first, the relay forwards to it, the sender sends to
/// the relay, and the receiver's feedback returns through the relay.
func sendThroughRelay(_ input: String, sender: LiveSenderOptions, receiver: LiveReceiverOptions,
                      forward: NetworkConditions, backward: NetworkConditions, seed: UInt64) async throws -> RelayedRun {
    let (receiverPorts, receiverReady) = AsyncStream.makeStream(of: Int.self)
    async let received = LiveReceiver.run(options: receiver) { port in
        receiverReady.yield(port)
        receiverReady.finish()
    }
    var receiverPort = receiverPorts.makeAsyncIterator()
    guard let port = await receiverPort.next() else { throw TestFailure("the receiver never listened") }
    let relay = UDPRelay(UDPRelayConfiguration(
        listen: UDPAddress(host: "127.0.0.1", port: 0), destination: UDPAddress(host: "127.0.0.1", port: port),
        forward: forward, backward: backward, seed: seed))
    let (relayPorts, relayReady) = AsyncStream.makeStream(of: Int.self)
    let relaying = Task {
        try await relay.run(onReady: { port in
            relayReady.yield(port)
            relayReady.finish()
        })
    }
    defer { relaying.cancel() }
    var relayPort = relayPorts.makeAsyncIterator()
    guard let entry = await relayPort.next() else { throw TestFailure("the relay never listened") }
    var options = sender
    options.destination = UDPAddress(host: "127.0.0.1", port: entry)
    let sent = try await LiveSender.run(input: input, options: options)
    let report = try await received
    relaying.cancel()
    return RelayedRun(sent: sent, received: report, network: try await relaying.value)
}

/// Feedback over real sockets: the receiver's NACKs and PLIs cross a lossy relay back to
/// the sender, which answers them. Two seconds of the test card per run, in real time.
@Suite(.timeLimit(.minutes(3)), .wallClockExclusive)
struct RTPFeedbackTests {
    /// A 2 s, 320×240, 30 fps test card.
    static func clip(in directory: String) throws -> String {
        let path = directory + "/clip.y4m"
        _ = try Generator.run(output: path, width: 320, height: 240, seconds: 2, index: 5)
        return path
    }

    /// One keyframe at the start and no other unless asked for.
    static let sender = LiveSenderOptions(codec: .vp8, destination: UDPAddress(host: "127.0.0.1", port: 9), bitrateKbps: 500,
                                         keyframeIntervalSeconds: 0, randomSeed: 3, rtcpMux: true)
    static let media = NetworkConditions(delay: .milliseconds(20), loss: 0.05)
    static let feedback = NetworkConditions(delay: .milliseconds(20))

    @Test func nacksBringRetransmissionsThatRecoverFrames() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        // The same stream through the same network (seed 4) into the jitter buffer with
        // feedback, and into the recorder that sends none (today's `--no-jitter-buffer`).
        async let withFeedback = sendThroughRelay(
            clip, sender: Self.sender, receiver: loopbackReceiver(.vp8, output: dir + "/nack.y4m"),
            forward: Self.media, backward: Self.feedback, seed: 4)
        async let withoutFeedback = sendThroughRelay(
            clip, sender: Self.sender, receiver: loopbackReceiver(.vp8, output: dir + "/plain.y4m", jitterBuffer: false),
            forward: Self.media, backward: Self.feedback, seed: 4)
        let (nack, plain) = try await (withFeedback, withoutFeedback)

        #expect(nack.network.forward.packetsLost > 0 && plain.network.forward.packetsLost > 0)
        let video = try #require(nack.received.pipeline?.video)
        #expect(video.nackCount > 0 && nack.received.pipeline?.nacksSent == video.nackCount)
        #expect(nack.sent.nacksReceived > 0)
        #expect(nack.sent.retransmissionsSent > 0)
        #expect(nack.received.pipeline?.retransmissionsReceived ?? 0 > 0)
        #expect(video.packetsRecovered > 0)
        #expect(nack.sent.rtcpMultiplexed && nack.network.backward.packetsDelivered > 0)
        #expect(nack.received.framesDecoded >= plain.received.framesDecoded,
                "\(nack.received.framesDecoded) frames with NACK, \(plain.received.framesDecoded) without feedback")
        // The recorder never answered, so nothing was retransmitted to it.
        #expect(plain.sent.rtcpPacketsReceived == 0 && plain.sent.retransmissionsSent == 0)
        #expect(plain.received.lost > 0)
    }

    /// `confer send --start-bitrate 100 --bitrate 1500 --pacing`: the start-up probes, measured
    /// through the receiver's transport-cc, lift the target within the first second, every
    /// frame still arrives, and the report's timeline shows each second.
    @Test func aLowStartProbesUpwardThroughTheRelay() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/clip.y4m"
        _ = try Generator.run(output: clip, width: 320, height: 240, seconds: 3, index: 5)
        var sender = Self.sender
        sender.bitrateKbps = 1500
        sender.startBitrateKbps = 100
        sender.paces = true
        let run = try await sendThroughRelay(
            clip, sender: sender, receiver: loopbackReceiver(.vp8, output: dir + "/probed.y4m"),
            forward: NetworkConditions(delay: .milliseconds(20)), backward: Self.feedback, seed: 7)
        #expect(run.sent.paced)
        #expect(run.sent.timeline.map(\.second) == [0, 1])
        // Probes at 3 × and 6 × the start: the target passes 300 kbit/s in the first second.
        let first = try #require(run.sent.timeline.first)
        #expect(first.targetKbps > 300, "target \(first.targetKbps) kbit/s after the first second")
        #expect(first.sentKbps > 0 && run.sent.pipeline.video?.paddingPacketsSent ?? 0 > 0)
        #expect(run.received.framesDecoded == 90)
    }

    @Test func aPictureLossBringsAKeyframe() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = try Self.clip(in: dir)
        var receiver = loopbackReceiver(.vp8, output: dir + "/pli.y4m")
        receiver.nack = false   // a lost packet is a lost frame: only a keyframe repairs it
        let run = try await sendThroughRelay(
            clip, sender: Self.sender, receiver: receiver,
            forward: NetworkConditions(delay: .milliseconds(20), burstLoss: GilbertElliott(meanBurstLength: 3, lossRate: 0.05)),
            backward: Self.feedback, seed: 6)
        #expect(run.network.forward.packetsLost > 0)
        let video = try #require(run.received.pipeline?.video)
        #expect(video.nackCount == 0)
        #expect(video.pliCount > 0 && run.received.pipeline?.keyframeRequestsSent ?? 0 > 0)
        #expect(run.sent.keyframeRequestsReceived > 0)
        #expect(run.sent.keyframesOnRequest > 0)
        #expect(run.sent.keyframes == 1 + run.sent.keyframesOnRequest)
        #expect(video.keyFramesDecoded >= 2, "the first keyframe and one asked for")
    }
}
