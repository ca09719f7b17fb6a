/// Reads a mono or stereo WAV file (16-bit PCM or 32-bit float, plain or extensible) as
/// 48 kHz ``AudioFrame``s, resampling other rates with libspeexdsp.
///
/// Input is read in fixed blocks through buffers the reader keeps, so
/// ``read(into:frameCount:)`` allocates nothing once the caller's frame has its capacity.
public final class WAVReader: ByteSourceReader {
    /// What the header says.
    public let info: WAVInfo
    /// How many 48 kHz frames the reader produces, when the input length is known.
    public var outputFrameCount: Int? { info.frameCount.map(outputFrames(forInput:)) }
    /// 48 kHz frames produced so far.
    public private(set) var framesProduced = 0

    private let source: any ByteSource
    private let resampler: SpeexResampler?
    /// Input frames read per block.
    private let blockFrames = 1024
    private var raw: [UInt8]
    private var input: [Float]
    private var output: [Float] = []
    private var inputOffset = 0
    private var inputAvailable = 0
    private var inputFramesRead = 0
    private var inputEnded = false
    private var flushFramesFed = 0
    /// Set when the data ends before its declared size; thrown once everything before it is read.
    private var truncation: MediaFileError?

    /// Reads WAV from `source`, starting with its RIFF header.
    public init(source: any ByteSource) throws(MediaFileError) {
        self.source = source
        info = try WAVInfo.read(from: source)
        resampler = info.sampleRate == conferSampleRate ? nil
            : try SpeexResampler(channels: info.channels, inputRate: info.sampleRate, outputRate: conferSampleRate)
        raw = [UInt8](repeating: 0, count: blockFrames * info.channels * info.sampleFormat.bytesPerSample)
        input = [Float](repeating: 0, count: blockFrames * info.channels)
    }

    /// The next `frameCount` frames at 48 kHz (fewer at the end), or nil when all are read.
    public func next(frameCount: Int = 960) throws(MediaFileError) -> AudioFrame? {
        var frame = AudioFrame(samples: [], channels: info.channels)
        frame.samples.reserveCapacity(frameCount * info.channels)
        return try read(into: &frame, frameCount: frameCount) ? frame : nil
    }

    /// Replaces `frame`'s samples with the next `frameCount` frames at 48 kHz (fewer at the
    /// end), reusing its storage. Returns false, leaving `frame` empty, when all are read.
    ///
    /// Throws `.truncated` once every whole frame is read, if the input ends before the size
    /// its data chunk declares.
    public func read(into frame: inout AudioFrame, frameCount: Int) throws(MediaFileError) -> Bool {
        precondition(frameCount > 0, "read at least one frame")
        if frame.channels != info.channels { frame = AudioFrame(samples: [], channels: info.channels) }
        frame.timestamp = Timestamp(microseconds: Int64(framesProduced) * 1_000_000 / Int64(conferSampleRate))
        frame.samples.removeAll(keepingCapacity: true)
        let produced = resampler == nil ? try copyDirect(into: &frame.samples, frameCount: frameCount)
                                        : try resample(into: &frame.samples, frameCount: frameCount)
        framesProduced += produced
        if produced == 0, let truncation { throw truncation }
        return produced > 0
    }

    /// 48 kHz input: samples convert one for one.
    private func copyDirect(into samples: inout [Int16], frameCount: Int) throws(MediaFileError) -> Int {
        var produced = 0
        while produced < frameCount {
            if inputAvailable == 0 {
                try fillInput()
                if inputAvailable == 0 { break }
            }
            let n = min(inputAvailable, frameCount - produced)
            let ch = info.channels
            input.withUnsafeBufferPointer { block in
                for i in inputOffset * ch ..< (inputOffset + n) * ch { samples.append(Self.int16(block[i])) }
            }
            inputOffset += n
            inputAvailable -= n
            produced += n
        }
        return produced
    }

