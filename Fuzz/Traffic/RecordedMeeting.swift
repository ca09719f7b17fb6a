// Real traffic for the pipeline fuzz targets, recorded once per process.
//
// Random bytes almost never make a VP8 picture or an Opus packet, so the targets mostly
// replay (and mutate) what a real participant sends a real host: media, sender reports,
// and its feedback about the host's composite (receiver reports, transport-cc, the NACKs
// and PLIs caused by dropping some of the host's packets). Everything is seeded and in
// virtual time, so the recording, and therefore every fuzz input, is reproducible.
public import Confer
public import ConferMedia
import ConferMixer
import ConferRTP
public import ConferSRTP

/// One datagram a participant sent, with when (from the start of the recording).
public struct RecordedDatagram: Sendable {
    /// When it was sent.
    public var time: TimeDelta
    /// Plain RTP or RTCP (the targets protect it themselves when they use SRTP).
    public var bytes: [UInt8]
}

/// The meeting the fuzz targets are configured like.
public enum FuzzMeeting {
    /// A 64×64 VP8 canvas at 10 fps: tiny, so each input costs little.
    public static func hostConfiguration() -> HostPipelineConfiguration {
        HostPipelineConfiguration(codec: .vp8, width: 64, height: 64, frameRate: 10, maximumBitrate: 300_000,
                                  minimumBitrate: 60_000, startBitrate: 150_000, historyCapacity: 128)
    }

    /// What the host expects from a participant (VP8 on 96, RTX on 97, Opus on 111,
    /// transport-wide sequence numbers on extension 3): also what the receive-pipeline
    /// target is configured with.
    public static func participantStreams(srtpKey: SRTPKeyChoice?) -> ReceivePipelineConfiguration {
        ReceivePipelineConfiguration(video: .init(codec: .vp8, jitterBuffer: .init(packetCapacity: 128)),
                                     audio: .init(), ssrc: 0x6000_0001, srtpKey: srtpKey?.key)
    }

    /// The participant's uplink over 600 ms: everything it sent the host, in order.
    public static let uplink: [RecordedDatagram] = record()

    private static func record() -> [RecordedDatagram] {
        let host = try! HostPipeline(configuration: hostConfiguration())
        var up: [RecordedDatagram] = []
        var down: [[UInt8]] = []
        var now = Timestamp.zero
        let sender = try! SendPipeline(configuration: SendPipelineConfiguration(
            video: .init(codec: .vp8, width: 48, height: 32, frameRate: 15, maximumBitrate: 200_000, speed: -8,
                         allowsFrameDropping: false),
            audio: .init(), probesBandwidth: false, cname: "fuzz-participant", seed: 7)) { up.append(.init(time: now - .zero, bytes: Array($0)) ) }
        var receiveConfiguration = host.participantReceiveConfiguration
        receiveConfiguration.ssrc = 0x3000_0001
        let receiver = try! ReceivePipeline(configuration: receiveConfiguration,
                                            output: { up.append(.init(time: now - .zero, bytes: Array($0))) },
                                            render: { _ in })
        try! host.addParticipant(ParticipantID(1), configuration: HostParticipantConfiguration(receive: participantStreams(srtpKey: nil)),
                                 at: now) { down.append(Array($0)) }
        var source = TestPatternSource(width: 48, height: 32, frameRate: 15, colorIndex: 1, seed: 1)
        var tone = ToneSource(index: 0, amplitude: 0.25, pattern: .continuous)
        var framesCaptured = 0, audioChunks = 0, delivered = 0, videoPacketsDown = 0
        for _ in 0 ..< 120 {
            // Zero delay, but never inside another pipeline's call: queued until the next tick.
            while delivered < up.count {
                let bytes = up[delivered].bytes
                delivered += 1
                bytes.withUnsafeBytes { _ = host.receive($0, from: ParticipantID(1), at: now) }
            }
            for bytes in down {
                let route = bytes.withUnsafeBytes { RTPDatagramRoute(classifying: $0) }
                if route == .media, bytes.count > 1, bytes[1] & 0x7F == 96 {
                    videoPacketsDown += 1
                    // Losing every fourth composite packet, the first keyframe among them,
                    // makes the participant send NACKs and keyframe requests.
                    if videoPacketsDown % 4 == 1 { continue }
                }
                bytes.withUnsafeBytes { datagram in
                    if route.isForReceiveSide { _ = receiver.receive(datagram, at: now) } else { _ = sender.receiveRTCP(datagram, at: now) }
                }
            }
            down.removeAll()
            if source.timestamp(ofFrame: framesCaptured) <= now {
                try! sender.sendVideo(source.next(), at: now)
                framesCaptured += 1
            }
            while Timestamp.zero + .milliseconds(Int64(audioChunks) * 10) <= now {
                var chunk = tone.next(frameCount: 480)
                chunk.timestamp = .zero + .milliseconds(Int64(audioChunks) * 10)
                try! sender.sendAudio(chunk, at: now)
                audioChunks += 1
            }
            sender.poll(at: now)
            receiver.poll(at: now)
            try! host.poll(at: now)
            now = now + .milliseconds(5)
        }
        return up
    }
}

/// The SRTP key of one side of a fuzzed connection, chosen by a byte of the input.
public struct SRTPKeyChoice: Sendable {
    /// The key.
    public let key: SRTPMasterKey

    /// Key `index`: its profile (every one libsrtp offers here) and its bytes follow from it.
    public init(_ index: Int) {
        var random = SeededRandom(seed: UInt64(index) &+ 0x5A17)
        let profiles = SRTPProfile.allCases
        key = SRTPMasterKey.random(profile: profiles[index % profiles.count], using: &random)
    }
}
