internal import CSpeexDSP

/// Owns one libspeexdsp resampler state, destroyed in deinit.
final class SpeexResampler {
    private let state: OpaquePointer
    /// Interleaved channels per frame.
    let channels: Int

    /// A resampler from `inputRate` to `outputRate` Hz at speex `quality` (0–10).
    init(channels: Int, inputRate: Int, outputRate: Int, quality: Int32 = 5) throws(MediaFileError) {
        var error: Int32 = 0
        guard let state = speex_resampler_init(UInt32(channels), UInt32(inputRate), UInt32(outputRate), quality, &error) else {
            throw MediaFileError(.unsupported, format: "WAV",
                                 "libspeexdsp cannot resample \(inputRate) Hz to \(outputRate) Hz: error \(error) (\(Self.text(error)))")
        }
        self.state = state
        self.channels = channels
        // Drops the filter's leading zeros so output sample 0 lines up with input sample 0.
        speex_resampler_skip_zeros(state)
    }

    deinit { speex_resampler_destroy(state) }

    /// Input frames the filter holds back; feeding this many frames of silence flushes it.
    var inputLatency: Int { Int(speex_resampler_get_input_latency(state)) }

    /// Resamples interleaved frames; returns (input frames consumed, output frames written).
    func process(input: UnsafePointer<Float>, inputFrames: Int,
                 output: UnsafeMutablePointer<Float>, outputFrames: Int) throws(MediaFileError) -> (consumed: Int, produced: Int) {
        var inLength = UInt32(inputFrames)
        var outLength = UInt32(outputFrames)
        let error = speex_resampler_process_interleaved_float(state, input, &inLength, output, &outLength)
        guard error == 0 else {
            throw MediaFileError(.io, format: "WAV", "libspeexdsp resampling failed: error \(error) (\(Self.text(error)))")
        }
        return (Int(inLength), Int(outLength))
    }

    private static func text(_ error: Int32) -> String { String(cString: speex_resampler_strerror(error)) }
}
