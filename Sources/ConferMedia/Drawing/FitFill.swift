/// Where a picture goes when it is drawn into a rectangle of another shape.
///
/// A pure function of sizes, so layouts can be tested without pixels. Every rectangle it
/// returns starts on an even column and row relative to its picture or target and has an
/// even size whenever the space allows it, because I420 chroma covers 2×2 luma pixels.
public enum FitFill {
    /// How a picture is fitted into a target of another aspect ratio.
    public enum Mode: String, Hashable, Sendable, Codable, CaseIterable {
        /// Show the whole picture at its aspect ratio, centred, leaving bars (letterbox).
        case fit
        /// Cover the whole target, cropping the picture's centre to the target's aspect.
        case fill
    }

    /// The part of the source to read and the part of the target to write.
    public struct Placement: Hashable, Sendable, Codable {
        /// The source crop, in source pixels.
        public var source: PixelRect
        /// The destination rectangle, in the target picture's pixels.
        public var destination: PixelRect

        /// A placement reading `source` into `destination`.
        public init(source: PixelRect, destination: PixelRect) {
            self.source = source
            self.destination = destination
        }
    }

    /// The crop and destination that draw a `sourceWidth` × `sourceHeight` picture into
    /// `target` in `mode`.
    ///
    /// In `.fit` the destination is the largest rectangle of the source's aspect ratio
    /// inside `target`, centred; the whole source is read. In `.fill` the destination is
    /// all of `target` and the source is cropped around its centre to the target's aspect.
    /// Empty sizes give empty rectangles.
    public static func rects(sourceWidth: Int, sourceHeight: Int, target: PixelRect, mode: Mode) -> Placement {
        let whole = PixelRect(width: max(0, sourceWidth), height: max(0, sourceHeight))
        guard sourceWidth > 0, sourceHeight > 0, !target.isEmpty else {
            return Placement(source: whole, destination: PixelRect(x: target.x, y: target.y, width: 0, height: 0))
        }
        // Compare aspect ratios exactly with integer cross products.
        let sourceIsWider = sourceWidth * target.height > target.width * sourceHeight
        switch mode {
        case .fit:
            var w = target.width, h = target.height
            if sourceIsWider {
                h = evenSize(target.width * sourceHeight, over: sourceWidth, limit: target.height)
            } else {
                w = evenSize(target.height * sourceWidth, over: sourceHeight, limit: target.width)
            }
            let destination = PixelRect(x: target.x + evenFloor((target.width - w) / 2),
                                        y: target.y + evenFloor((target.height - h) / 2),
                                        width: w, height: h)
            return Placement(source: whole, destination: destination)
        case .fill:
            var w = sourceWidth, h = sourceHeight
            if sourceIsWider {
                w = evenSize(sourceHeight * target.width, over: target.height, limit: sourceWidth)
            } else {
                h = evenSize(sourceWidth * target.height, over: target.width, limit: sourceHeight)
            }
            let source = PixelRect(x: evenFloor((sourceWidth - w) / 2), y: evenFloor((sourceHeight - h) / 2),
                                   width: w, height: h)
            return Placement(source: source, destination: target)
        }
    }

    /// `n / d` rounded to the nearest even number, no larger than `limit` and at least 1:
    /// even sizes keep a centred rectangle on the chroma grid; 1 keeps tiny targets non-empty.
    private static func evenSize(_ n: Int, over d: Int, limit: Int) -> Int {
        let even = 2 * ((n + d) / (2 * d))
        return max(1, min(even, limit))
    }

    private static func evenFloor(_ value: Int) -> Int { value & ~1 }
}
