import ConferMedia

/// Feeds arbitrary bytes to the Ogg Opus reader (page scan, libopusfile, error mapping).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let reader = try OggOpusReader(bytes: bytes)
        while try reader.next() != nil {}
    } catch {}
    return 0
}

// SwiftPM links debug executables with `--defsym main=FuzzOggOpus_main` (its hook for testable
// executables), which displaces libFuzzer's own `main`. This entry point takes that name and
// hands control to libFuzzer's driver, which then calls `fuzz` for every input.
@_cdecl("FuzzOggOpus_main")
public func fuzzerEntry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, fuzz)
}

// libFuzzer's C entry point (LLVM ≥ 11). Declared by symbol name because no module exports a
// header for it; its pointer and integer arguments are passed identically by C and Swift.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt
