import ConferMedia
import ConferMixer

/// The one way the host composes a frame: read the latest picture of each participant's
/// ``CompositeSource``, show it in the layout, compose the canvas.
///
/// ``HostPipeline`` runs the step inline on its own thread at every composite frame (its
/// sources hand over what the receive chains decoded since the last frame). A
/// ``CompositeLoop`` drives the same step on two threads: the reads are shared between
/// them (``picture(fromSource:forFrame:at:)``), the producer thread then shows them and
/// composes (``composeReadPictures(at:)``). Either way a picture reaches the compositor at
/// the time of the first frame that can show it, so the placeholder timeout counts in
/// output frames.
///
/// Steady state allocates nothing: the picture slots grow only when a source is added.
struct HostComposer {
    /// The layout, the canvas pool and what each participant shows.
    var compositor: VideoCompositor
    /// Who each source is, in source order.
    private(set) var participants: [ParticipantID] = []
    /// The sources, in the order they were added.
    private(set) var sources: [any CompositeSource] = []
    /// Pictures read for the frame being composed, in source order; a reader fills them,
    /// ``composeReadPictures(at:)`` empties them.
    var pictures: [VideoFrame?] = []

    init(compositor: VideoCompositor) {
        self.compositor = compositor
    }

    /// Lays `participant` out (a placeholder until its first picture) and reads `source` for it.
    mutating func add(_ participant: ParticipantID, source: any CompositeSource) {
        compositor.add(participant: participant)
        participants.append(participant)
        sources.append(source)
        pictures.append(nil)
    }

    /// Takes `participant` off the canvas and stops reading its source; unknown ids are ignored.
    mutating func remove(_ participant: ParticipantID) {
        compositor.remove(participant: participant)
        guard let index = participants.firstIndex(of: participant) else { return }
        participants.remove(at: index)
        sources.remove(at: index)
        pictures.remove(at: index)
    }

    /// Source `index`'s picture for output frame `frame` at `time` (nil: keep the last one).
    func picture(fromSource index: Int, forFrame frame: Int, at time: Timestamp) throws -> VideoFrame? {
        try sources[index].picture(forFrame: frame, at: time)
    }

    /// Reads every source for output frame `frame`, then shows and composes at `time`. When a
    /// source throws, the frame is not composed and the pictures read for it are dropped
    /// (as a ``CompositeLoop`` on two threads drops them).
    mutating func compose(frame: Int, at time: Timestamp) throws -> VideoFrame {
        for index in sources.indices {
            do {
                pictures[index] = try picture(fromSource: index, forFrame: frame, at: time)
            } catch {
                dropReadPictures()
                throw error
            }
        }
        return composeReadPictures(at: time)
    }

    /// Forgets the pictures read for a frame that will not be composed (their buffers go
    /// back to the decoders' pools).
    mutating func dropReadPictures() {
        for index in pictures.indices { pictures[index] = nil }
    }

    /// Shows every picture read into ``pictures`` (a nil keeps the last one) and composes the
    /// canvas at `time`.
    mutating func composeReadPictures(at time: Timestamp) -> VideoFrame {
        for index in pictures.indices {
            if let picture = pictures[index].take() {
                compositor.update(participant: participants[index], frame: picture, at: time)
            }
        }
        return compositor.compose(at: time)
    }
}
