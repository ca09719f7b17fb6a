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

// SwiftPM links every executable with `--defsym main=<Target>_main` and -parse-as-library
// leaves no entry point, so the link fails; this entry point hands control to libFuzzer's
// driver instead. (A workaround for Fuzz/Package.swift, reported to the lead.)
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ body: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzOpusDecoder_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, fuzz)
}