    private func resample(into samples: inout [Int16], frameCount: Int) throws(MediaFileError) -> Int {
        guard let resampler else { return 0 }
        let ch = info.channels
        if output.count < frameCount * ch { output = [Float](repeating: 0, count: frameCount * ch) }
        var produced = 0
        while produced < frameCount {
            var want = frameCount - produced
            if inputEnded {
                // Once the input's length is known, stop exactly at its 48 kHz length.
                let left = outputFrames(forInput: inputFramesRead) - framesProduced - produced
                if left <= 0 { break }
                want = min(want, left)
            }
            if inputAvailable == 0 {
                try fillInput()
                if inputAvailable == 0 {
                    // Flush the filter's tail with silence; more than its latency (plus a
                    // margin) would only make up samples that were never in the input.
                    guard flushFramesFed <= resampler.inputLatency + blockFrames else { break }
                    input.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                    inputOffset = 0
                    inputAvailable = blockFrames
                    flushFramesFed += blockFrames
                }
            }
            let step = try input.withUnsafeBufferPointer { (inBuf) throws(MediaFileError) in
                try output.withUnsafeMutableBufferPointer { (outBuf) throws(MediaFileError) in
                    try resampler.process(input: inBuf.baseAddress! + inputOffset * ch, inputFrames: inputAvailable,
                                          output: outBuf.baseAddress! + produced * ch, outputFrames: want)
                }
            }
            inputOffset += step.consumed
            inputAvailable -= step.consumed
            produced += step.produced
            if step.consumed == 0 && step.produced == 0 { break }
        }
        output.withUnsafeBufferPointer { out in
            for i in 0 ..< produced * ch { samples.append(Self.int16(out[i])) }
        }
        return produced
    }

    /// Reads the next block of input frames into `input` as floats in 16-bit scale.
    private func fillInput() throws(MediaFileError) {
        inputOffset = 0
        inputAvailable = 0
        guard !inputEnded else { return }
        let bytesPerFrame = info.channels * info.sampleFormat.bytesPerSample
        var frames = blockFrames
        if let total = info.frameCount { frames = min(frames, total - inputFramesRead) }
        guard frames > 0 else { inputEnded = true; return }
        let start = source.position
        let got = try raw.withMutableBytes { (buffer) throws(MediaFileError) -> Int in
            try source.readUpTo(UnsafeMutableRawBufferPointer(rebasing: buffer[..<(frames * bytesPerFrame)]))
        }
        let whole = got / bytesPerFrame
        if let total = info.frameCount, got < frames * bytesPerFrame {
            // Hand out the whole frames that did arrive first; read(into:) throws this after them.
            truncation = MediaFileError(.truncated, format: WAVInfo.format, offset: start + got,
                                        "data ended after \(inputFramesRead + whole) of \(total) sample frames")
        }
        if info.frameCount == nil, got % bytesPerFrame != 0 {
            throw MediaFileError(.truncated, format: WAVInfo.format, offset: start + got, "data ends inside a sample frame")
        }
        let count = whole * info.channels
        let format = info.sampleFormat
        raw.withUnsafeBytes { bytes in
            input.withUnsafeMutableBufferPointer { out in
                switch format {
                case .pcm16:
                    for i in 0..<count {
                        out[i] = Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self)))
                    }
                case .float32:
                    for i in 0..<count {
                        let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
                        out[i] = Float(bitPattern: bits) * 32768
                    }
                }
            }
        }
        inputFramesRead += whole
        inputAvailable = whole
        inputEnded = truncation != nil || (info.frameCount.map { inputFramesRead >= $0 } ?? (whole < frames))
    }

    /// 48 kHz frames that `inputFrames` frames at the file's rate last, rounded to nearest.
    private func outputFrames(forInput inputFrames: Int) -> Int {
        Int((MediaMath.rescale(Int64(inputFrames), 2 * Int64(conferSampleRate), Int64(info.sampleRate)) + 1) / 2)
    }

    /// A float in 16-bit scale, rounded and clamped to Int16; NaN becomes silence.
    @inline(__always) static func int16(_ x: Float) -> Int16 {
        guard x == x else { return 0 }
        if x >= 32767 { return .max }
        if x <= -32768 { return .min }
        return Int16(x.rounded())
    }
}
