import ConferJobs
import ConferMedia
import ConferCodecs
import ConferMixer
import ConferSRTP
import Confer
import ConferRTP
import ConferSession

/// What a participant saw of the host's streams: pictures rendered, their size, and which
/// streams (SSRCs) arrived. A class so the receive pipeline's render closure can fill it.
final class MeetingReception {
    /// Whether rendered pictures are kept for the run loop (participant 1 writes and draws them).
    let keepsFrames: Bool
    /// Pictures rendered since the loop last took them.
    var pending: [ReceivedVideoFrame] = []
    /// Encoded frames delivered to the decoder since the loop last took them (when recorded).
    var pendingEncoded: [EncodedFrame] = []
    private(set) var framesRendered = 0
    private(set) var firstRender: Timestamp?
    private(set) var lastRender: Timestamp?
    private(set) var width = 0
    private(set) var height = 0
    /// SSRCs seen per payload type.
    private(set) var ssrcs: [UInt8: Set<UInt32>] = [:]

    init(keepsFrames: Bool) { self.keepsFrames = keepsFrames }

    func rendered(_ frame: ReceivedVideoFrame) {
        framesRendered += 1
        if firstRender == nil { firstRender = frame.renderTime }
        lastRender = frame.renderTime
        width = frame.frame.width
        height = frame.frame.height
        if keepsFrames { pending.append(frame) }
    }

    func saw(payloadType: UInt8, ssrc: UInt32) {
        // Bounded: a hostile stream of SSRCs only grows this to the cap.
        guard ssrcs[payloadType]?.contains(ssrc) != true, (ssrcs[payloadType]?.count ?? 0) < 64 else { return }
        ssrcs[payloadType, default: []].insert(ssrc)
    }

    /// Distinct SSRCs seen with `payloadType`.
    func streams(payloadType: UInt8?) -> Int { payloadType.flatMap { ssrcs[$0]?.count } ?? 0 }
}

/// One participant of a simulated meeting: camera and microphone, the send pipeline to the
/// host, the receive pipeline for what the host sends back, and the path between them.
final class MeetingMember {
    /// Position in the meeting, from 0.
    let index: Int
    /// The id the host knows it by (`index + 1`).
    let id: ParticipantID
    let camera: CameraSource
    let microphone: MicrophoneSource
    let path: MeetingPath
    let sender: SendPipeline
    let receiver: ReceivePipeline
    let reception: MeetingReception
    /// The configuration its receive pipeline was made with (payload types of the host's streams).
    let receiveConfiguration: ReceivePipelineConfiguration
    /// The uplink key, which the host's receive side for this member needs.
    let uplinkKey: SRTPMasterKey?
    /// The downlink key, which the host's send side for this member needs.
    let downlinkKey: SRTPMasterKey?
    /// When the next camera picture is captured.
    private(set) var nextCapture: Timestamp
    private(set) var framesCaptured = 0
    /// 10 ms of captured audio, reused.
    var audioIn: AudioFrame
    /// 10 ms of played audio, reused.
    var audioOut: AudioFrame

    init(index: Int, camera: CameraSource, microphone: MicrophoneSource, options: MeetingOptions,
         hostStreams: ReceivePipelineConfiguration, grant: MediaGrant) throws {
        self.index = index
        id = ParticipantID(UInt32(index + 1))
        self.camera = camera
        self.microphone = microphone
        path = MeetingPath(uplink: options.uplink(of: index), downlink: options.downlink(of: index), seed: options.seed &+ UInt64(index) &* 0x1000_0001)
        // The keys the room handed out on admission, as a live member gets them.
        uplinkKey = options.srtp ? try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: grant.uplinkKey) : nil
        downlinkKey = options.srtp ? try SRTPMasterKey(profile: .aes128CmHmacSha1_80, keyingMaterial: grant.downlinkKey) : nil
        let base = UInt32(index) << 4
        let lossPercent = Int((options.uplink(of: index).expectedLossRate * 100).rounded(.up))
        let sendConfiguration = SendPipelineConfiguration(
            video: .init(codec: options.codec, width: camera.width, height: camera.height, frameRate: camera.frameRate,
                         maximumBitrate: options.cameraBitrate, minimumBitrate: min(50_000, options.cameraBitrate),
                         // A positive cpu-used lets libvpx's VP8 pick its speed from measured (wall-clock)
                         // encode times, so a run would depend on the machine's load; negative fixes it.
                         speed: options.codec == .vp8 ? -8 : 8,
                         ssrc: 0x1000_0001 + base, rtxSSRC: 0x1000_0002 + base),
            audio: .init(settings: AudioEncoderSettings(channels: microphone.channels, bitrate: 32_000, inbandFEC: true,
                                                        expectedLossPercent: min(max(lossPercent, 1), 30)),
                         ssrc: 0x2000_0001 + base),
            paces: options.pacing, cname: "participant-\(index + 1)", srtpKey: uplinkKey, seed: options.seed &+ UInt64(index) &* 7919)
        let path = self.path
        sender = try SendPipeline(configuration: sendConfiguration) { path.sendUp($0) }
        var receiveConfiguration = hostStreams
        receiveConfiguration.ssrc = 0x3000_0001 + base
        receiveConfiguration.cname = "participant-\(index + 1)"
        receiveConfiguration.srtpKey = downlinkKey
        self.receiveConfiguration = receiveConfiguration
        let reception = MeetingReception(keepsFrames: index == 0)
        self.reception = reception
        receiver = try ReceivePipeline(configuration: receiveConfiguration, output: { path.sendUp($0) },
                                       render: { reception.rendered($0) })
        // Cameras are not in step with each other: each starts a fraction of a frame later.
        nextCapture = .zero + TimeDelta.seconds(Double(index) / Double(max(options.memberCount, 1)) / camera.frameRate)
        audioIn = AudioFrame(silenceOf: 480, channels: microphone.channels)
        audioOut = AudioFrame(silenceOf: 480, channels: 1)
    }

    /// Captures and sends the picture due now; returns it (participant 1 shows it in its self view).
    func captureVideo(at now: Timestamp) throws -> VideoFrame {
        var frame = try camera.next()
        frame.timestamp = nextCapture
        try sender.sendVideo(frame, at: now)
        framesCaptured += 1
        nextCapture = nextCapture + TimeDelta.seconds(1 / camera.frameRate)
        return frame
    }

    /// Captures and sends the 10 ms of audio starting at `time`.
    func captureAudio(at time: Timestamp) throws {
        try microphone.capture(into: &audioIn, at: time)
        try sender.sendAudio(audioIn, at: time)
    }

    /// Takes a datagram from the host: media and the host's sender reports go to the receive
    /// pipeline, feedback about this member's own streams to its send pipeline.
    func receiveFromHost(_ datagram: [UInt8], at now: Timestamp) {
        datagram.withUnsafeBytes { bytes in
            let route = RTPDatagramRoute(classifying: bytes)
            if route == .media, bytes.count >= 12 {
                // SRTP leaves the header in the clear: note which streams arrive.
                let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
                reception.saw(payloadType: bytes[1] & 0x7F, ssrc: ssrc)
            }
            guard route == .feedback else {
                receiver.receive(bytes, at: now)
                return
            }
            sender.receiveRTCP(bytes, at: now)
            // The receive side plans retransmissions with the RTT its own send side measures.
            if let rtt = sender.roundTripTime { receiver.setRoundTripTime(rtt) }
        }
    }

    /// The earliest time either pipeline wants polling.
    var nextPollTime: Timestamp? {
        switch (sender.nextPollTime, receiver.nextPollTime) {
        case let (a?, b?): min(a, b)
        case let (a, b): a ?? b
        }
    }

    /// Polls whichever pipeline is due.
    func poll(at now: Timestamp) {
        if let due = sender.nextPollTime, due <= now { sender.poll(at: now) }
        if let due = receiver.nextPollTime, due <= now { receiver.poll(at: now) }
    }
}
