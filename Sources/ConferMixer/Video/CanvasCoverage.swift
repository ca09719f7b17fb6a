import ConferMedia

/// Rectangle arithmetic done once per layout change, so that composing a frame paints only
/// what no slot covers.
enum CanvasCoverage {
    /// The parts of `canvas` that none of `rects` covers, as disjoint rectangles.
    static func uncovered(_ canvas: PixelRect, by rects: [PixelRect]) -> [PixelRect] {
        var pieces = [canvas]
        for cover in rects where !cover.isEmpty {
            var next: [PixelRect] = []
            for piece in pieces { subtract(cover, from: piece, into: &next) }
            pieces = next
        }
        return pieces
    }

    /// Appends the up to four parts of `piece` outside `cover`: full-width bands above and
    /// below, then the left and right parts beside it.
    static func subtract(_ cover: PixelRect, from piece: PixelRect, into out: inout [PixelRect]) {
        let overlap = piece.intersection(cover)
        guard !overlap.isEmpty else { out.append(piece); return }
        let parts = [
            PixelRect(x: piece.x, y: piece.y, width: piece.width, height: overlap.y - piece.y),
            PixelRect(x: piece.x, y: overlap.maxY, width: piece.width, height: piece.maxY - overlap.maxY),
            PixelRect(x: piece.x, y: overlap.y, width: overlap.x - piece.x, height: overlap.height),
            PixelRect(x: overlap.maxX, y: overlap.y, width: piece.maxX - overlap.maxX, height: overlap.height),
        ]
        for part in parts where !part.isEmpty { out.append(part) }
    }

    /// Whether any two non-empty rectangles share a pixel.
    static func anyOverlap(_ rects: [PixelRect]) -> Bool {
        for i in rects.indices where !rects[i].isEmpty {
            for j in rects.indices where j > i && !rects[i].intersection(rects[j]).isEmpty { return true }
        }
        return false
    }
}
