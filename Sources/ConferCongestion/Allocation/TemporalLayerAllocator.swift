/// Chooses one encode's bitrate and which temporal layers each receiver gets, from each
/// receiver's bandwidth estimate: how a compositing host keeps one weak link from setting
/// everyone's rate.
///
/// Without layers, the stream must fit the weakest receiver. With them, the weakest
/// receivers (at most a minority, so the many are never sacrificed for the few) can take
/// the lower layers only, at a half or a quarter of the frame rate, and the bitrate may rise
/// to what the rest carry, as long as the base layer still fits each of the few: the base
/// layer's share is lowered for that, from libwebrtc's 40 % (60 % of two layers) to at
/// least ``Configuration/minimumBaseShare``. A receiver is only reduced when that raises
/// the bitrate by ``Configuration/minimumGain``; taking a receiver's layers back up needs
/// ``Configuration/upSwitchHeadroom`` over the layers' rate, so an estimate that wavers
/// around a layer boundary does not switch layers every report.
public struct TemporalLayerAllocator: Sendable {
    /// The allocator's settings.
    public struct Configuration: Sendable, Hashable {
        /// Temporal layers the encoder makes (1…3).
        public var layers: Int
        /// The least share of the bitrate the base layer gets while a receiver takes it alone.
        public var minimumBaseShare: Double
        /// How much more bitrate reducing one more receiver must win (1.2: 20 %).
        public var minimumGain: Double
        /// How far a receiver's estimate must exceed a higher layer's rate to switch up to it.
        public var upSwitchHeadroom: Double

        /// Settings for `layers` layers with the defaults.
        public init(layers: Int, minimumBaseShare: Double = 0.4, minimumGain: Double = 1.2, upSwitchHeadroom: Double = 1.1) {
            self.layers = min(max(layers, 1), 3)
            self.minimumBaseShare = minimumBaseShare
            self.minimumGain = minimumGain
            self.upSwitchHeadroom = upSwitchHeadroom
        }

        /// libwebrtc's base share for this many layers.
        public var defaultBaseShare: Double { layers == 2 ? 0.6 : 0.4 }
    }

    /// What the allocator decided.
    public struct Allocation: Sendable, Hashable {
        /// The encode's bitrate, bit/s.
        public var bitrate: Int
        /// The base layer's share of it; nil for the default.
        public var baseLayerShare: Double?
        /// The highest layer for each receiver, in the order the budgets were given.
        public var layers: [UInt8]
        /// The smallest budget among the receivers that get fewer layers (nil: none does).
        public var weakestReducedBudget: Int?
    }

    /// The settings.
    public let configuration: Configuration

    /// An allocator with `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The bitrate of layers 0…`layer` together at a total of `bitrate` with base share `share`.
    public func cumulativeBitrate(through layer: Int, of bitrate: Int, baseShare share: Double) -> Int {
        let fraction: Double
        if layer >= configuration.layers - 1 {
            fraction = 1
        } else if layer == 0 {
            fraction = share
        } else {
            fraction = share + (1 - share) / 3    // the middle of three
        }
        return Int(Double(bitrate) * fraction)
    }

    /// Allocates for receivers whose video budgets (bit/s) are `budgets` and whose current
    /// layers are `current` (same order; missing entries count as the top layer), within
    /// `minimum`…`maximum` for the encode.
    ///
    /// `measured` is what the layers cost lately (cumulative, lowest first) as shares of
    /// the whole stream: the encoder is given a share per layer, but a base frame predicts
    /// from further back than the others and on hard content costs more than its share
    /// (at its quantizer ceiling it takes what it needs), so a receiver's layers and the
    /// bitrate the weakest allows are judged by the larger of the target and the measured share.
    public func allocate(budgets: [Int], current: [UInt8] = [], minimum: Int, maximum: Int,
                         measured: [Double] = [], reducible: [Bool] = []) -> Allocation {
        func measuredShare(_ layer: Int) -> Double { layer < measured.count ? measured[layer] : 0 }
        let top = UInt8(configuration.layers - 1)
        guard !budgets.isEmpty else { return Allocation(bitrate: maximum, baseLayerShare: nil, layers: []) }
        let order = budgets.indices.sorted { budgets[$0] < budgets[$1] }
        func clamp(_ value: Double) -> Int { Int(min(max(value, Double(minimum)), Double(maximum))) }
        func mayReduce(_ receiver: Int) -> Bool { receiver < reducible.count ? reducible[receiver] : true }
        // The receivers that may take fewer layers, weakest first: at most a minority, and
        // only below every receiver that may not (that one sets the bitrate anyway).
        var candidates: [Int] = []
        for receiver in order {
            guard mayReduce(receiver), candidates.count < (budgets.count - 1) / 2 else { break }
            candidates.append(receiver)
        }
        let weakest = Double(budgets[order[0]])
        let baseShare = max(configuration.minimumBaseShare, measuredShare(0))
        var reduced = 0
        var bitrate = clamp(weakest)
        if configuration.layers > 1 {
            for count in stride(from: 1, through: candidates.count, by: 1) {
                let candidate = clamp(min(Double(budgets[order[count]]), weakest / baseShare))
                if Double(candidate) >= Double(bitrate) * configuration.minimumGain {
                    bitrate = candidate
                    reduced = count
                }
            }
        }
        guard reduced > 0 else {
            return Allocation(bitrate: bitrate, baseLayerShare: nil, layers: Array(repeating: top, count: budgets.count))
        }
        let share = min(max(weakest / Double(bitrate), configuration.minimumBaseShare), configuration.defaultBaseShare)
        var layers = Array(repeating: top, count: budgets.count)
        for rank in 0..<reduced {
            let receiver = order[rank]
            let now = receiver < current.count ? current[receiver] : top
            var layer: UInt8 = 0
            for candidate in 1...Int(top) {
                var needed = max(Double(cumulativeBitrate(through: candidate, of: bitrate, baseShare: share)),
                                 measuredShare(candidate) * Double(bitrate))
                if candidate > Int(now) { needed *= configuration.upSwitchHeadroom }
                if Double(budgets[receiver]) >= needed { layer = UInt8(candidate) }
            }
            layers[receiver] = layer
        }
        return Allocation(bitrate: bitrate, baseLayerShare: share, layers: layers, weakestReducedBudget: Int(weakest))
    }
}
