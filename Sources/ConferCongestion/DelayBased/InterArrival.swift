public import ConferMedia

/// Groups packets into send-time bursts and reports, for each completed group, how far
/// it was sent and how far it arrived after the previous one (draft-ietf-rmcat-gcc-02
/// §5.2; libwebrtc's `InterArrivalDelta`).
///
/// A group is every packet sent within `groupLength` of its first packet. A packet that
/// arrives within 5 ms of the group's last arrival, sooner than it was sent after it
/// (so it queued behind the group), still joins the group while the group is younger
/// than 100 ms: a burst that a link delivered back to back is one sample, not many.
public struct InterArrival: Sendable {
    /// How far apart two completed groups were.
    public struct Deltas: Hashable, Sendable {
        /// Last send time of the newer group minus that of the older one.
        public var sendDelta: TimeDelta
        /// Last arrival of the newer group minus that of the older one.
        public var arrivalDelta: TimeDelta
        /// Bytes in the newer group minus bytes in the older one.
        public var sizeDelta: Int

        /// Deltas with every field given.
        public init(sendDelta: TimeDelta, arrivalDelta: TimeDelta, sizeDelta: Int) {
            self.sendDelta = sendDelta
            self.arrivalDelta = arrivalDelta
            self.sizeDelta = sizeDelta
        }
    }

    private struct Group {
        var firstSendTime: Timestamp
        var sendTime: Timestamp
        var firstArrival: Timestamp
        var completeTime: Timestamp
        var lastSystemTime: Timestamp
        var size: Int
    }

    /// A change of arrival clock bigger than this (against the local clock) resets.
    static let arrivalTimeOffsetThreshold = TimeDelta.seconds(3)
    /// Groups that arrive out of order this many times in a row reset.
    static let reorderedResetThreshold = 3
    static let burstDeltaThreshold = TimeDelta.milliseconds(5)
    static let maxBurstDuration = TimeDelta.milliseconds(100)

    /// How long after a group's first packet a packet still belongs to it.
    public let groupLength: TimeDelta
    private var current: Group?
    private var previous: Group?
    private var consecutiveReordered = 0

    /// Grouping by `groupLength` of send time (5 ms in GCC).
    public init(groupLength: TimeDelta = .milliseconds(5)) {
        self.groupLength = groupLength
    }

    /// Adds a packet sent at `sendTime` that arrived at `arrivalTime` (handled locally at
    /// `now`) and returns the deltas between the two groups it completes, or nil when no
    /// sample is ready (the packet extends the current group, arrived reordered, or the
    /// clocks jumped and the grouping restarted).
    public mutating func add(sendTime: Timestamp, arrivalTime: Timestamp, size: Int, at now: Timestamp) -> Deltas? {
        guard var group = current else {
            current = Group(firstSendTime: sendTime, sendTime: sendTime, firstArrival: arrivalTime,
                            completeTime: arrivalTime, lastSystemTime: now, size: size)
            return nil
        }
        if sendTime < group.firstSendTime { return nil }  // reordered behind the current group
        var deltas: Deltas?
        if startsNewGroup(group, sendTime: sendTime, arrivalTime: arrivalTime) {
            if let previous {
                let sendDelta = group.sendTime - previous.sendTime
                let arrivalDelta = group.completeTime - previous.completeTime
                let systemDelta = group.lastSystemTime - previous.lastSystemTime
                if arrivalDelta - systemDelta >= Self.arrivalTimeOffsetThreshold {
                    reset()
                    return nil
                }
                if arrivalDelta < .zero {
                    consecutiveReordered += 1
                    if consecutiveReordered >= Self.reorderedResetThreshold { reset() }
                    return nil
                }
                consecutiveReordered = 0
                deltas = Deltas(sendDelta: sendDelta, arrivalDelta: arrivalDelta, sizeDelta: group.size - previous.size)
            }
            previous = group
            group = Group(firstSendTime: sendTime, sendTime: sendTime, firstArrival: arrivalTime,
                          completeTime: arrivalTime, lastSystemTime: now, size: 0)
        } else {
            group.sendTime = max(group.sendTime, sendTime)
        }
        group.size += size
        group.completeTime = arrivalTime
        group.lastSystemTime = now
        current = group
        return deltas
    }

    /// Forgets every group.
    public mutating func reset() {
        current = nil
        previous = nil
        consecutiveReordered = 0
    }

    private func startsNewGroup(_ group: Group, sendTime: Timestamp, arrivalTime: Timestamp) -> Bool {
        if belongsToBurst(group, sendTime: sendTime, arrivalTime: arrivalTime) { return false }
        return sendTime - group.firstSendTime > groupLength
    }

    private func belongsToBurst(_ group: Group, sendTime: Timestamp, arrivalTime: Timestamp) -> Bool {
        let arrivalDelta = arrivalTime - group.completeTime
        let sendDelta = sendTime - group.sendTime
        if sendDelta == .zero { return true }
        let propagationDelta = arrivalDelta - sendDelta
        return propagationDelta < .zero && arrivalDelta <= Self.burstDeltaThreshold
            && arrivalTime - group.firstArrival < Self.maxBurstDuration
    }
}
