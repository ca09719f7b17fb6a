import FuzzSupport
// libFuzzer target: hostile datagrams from 2–3 participants (and strangers) into a
// HostPipeline (64×64 VP8 canvas at 10 fps, Opus mix-minus) in virtual time, polled when due.
// Byte 0: bit 0 SRTP on every link (a key per participant and direction), bit 1 three
// participants instead of two, bit 2 60 ms Opus frames (six mixer steps each) instead of
// 20 ms, bit 7 three temporal layers in the composite, bits 3–7 pick the keys. Then operations, encoded as in
// FuzzReceivePipeline (bits 3–7 move time by (n·n) ms first, bits 0–2 say what to do),
// each datagram operation starting with a destination byte (participant d % 4, a
// stranger when there is no such participant):
//   0 raw datagram (2-byte length, bytes)     1 the same, protected with the key of its direction
//   2 recorded datagram (index)               3 recorded, one byte XORed (index, offset, xor), then protected
//   4 recorded, protected, then one byte XORed, or cut short when xor is 0 (index, offset, xor)
//   5 the destination's next 1–16 recorded datagrams at their recorded spacing (count)
//   6 membership (byte: participant bits 3–7, action bits 0–2: remove, add, mute or unmute
//     video, mute or unmute audio, rejoin, and 7: add as not reachable, as a live host adds a
//     member without consent, or, when present, reachable from now on)
//   7 a stall: time jumps with one poll at the end
// "Recorded" is what a real participant sent a real host like this one (FuzzTraffic): its
// media, sender reports and feedback (transport-cc, receiver reports, NACKs of the
// composite's real sequence numbers, PLIs), so inputs reach the decoders, the compositor,
// retransmission and the bandwidth estimate. After every operation the statistics must
// add up; everything the host sends must unprotect with its direction's key and parse, and
// nothing may go to a participant that is not reachable.
import FuzzTraffic
import Confer
import ConferMedia
import ConferMixer
import ConferRTP

/// The longest stretch of virtual time one input may cover.
let maximumDuration = TimeDelta.seconds(1)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let flags = input.byte() else { return 0 }
    var configuration = FuzzMeeting.hostConfiguration()
    configuration.audioFrameDuration = flags & 4 != 0 ? 60 : 20
    // Temporal layers: the composite's descriptors carry them, and NACKs go through each
    // participant's forwarder (bit 7 also feeds the key seed).
    configuration.temporalLayers = flags & 0x80 != 0 ? 3 : 1
    let run = HostRun(configuration: configuration, participants: flags & 2 != 0 ? 3 : 2,
                      keySeed: flags & 1 != 0 ? Int(flags >> 3) : nil)
    let recorded = FuzzMeeting.uplink

    while let operation = input.byte(), run.now - .zero <= maximumDuration {
        let step = TimeDelta.milliseconds(Int64(operation >> 3) * Int64(operation >> 3))
        if operation & 7 == 7 {
            run.stall(for: step)
            continue
        }
        run.advance(to: run.now + step)
        if operation & 7 == 6 {
            guard let action = input.byte() else { break }
            run.change(Int(action >> 3) % run.slots.count, action: action & 7)
            run.checkInvariants()
            continue
        }
        guard let destination = input.byte().map({ Int($0) % 4 }) else { break }
        switch operation & 7 {
        case 0, 1:
            guard let length = input.length() else { break }
            run.feed(input.bytes(upTo: length), to: destination, protecting: operation & 7 == 1)
        case 2:
            guard let index = input.byte() else { break }
            run.feed(recorded[Int(index) % recorded.count].bytes, to: destination, protecting: true)
        case 3, 4:
            guard let index = input.byte(), let offset = input.byte(), let xor = input.byte() else { break }
            var bytes = recorded[Int(index) % recorded.count].bytes
            if operation & 7 == 3 {
                bytes[Int(offset) % bytes.count] ^= xor
                run.feed(bytes, to: destination, protecting: true)
            } else {
                bytes = run.protect(bytes, for: destination)
                if xor == 0 { bytes.removeLast(bytes.count - Int(offset) % bytes.count) } else { bytes[Int(offset) % bytes.count] ^= xor }
                run.feed(bytes, to: destination, protecting: false)
            }
        default:
            guard let count = input.byte() else { break }
            for _ in 0 ... count % 16 {
                let (gap, bytes) = run.nextRecorded(recorded, for: destination)
                run.advance(to: run.now + gap)
                run.feed(bytes, to: destination, protecting: true)
            }
        }
        run.checkInvariants()
    }
    // What is in flight drains; the host keeps composing and mixing without new input.
    run.advance(to: run.now + .seconds(0.3))
    run.checkInvariants()
    checkBounds(of: run.host)
    if fuzzVerbose { print(run.host.statistics) }
    return 0
}

