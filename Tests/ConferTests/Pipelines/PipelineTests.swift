import Testing
import Confer
import ConferMedia
import ConferCodecs
import ConferRTP
import ConferSRTP
import ConferJitter

/// Collects what a pipeline sends.
private final class Datagrams {
    var all: [[UInt8]] = []
    func take(_ bytes: UnsafeRawBufferPointer) { all.append(Array(bytes)) }
    var rtp: [RTPPacket] { all.filter { !isRTCP($0) }.compactMap { try? RTPPacket(parsing: $0) } }
    var rtcp: [RTCPPacket] { all.filter(isRTCP).flatMap { (try? RTCPCompound.parse($0)) ?? [] } }
    func clear() { all.removeAll() }
}

private func isRTCP(_ bytes: [UInt8]) -> Bool { bytes.count > 1 && (192 ... 223).contains(bytes[1]) }

private func send(_ packets: [RTCPPacket], to sender: SendPipeline, at time: Timestamp) throws {
    let bytes = try RTCPCompound.serialized(packets)
    bytes.withUnsafeBytes { _ = sender.receiveRTCP($0, at: time) }
}

private let videoSSRC: UInt32 = 0x1000_0001
private let rtxSSRC: UInt32 = 0x1000_0002
private let audioSSRC: UInt32 = 0x2000_0001

private func makeSender(_ out: Datagrams, audio: Bool = false, bitrate: Int = 300_000, srtpKey: SRTPMasterKey? = nil) throws -> SendPipeline {
    try SendPipeline(configuration: SendPipelineConfiguration(
        video: .init(codec: .vp8, width: 160, height: 120, maximumBitrate: bitrate, speed: -8, allowsFrameDropping: false),
        audio: audio ? .init() : nil, maximumPacketSize: 400, probesBandwidth: false, srtpKey: srtpKey, seed: 5), output: out.take)
}

