public import ConferMedia
public import ConferNet
import Synchronization

/// The handle another task holds on a running live meeting endpoint: stop it, read its
/// latest figures, and (on the host) tell it who is in the meeting. Commands are picked up
/// by the endpoint's loop on its next turn (it turns at least every 10 ms).
public final class LiveMeetingControl: Sendable {
    /// What the host is told by the signaling.
    public enum Command: Sendable, Hashable {
        /// A member was admitted: its slot and keys.
        case add(identity: String, slot: UInt32, uplinkKey: [UInt8], downlinkKey: [UInt8], sends: Bool)
        /// A member left.
        case remove(identity: String)
        /// A member said where it receives media: `host`:`port`, and perhaps `alternates` for
        /// the same socket (its bound address beside a NAT's mapping), tried as well.
        case address(identity: String, host: String, port: Int, alternates: [UDPAddress] = [])
        /// A member's camera or microphone was turned on or off.
        case devices(identity: String, camera: Bool, microphone: Bool)
        /// How this endpoint renders a member (the host: its tile and its voice in the
        /// composite and mix; a participant: the composite and mix it receives), from the
        /// next frame: shown or not, heard or not, letterboxed (fit) or cropped (fill).
        case render(identity: String, video: Bool, audio: Bool, mode: FitFill.Mode)
        /// The host: forward the meeting to `target` from now on (replacing any forward), or
        /// stop forwarding (nil).
        case forward(LiveForwardTarget?)
    }

    /// A running endpoint's figures, refreshed once a second.
    public struct Figures: Sendable, Hashable, Codable {
        /// Decoded frames per second of what it receives (a member: the composite; the host: the
        /// average over the members whose cameras are on).
        public var receiveFrameRate = 0.0
        /// The last received picture's size.
        public var receiveWidth = 0
        /// The last received picture's size.
        public var receiveHeight = 0
        /// Frames per second sent (the host: the composite).
        public var sendFrameRate = 0.0
        /// Audio packets per second sent.
        public var audioPacketsSentPerSecond = 0.0
        /// Audio packets per second received.
        public var audioPacketsReceivedPerSecond = 0.0
        /// Whether it is speaking.
        public var speaking = false
        /// Bytes sent since the start.
        public var bytesSent = 0
        /// Bytes received since the start.
        public var bytesReceived = 0
        /// Packets found lost in what it receives.
        public var packetsLost = 0
        /// Packets the far end reports lost of what it sends.
        public var remotePacketsLost = 0
        /// Round-trip time, milliseconds.
        public var roundTripMilliseconds: Double?
        /// Frames sent since the start.
        public var framesSent = 0
        /// Frames received (decoded) since the start (the host: from all members together).
        public var framesReceived = 0
        /// How many streams ``framesReceived`` counts (1 for a member; the host: every member it received).
        public var streamsReceived = 1
        /// Audio packets sent since the start.
        public var audioPacketsSent = 0
        /// Audio packets received since the start.
        public var audioPacketsReceived = 0
        /// Seconds since the media started.
        public var seconds = 0.0
        /// The host only: per member identity, frames per second received from it.
        public var members: [String: Double] = [:]
        /// The host: bytes received from each member, by identity.
        public var memberBytesReceived: [String: Int] = [:]
        /// The host: packets found lost of each member's streams, by identity.
        public var memberPacketsLost: [String: Int] = [:]
        /// Datagrams not sent since the start for want of consent (``MediaConsent``): what
        /// would have gone to an address that had not answered a challenge (or whose
        /// consent ran out). The challenges themselves go.
        public var datagramsWithheld = 0
        /// The host: datagrams kept for members until their addresses first consented, and
        /// sent then (``ConsentHold``): the keyframe a join asks for, encoded while the
        /// consent check runs, not after it.
        public var datagramsReleasedAtConsent = 0
        /// The host: RTP packets of the composite and the mix sent to its forward
        /// (``LiveForwardTarget``) since the start.
        public var packetsForwarded = 0
        /// The host: bytes of those packets.
        public var bytesForwarded = 0
        /// The host: sender reports sent to the forward's RTCP ports since the start.
        public var forwardReportsSent = 0
        /// The host: keyframe requests for the composite (PLI, new FIR) from the forward's
        /// SFU since the start: Janus sends one as a viewer starts watching.
        public var forwardKeyframeRequests = 0
        /// The host: datagrams from the forward's RTCP ports that were not RTCP, dropped.
        public var forwardFeedbackDropped = 0
        /// The host: forwards asked for while running that could not start (an address that
        /// does not resolve); the host went on without one.
        public var forwardsFailed = 0
        /// Consent challenges sent since the start (the host: to every member together).
        public var consentChallengesSent = 0
        /// Times consent was given since the start: by each member's address, for the host.
        /// 0 after challenges went out means the other side's address never answered: wrong,
        /// unreachable, or not its own.
        public var consentGrants = 0
        /// Consent checks refused since the start: not authentic, replayed, or an answer
        /// with a nonce no challenge here carried (or from another address than the peer's).
        public var consentChecksRefused = 0
        /// The host: datagrams from addresses no member announced, dropped.
        public var datagramsFromUnknownAddresses = 0
        /// The host: times a member was moved to the address its datagrams came from (behind
        /// a NAT, the one the NAT maps it to), to be challenged there.
        public var membersMoved = 0
        /// A member or a call's side: times the other side (the host, or the peer) was moved
        /// to the address its datagrams came from, to be challenged there: it was not where it
        /// announced (behind a NAT), or it moved (a new network).
        public var peerMoves = 0
        /// Where the server's STUN responder saw this endpoint's media socket (behind a NAT,
        /// the NAT's mapping), when it was asked and answered.
        public var reflexiveAddress: String?
        /// Whether the STUN responder was asked and gave no address (no answer, or a refusal).
        public var stunUnanswered = false
        /// A member or a call's side: the other side's address media goes to, once one
        /// consented: of the addresses it announced (a NAT's mapping, its bound address), the
        /// first to answer a challenge, or where it was moved to.
        public var peerAddress: String?

