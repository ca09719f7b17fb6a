import ConferMedia

/// What each temporal layer of the composite actually costs, in bit/s over the last
/// second (keyframes counted in the base layer), from a fixed ring of frames.
///
/// The encoder is given a target per layer, but its base layer cannot go below what its
/// quantizer ceiling makes of the picture: on noisy content a base frame that predicts
/// from four frames back costs nearly as much as a keyframe. A receiver's layers are
/// chosen from these figures, not the targets, so that what it gets fits its link.
struct HostPipelineLayerRates {
    static let capacity = 256
    static let window = TimeDelta.seconds(1)
    private var frames: [(time: Timestamp, layer: UInt8, bits: Int)]
    private var next = 0
    private var count = 0

    init() { frames = Array(repeating: (.zero, 0, 0), count: Self.capacity) }

    /// Notes a frame of `layer` and `bytes` encoded at `time` (times must not decrease).
    mutating func record(layer: UInt8, bytes: Int, at time: Timestamp) {
        frames[next] = (time, layer, bytes * 8)
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Each layer's rate with the layers below it, lowest first, over the second up to
    /// `now`; `layers` entries.
    func cumulativeRates(layers: Int, at now: Timestamp) -> [Int] {
        var rates = Array(repeating: 0, count: max(layers, 1))
        var index = next
        for _ in 0 ..< count {
            index = (index + Self.capacity - 1) % Self.capacity
            guard now - frames[index].time < Self.window else { break }
            rates[min(Int(frames[index].layer), rates.count - 1)] += frames[index].bits
        }
        for layer in rates.indices.dropFirst() { rates[layer] += rates[layer - 1] }
        return rates
    }
}
