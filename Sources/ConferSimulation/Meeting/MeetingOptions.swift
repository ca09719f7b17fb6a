public import ConferMedia
public import ConferNet
public import ConferJobs
public import ConferRTP

/// What `confer meeting` simulates: who takes part, what they send, the network between
/// each of them and the host, and what the host makes of it.
public struct MeetingOptions: Sendable {
    /// How many take part when no input files are given (synthetic camera and microphone each).
    public var participants: Int
    /// Recorded video (y4m, ivf or h264), one per participant; when given it sets the count.
    public var videoInputs: [String]
    /// Recorded audio (wav or opus), one per participant; participants without one talk in
    /// synthetic turns (see ``TalkSchedule``).
    public var audioInputs: [String]
    /// Simulated seconds of media each participant sends.
    public var duration: TimeDelta
    /// The path from each participant to the host (uplink).
    public var uplink: NetworkConditions
    /// The path from the host to each participant (downlink).
    public var downlink: NetworkConditions
    /// How the host lays out the canvas.
    public var layout: MixLayout
    /// The codec of every video stream: each participant's camera and the host's composite.
    public var codec: Codec
    /// The host's canvas width.
    public var canvasWidth: Int
    /// The host's canvas height.
    public var canvasHeight: Int
    /// Composite frames per second.
    public var frameRate: Double
    /// Synthetic cameras' width.
    public var cameraWidth: Int
    /// Synthetic cameras' height.
    public var cameraHeight: Int
    /// The most each camera stream may use, in bit/s (the congestion controller decides below it).
    public var cameraBitrate: Int
    /// The most the composite may use, in bit/s.
    public var compositeBitrate: Int
    /// Temporal layers in the composite (1…3, VP8 or VP9; see ``HostPipelineConfiguration/temporalLayers``).
    public var temporalLayers = 1
    /// How a VP9 composite in layers describes them (see ``HostPipelineConfiguration/vp9LayerSignalling``).
    public var vp9LayerSignalling = VP9LayerSignalling.flexibleMode
    /// Whether the host encodes the composite a second time, smaller, for members whose links
    /// cannot carry it (see ``HostPipelineConfiguration/simulcast``).
    public var simulcast = true
    /// Whether the members' uplinks and the host's downlinks pace their video at
    /// ``Pacer/pacingFactor`` × the estimate instead of sending each frame as one burst.
    public var pacing = true
    /// Whether every stream is SRTP-protected (its own keys each way, per participant).
    public var srtp: Bool
    /// The renderer's draw budget at participant 1: draws per second shared by all views.
    public var drawBudget: Int
    /// The renderer's display refresh rate in Hz.
    public var refreshRate: Int
    /// How long each synthetic voice talks in its turn (``TalkSchedule``).
    public var talkTurn: TimeDelta
    /// Seeds every random choice: the same options give the same meeting.
    public var seed: UInt64
    /// Members the host kicks, by index from 0, and when.
    public var kicks: [(member: Int, at: TimeDelta)] = []
    /// Paths that differ from ``uplink`` and ``downlink``, by member index from 0: one weak
    /// member among good ones, say.
    public var memberPaths: [Int: MeetingMemberPath] = [:]

    /// The path from member `index` (from 0) to the host.
    public func uplink(of index: Int) -> NetworkConditions { memberPaths[index]?.uplink ?? uplink }
    /// The path from the host to member `index` (from 0).
    public func downlink(of index: Int) -> NetworkConditions { memberPaths[index]?.downlink ?? downlink }

    /// A meeting of `participants` synthetic members for 10 s on a clean 25 ms path, a
    /// 1280×720 30 fps VP8 grid, SRTP on, a 120 draws/s renderer at 60 Hz.
    public init(participants: Int = 4, videoInputs: [String] = [], audioInputs: [String] = [],
                duration: TimeDelta = .seconds(10), uplink: NetworkConditions = NetworkConditions(delay: .milliseconds(25)),
                downlink: NetworkConditions = NetworkConditions(delay: .milliseconds(25)), layout: MixLayout = .grid,
                codec: Codec = .vp8, canvasWidth: Int = 1280, canvasHeight: Int = 720, frameRate: Double = 30,
                cameraWidth: Int = 640, cameraHeight: Int = 360, cameraBitrate: Int = 600_000,
                compositeBitrate: Int = 1_500_000, srtp: Bool = true, drawBudget: Int = 120, refreshRate: Int = 60,
                talkTurn: TimeDelta = .seconds(2.5), seed: UInt64 = 1) {
        self.participants = participants
        self.videoInputs = videoInputs
        self.audioInputs = audioInputs
        self.duration = duration
        self.uplink = uplink
        self.downlink = downlink
        self.layout = layout
        self.codec = codec
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        self.frameRate = frameRate
        self.cameraWidth = cameraWidth
        self.cameraHeight = cameraHeight
        self.cameraBitrate = cameraBitrate
        self.compositeBitrate = compositeBitrate
        self.srtp = srtp
        self.drawBudget = drawBudget
        self.refreshRate = refreshRate
        self.talkTurn = talkTurn
        self.seed = seed
    }

    /// The number of participants these options make.
    public var memberCount: Int { videoInputs.isEmpty ? participants : videoInputs.count }

    /// Throws a ``JobError`` naming the first option out of range.
    public func validate() throws {
        guard (1 ... 64).contains(memberCount) else { throw JobError(.invalidOptions, "a meeting has 1…64 participants, not \(memberCount)") }
        for index in memberPaths.keys where !(0 ..< memberCount).contains(index) {
            throw JobError(.invalidOptions, "network conditions are given for participant \(index + 1): there are \(memberCount)")
        }
        for kick in kicks where !(0 ..< memberCount).contains(kick.member) || kick.at < .zero {
            throw JobError(.invalidOptions, "a kick names participant \(kick.member + 1) at \(kick.at.seconds) s: there are \(memberCount)")
        }
        guard audioInputs.count <= memberCount else {
            throw JobError(.invalidOptions, "\(audioInputs.count) audio inputs for \(memberCount) participants: give at most one each")
        }
        guard duration > .zero, duration <= .seconds(3600) else { throw JobError(.invalidOptions, "the duration must be within (0, 3600] seconds") }
        guard codec.isVideo else { throw JobError(.invalidOptions, "the video codec must be vp8, vp9 or h264") }
        for (name, w, h) in [("canvas", canvasWidth, canvasHeight), ("camera", cameraWidth, cameraHeight)] {
            guard (16 ... 4096).contains(w), (16 ... 4096).contains(h), w % 2 == 0, h % 2 == 0 else {
                throw JobError(.invalidOptions, "the \(name) size \(w)x\(h) must be even and within 16…4096")
            }
        }
        guard frameRate > 0, frameRate <= 120 else { throw JobError(.invalidOptions, "the frame rate must be within (0, 120]") }
        guard talkTurn >= .milliseconds(100) else { throw JobError(.invalidOptions, "a talk turn must last at least 100 ms") }
        guard drawBudget >= 1, (1 ... 480).contains(refreshRate) else {
            throw JobError(.invalidOptions, "the renderer needs a budget of at least 1 draw/s and a refresh rate of 1…480 Hz")
        }
    }
}

/// One member's own network conditions, each way.
public struct MeetingMemberPath: Sendable, Equatable {
    /// Member → host.
    public var uplink: NetworkConditions
    /// Host → member.
    public var downlink: NetworkConditions

    /// A path with these conditions.
    public init(uplink: NetworkConditions, downlink: NetworkConditions) {
        self.uplink = uplink
        self.downlink = downlink
    }
}
