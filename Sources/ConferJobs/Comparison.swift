public import ConferMedia

/// PSNR and SSIM of one frame.
public struct FrameQuality: Codable, Sendable {
    /// 0-based frame index.
    public var frame: Int
    /// PSNR per plane and for the frame, in dB (128 for identical planes).
    public var psnr: PlaneScores
    /// SSIM per plane and for the frame.
    public var ssim: PlaneScores
}

/// The result of comparing a test video with its reference.
public struct ComparisonReport: Codable, Sendable {
    /// The reference file.
    public var reference: String
    /// The file under test.
    public var test: String
    /// Frames compared (the shorter file's count).
    public var frames: Int
    /// Frames in the reference file.
    public var referenceFrames: Int
    /// Frames in the test file.
    public var testFrames: Int
    /// Mean and minimum PSNR / SSIM over all frames.
    public var summary: QualitySummary
    /// Every frame's figures (only when asked for).
    public var perFrame: [FrameQuality]?
}

/// Compares two videos frame by frame (`confer compare`).
public enum Comparison {
    /// Compares `test` against `reference` frame by frame; both must have the same size.
    public static func run(reference: String, test: String, perFrame: Bool,
                           progress: (Int, Int?) -> Void = { _, _ in }) throws -> ComparisonReport {
        let ref = try VideoFileReader(path: reference)
        let tst = try VideoFileReader(path: test)
        guard ref.width == tst.width, ref.height == tst.height else {
            throw JobError(.invalidInput, "sizes differ: \(reference) is \(ref.width)x\(ref.height), \(test) is \(tst.width)x\(tst.height); "
                           + "scale one with `confer transcode --size` first")
        }
        var summary = QualitySummary()
        var frames: [FrameQuality] = []
        var refCount = 0
        var testCount = 0
        var compared = 0
        while true {
            let a = try ref.next()
            let b = try tst.next()
            if a != nil { refCount += 1 }
            if b != nil { testCount += 1 }
            guard let a, let b else {
                // Count what is left in the longer file.
                while try ref.next() != nil { refCount += 1 }
                while try tst.next() != nil { testCount += 1 }
                break
            }
            let psnr = try QualityMetrics.psnr(a, b)
            let ssim = try QualityMetrics.ssim(a, b)
            summary.add(psnr: psnr, ssim: ssim)
            if perFrame { frames.append(FrameQuality(frame: compared, psnr: psnr, ssim: ssim)) }
            compared += 1
            progress(compared, ref.frameCount)
        }
        return ComparisonReport(reference: reference, test: test, frames: compared, referenceFrames: refCount,
                                testFrames: testCount, summary: summary, perFrame: perFrame ? frames : nil)
    }
}
