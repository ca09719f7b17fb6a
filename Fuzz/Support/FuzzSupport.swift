/// Shared entry point for Confer's libFuzzer targets.
///
/// SwiftPM links every executable with `--defsym main=<Target>_main`, and with
/// `-parse-as-library` no such symbol exists, so each target defines `<Target>_main`
/// (three lines) and hands control to libFuzzer's documented driver through this function.
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// Runs libFuzzer with the process arguments, calling `callback` for every input.
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
    var count = argc
    var arguments = argv
    return llvmFuzzerRunDriver(&count, &arguments, callback)
}