/// One seat at the meeting: its keys, what was fed to it and what the host sent it.
final class Seat {
    let id: ParticipantID
    let uplink: SRTPKeyChoice?
    let downlink: SRTPKeyChoice?
    let uplinkProtector: SRTPProtector?
    let downlinkProtector: SRTPProtector?
    /// What the host sends it, checked as it arrives; replaced on each join.
    var sent: SentDatagramChecker
    var isPresent = false
    /// Whether the host may send it anything (added as not reachable: not until told).
    var isReachable = true
    /// Datagrams fed to it since it last joined.
    var fed = 0
    /// Where its replay of the recorded uplink has got to.
    var cursor = 0

    init(index: Int, keySeed: Int?) {
        id = ParticipantID(UInt32(index + 1))
        uplink = keySeed.map { SRTPKeyChoice($0 * 8 + index * 2) }
        downlink = keySeed.map { SRTPKeyChoice($0 * 8 + index * 2 + 1) }
        uplinkProtector = uplink.map { SRTPProtector(key: $0.key) }
        downlinkProtector = downlink.map { SRTPProtector(key: $0.key) }
        sent = SentDatagramChecker(mediaKey: nil, feedbackKey: nil, maximumSize: 0)
    }

    /// A fresh checker for what the host sends it: media under the downlink key, the host's
    /// feedback about its uplink under the uplink key.
    func makeChecker(maximumSize: Int) -> SentDatagramChecker {
        SentDatagramChecker(mediaKey: downlink?.key, feedbackKey: uplink?.key, maximumSize: maximumSize)
    }

    /// How it joins: it sends what the recording's participant sends.
    var configuration: HostParticipantConfiguration {
        HostParticipantConfiguration(receive: FuzzMeeting.participantStreams(srtpKey: uplink), srtpKey: downlink?.key)
    }
}

/// Drives one host in virtual time and keeps what the invariants are checked against.
final class HostRun {
    let host: HostPipeline
    let slots: [Seat]
    private(set) var now = Timestamp.zero
    private var strangersFed = 0
    /// When someone joined an empty meeting: the host starts its frame clock afresh then
    /// (the first frame goes out at once), so that second may hold one frame more.
    private var restarts: [Timestamp] = []

    init(configuration: HostPipelineConfiguration, participants count: Int, keySeed: Int?) {
        host = try! HostPipeline(configuration: configuration)
        slots = (0 ..< count).map { Seat(index: $0, keySeed: keySeed) }
        for seat in slots { join(seat) }
    }

    private func join(_ seat: Seat, reachable: Bool = true) {
        if !slots.contains(where: \.isPresent) { restarts.append(now) }
        let checker = seat.makeChecker(maximumSize: host.configuration.maximumPacketSize)
        seat.sent = checker
        seat.fed = 0
        seat.isPresent = true
        seat.isReachable = reachable
        var configuration = seat.configuration
        configuration.isReachable = reachable
        try! host.addParticipant(seat.id, configuration: configuration, at: now) { [unowned seat] bytes in
            require(seat.isReachable, "the host sent \(bytes.count) bytes to \(seat.id), which it cannot reach yet")
            checker.check(bytes)
        }
    }