        /// No figures yet.
        public init() {}

        /// Notes what the STUN responder said about the socket.
        mutating func note(_ reflexive: STUNBindingTransaction.Outcome?) {
            switch reflexive {
            case .mapped(let address): reflexiveAddress = address.description
            case .refused, .timedOut, .unreachable: stunUnanswered = true
            case nil: break
            }
        }
    }

    private let stopped = Atomic<Bool>(false)
    private let commands = Mutex<[Command]>([])
    private let latest = Mutex(Figures())
    private let port = Mutex<Int?>(nil)
    private let stunOutcome = Mutex<STUNBindingTransaction.Outcome?>(nil)

    /// A control for an endpoint about to start.
    public init() {}

    /// Asks the endpoint to stop; its `run` returns soon after.
    public func stop() { stopped.store(true, ordering: .relaxed) }
    /// Whether stop was asked.
    public var isStopped: Bool { stopped.load(ordering: .relaxed) }
    /// Queues a command for the host.
    public func send(_ command: Command) { commands.withLock { $0.append(command) } }
    /// The latest figures.
    public var figures: Figures { latest.withLock { $0 } }
    /// The UDP port the endpoint listens on, once bound.
    public var localPort: Int? { port.withLock { $0 } }
    /// What the STUN server said about the endpoint's socket, once bound, when one was asked:
    /// the address its datagrams arrive from (a NAT's mapping), a refusal, or no answer.
    public var reflexive: STUNBindingTransaction.Outcome? { stunOutcome.withLock { $0 } }

    func takeCommands() -> [Command] {
        commands.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }

    func publish(_ figures: Figures) { latest.withLock { $0 = figures } }
    func bound(to value: Int, reflexive: STUNBindingTransaction.Outcome? = nil) {
        port.withLock { $0 = value }
        stunOutcome.withLock { $0 = reflexive }
    }
}
