import FuzzSupport
import ConferMedia

/// Feeds arbitrary bytes to the PNG reader: it must throw or return a picture within the
/// pixel cap, never crash, hang or allocate without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let image = try? PNGFile.decodeImage(bytes, maxPixels: 1 << 20) {
        precondition(image.width * image.height <= 1 << 20, "the pixel cap was not enforced")
        precondition(image.pixels.count == image.width * image.height * 4)
        _ = try? image.videoFrame()
    }
    return 0
}

@_cdecl("FuzzPNG_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