    private func leave(_ seat: Seat) {
        host.removeParticipant(seat.id, at: now)
        seat.sent.isClosed = true
        seat.isPresent = false
    }

    /// Applies membership action `action` to seat `index`.
    func change(_ index: Int, action: UInt8) {
        let seat = slots[index]
        switch action {
        case 0 where seat.isPresent: leave(seat)
        case 1 where !seat.isPresent: join(seat)
        case 2, 3: host.setVideoMuted(action == 2, for: seat.id)
        case 4, 5: host.setAudioMuted(action == 4, for: seat.id)
        case 6 where seat.isPresent:
            leave(seat)
            join(seat)
        case 7 where !seat.isPresent:
            join(seat, reachable: false)
        case 7:
            seat.isReachable = true
            do {
                try host.participantBecameReachable(seat.id, at: now)
            } catch {
                fail("\(seat.id) could not become reachable: \(error)")
            }
        default: break
        }
    }

    /// `bytes` protected as the participant at `destination` would send them: media and
    /// sender reports with its uplink key, feedback with its downlink key.
    func protect(_ bytes: [UInt8], for destination: Int) -> [UInt8] {
        guard destination < slots.count else { return bytes }
        let seat = slots[destination]
        let route = bytes.withUnsafeBytes { RTPDatagramRoute(classifying: $0) }
        let protector = route.isForReceiveSide ? seat.uplinkProtector : seat.downlinkProtector
        return protector?.protect(bytes) ?? bytes
    }

    /// Hands `bytes` to the host now, from the participant at `destination` (a stranger when
    /// there is none, or it left).
    func feed(_ bytes: [UInt8], to destination: Int, protecting: Bool) {
        let datagram = protecting ? protect(bytes, for: destination) : bytes
        if destination < slots.count, slots[destination].isPresent {
            slots[destination].fed += 1
            datagram.withUnsafeBytes { _ = host.receive($0, from: slots[destination].id, at: now) }
        } else {
            strangersFed += 1
            let stranger = destination < slots.count ? slots[destination].id : ParticipantID(99)
            datagram.withUnsafeBytes { _ = host.receive($0, from: stranger, at: now) }
        }
    }

    /// The next recorded datagram of `destination`'s replay, and the time since the previous one.
    func nextRecorded(_ recorded: [RecordedDatagram], for destination: Int) -> (TimeDelta, [UInt8]) {
        var cursor = 0
        if destination < slots.count {
            cursor = slots[destination].cursor
            slots[destination].cursor += 1
        }
        let index = cursor % recorded.count
        let gap = index == 0 ? TimeDelta.milliseconds(20) : recorded[index].time - recorded[index - 1].time
        return (max(gap, .zero), recorded[index].bytes)
    }

    /// Moves to `target`, polling whenever the host is due, as its driver would. Polling
    /// must make progress, and network input must never make it fail.
    func advance(to target: Timestamp) {
        var pollsAtOneTime = 0
        while let next = host.nextPollTime, next <= target {
            let time = max(next, now)
            if time == now { pollsAtOneTime += 1 } else { pollsAtOneTime = 0 }
            require(pollsAtOneTime < 64, "the host stays due at \(time): its driver would spin")
            now = time
            poll()
        }
        now = max(now, target)
    }

    /// Time jumps by `step` with nothing done on the way (the host was stalled); one poll catches up.
    func stall(for step: TimeDelta) {
        now = now + step
        poll()
    }

    private func poll() {
        do {
            try host.poll(at: now)
        } catch {
            fail("the host failed at \(now): \(error)")
        }
    }

