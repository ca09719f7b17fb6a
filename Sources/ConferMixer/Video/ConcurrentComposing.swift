import Dispatch
public import ConferMedia

extension VideoCompositor {
    /// The canvas at `time`, with the slots split across `lanes` threads (the calling thread
    /// among them); the same pixels as ``compose(at:)``.
    ///
    /// Slots are dealt to lanes by area, largest first to the least loaded lane, once per
    /// layout or lane-count change. Layouts whose slots overlap are drawn on one thread, in
    /// order. Worth it for large canvases with resized slots; for a handful of plain copies
    /// the cost of waking a second thread can exceed the work. The compositor allocates
    /// nothing here, but Dispatch's `concurrentPerform` itself mallocs two small blocks per
    /// call on Linux (measured).
    public mutating func compose(at time: Timestamp, lanes: Int) -> VideoFrame {
        let lanes = max(1, lanes)
        guard lanes > 1, !slotsOverlap, plans.count > 1 else { return compose(at: time) }
        if laneCount != lanes { assignLanes(lanes) }
        let canvas = beginComposition(at: time)
        statistics.add(drawConcurrently(on: canvas, lanes: lanes))
        return endComposition(canvas)
    }

    /// Draws every slot, lane by lane in parallel; returns what the slots showed. A
    /// non-mutating method, so the lanes' copies of `self` are gone before the caller next
    /// mutates (no copy-on-write of the slot plans).
    private func drawConcurrently(on canvas: borrowing MutableVideoFrame, lanes: Int) -> Statistics {
        withUnsafePointer(to: canvas) { pointer in
            // Per-lane counters on the stack, so a composition allocates nothing.
            withUnsafeTemporaryAllocation(of: Statistics.self, capacity: lanes) { tallies in
                tallies.initialize(repeating: Statistics())
                let shared = SharedComposition(canvas: pointer, tallies: tallies)
                DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                    var tally = Statistics()
                    for i in plans.indices where plans[i].lane == lane {
                        tally.count(drawSlot(i, on: shared.canvas.pointee))
                    }
                    shared.tallies[lane] = tally
                }
                var total = Statistics()
                for tally in tallies { total.add(tally) }
                tallies.deinitialize()
                return total
            }
        }
    }

    private mutating func assignLanes(_ lanes: Int) {
        var load = [Int](repeating: 0, count: lanes)
        let bySize = plans.indices.sorted { plans[$0].rect.width * plans[$0].rect.height > plans[$1].rect.width * plans[$1].rect.height }
        for i in bySize {
            let lane = load.indices.min { load[$0] < load[$1] } ?? 0
            plans[i].lane = lane
            load[lane] += plans[i].rect.width * plans[i].rect.height
        }
        laneCount = lanes
    }
}

/// The canvas of one composition and the per-lane counters, shared by every lane.
private struct SharedComposition: @unchecked Sendable {
    // Sendable: it lives only inside `drawConcurrently`, which returns after every lane has
    // finished (`concurrentPerform` orders each lane's writes before its return). Lanes draw
    // disjoint slots (checked by `slotsOverlap`) and `drawSlot` writes only inside its own
    // slot's rectangle, so no two threads write the same canvas byte; lane n writes only
    // `tallies[n]`; nobody reads either until all lanes are done.
    let canvas: UnsafePointer<MutableVideoFrame>
    let tallies: UnsafeMutableBufferPointer<VideoCompositor.Statistics>
}

extension VideoCompositor.Statistics {
    mutating func count(_ outcome: VideoCompositor.SlotOutcome) {
        switch outcome {
        case .background: break
        case .placeholder: placeholderSlots += 1
        case .copied: copiedSlots += 1
        case .scaled: scaledSlots += 1
        case .failed: failedSlots += 1
        }
    }

    mutating func add(_ other: Self) {
        copiedSlots += other.copiedSlots
        scaledSlots += other.scaledSlots
        placeholderSlots += other.placeholderSlots
        failedSlots += other.failedSlots
    }
}
