import ConferMedia

/// Turns keyframe requests from every participant into at most one keyframe per interval.
///
/// A request (a PLI or new FIR from anyone, or a participant joining) marks a keyframe as
/// pending; requests while one is pending add nothing — they are *absorbed*. The pending
/// keyframe is asked of the encoder for the first frame at least `interval` after the last
/// keyframe, so a request inside the interval is served when it ends, not dropped. Any
/// keyframe the encoder makes (the first frame, say) serves what was pending. A request for
/// a receiver that has only now become reachable is served by the next frame, whatever the
/// interval: the last keyframe did not reach it, and it becomes reachable once per join.
struct HostPipelineKeyframeThrottle {
    let interval: TimeDelta
    /// A keyframe was asked for and not yet encoded.
    private(set) var isPending = false
    /// The pending keyframe is for a receiver the last one did not reach: it waits for no interval.
    private(set) var isPrompt = false
    /// When the last keyframe was encoded.
    private(set) var lastKeyframe: Timestamp?
    /// Requests received.
    private(set) var requestsReceived = 0
    /// Requests that arrived while a keyframe was already pending.
    private(set) var requestsAbsorbed = 0
    /// Keyframes asked of the encoder.
    private(set) var keyframesRequested = 0

    init(interval: TimeDelta) { self.interval = interval }

    /// Someone asked for a keyframe.
    mutating func request() {
        requestsReceived += 1
        if isPending {
            requestsAbsorbed += 1
        } else {
            isPending = true
        }
    }

    /// A receiver that has only now become reachable asked: served by the next frame.
    mutating func requestForNewReceiver() {
        request()
        isPrompt = true
    }

    /// Whether the frame encoded at `now` must be a keyframe (then it is no longer pending).
    mutating func takeKeyframe(at now: Timestamp) -> Bool {
        guard isPending, isPrompt || lastKeyframe.map({ now - $0 >= interval }) ?? true else { return false }
        isPending = false
        isPrompt = false
        keyframesRequested += 1
        return true
    }

    /// The encoder produced a keyframe at `now`; it serves any pending request.
    mutating func keyframeEncoded(at now: Timestamp) {
        lastKeyframe = now
        isPending = false
        isPrompt = false
    }

    /// When the pending keyframe can be served, if one is pending.
    var pendingSince: Timestamp? { isPending ? (isPrompt ? .zero : lastKeyframe.map { $0 + interval } ?? .zero) : nil }
}