    /// The host's statistics add up with what was fed to it and what it sent.
    func checkInvariants() {
        let statistics = host.statistics
        let configuration = host.configuration
        let present = slots.filter(\.isPresent)
        require(Set(statistics.participants.keys) == Set(present.map(\.id)), "participants \(statistics.participants.keys)")
        require(statistics.datagramsFromUnknownParticipants == strangersFed,
                     "\(statistics.datagramsFromUnknownParticipants) datagrams from strangers counted, \(strangersFed) fed")
        let counters = [statistics.videoFramesComposed, statistics.videoFramesEncoded, statistics.videoFramesDroppedByEncoder,
                        statistics.videoFramesSent, statistics.videoFramesSkipped, statistics.keyFramesEncoded,
                        statistics.keyframeRequestsReceived, statistics.keyframeRequestsAbsorbed, statistics.videoBitrateChanges,
                        statistics.audioFramesEncoded, statistics.audioEncodersInUse, statistics.audioStepsSkipped]
        require(counters.allSatisfy { $0 >= 0 }, "a negative counter: \(counters)")
        require(statistics.videoFramesEncoded + statistics.videoFramesDroppedByEncoder == statistics.videoFramesComposed
                     && statistics.videoFramesSent <= statistics.videoFramesEncoded
                     && statistics.keyFramesEncoded <= statistics.videoFramesEncoded,
                     "composed \(statistics.videoFramesComposed), encoded \(statistics.videoFramesEncoded), dropped \(statistics.videoFramesDroppedByEncoder), sent \(statistics.videoFramesSent), keyframes \(statistics.keyFramesEncoded)")
        require(statistics.keyframeRequestsAbsorbed <= statistics.keyframeRequestsReceived)
        require((configuration.minimumBitrate ... configuration.maximumBitrate).contains(statistics.videoTargetBitrate),
                     "a composite bitrate of \(statistics.videoTargetBitrate)")
        // One shared encoder plus one per speaker, and speakers are participants.
        require(statistics.audioEncodersInUse <= statistics.maximumAudioEncodersInUse
                     && statistics.maximumAudioEncodersInUse <= statistics.audioEncodersCreated
                     && statistics.audioEncodersCreated <= slots.count + 1,
                     "\(statistics.audioEncodersInUse) encoders in use, at most \(statistics.maximumAudioEncodersInUse), \(statistics.audioEncodersCreated) created")
        let recentRestarts = restarts.filter { now - $0 < .seconds(1) }.count
        require(statistics.sendFrameRate <= configuration.frameRate + 1 + Double(recentRestarts),
                "sending \(statistics.sendFrameRate) fps after \(recentRestarts) restarts")
        for seat in present {
            let participant = statistics.participants[seat.id]!
            require(participant.receive.datagramsReceived + participant.feedbackReceived == seat.fed,
                         "\(participant.receive.datagramsReceived) + \(participant.feedbackReceived) datagrams counted, \(seat.fed) fed")
            require(participant.feedbackMalformed <= participant.feedbackReceived)
            let rtp = participant.videoPacketsSent + participant.audioPacketsSent + participant.retransmittedPacketsSent
                + participant.paddingPacketsSent
            require(seat.sent.rtpPackets == rtp, "\(seat.sent.rtpPackets) RTP packets sent, \(rtp) counted")
            require(seat.sent.senderReports == participant.rtcpPacketsSent,
                         "\(seat.sent.senderReports) sender reports sent, \(participant.rtcpPacketsSent) counted")
            let receive = participant.receive
            // REMB: the host asks for what the participant's slot shows when that changes.
            let feedback = receive.transportFeedbackSent + receive.nacksSent + receive.keyframeRequestsSent + receive.receiverReportsSent
                + receive.maximumBitrateRequests
            require(seat.sent.feedbackPackets <= feedback, "\(seat.sent.feedbackPackets) feedback compounds sent, \(feedback) counted")
            let values = [participant.videoBytesSent, participant.audioBytesSent, participant.retransmittedBytesSent,
                          participant.paddingBytesSent, participant.nacksReceived, participant.plisReceived,
                          participant.firsReceived, participant.framesReceived, receive.packetsDiscarded, receive.decoderFailures]
            require(values.allSatisfy { $0 >= 0 }, "a negative counter of \(seat.id): \(values)")
        }
    }
}

@_cdecl("FuzzHostPipeline_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