@Suite struct PipelineTests {
    @Test func everyPacketCarriesTheNextTransportWideSequenceNumber() throws {
        let out = Datagrams()
        let sender = try makeSender(out, audio: true)
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 1)
        var tone = ToneSource(index: 0, pattern: .continuous)
        for index in 0 ..< 3 {
            let time = Timestamp.milliseconds(Int64(index) * 33)
            var frame = source.next()
            frame.timestamp = time
            try sender.sendVideo(frame, at: time)
            var audio = tone.next(frameCount: 480)
            audio.timestamp = time
            try sender.sendAudio(audio, at: time)   // 10 ms each: a packet every second call
        }
        let packets = out.rtp
        let transport = try packets.map { try #require(try $0.header.extensionValue(RTPTransportSequenceNumber.self, id: 3)).value }
        #expect(transport.count >= 5)
        for (a, b) in zip(transport, transport.dropFirst()) { #expect(b == a &+ 1) }

        let video = packets.filter { $0.header.ssrc == videoSSRC }
        let audio = packets.filter { $0.header.ssrc == audioSSRC }
        #expect(video.allSatisfy { $0.header.payloadType == 96 })
        #expect(audio.count == 1 && audio[0].header.payloadType == 111)
        // Each frame's packets share a timestamp, 90 kHz apart by capture time, the last one marked.
        let frames = Dictionary(grouping: video, by: \.header.timestamp)
        #expect(frames.count == 3)
        let stamps = frames.keys.sorted { $0 &- frames.keys.min()! < $1 &- frames.keys.min()! }
        #expect(stamps[1] &- stamps[0] == 2970 && stamps[2] &- stamps[1] == 2970)
        for (_, frame) in frames {
            #expect(frame.last?.header.marker == true)
            #expect(frame.dropLast().allSatisfy { !$0.header.marker })
            #expect(frame.allSatisfy { $0.serializedSize <= 400 })
        }
        // Sequence numbers run on per stream.
        for (a, b) in zip(video, video.dropFirst()) { #expect(b.header.sequenceNumber == a.header.sequenceNumber &+ 1) }

        // The first poll sends sender reports for both streams and a CNAME.
        out.clear()
        sender.poll(at: .milliseconds(70))
        let reports = out.rtcp
        let ssrcs = reports.compactMap { if case .senderReport(let report) = $0 { report.ssrc } else { nil } }
        #expect(Set(ssrcs) == [videoSSRC, audioSSRC])
        #expect(reports.contains { if case .sourceDescription = $0 { true } else { false } })
        #expect(sender.nextPollTime == .seconds(1))
    }

    @Test func nackIsAnsweredWithRetransmissionsOnTheRTXStream() throws {
        let out = Datagrams()
        let sender = try makeSender(out, bitrate: 1_000_000)
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 3)
        try sender.sendVideo(source.next(), at: .zero)   // a keyframe: several packets
        let originals = out.rtp
        #expect(originals.count >= 3)
        let lastTransport = try #require(try originals.last?.header.extensionValue(RTPTransportSequenceNumber.self, id: 3)).value
        out.clear()

        let wanted = [originals[0].header.sequenceNumber, originals[2].header.sequenceNumber]
        try send([.genericNACK(RTCPGenericNACK(senderSSRC: 7, mediaSSRC: videoSSRC, lostSequenceNumbers: wanted))],
                 to: sender, at: .milliseconds(50))
        let rtx = out.rtp
        #expect(rtx.count == 2)
        for (packet, original) in zip(rtx, [originals[0], originals[2]]) {
            #expect(packet.header.ssrc == rtxSSRC)
            #expect(packet.header.payloadType == 97)
            #expect(packet.header.timestamp == original.header.timestamp)
            #expect(Array(packet.payload.prefix(2)) == [UInt8(original.header.sequenceNumber >> 8), UInt8(original.header.sequenceNumber & 0xFF)])
            #expect(Array(packet.payload.dropFirst(2)) == original.payload)
        }
        // Retransmissions get transport-wide numbers of their own, after the media's.
        let numbers = try rtx.map { try #require(try $0.header.extensionValue(RTPTransportSequenceNumber.self, id: 3)).value }
        #expect(numbers == [lastTransport &+ 1, lastTransport &+ 2])

        // The same NACK again within an RTT is not answered twice; a NACK for another SSRC is ignored.
        out.clear()
        try send([.genericNACK(RTCPGenericNACK(senderSSRC: 7, mediaSSRC: videoSSRC, lostSequenceNumbers: wanted)),
                  .genericNACK(RTCPGenericNACK(senderSSRC: 7, mediaSSRC: 99, lostSequenceNumbers: wanted))],
                 to: sender, at: .milliseconds(60))
        #expect(out.rtp.isEmpty)
        #expect(sender.statistics.video?.nackCount == 2)
        #expect(sender.statistics.video?.retransmittedPacketsSent == 2)
    }

    @Test func keyframeRequestsAreThrottledAndFIRRepeatsIgnored() throws {
        let out = Datagrams()
        let sender = try makeSender(out)
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 4)
        var keyframes: [Int] = []
        func frame(_ index: Int) throws {
            let time = Timestamp.milliseconds(Int64(index) * 33)
            out.clear()
            var picture = source.next()
            picture.timestamp = time
            try sender.sendVideo(picture, at: time)
            let first = try #require(out.rtp.first)
            if try VP8Depacketizer().parse(first.payload).isKeyframe { keyframes.append(index) }
        }
        for index in 0 ..< 3 { try frame(index) }
        try send([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 7, mediaSSRC: videoSSRC))], to: sender, at: .milliseconds(80))
        try send([.pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 7, mediaSSRC: videoSSRC))], to: sender, at: .milliseconds(90))
        // Frame 0 was a keyframe at 0 ms: the request waits until 300 ms have passed, and two cost one.
        for index in 3 ..< 12 { try frame(index) }
        #expect(keyframes == [0, 10])

        try send([.fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 7, entries: [.init(ssrc: videoSSRC, sequenceNumber: 1)]))],
                 to: sender, at: .milliseconds(700))
        for index in 22 ..< 24 { try frame(index) }
        try send([.fullIntraRequest(RTCPFullIntraRequest(senderSSRC: 7, entries: [.init(ssrc: videoSSRC, sequenceNumber: 1)]))],
                 to: sender, at: .milliseconds(1100))
        for index in 34 ..< 36 { try frame(index) }
        #expect(keyframes == [0, 10, 22])
        let statistics = try #require(sender.statistics.video)
        #expect(statistics.pliCount == 2)
        #expect(statistics.firCount == 1)
        #expect(statistics.keyFramesEncoded == 3)
    }

    @Test func transportFeedbackDrivesTheSendersEstimate() throws {
        // Sender and receiver wired back to back with 20 ms each way, no loss.
        let forward = Datagrams(), backward = Datagrams()
        let sender = try makeSender(forward)
        var rendered = 0
        let receiver = try ReceivePipeline(
            configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)), output: backward.take, render: { _ in rendered += 1 })
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 5)
        var inFlight: [(Timestamp, [UInt8])] = []
        var feedbackInFlight: [(Timestamp, [UInt8])] = []
        var time = Timestamp.zero
        for index in 0 ..< 60 {
            let capture = Timestamp.milliseconds(Int64(index) * 33)
            while time < capture {
                time = time + .milliseconds(1)
                while let (due, bytes) = inFlight.first, due <= time {
                    inFlight.removeFirst()
                    bytes.withUnsafeBytes { _ = receiver.receive($0, at: due) }
                }
                while let (due, bytes) = feedbackInFlight.first, due <= time {
                    feedbackInFlight.removeFirst()
                    bytes.withUnsafeBytes { _ = sender.receiveRTCP($0, at: due) }
                }
                receiver.poll(at: time)
                sender.poll(at: time)
                inFlight += forward.all.map { (time + .milliseconds(20), $0) }
                feedbackInFlight += backward.all.map { (time + .milliseconds(20), $0) }
                forward.clear()
                backward.clear()
            }
            var frame = source.next()
            frame.timestamp = capture
            try sender.sendVideo(frame, at: time)
            inFlight += forward.all.map { (time + .milliseconds(20), $0) }
            forward.clear()
        }
        let statistics = sender.statistics
        #expect(statistics.bandwidth.feedbackMessages >= 25)
        #expect(statistics.bandwidth.packetsLost == 0)
        #expect(statistics.bandwidth.packetsAcknowledged >= Int64(statistics.rtpPacketsSent) - 10)
        // 20 ms each way: an RTT of about 40 ms (compact NTP time rounds to 1/65536 s).
        let rtt = try #require(sender.roundTripTime)
        #expect(rtt >= .milliseconds(38) && rtt <= .milliseconds(100), "RTT \(rtt)")
        #expect(receiver.statistics.transportFeedbackSent >= 25)
        #expect(receiver.statistics.receiverReportsSent >= 1)
        #expect(rendered >= 55)
    }

    /// Sends `frames` frames of the test card, 33 ms apart, from `sender` to `receiver` (10 ms
    /// on the way) and the receiver's RTCP back (10 ms), calling `before` with each frame's
    /// index before it is sent and `feedback` while the receiver's RTCP is in `backward`.
    private static func exchange(frames: Int, sender: SendPipeline, receiver: ReceivePipeline, forward: Datagrams,
                         backward: Datagrams, before: (Int) -> Void, feedback: () -> Void = {}) throws {
        var source = TestPatternSource(width: 640, height: 360, colorIndex: 2)
        for index in 0 ..< frames {
            let time = Timestamp.milliseconds(Int64(index) * 33)
            before(index)
            var frame = source.next()
            frame.timestamp = time
            try sender.sendVideo(frame, at: time)
            for bytes in forward.all { bytes.withUnsafeBytes { _ = receiver.receive($0, at: time + .milliseconds(10)) } }
            forward.clear()
            receiver.poll(at: time + .milliseconds(10))
            feedback()
            for bytes in backward.all { bytes.withUnsafeBytes { _ = sender.receiveRTCP($0, at: time + .milliseconds(20)) } }
            backward.clear()
        }
    }

    /// A receiver's maximum-bitrate request (what a host asks of a participant shown in a
    /// small tile) goes out as REMB at once and with each report; the sender caps its target
    /// at it and its encoder picks the size that affords.
    @Test func aMaximumBitrateRequestReachesTheSenderAsREMB() throws {
        let forward = Datagrams(), backward = Datagrams()
        let sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 640, height: 360, maximumBitrate: 800_000, startBitrate: 600_000, speed: -8),
            probesBandwidth: false, seed: 5), output: forward.take)
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: backward.take, render: { _ in })
        var rembs: [UInt64] = []
        try Self.exchange(frames: 90, sender: sender, receiver: receiver, forward: forward, backward: backward) { index in
            if index == 10 { receiver.requestMaximumBitrate(200_000) }
            if index == 11 { receiver.requestMaximumBitrate(200_000) }  // unchanged: nothing sent
        } feedback: {
            for case .receiverEstimatedMaxBitrate(let remb) in backward.rtcp { rembs.append(remb.bitrate) }
        }
        #expect(receiver.statistics.maximumBitrateRequests == 1)
        #expect(rembs.first == 200_000 && rembs.count >= 2 && rembs.allSatisfy { $0 == 200_000 })
        let video = try #require(sender.statistics.video)
        #expect(video.targetBitrate <= 200_000)
        // 640×360 needs 300 kbit/s, 480×270 200: under a 200 kbit/s cap it is 480×270.
        #expect(video.encodedWidth == 480 && video.encodedHeight == 270)
        #expect(video.sizeChanges == 1)
    }

    /// Asked for less than a full-rate thumbnail needs (what a host asks of a half-rate
    /// tile), a camera sends 320×180 at every other frame, and the receiver renders 15 fps;
    /// a stream that may not drop frames keeps all of them.
    @Test(arguments: [true, false])
    func aHalfRateTileRequestHalvesTheFrameRate(dropsFrames: Bool) throws {
        let forward = Datagrams(), backward = Datagrams()
        let sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 640, height: 360, maximumBitrate: 800_000, startBitrate: 600_000, speed: -8,
                         allowsFrameDropping: dropsFrames),
            probesBandwidth: false, seed: 5), output: forward.take)
        var rendered: [Timestamp] = []
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: backward.take, render: { rendered.append($0.renderTime) })
        try Self.exchange(frames: 120, sender: sender, receiver: receiver, forward: forward, backward: backward) { index in
            if index == 10 { receiver.requestMaximumBitrate(75_000) }
        }
        for step in 1 ... 30 { receiver.poll(at: Timestamp.milliseconds(Int64(119 * 33 + step * 10))) }
        let video = try #require(sender.statistics.video)
        #expect(video.targetBitrate <= 75_000)
        #expect(video.encodedWidth == 320 && video.encodedHeight == 180)
        // Frames from the second second on: the request came at frame 10.
        let late = rendered.filter { $0 >= .seconds(1.5) }.count
        if dropsFrames {
            #expect(video.encodedFrameRate == 15)
            #expect(video.framesSkippedForFrameRate >= 50 && video.framesSkippedForFrameRate <= 56)
            #expect(late >= 34 && late <= 42, "rendered \(late) frames")
        } else {
            #expect(video.encodedFrameRate == 30 && video.framesSkippedForFrameRate == 0)
            #expect(late >= 70)
        }
    }

    /// A 400 kbit/s VP8 sender, pacing or not, that has just been given one noisy 640×360
    /// picture: a keyframe of many packets.
    private static func sendNoisyKeyframe(_ out: Datagrams, paces: Bool) throws -> SendPipeline {
        let sender = try SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 640, height: 360, maximumBitrate: 400_000, startBitrate: 400_000, speed: -8,
                         adaptsResolution: false),
            probesBandwidth: false, paces: paces, seed: 5), output: out.take)
        var source = NoisePatternSource(width: 640, height: 360, seed: 3)
        try sender.sendVideo(source.next(), at: .zero)
        return sender
    }

    /// A keyframe's packets leave spread at 2.5 × the estimate, released by polls at
    /// ``SendPipeline/nextPollTime``; without pacing they all leave in the call.
    @Test(arguments: [true, false])
    func aKeyframeIsPacedAtTwoAndAHalfTimesTheEstimate(paces: Bool) throws {
        let out = Datagrams()
        let sender = try Self.sendNoisyKeyframe(out, paces: paces)
        let atOnce = out.rtp.count
        var departures: [Timestamp] = Array(repeating: .zero, count: atOnce)
        var now = Timestamp.zero
        while let due = sender.nextPollTime, due < .seconds(1), out.rtp.count < 200 {
            now = due
            let before = out.rtp.count
            sender.poll(at: now)
            departures += Array(repeating: now, count: out.rtp.count - before)
            if out.rtp.count == before, sender.nextPollTime == due { break }
        }
        let packets = out.rtp.filter { $0.header.ssrc == videoSSRC }
        #expect(packets.count > 10, "a noisy keyframe is many packets")
        let bytes = packets.reduce(0) { $0 + $1.payload.count + 12 }
        if paces {
            // The first leaves at once, the rest as the debt at 2.5 × 400 kbit/s is paid.
            #expect(atOnce == 1)
            let span = try #require(departures.last).seconds
            let expected = Double(bytes - packets[0].payload.count) * 8 / 1_000_000
            #expect(abs(span - expected) < 0.01 + expected * 0.05, "span \(span) s, expected \(expected) s")
        } else {
            #expect(atOnce == packets.count)
        }
    }

    /// While a keyframe waits for the pacer, a NACK's retransmission leaves at the next
    /// poll ahead of it (libwebrtc's priority), and is itself paced: not sent in the call.
    @Test func aRetransmissionGoesAheadOfPacedVideo() throws {
        let out = Datagrams()
        let sender = try Self.sendNoisyKeyframe(out, paces: true)
        let first = try #require(out.rtp.first)
        #expect(out.rtp.count == 1)
        // Half the keyframe has left by the time the NACK for its first packet comes.
        var now = Timestamp.zero
        var sent = out.rtp.count
        while let due = sender.nextPollTime, out.rtp.count < 6 {
            now = due
            sender.poll(at: now)
            if out.rtp.count == sent { break }
            sent = out.rtp.count
        }
        let videoBefore = out.rtp.filter { $0.header.ssrc == videoSSRC }.count
        try send([.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: videoSSRC,
                                               lostSequenceNumbers: [first.header.sequenceNumber]))], to: sender, at: now)
        #expect(out.rtp.count == sent, "the retransmission waits for the pacer too")
        let due = try #require(sender.nextPollTime)
        sender.poll(at: due)
        let next = try #require(out.rtp.dropFirst(sent).first)
        #expect(next.header.ssrc == rtxSSRC)
        #expect(Array(next.payload.prefix(2)) == [UInt8(first.header.sequenceNumber >> 8), UInt8(first.header.sequenceNumber & 0xFF)])
        // The keyframe was not done: media was still waiting behind it.
        var rest = 0
        while let later = sender.nextPollTime, later < .seconds(1) {
            sender.poll(at: later)
            rest = out.rtp.filter { $0.header.ssrc == videoSSRC }.count - videoBefore
            if rest > 100 { break }
        }
        #expect(rest > 3, "\(rest) video packets left after the retransmission")
    }

    @Test func aLatePacketIsReportedInTheNextFeedback() throws {
        let backward = Datagrams()
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: backward.take, render: { _ in })
        func packet(_ sequence: UInt16, at time: Timestamp) throws {
            var header = RTPHeader(payloadType: 96, sequenceNumber: 100 + sequence, timestamp: UInt32(sequence) * 3000, ssrc: 42,
                                   marker: true)
            header.setExtensionValue(RTPTransportSequenceNumber(1000 + sequence), id: 3)
            let bytes = try RTPPacket(header: header, payload: [0x10, 0x00, 0x9D, 0x01, 0x2A]).serialized()
            bytes.withUnsafeBytes { _ = receiver.receive($0, at: time) }
        }
        func feedback() -> [RTCPTransportFeedback] {
            defer { backward.clear() }
            return backward.rtcp.compactMap { if case .transportFeedback(let message) = $0 { message } else { nil } }
        }
        try packet(0, at: .milliseconds(10))
        try packet(1, at: .milliseconds(20))
        try packet(3, at: .milliseconds(30))
        receiver.poll(at: .milliseconds(60))
        let first = feedback()
        #expect(first.count == 1)
        #expect(first.first?.packetResults.map(\.sequenceNumber) == [1000, 1001, 1002, 1003])
        #expect(first.first?.packetResults.map { $0.arrival != nil } == [true, true, false, true])

        try packet(2, at: .milliseconds(70))
        try packet(4, at: .milliseconds(80))
        receiver.poll(at: .milliseconds(100))
        #expect(feedback().isEmpty)   // due 50 ms after the first new arrival
        receiver.poll(at: .milliseconds(120))
        let second = feedback()
        #expect(second.first?.packetResults.map(\.sequenceNumber) == [1002, 1003, 1004])
        #expect(second.first?.packetResults.map { $0.arrival != nil } == [true, true, true])
        #expect(second.first?.feedbackPacketCount == (first.first?.feedbackPacketCount ?? 0) &+ 1)
    }

    @Test func garbageIsCountedAndTheStreamGoesOn() throws {
        let forward = Datagrams()
        let sender = try makeSender(forward)
        var rendered = 0
        let receiver = try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8)),
                                           output: { _ in }, render: { _ in rendered += 1 })
        var random = SeededRandom(seed: 3)
        var garbage: [[UInt8]] = [[], [0x80], [0x80, 0xC8, 0, 1], Array(repeating: 0xFF, count: 70_000)]
        for length in [4, 12, 13, 40, 300, 1500] {
            garbage.append((0 ..< length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
        // A well-formed RTP packet of an unknown payload type, and RTCP that lies about its length.
        garbage.append(try RTPPacket(header: RTPHeader(payloadType: 50, sequenceNumber: 1, timestamp: 0, ssrc: 1), payload: [1, 2]).serialized())
        garbage.append([0x81, 0xC9, 0x00, 0x40, 0, 0, 0, 1])
        // Without SRTP nothing authenticates: what is too short or too long for a datagram
        // of RTP or RTCP reads as not taken, the rest is read (and then counted as bad).
        let taken = garbage.map { bytes in bytes.withUnsafeBytes { receiver.receive($0, at: .zero) } }
        #expect(taken == garbage.map { $0.count >= 8 && $0.count <= 65_536 })
        for bytes in garbage { bytes.withUnsafeBytes { _ = sender.receiveRTCP($0, at: .zero) } }
        #expect(receiver.statistics.packetsDiscarded >= 6)
        #expect(sender.statistics.rtcpPacketsMalformed >= 3)

        var source = TestPatternSource(width: 160, height: 120, colorIndex: 2)
        for index in 0 ..< 10 {
            let time = Timestamp.milliseconds(Int64(index) * 33)
            var frame = source.next()
            frame.timestamp = time
            try sender.sendVideo(frame, at: time)
            for bytes in forward.all { bytes.withUnsafeBytes { _ = receiver.receive($0, at: time) } }
            forward.clear()
            receiver.poll(at: time + .milliseconds(20))
        }
        receiver.poll(at: .seconds(1))
        #expect(rendered == 10)
    }

    @Test func srtpProtectsMediaAndFeedback() throws {
        let key = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: (0 ..< 30).map { UInt8($0) })
        let otherKey = try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: (0 ..< 30).map { UInt8(255 - $0) })
        for (receiverKey, expected) in [(key, 10), (otherKey, 0)] {
            let forward = Datagrams(), backward = Datagrams()
            let sender = try makeSender(forward, srtpKey: key)
            var rendered = 0
            let receiver = try ReceivePipeline(
                configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8), srtpKey: receiverKey),
                output: backward.take, render: { _ in rendered += 1 })
            // What each side says of what it took: authenticated or not, for consent.
            var forwardAuthenticated: [Bool] = [], backwardAuthenticated: [Bool] = []
            var source = TestPatternSource(width: 160, height: 120, colorIndex: 2)
            for index in 0 ..< 10 {
                let time = Timestamp.milliseconds(Int64(index) * 33)
                var frame = source.next()
                frame.timestamp = time
                try sender.sendVideo(frame, at: time)
                sender.poll(at: time)
                // Nothing readable leaves the sender: no plaintext RTP parses with our payload type… and SRTCP does not parse.
                for bytes in forward.all { forwardAuthenticated.append(bytes.withUnsafeBytes { receiver.receive($0, at: time) }) }
                forward.clear()
                receiver.poll(at: time + .milliseconds(60))
                for bytes in backward.all {
                    backwardAuthenticated.append(bytes.withUnsafeBytes { sender.receiveRTCP($0, at: time + .milliseconds(60)) })
                }
                backward.clear()
            }
            receiver.poll(at: .seconds(2))
            for bytes in backward.all { backwardAuthenticated.append(bytes.withUnsafeBytes { sender.receiveRTCP($0, at: .seconds(2)) }) }
            #expect(rendered == expected)
            // A receiver that authenticated nothing has nothing to report.
            #expect(forwardAuthenticated.count >= 10 && backwardAuthenticated.isEmpty == (expected == 0))
            #expect(forwardAuthenticated.allSatisfy { $0 == (expected > 0) }, "media authenticates only with the sender's key")
            #expect(backwardAuthenticated.allSatisfy { $0 == (expected > 0) }, "feedback only with the key it was sent with")
            if expected > 0 {
                #expect(sender.statistics.rtcpPacketsReceived > 0)
                #expect(sender.statistics.rtcpPacketsMalformed == 0)
            } else {
                #expect(receiver.statistics.packetsDiscarded >= 10)
            }
        }
    }

    @Test func badConfigurationsAreRefused() {
        let out = Datagrams()
        let none = #expect(throws: SendPipelineError.self) { try SendPipeline(configuration: SendPipelineConfiguration(), output: out.take) }
        #expect(none?.kind == .invalidConfiguration)
        #expect(throws: SendPipelineError.self) {
            try SendPipeline(configuration: SendPipelineConfiguration(video: .init(codec: .vp8, width: 15, height: 120)), output: out.take)
        }
        #expect(throws: SendPipelineError.self) {
            try SendPipeline(configuration: SendPipelineConfiguration(video: .init(codec: .vp8, width: 160, height: 120, rtxSSRC: 0x1000_0001)),
                             output: out.take)
        }
        #expect(throws: SendPipelineError.self) {
            try SendPipeline(configuration: SendPipelineConfiguration(video: .init(codec: .vp8, width: 160, height: 120),
                                                                     maximumPacketSize: 100), output: out.take)
        }
        #expect(throws: ReceivePipelineError.self) {
            try ReceivePipeline(configuration: ReceivePipelineConfiguration(video: .init(codec: .vp8), audio: .init(payloadType: 96)),
                                output: { _ in }, render: { _ in })
        }
        #expect(throws: (any Error).self) {
            let sender = try makeSender(out)
            try sender.sendVideo(TestPatternSource(width: 320, height: 240, colorIndex: 0).render(frameIndex: 0), at: .zero)
        }
    }
}

