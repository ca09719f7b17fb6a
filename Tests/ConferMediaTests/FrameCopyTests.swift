import Testing
@testable import ConferMedia

@Suite struct FrameCopyTests {
    @Test(arguments: [(0, 0), (20, 10), (36, 48)])
    func copiesAPictureIntoARectangleOnly(x: Int, y: Int) {
        // An odd-width picture (chroma 15 wide) whose rows are narrower than the canvas's.
        let picture = ImageTestSupport.gradient(width: 29, height: 22)
        let canvas = MutableVideoFrame(layout: FrameLayout(width: 66, height: 70))
        canvas.fill(with: .black)
        canvas.copyPixels(from: picture, atX: x, y: y)
        let out = canvas.finish()
        for row in 0..<out.height {
            for column in 0..<out.width {
                let inside = (x..<x + 29).contains(column) && (y..<y + 22).contains(row)
                let expected = inside ? picture.y[column - x, row - y] : 16
                if out.y[column, row] != expected {
                    Issue.record("luma at \(column),\(row): \(out.y[column, row]), expected \(expected)")
                    return
                }
            }
        }
        for row in 0..<out.u.height {
            for column in 0..<out.u.width {
                let inside = (x / 2..<x / 2 + 15).contains(column) && (y / 2..<y / 2 + 11).contains(row)
                let expected = inside ? (picture.u[column - x / 2, row - y / 2], picture.v[column - x / 2, row - y / 2]) : (128, 128)
                #expect(out.u[column, row] == expected.0 && out.v[column, row] == expected.1, "chroma at \(column),\(row)")
            }
        }
    }

    @Test func stridedPlaneCopyMatchesTheSource() {
        // Rows 40 bytes apart in the source, 64 in the destination (a decoder's padded buffer
        // into a pooled frame).
        var random = SeededRandom(seed: 7)
        let source = (0..<40 * 9).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let frame = MutableVideoFrame(layout: FrameLayout(width: 33, height: 9))
        frame.y.fill(0)
        source.withUnsafeBufferPointer { frame.y.copy(from: $0.baseAddress!, sourceStride: 40) }
        let copied = frame.finish()
        #expect(copied.y.stride == 64)
        for row in 0..<9 {
            #expect(Array(copied.y.row(row)) == Array(source[row * 40..<row * 40 + 33]), "row \(row)")
        }
    }
}
