/// One participant's queued audio, already in the mixer's output channel layout, in a
/// fixed ring allocated once: pushing more than it holds drops the oldest audio.
struct AudioMixerRing: Sendable {
    private var storage: [Int16]
    /// Index of the oldest queued sample.
    private var head = 0
    /// Queued samples (all channels).
    private var count = 0
    /// The layout stored: the mixer's output channel count.
    let channels: Int

    /// A ring holding `capacityFrames` sample frames of `channels` channels.
    init(capacityFrames: Int, channels: Int) {
        self.channels = channels
        storage = [Int16](repeating: 0, count: max(1, capacityFrames) * channels)
    }

    /// Queued sample frames.
    var queuedFrames: Int { count / channels }
    /// The most sample frames the ring holds.
    var capacityFrames: Int { storage.count / channels }

    /// Appends `samples` (interleaved, `inputChannels` of 1 or 2, whole frames), converting
    /// mono to stereo by duplication and stereo to mono by averaging. Returns how many sample
    /// frames were dropped — the oldest queued first, then the start of `samples` itself if
    /// it alone is longer than the ring.
    mutating func write(_ samples: UnsafeBufferPointer<Int16>, inputChannels: Int) -> Int {
        let capacity = storage.count
        var inputFrames = samples.count / inputChannels
        var first = 0
        var dropped = 0
        if inputFrames > capacityFrames {
            first = inputFrames - capacityFrames
            dropped += first
            inputFrames = capacityFrames
        }
        let needed = inputFrames * channels
        if count + needed > capacity {
            let excess = count + needed - capacity
            dropped += excess / channels
            head = (head + excess) % capacity
            count -= excess
        }
        let end = (head + count) % capacity
        storage.withUnsafeMutableBufferPointer { ring in
            guard let ringBase = ring.baseAddress, let source = samples.baseAddress, needed > 0 else { return }
            var tail = end
            if channels == inputChannels {
                // Same layout: at most two straight copies around the wrap.
                let start = source + first * channels
                let firstPart = min(needed, capacity - tail)
                (ringBase + tail).update(from: start, count: firstPart)
                ringBase.update(from: start + firstPart, count: needed - firstPart)
            } else if channels == 2 {
                for f in first..<(first + inputFrames) {
                    let x = source[f]
                    ring[tail] = x
                    ring[tail + 1] = x  // capacity is even: a frame never straddles the wrap
                    tail += 2
                    if tail == capacity { tail = 0 }
                }
            } else {
                for f in first..<(first + inputFrames) {
                    // Truncating average of two Int16s always fits an Int16.
                    ring[tail] = Int16((Int32(source[2 * f]) + Int32(source[2 * f + 1])) / 2)
                    tail += 1
                    if tail == capacity { tail = 0 }
                }
            }
        }
        count += needed
        return dropped
    }

    /// Moves up to `output.count` samples (whole frames) into `output` as Int32 and returns
    /// how many it moved; the rest of `output` is left as it was.
    mutating func read(into output: UnsafeMutableBufferPointer<Int32>) -> Int {
        let n = min(count, output.count - output.count % channels)
        let capacity = storage.count
        storage.withUnsafeBufferPointer { ring in
            let firstPart = min(n, capacity - head)
            for i in 0..<firstPart { output[i] = Int32(ring[head + i]) }
            for i in firstPart..<n { output[i] = Int32(ring[i - firstPart]) }
        }
        head = (head + n) % capacity
        count -= n
        return n
    }

    /// Drops everything queued.
    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// The address and capacity of the storage, to check it never moves (tests).
    var storageFingerprint: [Int] {
        storage.withUnsafeBufferPointer { [Int(bitPattern: $0.baseAddress), storage.capacity] }
    }
}
