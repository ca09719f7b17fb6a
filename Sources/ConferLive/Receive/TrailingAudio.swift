import ConferMedia

/// Audio played out after the last decoded sample — concealment, comfort noise — held back
/// instead of written, so a stream's end does not leave its idle timeout's worth of
/// synthesized sound in the file; when decoded audio comes again (a pause inside the
/// stream) what was held is written first, so the file keeps time.
///
/// Blocks are copied into slots made on first use and reused, so holding allocates nothing
/// once the longest silence so far has been held. At most `capacity` blocks are held; past
/// that the oldest is handed back to be written.
struct TrailingAudio {
    /// Most blocks held.
    let capacity: Int
    private var slots: [AudioFrame] = []
    private var concealed: [Int] = []
    private var first = 0
    /// Blocks held now.
    private(set) var count = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Holds a copy of `frame`, `concealedFrames` of it synthesized for loss; when full,
    /// `evict` gets the oldest held block first.
    mutating func hold(_ frame: AudioFrame, concealedFrames: Int, evict: (AudioFrame, Int) throws -> Void) rethrows {
        if count == capacity {
            try evict(slots[first], concealed[first])
            first = (first + 1) % capacity
            count -= 1
        }
        let index = (first + count) % capacity
        if index == slots.count {
            slots.append(frame)
            concealed.append(concealedFrames)
            // A copy of its own, so the caller's next write into `frame` does not copy it.
            slots[index].samples = Array(frame.samples)
        } else if slots[index].channels == frame.channels && slots[index].samples.count == frame.samples.count {
            slots[index].samples.withUnsafeMutableBufferPointer { target in
                frame.samples.withUnsafeBufferPointer { source in
                    target.baseAddress!.update(from: source.baseAddress!, count: source.count)
                }
            }
            slots[index].timestamp = frame.timestamp
            concealed[index] = concealedFrames
        } else {
            slots[index] = AudioFrame(samples: Array(frame.samples), channels: frame.channels, timestamp: frame.timestamp)
            concealed[index] = concealedFrames
        }
        count += 1
    }

    /// Hands every held block to `body`, oldest first, and holds none.
    mutating func release(_ body: (AudioFrame, Int) throws -> Void) rethrows {
        while count > 0 {
            try body(slots[first], concealed[first])
            first = (first + 1) % capacity
            count -= 1
        }
        first = 0
    }

    /// Forgets every held block.
    mutating func discard() {
        count = 0
        first = 0
    }
}
