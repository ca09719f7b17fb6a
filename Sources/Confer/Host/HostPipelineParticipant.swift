import ConferMedia
import ConferMixer

/// Everything the host keeps for one participant: its receive chain (uplink), its send
/// side (downlink), the audio pulled from it each step, and the encoder of its own
/// mix-minus while it is speaking.
final class HostPipelineParticipant {
    let id: ParticipantID
    let configuration: HostParticipantConfiguration
    /// Decodes what the participant sends; the compositor reads its pictures from ``pictures``.
    let receive: ReceivePipeline
    /// What the host sends it; a stand-in that sends nowhere until it can be reached.
    private(set) var downlink: HostPipelineDownlink
    /// Whether what the host sends reaches it (see ``HostParticipantConfiguration/isReachable``).
    var isReachable: Bool { gate.isOpen }
    /// Shut while it cannot be reached: its receive chain's feedback goes nowhere either.
    private let gate: HostPipelineOutputGate
    private let output: (UnsafeRawBufferPointer) -> Void
    let pictures: HostPipelinePictureInput
    /// Where each 10 ms of the participant's audio is pulled to (allocated once).
    var audioInput: AudioFrame
    /// The pooled encoder of this participant's own mix-minus, while it contributes to the mix.
    var ownEncoder: HostPipelineAudioEncoder?

    init(id: ParticipantID, configuration: HostParticipantConfiguration, host: HostPipelineConfiguration,
         video: HostPipelineVideo, random: inout SeededRandom, output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        self.id = id
        self.configuration = configuration
        let pictures = HostPipelinePictureInput(id: id, video: video)
        self.pictures = pictures
        let gate = HostPipelineOutputGate(isOpen: configuration.isReachable)
        self.gate = gate
        receive = try ReceivePipeline(configuration: configuration.receive, output: { if gate.isOpen { output($0) } },
                                      render: pictures.take)
        self.output = output
        downlink = try HostPipelineDownlink(host: host, participant: configuration, random: &random,
                                            output: configuration.isReachable ? output : { _ in })
        audioInput = AudioFrame(silenceOf: conferSampleRate / 100,
                                channels: configuration.receive.audio?.jitterBuffer.channels ?? 1)
    }

    /// It can be reached from now on: a downlink of its own starts, as at a join, since what
    /// the stand-in sent went nowhere.
    func becomeReachable(host: HostPipelineConfiguration, random: inout SeededRandom) throws {
        guard !isReachable else { return }
        downlink = try HostPipelineDownlink(host: host, participant: configuration, random: &random, output: output)
        gate.isOpen = true
    }

    /// Whether the participant sends audio to be mixed.
    var sendsAudio: Bool { configuration.receive.audio != nil }
    /// Whether the participant sends video to be composed.
    var sendsVideo: Bool { configuration.receive.video != nil }
}

/// Whether what a participant's receive chain sends goes out: a class of its own, so the
/// chain's output closure can read it without holding the participant.
final class HostPipelineOutputGate {
    var isOpen: Bool
    init(isOpen: Bool) { self.isOpen = isOpen }
}

/// Keeps the latest picture one participant's receive chain decoded until the host's next
/// composite frame reads it, noting their size and rate. A class of its own so the receive
/// pipeline's render closure can hold it without holding the participant (which owns that
/// pipeline).
final class HostPipelinePictureInput: CompositeSource {
    let id: ParticipantID
    /// Unowned: the video owns this input (through its composer), so a strong reference back
    /// would be a cycle that keeps the whole host, encoder included, alive forever.
    private unowned let video: HostPipelineVideo
    private(set) var framesReceived = 0
    private(set) var width = 0
    private(set) var height = 0
    private var rate = HostPipelineRateMeter()
    /// Decoded since the last composite frame; a newer picture replaces it.
    private var latest: VideoFrame?

    init(id: ParticipantID, video: HostPipelineVideo) {
        self.id = id
        self.video = video
    }

    /// Keeps `received` for the next composite frame (the jitter buffer delivers pictures
    /// when they are due), counted at the time of the host's call under way.
    func take(_ received: ReceivedVideoFrame) {
        let now = video.now
        latest = received.frame
        framesReceived += 1
        width = received.frame.width
        height = received.frame.height
        rate.record(at: now)
    }

    /// The picture decoded since the last composite frame, if any; the host reads each once.
    func picture(forFrame index: Int, at time: Timestamp) -> VideoFrame? {
        latest.take()
    }

    /// Forgets the picture not yet composed.
    func dropLatest() { latest = nil }

    /// Pictures per second received over the last second, at `now`.
    func frameRate(at now: Timestamp) -> Double { rate.rate(at: now) }
}
