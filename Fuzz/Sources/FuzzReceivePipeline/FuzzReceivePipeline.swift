import FuzzSupport
// libFuzzer target: hostile datagrams into a ReceivePipeline (VP8 + Opus, SRTP or not) in
// virtual time, polled when due and pulled every 10 ms. Byte 0: bit 0 SRTP on, the rest
// picks the key (and so its profile). Then operations, each one byte — bits 3–7 say how
// far time moves first ((n·n) ms), bits 0–2 what to do:
//   0 raw datagram (2-byte length, bytes)     1 the same, protected with the key
//   2 recorded datagram (index)               3 recorded, one byte XORed (index, offset, xor), then protected
//   4 recorded, protected, then one byte XORed, or cut short when xor is 0 (index, offset, xor)
//   5 the next 1–16 recorded datagrams at their recorded spacing (count)
//   6 a round-trip time from the send side (byte × 4 ms)
//   7 a stall: time jumps with no poll or pull on the way
// "Recorded" is real traffic from a participant (FuzzTraffic), so inputs reach the
// decoders. After every operation the counters must add up and the buffers stay in bounds;
// everything the pipeline sends must unprotect and parse.
import FuzzTraffic
import Confer
import ConferMedia
import ConferRTP
import ConferSRTP

/// The longest stretch of virtual time one input may cover (each 10 ms costs a pull).
let maximumDuration = TimeDelta.seconds(2)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let flags = input.byte() else { return 0 }
    let key = flags & 1 != 0 ? SRTPKeyChoice(Int(flags >> 1)) : nil
    let configuration = FuzzMeeting.participantStreams(srtpKey: key)
    let sent = SentDatagramChecker(mediaKey: nil, feedbackKey: key?.key, maximumSize: 1500 + 64)
    let pictures = PictureChecker()
    let pipeline = try! ReceivePipeline(configuration: configuration, output: sent.check, render: pictures.take)
    var run = ReceiveRun(pipeline: pipeline, protector: key.map { SRTPProtector(key: $0.key) })
    let recorded = FuzzMeeting.uplink

    while let operation = input.byte(), run.now - .zero <= maximumDuration {
        let step = TimeDelta.milliseconds(Int64(operation >> 3) * Int64(operation >> 3))
        if operation & 7 == 7 {
            run.stall(for: step)
            continue
        }
        run.advance(to: run.now + step)
        switch operation & 7 {
        case 0, 1:
            guard let length = input.length() else { break }
            run.feed(input.bytes(upTo: length), protecting: operation & 7 == 1)
        case 2:
            guard let index = input.byte() else { break }
            run.feed(recorded[Int(index) % recorded.count].bytes, protecting: true)
        case 3, 4:
            guard let index = input.byte(), let offset = input.byte(), let xor = input.byte() else { break }
            var bytes = recorded[Int(index) % recorded.count].bytes
            if operation & 7 == 3 {
                bytes[Int(offset) % bytes.count] ^= xor
                run.feed(bytes, protecting: true)
            } else {
                bytes = run.protector?.protect(bytes) ?? bytes
                if xor == 0 { bytes.removeLast(bytes.count - Int(offset) % bytes.count) } else { bytes[Int(offset) % bytes.count] ^= xor }
                run.feed(bytes, protecting: false)
            }
        case 5:
            guard let count = input.byte() else { break }
            for _ in 0 ... count % 16 {
                let (gap, bytes) = run.nextRecorded(recorded)
                run.advance(to: run.now + gap)
                run.feed(bytes, protecting: true)
            }
        default:
            guard let rtt = input.byte() else { break }
            pipeline.setRoundTripTime(.milliseconds(Int64(rtt) * 4))
        }
        run.checkInvariants(sent: sent)
    }
    // Whatever is left must drain: frames delivered or dropped, feedback sent.
    run.advance(to: run.now + .seconds(0.5))
    run.checkInvariants(sent: sent)
    if fuzzVerbose { print(pipeline.statistics) }
    return 0
}

/// Drives one pipeline in virtual time and keeps what the invariants are checked against.
struct ReceiveRun {
    let pipeline: ReceivePipeline
    let protector: SRTPProtector?
    private(set) var now = Timestamp.zero
    private var nextPull = Timestamp.zero
    private var audio = AudioFrame(silenceOf: 480, channels: 1)
    private var datagramsFed = 0
    private var cursor = 0

    init(pipeline: ReceivePipeline, protector: SRTPProtector?) {
        self.pipeline = pipeline
        self.protector = protector
    }

    /// Hands `bytes` to the pipeline now, protected first when asked and SRTP is on.
    mutating func feed(_ bytes: [UInt8], protecting: Bool) {
        let datagram = protecting ? protector?.protect(bytes) ?? bytes : bytes
        datagram.withUnsafeBytes { _ = pipeline.receive($0, at: now) }
        datagramsFed += 1
    }

    /// The next recorded datagram after the last one played, and the time since that one.
    mutating func nextRecorded(_ recorded: [RecordedDatagram]) -> (TimeDelta, [UInt8]) {
        let index = cursor % recorded.count
        cursor += 1
        let gap = index == 0 ? TimeDelta.milliseconds(20) : recorded[index].time - recorded[index - 1].time
        return (max(gap, .zero), recorded[index].bytes)
    }

