import ConferMedia
import ConferCodecs

/// One Opus encoder of the host with the frame it is filling: the shared mix's, or one
/// contributor's own mix-minus (pooled; see ``HostPipelineAudio``).
///
/// The mixer works in 10 ms steps and an Opus frame may span several; each step's mix is
/// written at its place in ``pending`` and the frame is encoded when its last step is in.
final class HostPipelineAudioEncoder {
    private var encoder: OpusEncoder
    /// The frame being filled, allocated once.
    private var pending: AudioFrame
    /// The last packet encoded (valid until the next encode).
    private(set) var encoded = EncodedFrame(codec: .opus)
    /// Samples (all channels) per 10 ms step.
    private let stepSamples: Int

    init(settings: AudioEncoderSettings, stepFrames: Int) throws {
        encoder = try OpusEncoder(settings: settings)
        pending = AudioFrame(silenceOf: settings.samplesPerFrame, channels: settings.channels)
        stepSamples = stepFrames * settings.channels
    }

    /// Writes one step's samples as step `step` of the frame.
    func write(_ samples: UnsafeBufferPointer<Int16>, step: Int) {
        let start = step * stepSamples
        let count = min(samples.count, stepSamples)
        pending.samples.withUnsafeMutableBufferPointer { frame in
            for i in 0 ..< count { frame[start + i] = samples[i] }
        }
    }

    /// Copies the first `steps` steps of `other`'s frame: how a listener that starts
    /// contributing mid-frame takes over what it heard so far (the shared mix, in which its
    /// own share was zero, so it is already its mix-minus).
    func copySteps(_ steps: Int, from other: HostPipelineAudioEncoder) {
        let count = steps * stepSamples
        guard count > 0 else { return }
        other.pending.samples.withUnsafeBufferPointer { source in
            pending.samples.withUnsafeMutableBufferPointer { frame in
                for i in 0 ..< count { frame[i] = source[i] }
            }
        }
    }

    /// Encodes the filled frame, stamped `time`, into ``encoded``.
    func encode(at time: Timestamp) throws {
        pending.timestamp = time
        try encoder.encode(pending, into: &encoded)
    }
}
