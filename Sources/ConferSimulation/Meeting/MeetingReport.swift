public import ConferMedia
public import ConferNet
public import ConferRender
public import Confer

/// What a simulated meeting did, for every member, the host and participant 1's renderer.
public struct MeetingReport: Codable, Sendable {
    /// One direction of one member's path.
    public struct Link: Codable, Sendable {
        /// Datagrams put on the path.
        public var packetsSent: Int
        /// Datagrams the path lost (random, burst, queue or trace).
        public var packetsLost: Int
        /// Bytes put on the path.
        public var bytesSent: Int
        /// Bytes that arrived.
        public var bytesDelivered: Int

        init(_ statistics: NetworkLinkStatistics) {
            packetsSent = statistics.packetsSent
            packetsLost = statistics.packetsLost
            bytesSent = statistics.bytesSent
            bytesDelivered = statistics.bytesDelivered
        }
    }

    /// One participant, seen from both ends.
    public struct Member: Codable, Sendable {
        /// Its number in the meeting, from 1.
        public var id: Int
        /// What its camera showed.
        public var video: String
        /// What its microphone heard.
        public var audio: String
        /// Its camera's size, "WxH".
        public var sentResolution: String
        /// Camera pictures it encoded and sent.
        public var framesSent: Int
        /// Its camera's bitrate target at the end, bit/s (its congestion controller's choice).
        public var sendBitrate: Int
        /// Audio packets it sent per second.
        public var audioPacketsSentPerSecond: Double
        /// Pictures per second the host decoded from it, over the media's duration.
        public var hostReceiveFrameRate: Double
        /// Size of the last picture the host decoded from it, "WxH".
        public var hostReceivedResolution: String
        /// Participant → host: what it sent, what the host got, what was lost.
        public var uplink: Link
        /// Host → participant.
        public var downlink: Link
        /// Distinct video streams (SSRCs) it received from the host: one is right.
        public var videoStreamsReceived: Int
        /// Distinct audio streams it received: one is right.
        public var audioStreamsReceived: Int
        /// Composite pictures it rendered.
        public var framesRendered: Int
        /// Pictures rendered per second, from its first picture to the end.
        public var receiveFrameRate: Double
        /// Size of the last composite picture it rendered, "WxH".
        public var receivedResolution: String
        /// W3C freezeCount of the composite it received.
        public var freezeCount: Int
        /// W3C totalFreezesDuration, seconds.
        public var totalFreezesDuration: Double
        /// Audio packets it received per second.
        public var audioPacketsReceivedPerSecond: Double
        /// Share of its played audio that was concealment.
        public var audioConcealedFraction: Double
        /// Seconds its synthetic voice was scheduled to talk (nil for recorded audio).
        public var scheduledTalkSeconds: Double?
        /// Seconds the host's detection held it as speaking (sampled every 100 ms).
        public var speakingSeconds: Double
        /// Whether the host held it as speaking at the end.
        public var isSpeaking: Bool
        /// Round-trip time its send side measured last, seconds.
        public var roundTripTime: Double?
        /// Its send pipeline's counters.
        public var send: SendPipelineStatistics
        /// Its receive pipeline's counters (the host's composite and mix).
        public var receive: ReceivePipelineStatistics
        /// The host's view of it: what the host received from it and sent to it.
        public var host: HostParticipantStatistics?
    }

    /// A moment of the meeting, once a second.
    /// One thing the host heard from the room: join requests, approvals, members joining and leaving.
    public struct SessionEvent: Codable, Sendable, Hashable {
        /// Seconds into the meeting.
        public var time: Double
        /// The event's name, as `--events` prints it.
        public var event: String
        /// The member it concerns.
        public var identity: String
        /// The outcome, reason or slot.
        public var detail: String?
    }

    public struct Sample: Codable, Sendable {
        /// Seconds since the start.
        public var time: Double
        /// The host's active speaker (member number), if any.
        public var activeSpeaker: Int?
        /// Composite pictures the host sent in the last second.
        public var compositeFramesPerSecond: Double
        /// Composite pictures participant 1 rendered in the last second.
        public var renderedFramesPerSecond: Double
        /// The size the host encoded the composite at, at the end of the second ("WxH").
        public var compositeResolution: String
        /// The composite's target bitrate at the end of the second, in bit/s.
        public var compositeBitrate: Int
        /// The composite's temporal layers at the end of the second (more than one while
        /// some member gets fewer).
        public var compositeLayers: Int
        /// The size the small encode ran at at the end of the second ("WxH"), while some
        /// member got it; nil otherwise.
        public var smallEncodeResolution: String?
        /// The small encode's target bitrate then, bit/s.
        public var smallEncodeBitrate: Int?
        /// Each member's reception over the last second, in member order.
        public var members: [MemberSample]
    }

    /// One member's reception over one second of the timeline.
    public struct MemberSample: Codable, Sendable {
        /// Composite pictures the member rendered in the second.
        public var framesPerSecond: Double
        /// The size of the last picture it rendered ("WxH"; "0x0" before the first).
        public var resolution: String
        /// The composite's temporal layers the host forwarded it at the end of the second.
        public var layers: Int
        /// Whether the host sent it the small encode at the end of the second.
        public var smallEncode: Bool
        /// The host's bandwidth estimate of its downlink at the end of the second, bit/s.
        public var estimate: Int
        /// Bits the host sent it in the second (video, retransmissions, probes, audio), bit/s.
        public var sentBitrate: Int
    }

    /// Participants.
    public var participants: Int
    /// The video codec.
    public var codec: Codec
    /// The host's canvas, "WxH".
    public var canvas: String
    /// Composite pictures per second asked for.
    public var frameRate: Double
    /// The layout's name or file.
    public var layout: String
    /// Whether every stream was SRTP-protected.
    public var srtp: Bool
    /// The seed.
    public var seed: UInt64
    /// The uplink's conditions.
    public var uplinkConditions: NetworkConditions
    /// The downlink's conditions.
    public var downlinkConditions: NetworkConditions
    /// Seconds of media sent.
    public var mediaSeconds: Double
    /// Seconds simulated (media plus the drain at the end).
    public var simulatedSeconds: Double
    /// Wall-clock seconds the simulation took.
    public var wallSeconds: Double
    /// Simulated seconds per wall second.
    public var speed: Double
    /// Composite pictures the host sent per simulated second: its video send frame rate.
    public var hostSendFrameRate: Double
    /// The host's counters.
    public var host: HostPipelineStatistics
    /// Every member, in order.
    public var members: [Member]
    /// Participant 1's renderer: its composite view and its self view.
    public var renderer: PacerStatistics
    /// Where the composite participant 1 received was written, if anywhere.
    public var compositeFile: String?
    /// Composite pictures written.
    public var compositeFramesWritten: Int
    /// Where participant 1's mix was written, if anywhere.
    public var mixFile: String?
    /// Seconds of mix written.
    public var mixSeconds: Double
    /// Once a second.
    public var timeline: [Sample]
    /// The room's events as the host heard them (the same state machine the server runs).
    public var session: [SessionEvent] = []
}
