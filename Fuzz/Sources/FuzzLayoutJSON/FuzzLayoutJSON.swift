import FuzzSupport
import ConferMedia
import ConferMixer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Custom layout JSON: anything accepted must print back to JSON that parses to the same
/// layout, resolve to chroma-aligned rectangles inside any canvas, and compose without
/// trapping, on canvases of even and odd sizes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let layout = try? VideoLayout(json: Data(bytes: data, count: size)) else { return 0 }
    precondition((try? VideoLayout(json: layout.json)) == layout, "round trip changed \(layout.json)")
    for (width, height) in [(1280, 720), (2, 2), (65, 37)] {
        let canvas = PixelRect(width: width, height: height)
        for rect in layout.pixelRects(width: width, height: height) where !rect.isEmpty {
            precondition(canvas.contains(rect) && rect.isChromaAligned, "\(rect) on \(width)×\(height)")
        }
    }
    var compositor = VideoCompositor(configuration: .init(width: 65, height: 37, poolCapacity: 1),
                                     layoutKind: .custom(layout))
    let picture = MutableVideoFrame(layout: FrameLayout(width: 33, height: 17))
    picture.fill(with: .white)
    let frame = picture.finish()
    for id in 1...3 { compositor.update(participant: ParticipantID(UInt32(id)), frame: frame, at: .zero) }
    compositor.setSpeaking(2)
    _ = compositor.compose(at: .zero)
    return 0
}

@_cdecl("FuzzLayoutJSON_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
