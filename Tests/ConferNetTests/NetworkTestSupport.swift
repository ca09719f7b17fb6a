import ConferMedia
@testable import ConferNet

/// Sends `count` packets of `size` bytes, one every `interval` from time zero, each carrying
/// its index; returns the link (with every packet still in flight) and each send's result.
func sendPackets(_ conditions: NetworkConditions, count: Int, size: Int = 1000, interval: TimeDelta = .milliseconds(1),
                 seed: UInt64 = 1, trace: NetworkTrace? = nil) -> (NetworkLink<Int>, [NetworkSendResult]) {
    var link = NetworkLink<Int>(conditions: conditions, seed: seed, trace: trace)
    var results: [NetworkSendResult] = []
    results.reserveCapacity(count)
    for i in 0..<count {
        results.append(link.send(i, byteCount: size, at: Timestamp(microseconds: Int64(i) * interval.microseconds)))
    }
    return (link, results)
}

/// Every packet still in the link, in delivery order.
func drain<P>(_ link: inout NetworkLink<P>) -> [NetworkDelivery<P>] {
    link.deliveries(until: Timestamp(microseconds: .max))
}

/// The value below which `fraction` of `values` lie (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// The mean of `values`.
func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
