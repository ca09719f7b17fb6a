import Foundation
import Testing
@testable import ConferMedia

/// Shared helpers for the image and synthetic-source tests.
enum ImageTestSupport {
    /// A smooth picture: luma ramps diagonally, U across, V down.
    static func gradient(width: Int, height: Int) -> VideoFrame {
        let frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        let y = frame.y, u = frame.u, v = frame.v
        for row in 0..<height {
            for x in 0..<width { y[x, row] = UInt8(16 + 219 * (x + row) / (width + height - 2)) }
        }
        for row in 0..<u.height {
            for x in 0..<u.width {
                u[x, row] = UInt8(64 + 128 * x / max(1, u.width - 1))
                v[x, row] = UInt8(64 + 128 * row / max(1, u.height - 1))
            }
        }
        return frame.finish()
    }

    /// A frame of one colour.
    static func solid(width: Int, height: Int, _ color: YUVColor) -> VideoFrame {
        let frame = MutableVideoFrame(layout: FrameLayout(width: width, height: height))
        frame.fill(with: color)
        return frame.finish()
    }

    /// A copy of `frame` with each luma sample moved by seeded noise in `-amplitude...amplitude`.
    static func noisy(_ frame: VideoFrame, amplitude: Int, seed: UInt64) -> VideoFrame {
        var random = SeededRandom(seed: seed)
        let out = MutableVideoFrame(layout: frame.layout)
        out.copyPixels(from: frame)
        let y = out.y
        for row in 0..<y.height {
            for x in 0..<y.width {
                let delta = Int(random.next() % UInt64(2 * amplitude + 1)) - amplitude
                y[x, row] = UInt8(clamping: Int(y[x, row]) + delta)
            }
        }
        return out.finish()
    }

    /// A fresh, empty temporary directory for one test.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("confer-media-\(name)-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `ffmpeg` with `arguments` and returns its exit status.
    @discardableResult
    static func ffmpeg(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    // MARK: Minimal Y4M (the real reader lives elsewhere; this is only for codec round trips)

    /// Packed I420 Y4M data for `frames`, all of one size.
    static func y4m(_ frames: [VideoFrame], fps: Int) -> Data {
        var data = Data("YUV4MPEG2 W\(frames[0].width) H\(frames[0].height) F\(fps):1 Ip A1:1 C420jpeg\n".utf8)
        for frame in frames {
            data.append(contentsOf: Array("FRAME\n".utf8))
            for plane in frame.planes {
                for row in 0..<plane.height { data.append(contentsOf: plane.row(row)) }
            }
        }
        return data
    }

    /// The frames of 4:2:0 Y4M `data`, or nil if it is not what this minimal parser reads.
    static func parseY4M(_ data: Data) -> [VideoFrame]? {
        let bytes = [UInt8](data)
        guard let headerEnd = bytes.firstIndex(of: 0x0A) else { return nil }
        let header = String(decoding: bytes[..<headerEnd], as: UTF8.self).split(separator: " ")
        guard header.first == "YUV4MPEG2",
              let w = header.first(where: { $0.hasPrefix("W") }).flatMap({ Int($0.dropFirst()) }),
              let h = header.first(where: { $0.hasPrefix("H") }).flatMap({ Int($0.dropFirst()) }) else { return nil }
        let layout = FrameLayout(width: w, height: h)
        var frames: [VideoFrame] = []
        var i = headerEnd + 1
        while i < bytes.count {
            guard let lineEnd = bytes[i...].firstIndex(of: 0x0A), bytes[i..<min(i + 5, bytes.count)].elementsEqual("FRAME".utf8)
            else { return nil }
            i = lineEnd + 1
            guard i + layout.packedByteCount <= bytes.count else { return nil }
            let frame = MutableVideoFrame(layout: layout)
            bytes.withUnsafeBufferPointer { buffer in
                var p = buffer.baseAddress! + i
                for plane in [frame.y, frame.u, frame.v] {
                    plane.copy(from: p, sourceStride: plane.width)
                    p += plane.width * plane.height
                }
            }
            i += layout.packedByteCount
            frames.append(frame.finish())
        }
        return frames
    }
}
