import FuzzSupport
// libFuzzer target: parse arbitrary bytes as a network trace; whatever parses must drive a
// link without trapping, and every packet must come out exactly as the trace says.
import ConferMedia
import ConferNet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let trace = try? NetworkTrace(bytes: bytes) else { return 0 }
    precondition(!trace.entries.isEmpty && trace.entries.count <= size, "entries without lines")
    var link = NetworkLink<Int>(conditions: NetworkConditions(preservesOrder: false), seed: 1, trace: trace)
    let count = min(2 * trace.entries.count, 256)
    for i in 0 ..< count {
        let sent = Timestamp.milliseconds(Int64(i))
        let result = link.send(i, byteCount: 100, at: sent)
        switch trace.entries[i % trace.entries.count] {
        case .loss:
            precondition(result.lossCause == .trace, "trace loss not applied")
        case .delay(let delay):
            precondition(delay >= .zero && delay <= NetworkTrace.maximumDelay, "delay out of range")
            precondition(result.deliveryTime == sent + delay, "trace delay not applied")
        }
    }
    var delivered = 0
    while link.nextDelivery(until: Timestamp(microseconds: .max)) != nil { delivered += 1 }
    precondition(delivered + link.statistics.lostTrace == count, "packets went missing")
    return 0
}

@_cdecl("FuzzNetworkTrace_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
