import Testing
import Confer
import ConferMedia
import ConferRTP

/// A plain-RTP receiver that a spray of RTP-shaped datagrams cannot take over (RFC 3550
/// A.1 probation), which still follows a sender that restarts — in virtual time.
@Suite struct SourceProbationTests {
    /// Sends `frames` frames at 30 fps from `sender` into `receiver`, with `spray` datagrams
    /// (the stream's payload type, random SSRCs and numbers) before the first frame and
    /// between every two real packets; the frames rendered.
    func run(frames: Int, spray: Int, seed: UInt64) throws -> (rendered: Int, statistics: ReceivePipelineStatistics, sprayed: Int) {
        var out: [[UInt8]] = []
        let sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 160, height: 120, maximumBitrate: 300_000, speed: -8, allowsFrameDropping: false),
            maximumPacketSize: 400, probesBandwidth: false, seed: 5)) { out.append(Array($0)) }
        var rendered = 0
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: { _ in }, render: { _ in rendered += 1 })
        var random = SeededRandom(seed: seed)
        var sprayed = 0
        func sprayPacket(at time: Timestamp) {
            let header = RTPHeader(payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: random.next()),
                                   timestamp: UInt32(truncatingIfNeeded: random.next()), ssrc: UInt32(truncatingIfNeeded: random.next()))
            let payload = (0 ..< 40).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            guard let bytes = try? RTPPacket(header: header, payload: payload).serialized() else { return }
            bytes.withUnsafeBytes { _ = receiver.receive($0, at: time) }
            sprayed += 1
        }
        for index in 0 ..< spray { sprayPacket(at: .milliseconds(Int64(index))) }
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 2)
        for index in 0 ..< frames {
            let time = Timestamp.seconds(1) + .milliseconds(Int64(index) * 33)
            var frame = source.next()
            frame.timestamp = time
            try sender.sendVideo(frame, at: time)
            for bytes in out {
                bytes.withUnsafeBytes { _ = receiver.receive($0, at: time) }
                if spray > 0 { sprayPacket(at: time) }
            }
            out.removeAll()
            receiver.poll(at: time + .milliseconds(20))
        }
        receiver.poll(at: .seconds(30))
        return (rendered, receiver.statistics, sprayed)
    }

    @Test func aSprayBeforeAndDuringTheStreamTakesNothingOver() throws {
        let clean = try run(frames: 180, spray: 0, seed: 1)
        #expect(clean.rendered >= 178, "without a spray: \(clean.rendered)")
        let sprayed = try run(frames: 180, spray: 200, seed: 2)
        #expect(sprayed.rendered == clean.rendered, "with \(sprayed.sprayed) sprayed datagrams: \(sprayed.rendered) of 180 frames")
        #expect(sprayed.statistics.packetsFromOtherSources + sprayed.statistics.packetsOnProbation == sprayed.sprayed,
                "every sprayed datagram counted")
        #expect(sprayed.statistics.video?.framesDecoded ?? 0 >= 178)
    }

    @Test func probationIsBoundedAndValidatesTwoInSequence() {
        var probation = RTPSourceProbation(takeoverSilence: .milliseconds(200))
        let bytes: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]
        func admit(_ ssrc: UInt32, _ sequence: UInt16, _ ms: Int64) -> RTPSourceProbation.Verdict {
            bytes.withUnsafeBytes { probation.admit(ssrc: ssrc, sequenceNumber: sequence, bytes: $0, at: .milliseconds(ms)) }
        }
        // A flood of one-packet sources: at most eight held at once.
        for ssrc in UInt32(100) ..< 200 { _ = admit(ssrc, UInt16(ssrc), 0) }
        #expect(probation.heldPackets == RTPSourceProbation.maximumCandidates)
        #expect(probation.current == nil)
        // Two in sequence: taken up, the first handed back.
        #expect(admit(7, 10, 1) == .hold(dropped: 1))
        guard case .takeUp(let replay) = admit(7, 11, 2) else { Issue.record("not taken up"); return }
        #expect(replay.count == 1 && replay.first?.arrival == .milliseconds(1))
        #expect(admit(7, 12, 3) == .accept)
        // A second source in sequence while the first is alive waits, held.
        #expect(admit(8, 1, 10) == .hold(dropped: 0))
        #expect(admit(8, 2, 20) == .hold(dropped: 0))
        #expect(admit(7, 13, 30) == .accept)
        #expect(admit(8, 3, 100) == .hold(dropped: 0), "7 was heard 70 ms ago")
        // Once the first has been silent for the takeover time, the second takes over with all it sent.
        guard case .takeUp(let backlog) = admit(8, 4, 231) else { Issue.record("no takeover"); return }
        #expect(backlog.map(\.arrival) == [.milliseconds(10), .milliseconds(20), .milliseconds(100)])
        #expect(probation.current == 8)
    }
}
