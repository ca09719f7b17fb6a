import Confer
import ConferCodecs
import ConferMedia
import ConferRTP

/// A datagram one side of a loopback call sent, and which side.
struct Sent {
    var time: Timestamp
    var fromSender: Bool
    var bytes: [UInt8]

    var route: RTPDatagramRoute { bytes.withUnsafeBytes { RTPDatagramRoute(classifying: $0) } }
    var isRTP: Bool { route == .media }
    var payloadType: UInt8 { bytes[1] & 0x7F }
}

/// A real call in virtual time: a SendPipeline sending `codec` video (and Opus) to a
/// ReceivePipeline that feeds back, every seventh video packet lost on the way so the
/// receiver sends NACKs and keyframe requests and the sender retransmits. Reports come
/// every 200 ms so a short call holds receiver reports, RRTR and the DLRR answering them.
func loopback(codec: Codec, width: Int = 48, height: Int = 32, maximumPacketSize: Int = 1200,
              duration: TimeDelta = .seconds(1.5), seed: UInt64 = 11) -> [Sent] {
    var sent: [Sent] = []
    var now = Timestamp.zero
    let sender = try! SendPipeline(configuration: SendPipelineConfiguration(
        video: .init(codec: codec, width: width, height: height, frameRate: 15, maximumBitrate: 200_000, speed: 8,
                     allowsFrameDropping: false),
        audio: .init(), maximumPacketSize: maximumPacketSize, probesBandwidth: true,
        reportInterval: .milliseconds(200), cname: "seed-sender", seed: seed)) { sent.append(Sent(time: now, fromSender: true, bytes: Array($0))) }
    let receiver = try! ReceivePipeline(
        configuration: ReceivePipelineConfiguration(video: .init(codec: codec), audio: .init(),
                                                    reportInterval: .milliseconds(200), cname: "seed-receiver"),
        output: { sent.append(Sent(time: now, fromSender: false, bytes: Array($0))) }, render: { _ in })
    var source = TestPatternSource(width: width, height: height, frameRate: 15, colorIndex: 2, seed: 3)
    var tone = ToneSource(index: 1, amplitude: 0.3, pattern: .continuous)
    var audio = AudioFrame(silenceOf: 480, channels: 1)
    var framesCaptured = 0, audioChunks = 0, delivered = 0, videoPackets = 0
    while now - .zero < duration {
        // Delivered on the next tick, never inside the other pipeline's call.
        while delivered < sent.count {
            let datagram = sent[delivered]
            delivered += 1
            if datagram.fromSender {
                if datagram.isRTP, datagram.payloadType == 96 {
                    videoPackets += 1
                    if videoPackets % 7 == 3 { continue }
                }
                datagram.bytes.withUnsafeBytes { _ = receiver.receive($0, at: now) }
            } else {
                datagram.bytes.withUnsafeBytes { _ = sender.receiveRTCP($0, at: now) }
            }
        }
        if source.timestamp(ofFrame: framesCaptured) <= now {
            try! sender.sendVideo(source.next(), at: now)
            framesCaptured += 1
        }
        while Timestamp.zero + .milliseconds(Int64(audioChunks) * 10) <= now {
            var chunk = tone.next(frameCount: 480)
            chunk.timestamp = .zero + .milliseconds(Int64(audioChunks) * 10)
            try! sender.sendAudio(chunk, at: now)
            audioChunks += 1
            receiver.pullAudio(at: now, into: &audio)
        }
        sender.poll(at: now)
        receiver.poll(at: now)
        now = now + .milliseconds(5)
    }
    return sent
}

/// Encoded frames of a small moving test pattern, the first a keyframe.
func encodedFrames(_ codec: Codec, count: Int, width: Int = 64, height: Int = 48) -> [EncodedFrame] {
    let settings = VideoEncoderSettings(width: width, height: height, bitrate: 200_000)
    var source = TestPatternSource(width: width, height: height, frameRate: 15, colorIndex: 4, seed: 9)
    var frames: [EncodedFrame] = []
    switch codec {
    case .h264:
        var encoder = try! X264Encoder(settings: settings)
        while frames.count < count, let frame = try! encoder.encode(source.next()) { frames.append(frame) }
    default:
        var encoder = try! VPXEncoder(codec: codec, settings: settings, allowsFrameDropping: false)
        while frames.count < count, let frame = try! encoder.encode(source.next()) { frames.append(frame) }
    }
    return frames
}

/// The RTP payload of `bytes` (headers, extensions and padding removed).
func payload(of bytes: [UInt8]) -> [UInt8] {
    bytes.withUnsafeBytes { Array((try! RTPPacketView($0)).payload) }
}
