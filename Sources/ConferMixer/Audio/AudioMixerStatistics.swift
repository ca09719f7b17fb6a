/// Counters for one participant's input to the ``AudioMixer``, since it was added.
public struct AudioMixerParticipantStatistics: Hashable, Sendable, Codable {
    /// Sample frames (samples per channel) pushed.
    public var pushedFrames = 0
    /// Sample frames dropped, oldest first, because the participant pushed more than
    /// ``AudioMixerConfiguration/bufferLimit`` ahead of the mix.
    public var droppedFrames = 0
    /// Steps for which the participant had less than 10 ms queued; the missing part was
    /// mixed as silence rather than waiting for it.
    public var starvedSteps = 0
    /// Steps in which the participant's audio was in the mix (its gate was open).
    public var contributingSteps = 0

    /// All counters zero.
    public init() {}
}

/// Counters for the whole ``AudioMixer``, since it was made.
public struct AudioMixerStatistics: Hashable, Sendable, Codable {
    /// 10 ms steps mixed.
    public var steps = 0
    /// Steps in which the shared mix's limiter reduced the gain below unity.
    public var limitedSteps = 0
    /// Own (mix-minus) outputs rendered, summed over steps: the encoder work beyond the
    /// one shared mix.
    public var ownMixesRendered = 0

    /// All counters zero.
    public init() {}
}
