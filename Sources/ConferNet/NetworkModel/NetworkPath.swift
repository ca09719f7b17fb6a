public import ConferMedia

/// The non-generic heart of ``NetworkLink``: decides each packet's fate and delivery times
/// and keeps the counters, but holds no payloads. Keeping it free of generics lets the
/// compiler optimize it fully inside this module, while the generic carrier around it stays
/// small and inlinable (so a link of any payload type is specialized at its user).
@usableFromInline
struct NetworkPath: Sendable {
    /// What the path decided for one packet, and the packet's sequence number.
    @usableFromInline
    struct Admission: Sendable {
        @usableFromInline var result: NetworkSendResult
        @usableFromInline var sequence: UInt64
    }

    @usableFromInline let conditions: NetworkConditions
    @usableFromInline var statistics = NetworkLinkStatistics()

    private var random: SeededRandom
    private var burst: GilbertElliottState?
    private var trace: [NetworkTrace.Entry]
    private let traceLoops: Bool
    private var traceIndex = 0
    /// When the bottleneck finishes serializing the last accepted packet, in nanoseconds
    /// (finer than `Timestamp` so rounding does not accumulate over millions of packets).
    /// Starts far in the past (but not so far that subtracting a time could overflow).
    private var bottleneckFreeAt = Int64.min / 4
    /// The latest delivery time of an in-order packet: the floor for the next one in FIFO mode.
    private var orderFloor = Timestamp(microseconds: .min)
    private var nextSequence: UInt64 = 0
    private var highestDelivered: UInt64?

    @usableFromInline
    init(conditions: NetworkConditions, seed: UInt64, trace: NetworkTrace?) {
        self.conditions = conditions
        random = SeededRandom(seed: seed)
        burst = conditions.burstLoss.map(GilbertElliottState.init)
        self.trace = trace?.entries ?? []
        traceLoops = trace?.ending != .model
    }

    /// Decides the fate of a packet of `byteCount` bytes sent at `time` (see
    /// ``NetworkConditions`` for the order of the stages).
    @usableFromInline
    mutating func admit(byteCount: Int, at time: Timestamp) -> Admission {
        statistics.packetsSent += 1
        statistics.bytesSent += byteCount
        let sequence = nextSequence
        nextSequence += 1

        // 1. The bottleneck.
        var departure = time
        var queueing = TimeDelta.zero
        if let bandwidth = conditions.bandwidth, bandwidth > 0 {
            let arrival = time.microseconds * 1000
            let backlog = max(0, bottleneckFreeAt - arrival)
            let rate = Double(bandwidth)
            let backlogBits = Double(backlog) * rate / 1e9
            let packetBits = Double(max(0, byteCount) + max(0, conditions.overheadBytes)) * 8
            statistics.queueBytes = Int(backlogBits / 8)
            if backlog > 0 && backlogBits + packetBits > conditions.queueLimit.bits(bandwidth: bandwidth) {
                return lose(.queue, queueing: .zero, sequence: sequence)
            }
            // Capped at a day so an absurd size cannot overflow the conversion.
            let finish = max(bottleneckFreeAt, arrival) + Int64(min(packetBits * 1e9 / rate, 86_400e9).rounded())
            bottleneckFreeAt = finish
            queueing = TimeDelta(microseconds: (backlog + 500) / 1000)
            departure = Timestamp(microseconds: (finish + 999) / 1000)
            statistics.totalQueueingDelay = statistics.totalQueueingDelay + queueing
            statistics.maxQueueingDelay = max(statistics.maxQueueingDelay, queueing)
        }

        // 2 and 3. Loss and delay, from the trace or the model.
        let propagation: TimeDelta
        let fromTrace = nextTraceEntry()
        switch fromTrace {
        case .loss?:
            return lose(.trace, queueing: queueing, sequence: sequence)
        case .delay(let delay)?:
            propagation = delay
        case nil:
            if var state = burst {
                let lost = state.nextIsLost(using: &random)
                burst = state
                if lost { return lose(.burst, queueing: queueing, sequence: sequence) }
            }
            if conditions.loss > 0 && random.nextUnit() < conditions.loss {
                return lose(.random, queueing: queueing, sequence: sequence)
            }
            propagation = sampleDelay()
        }

        // 4. Reordering, or the FIFO rule.
        var arrival = departure + propagation
        if conditions.reorder > 0 && random.nextUnit() < conditions.reorder {
            arrival += conditions.reorderDelay
        } else if conditions.preservesOrder {
            arrival = max(arrival, orderFloor)
            orderFloor = arrival
        }

        // 5. Duplication: the copy takes its own way through the path after the bottleneck.
        var duplicateArrival: Timestamp?
        if conditions.duplicate > 0 && random.nextUnit() < conditions.duplicate {
            var copy = departure + (fromTrace == nil ? sampleDelay() : propagation)
            if conditions.preservesOrder {
                copy = max(copy, orderFloor)
                orderFloor = copy
            }
            duplicateArrival = copy
            statistics.packetsDuplicated += 1
        }
        return Admission(result: NetworkSendResult(lossCause: nil, deliveryTime: arrival, duplicateDeliveryTime: duplicateArrival,
                                                   queueingDelay: queueing),
                         sequence: sequence)
    }

    /// Counts a packet handed out, noting whether a later-sent one came out before it.
    @usableFromInline
    mutating func recordDelivery(sequence: UInt64, byteCount: Int) {
        statistics.packetsDelivered += 1
        statistics.bytesDelivered += byteCount
        if let highest = highestDelivered, sequence < highest {
            statistics.packetsReordered += 1
        }
        highestDelivered = max(highestDelivered ?? 0, sequence)
    }

    /// Bytes (with overhead) waiting at the bottleneck at `time`, the packet being serialized included.
    @usableFromInline
    func queuedBytes(at time: Timestamp) -> Int {
        guard let bandwidth = conditions.bandwidth, bandwidth > 0 else { return 0 }
        let backlog = max(0, bottleneckFreeAt - time.microseconds * 1000)
        return Int(Double(backlog) * Double(bandwidth) / 8e9)
    }

    private mutating func lose(_ cause: PacketLossCause, queueing: TimeDelta, sequence: UInt64) -> Admission {
        statistics.count(cause)
        return Admission(result: NetworkSendResult(lossCause: cause, deliveryTime: nil, duplicateDeliveryTime: nil,
                                                   queueingDelay: queueing),
                         sequence: sequence)
    }

    /// The trace's entry for the next packet; nil once a non-looping trace has run out (or
    /// there is none).
    private mutating func nextTraceEntry() -> NetworkTrace.Entry? {
        guard !trace.isEmpty else { return nil }
        if traceIndex == trace.count {
            guard traceLoops else { return nil }
            traceIndex = 0
        }
        defer { traceIndex += 1 }
        return trace[traceIndex]
    }

    /// The mean delay plus a jitter sample, never negative.
    private mutating func sampleDelay() -> TimeDelta {
        let base = conditions.delay.microseconds
        guard conditions.jitter.amount.microseconds > 0 else { return TimeDelta(microseconds: max(0, base)) }
        let offset = conditions.jitter.sample(using: &random)
        return TimeDelta(microseconds: max(0, base + Int64(offset.rounded())))
    }
}