    /// Moves to `target`, pulling audio every 10 ms and polling whenever the pipeline is due,
    /// as a real app's loop does. Polling must make progress: a pipeline that stays due at
    /// the same time would spin its driver forever.
    mutating func advance(to target: Timestamp) {
        var pollsAtOneTime = 0
        while true {
            let pollTime = pipeline.nextPollTime
            let next = min(nextPull, pollTime ?? nextPull)
            guard next <= target else { break }
            let time = max(next, now)
            if time == now { pollsAtOneTime += 1 } else { pollsAtOneTime = 0 }
            require(pollsAtOneTime < 64, "the pipeline stays due at \(time): its driver would spin")
            now = time
            if let pollTime, pollTime <= now { pipeline.poll(at: now) }
            if nextPull <= now {
                pull()
                nextPull = nextPull + .milliseconds(10)
            }
        }
        now = max(now, target)
    }

    /// Time jumps by `step` with nothing done on the way (the app was stalled), then one
    /// poll and pull catch up.
    mutating func stall(for step: TimeDelta) {
        now = now + step
        nextPull = max(nextPull, now)
        pipeline.poll(at: now)
        pull()
        nextPull = now + .milliseconds(10)
    }

    private mutating func pull() {
        pipeline.pullAudio(at: now, into: &audio)
        require(audio.frameCount == 480 && audio.channels == 1, "a pull gave \(audio.frameCount)×\(audio.channels) samples")
    }

    /// Counters add up and never go negative, the buffers hold no more than their bounds,
    /// and everything the pipeline sent was counted.
    func checkInvariants(sent: SentDatagramChecker) {
        let statistics = pipeline.statistics
        require(statistics.datagramsReceived == datagramsFed, "\(statistics.datagramsReceived) datagrams counted, \(datagramsFed) fed")
        let counters = [statistics.bytesReceived, statistics.rtpPacketsReceived, statistics.retransmissionsReceived,
                        statistics.paddingPacketsReceived, statistics.rtcpPacketsReceived, statistics.packetsDiscarded,
                        statistics.decoderFailures, statistics.framesWithoutPicture, statistics.transportFeedbackSent,
                        statistics.nacksSent, statistics.keyframeRequestsSent, statistics.receiverReportsSent,
                        statistics.packetsOnProbation]
        require(counters.allSatisfy { $0 >= 0 }, "a negative counter: \(counters)")
        // Each datagram is either RTP of a stream, or RTCP, or discarded (RTCP that stops
        // parsing part-way is both read and discarded), or held while its SSRC is on
        // probation (bounded: eight candidates of at most 128 packets, per stream).
        let handled = statistics.rtpPacketsReceived + statistics.rtcpPacketsReceived
        let held = statistics.packetsOnProbation
        require(held <= 2 * RTPSourceProbation.maximumCandidates * RTPSourceProbation.maximumHeld, "\(held) packets held")
        require(handled <= datagramsFed && datagramsFed <= handled + statistics.packetsDiscarded + held,
                     "\(statistics.rtpPacketsReceived) RTP + \(statistics.rtcpPacketsReceived) RTCP + \(statistics.packetsDiscarded) discarded + \(held) held for \(datagramsFed)")
        require(statistics.retransmissionsReceived + statistics.paddingPacketsReceived <= statistics.rtpPacketsReceived)
        let rtcpSent = statistics.transportFeedbackSent + statistics.nacksSent + statistics.keyframeRequestsSent + statistics.receiverReportsSent
        require(sent.feedbackPackets <= rtcpSent && sent.rtpPackets == 0 && sent.senderReports == 0,
                     "sent \(sent.feedbackPackets) RTCP, \(sent.rtpPackets) RTP, \(sent.senderReports) SR; counted \(rtcpSent)")
        if let video = statistics.video {
            let values = [video.packetsReceived, video.packetsLost, video.framesReceived, video.framesDecoded, video.framesDropped,
                          video.framesRendered, video.nackCount, video.pliCount, video.firCount]
            require(values.allSatisfy { $0 >= 0 }, "a negative video counter: \(values)")
            require(video.framesDecoded <= video.framesDelivered && video.framesRendered <= video.framesDecoded)
        }
        if let audio = statistics.audio {
            let values = [audio.packetsReceived, audio.packetsLost, audio.packetsDuplicated, audio.packetsDiscarded,
                          audio.concealedSamples, audio.insertedSamplesForDeceleration, audio.removedSamplesForAcceleration]
            require(values.allSatisfy { $0 >= 0 }, "a negative audio counter: \(values)")
        }
        checkBounds(of: pipeline)
    }
}

/// Takes the pictures the pipeline renders and reads their corners, so the sanitizer sees
/// a plane shorter than its size says.
final class PictureChecker {
    func take(_ received: ReceivedVideoFrame) {
        let picture = received.frame
        require(picture.width > 0 && picture.height > 0)
        let y = picture.y, v = picture.v
        _ = y[0, 0] &+ y[y.width - 1, y.height - 1] &+ v[v.width - 1, v.height - 1]
    }
}

@_cdecl("FuzzReceivePipeline_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
