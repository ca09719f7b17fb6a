public import ConferMedia

/// One participant's video as the host's compositing step (``HostComposer``) reads it once
/// per output frame: a participant's receive chain inside ``HostPipeline``, or a decoder
/// fed from a file or a recording when a ``CompositeLoop`` drives the step.
///
/// A ``CompositeLoop`` asks from whichever of its two threads is free, but never from two
/// threads at once, and every call happens after the previous one has returned (the loop's
/// lock orders them): a source needs no locking of its own as long as nothing outside the
/// loop touches it while ``CompositeLoop/run(frames:consume:)`` runs.
public protocol CompositeSource: AnyObject {
    /// The picture to show from output frame `index` (at `time`) on, or nil to keep showing
    /// the last one (the compositor's placeholder timeout decides when a silent source's
    /// picture gives way). An error stops the frame; a ``CompositeLoop`` rethrows it from `run`.
    func picture(forFrame index: Int, at time: Timestamp) throws -> VideoFrame?
}
