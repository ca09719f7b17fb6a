public import ConferMedia

/// How a receiver asks for a keyframe.
public enum KeyframeRequestMethod: String, Sendable, Hashable, Codable {
    /// Picture Loss Indication (RFC 4585 §6.3.1, ``RTCPPictureLossIndication``): the usual way.
    case pli
    /// Full Intra Request (RFC 5104 §4.3.1, ``RTCPFullIntraRequest``), for senders that ignore PLI.
    case fir
}

/// Why a receiver asks for a keyframe.
public enum KeyframeRequestReason: String, Sendable, Hashable, Codable {
    /// The stream started (or restarted) with a frame that is not a keyframe.
    case streamStart
    /// A frame was lost for good (retransmissions gave up or came too late), so the frames
    /// that depend on it cannot be decoded.
    case frameLost
    /// The decoder reported an error.
    case decoderFailed
    /// More packets went missing than the NACK list or the buffer can hold.
    case overflow
}

/// One keyframe request to send as RTCP.
public struct KeyframeRequest: Sendable, Hashable {
    /// Why it is sent.
    public var reason: KeyframeRequestReason
    /// PLI or FIR.
    public var method: KeyframeRequestMethod
    /// For FIR, the command sequence number (incremented per new request, RFC 5104 §4.3.1.1).
    public var firSequenceNumber: UInt8

    /// A request with the given fields.
    public init(reason: KeyframeRequestReason, method: KeyframeRequestMethod = .pli, firSequenceNumber: UInt8 = 0) {
        self.reason = reason
        self.method = method
        self.firSequenceNumber = firSequenceNumber
    }
}

/// Throttles keyframe requests: at most one per max(RTT, ``minInterval``), repeated at that
/// pace while no keyframe arrives (a PLI can be lost too), silent once one has.
///
/// Asking for a keyframe on every undecodable frame would flood the sender: after a burst
/// of 50 lost packets every following delta frame is undecodable, but one PLI is enough.
public struct KeyframeRequester: Sendable {
    /// The method requests use.
    public var method: KeyframeRequestMethod
    /// The shortest time between two requests, whatever the RTT.
    public var minInterval: TimeDelta
    /// Whether a keyframe is needed and has not arrived.
    public private(set) var isWaiting = false
    /// When the last request was sent.
    public private(set) var lastRequestAt: Timestamp?
    /// PLIs sent.
    public private(set) var pliCount = 0
    /// FIRs sent.
    public private(set) var firCount = 0
    private var reason = KeyframeRequestReason.streamStart
    private var firSequenceNumber: UInt8 = 0

    /// A requester using `method`, at most one request per `minInterval` (or RTT, when longer).
    public init(method: KeyframeRequestMethod = .pli, minInterval: TimeDelta = .milliseconds(300)) {
        self.method = method
        self.minInterval = minInterval
    }

    /// Notes that a keyframe is needed; returns the request to send now, or nil when one was
    /// sent less than the throttle interval ago (it is repeated by ``poll(at:rtt:)``).
    public mutating func keyframeNeeded(_ reason: KeyframeRequestReason, at now: Timestamp, rtt: TimeDelta) -> KeyframeRequest? {
        if !isWaiting { self.reason = reason }
        isWaiting = true
        return poll(at: now, rtt: rtt)
    }

    /// The request to repeat at `now`, if still waiting and the throttle interval has passed.
    public mutating func poll(at now: Timestamp, rtt: TimeDelta) -> KeyframeRequest? {
        guard isWaiting else { return nil }
        if let last = lastRequestAt, now - last < interval(rtt: rtt) { return nil }
        lastRequestAt = now
        switch method {
        case .pli:
            pliCount += 1
        case .fir:
            firCount += 1
            firSequenceNumber &+= 1
        }
        return KeyframeRequest(reason: reason, method: method, firSequenceNumber: firSequenceNumber)
    }

    /// A keyframe arrived: stop asking.
    public mutating func keyframeReceived() {
        isWaiting = false
    }

    /// When ``poll(at:rtt:)`` would next send a request, or nil when not waiting.
    public func nextWakeup(rtt: TimeDelta) -> Timestamp? {
        guard isWaiting, let last = lastRequestAt else { return nil }
        return last + interval(rtt: rtt)
    }

    private func interval(rtt: TimeDelta) -> TimeDelta { max(rtt, minInterval) }
}