@Suite struct PipelineStreamTests {
    @Test func datagramsAndFramesComeOutAsAsyncSequences() async throws {
        let (sender, datagrams) = try SendPipeline.withDatagramStream(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 160, height: 120, speed: -8, allowsFrameDropping: false), probesBandwidth: false))
        let (receiver, feedback, frames) = try ReceivePipeline.withStreams(configuration: ReceivePipelineConfiguration(
            video: .init(codec: .vp8)))
        var source = TestPatternSource(width: 160, height: 120, colorIndex: 1)
        var iterator = datagrams.makeAsyncIterator()
        var consumed = 0
        for index in 0 ..< 5 {
            let time = Timestamp.milliseconds(Int64(index) * 33)
            var frame = source.next()
            frame.timestamp = time
            try sender.sendVideo(frame, at: time)
            sender.poll(at: time)
            // Take exactly what the pipeline has emitted so far (the stream would wait for more).
            let emitted = sender.statistics.rtpPacketsSent + sender.statistics.rtcpPacketsSent
            while consumed < emitted, let datagram = await iterator.next() {
                datagram.withUnsafeBytes { _ = receiver.receive($0, at: time + .milliseconds(10)) }
                consumed += 1
            }
            receiver.poll(at: time + .milliseconds(60))
        }
        receiver.poll(at: .seconds(1))
        var frameIterator = frames.makeAsyncIterator()
        var rendered: [ReceivedVideoFrame] = []
        for _ in 0 ..< 5 { if let frame = await frameIterator.next() { rendered.append(frame) } }
        #expect(rendered.count == 5)
        #expect(rendered.map(\.rtpTimestamp) == (0 ..< 5).map { sender.videoRTPTimestamp(at: .milliseconds(Int64($0) * 33))! })
        var feedbackIterator = feedback.makeAsyncIterator()
        #expect(await feedbackIterator.next() != nil)
    }
}
