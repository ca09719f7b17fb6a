import FuzzSupport
import ConferCodecs
import ConferMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let packet = EncodedFrame(codec: .opus, data: Array(UnsafeBufferPointer(start: data, count: size)))
    for channels in 1...2 {
        guard var decoder = try? OpusDecoder(channels: channels) else { return 0 }
        if let audio = try? decoder.decode(packet) {
            precondition(audio.frameCount <= OpusDecoder.maxFrameCount && audio.channels == channels)
        }
        _ = try? decoder.decodeFEC(from: packet, durationMs: 20, timestamp: .zero)
        _ = try? decoder.concealLoss(durationMs: 20, timestamp: .zero)
    }
    return 0
}

@_cdecl("FuzzOpusDecoder_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
