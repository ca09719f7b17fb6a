/// The sample rate of all audio inside Confer: 48 kHz, as Opus and RTP audio use.
public let conferSampleRate = 48_000

/// A block of 48 kHz PCM audio: interleaved signed 16-bit samples, mono or stereo.
public struct AudioFrame: Sendable, Equatable {
    /// Interleaved samples: `frameCount × channels` values.
    public var samples: [Int16]
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Presentation time of the first sample.
    public var timestamp: Timestamp

    /// A frame of interleaved `samples` with `channels` channels.
    public init(samples: [Int16], channels: Int, timestamp: Timestamp = .zero) {
        precondition(channels == 1 || channels == 2, "Confer audio is mono or stereo")
        precondition(samples.count % channels == 0, "interleaved samples must fill every channel")
        self.samples = samples
        self.channels = channels
        self.timestamp = timestamp
    }

    /// A silent frame `frameCount` samples long per channel.
    public init(silenceOf frameCount: Int, channels: Int, timestamp: Timestamp = .zero) {
        self.init(samples: [Int16](repeating: 0, count: frameCount * channels), channels: channels, timestamp: timestamp)
    }

    /// Always 48 000.
    public var sampleRate: Int { conferSampleRate }
    /// Samples per channel.
    public var frameCount: Int { samples.count / channels }
    /// How long the frame plays.
    public var duration: TimeDelta { TimeDelta(microseconds: Int64(frameCount) * 1_000_000 / Int64(conferSampleRate)) }
}
