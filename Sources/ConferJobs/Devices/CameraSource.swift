package import ConferMedia


/// A participant's camera: a test pattern in its own colour, or a recorded file played in a loop.
package final class CameraSource {
    private enum Source {
        case pattern(TestPatternSource)
        case file(path: String, reader: VideoFileReader)
    }

    private var source: Source
    /// Picture width.
    package let width: Int
    /// Picture height.
    package let height: Int
    /// Pictures per second.
    package let frameRate: Double
    /// What the camera shows, for the report.
    package let description: String

    /// The synthetic camera of member `index` (colour and frame counter of its own).
    package init(patternIndex index: Int, width: Int, height: Int, frameRate: Double, seed: UInt64) {
        source = .pattern(TestPatternSource(width: width, height: height, frameRate: frameRate, colorIndex: index, seed: seed))
        self.width = width
        self.height = height
        self.frameRate = frameRate
        description = "test pattern \(index + 1)"
    }

    /// A camera playing `path` (y4m, ivf or h264) from the start again when it ends.
    package init(path: String) throws {
        let reader = try VideoFileReader(path: path)
        guard reader.width > 0, reader.height > 0, reader.width % 2 == 0, reader.height % 2 == 0 else {
            throw JobError(.invalidInput, "\(path): \(reader.width)x\(reader.height) video cannot be sent (sizes must be even)")
        }
        guard reader.frameRate > 0, reader.frameRate <= 120 else { throw JobError(.invalidInput, "\(path) has no usable frame rate") }
        source = .file(path: path, reader: reader)
        width = reader.width
        height = reader.height
        frameRate = reader.frameRate
        description = path
    }

    /// The next picture.
    package func next() throws -> VideoFrame {
        switch source {
        case .pattern(var pattern):
            let frame = pattern.next()
            source = .pattern(pattern)
            return frame
        case .file(let path, let reader):
            if let frame = try reader.next() { return try checked(frame, path) }
            let again = try VideoFileReader(path: path)
            source = .file(path: path, reader: again)
            guard let frame = try again.next() else { throw JobError(.invalidInput, "\(path) has no picture to send") }
            return try checked(frame, path)
        }
    }

    private func checked(_ frame: VideoFrame, _ path: String) throws -> VideoFrame {
        guard frame.width == width, frame.height == height else {
            throw JobError(.invalidInput, "\(path) changes size to \(frame.width)x\(frame.height) mid-stream; a camera stream keeps one size")
        }
        return frame
    }
}
