import FuzzSupport
// libFuzzer target: parse an RTP packet, walk every header extension and typed accessor,
// and check that whatever parsed survives being written and read back.
import ConferRTP

private let map: RTPExtensionMap = {
    var map = RTPExtensionMap()
    try? map.register(RTPExtensionMap.audioLevelURI, id: 1)
    try? map.register(RTPExtensionMap.absoluteSendTimeURI, id: 2)
    try? map.register(RTPExtensionMap.transportSequenceNumberURI, id: 3)
    return map
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let view = try? RTPPacketView(bytes) else { return 0 }
    var checksum = Int(view.sequenceNumber) &+ Int(view.timestamp) &+ Int(view.ssrc) &+ Int(view.payloadType)
    for index in 0 ..< view.csrcCount { checksum &+= Int(view.csrc(at: index)) }
    for element in view.extensions {
        precondition(element.offset + element.data.count <= view.headerSize, "element outside the header")
        checksum &+= Int(element.id) &+ element.data.reduce(0) { $0 &+ Int($1) }
        _ = try? view.extensionValue(RTPAudioLevel.self, id: element.id)
        _ = try? view.extensionValue(RTPAbsoluteSendTime.self, id: element.id)
        _ = try? view.extensionValue(RTPTransportSequenceNumber.self, id: element.id)
    }
    _ = try? view.audioLevel(map)
    _ = try? view.absoluteSendTime(map)
    _ = try? view.transportSequenceNumber(map)
    precondition(view.headerSize + view.payload.count + view.paddingSize == size, "parts do not add up")

    let packet = RTPPacket(view)
    if let written = try? packet.serialized() {
        guard let again = try? RTPPacket(parsing: written) else { preconditionFailure("written packet does not parse") }
        precondition(again.payload == packet.payload && again.header.extensions == packet.header.extensions,
                     "round trip changed the packet")
    }
    return checksum == Int.min ? 1 : 0
}

@_cdecl("FuzzRTP_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
