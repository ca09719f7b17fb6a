// Scaling, colour conversion, quality metrics and Y4M reading: the media plumbing around
// the codecs. One iteration is one frame.
import Benchmark
import ConferMedia

func testFrame(_ width: Int, _ height: Int) -> VideoFrame {
    TestPatternSource(width: width, height: height, colorIndex: 1, seed: 3).render(frameIndex: 7)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(2),
        maxIterations: 2000
    )

    let hd = testFrame(1280, 720)
    let sd = testFrame(640, 360)

    for (name, source, width, height, filter) in [
        ("720p→360p box", hd, 640, 360, VideoScaler.Filter.box),
        ("720p→360p bilinear", hd, 640, 360, .bilinear),
        ("360p→720p bilinear", sd, 1280, 720, .bilinear),
        ("720p→426x240 box", hd, 426, 240, .box),
    ] {
        let pool = FramePool(width: width, height: height, capacity: 2)
        let scaler = VideoScaler(filter: filter)
        Benchmark("scale \(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try! scaler.scaled(source, using: pool)) }
        }
    }

    var rgba = [UInt8](repeating: 0, count: 1280 * 720 * 4)
    Benchmark("convert I420→RGBA 720p") { benchmark in
        for _ in benchmark.scaledIterations {
            rgba.withUnsafeMutableBytes { try! hd.copyRGBA(into: $0, stride: 1280 * 4) }
        }
    }
    let pool = FramePool(width: 1280, height: 720, capacity: 2)
    Benchmark("convert RGBA→I420 720p") { benchmark in
        for _ in benchmark.scaledIterations {
            let frame = pool.makeFrame()
            rgba.withUnsafeBytes { try! frame.copyRGBA(from: $0, stride: 1280 * 4) }
            blackHole(frame.finish())
        }
    }

    // The copy every compositing figure is held against: one 720p I420 frame.
    let copyPool = FramePool(width: 1280, height: 720, capacity: 2)
    Benchmark("copy one 720p I420 frame") { benchmark in
        for _ in benchmark.scaledIterations {
            let frame = copyPool.makeFrame()
            frame.copyPixels(from: hd)
            blackHole(frame.finish())
        }
    }

    let other = testFrame(1280, 720)
    Benchmark("PSNR 720p") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! QualityMetrics.psnr(hd, other)) }
    }
    Benchmark("SSIM 720p") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try! QualityMetrics.ssim(hd, other)) }
    }

    // Y4M reading from memory: the parser and copy into pooled frames, without disk.
    let header = "YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg\n"
    var y4m = Array(header.utf8)
    let frameBytes = 1280 * 720 * 3 / 2
    for _ in 0..<30 { y4m += Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: frameBytes) }
    var reader = try! Y4MReader(source: MemoryByteSource(y4m))
    Benchmark("read Y4M 720p frame from memory") { benchmark in
        for _ in benchmark.scaledIterations {
            if let frame = try! reader.next() { blackHole(frame) } else {
                reader = try! Y4MReader(source: MemoryByteSource(y4m))
            }
        }
    }
}
