public import ConferMedia

/// Lays every participant's latest picture out on one canvas, the frame a compositing host
/// encodes once and sends to everyone.
///
/// A value owned by one task (the host pipeline's actor): feed it frames with
/// ``update(participant:frame:at:)`` as they are decoded, tell it who joins, leaves, mutes and
/// speaks, and call ``compose(at:)`` at the output rate. Composing never waits for anyone: a
/// participant with no frame for ``Configuration/placeholderTimeout`` (on the times passed in,
/// never the wall clock), or with video muted, shows a flat placeholder instead of a frozen
/// picture. Pictures of any size are letterboxed or cropped into their slots; a picture that
/// already has its slot's size is copied without resizing.
///
/// Steady state allocates nothing: canvas frames come from ``pool``, the layout and the
/// canvas areas no slot covers are worked out once per layout change, and a composition
/// walks stored arrays only (measured: 0 mallocs per composition of copied slots; libyuv
/// itself mallocs a few rows of scratch per plane for each slot it resizes).
///
/// ## Composing on several cores
/// ``compose(at:)`` is ``beginComposition(at:)``, ``drawSlot(_:on:)`` for every slot index in
/// `0..<slotCount`, then ``endComposition(_:)``. `drawSlot` reads only state fixed by
/// `beginComposition` and writes only the pixels of its own slot rectangle (picture, bars and
/// border all lie inside it), so when ``slotsOverlap`` is false slots may be drawn in any
/// order and from several threads at once, for example split across two cores with
/// ``compose(at:lanes:)``, which does exactly that with `DispatchQueue.concurrentPerform`.
/// Overlapping slots (picture-in-picture) must be drawn in index order, which is drawing (z)
/// order.
public struct VideoCompositor: Sendable {
    /// Canvas size, colours and timeouts.
    public let configuration: Configuration
    /// The pool canvas frames are drawn into; its counters show whether composing allocates.
    public let pool: FramePool
    /// Counters since the compositor was made.
    public internal(set) var statistics = Statistics()

    /// How members are arranged; setting it re-lays the canvas out.
    public var layoutKind: LayoutKind {
        didSet { relayout() }
    }
    /// The current layout, with every slot bound to the member it shows.
    public private(set) var layout = VideoLayout.empty
    /// Members in join order.
    public private(set) var members: [ParticipantID] = []
    /// Who is speaking now (their slot gets the highlight border), if anyone.
    public private(set) var speaker: ParticipantID?
    /// Who speaker-led layouts show large: the current speaker, or the last one who spoke
    /// and is still present.
    public private(set) var featured: ParticipantID?

    /// What is known of each member, in the order of `members`.
    ///
    /// An array beside an index rather than a dictionary of states: changing a value inside
    /// a dictionary goes through its `_modify` coroutine, whose frame this toolchain
    /// allocates on the heap (measured: 3 mallocs per field written), while an array element
    /// is written in place through an addressor.
    private var states: [Participant] = []
    /// Where each member's state is in `states`.
    private var memberIndex: [ParticipantID: Int] = [:]
    /// Per-participant fit or fill chosen by whoever renders, over the layout's own.
    private var modeOverrides: [ParticipantID: FitFill.Mode] = [:]
    /// Slots in drawing order, with what each shows in the composition under way.
    var plans: [SlotPlan] = []
    /// Canvas areas no slot covers, painted with the background on every composition.
    private var uncovered: [PixelRect] = []
    /// Whether any two slots share pixels (then slots must be drawn in order).
    public private(set) var slotsOverlap = false
    /// How many lanes `plans[_].lane` was dealt for (0: not yet).
    var laneCount = 0
    let scaler: VideoScaler

    /// A compositor with no members yet, arranging them as `layoutKind`.
    public init(configuration: Configuration = Configuration(), layoutKind: LayoutKind = .grid()) {
        self.configuration = configuration
        self.layoutKind = layoutKind
        pool = FramePool(width: configuration.width, height: configuration.height,
                         capacity: configuration.poolCapacity)
        scaler = VideoScaler(filter: configuration.filter)
        relayout()
    }

    // MARK: Members

    /// Adds `participant` as a member (shown as a placeholder until its first frame); does
    /// nothing if it already is one.
    public mutating func add(participant: ParticipantID) {
        _ = index(adding: participant)
    }

    /// The index of `participant`'s state, adding it as a member first if it is new.
    private mutating func index(adding participant: ParticipantID) -> Int {
        if let index = memberIndex[participant] { return index }
        memberIndex[participant] = members.count
        members.append(participant)
        states.append(Participant())
        relayout()
        return members.count - 1
    }

    /// Makes `frame`, received at `time`, the picture shown for `participant`, adding the
    /// participant if it is new. A muted participant's frames are not shown.
    public mutating func update(participant: ParticipantID, frame: VideoFrame, at time: Timestamp) {
        let i = index(adding: participant)
        states[i].lastFrameTime = time
        if !states[i].videoMuted { states[i].frame = frame }
    }

    /// Removes `participant` and re-lays out the canvas.
    public mutating func remove(participant: ParticipantID) {
        guard let index = memberIndex.removeValue(forKey: participant) else { return }
        modeOverrides.removeValue(forKey: participant)
        members.remove(at: index)
        states.remove(at: index)
        for (i, member) in members.enumerated().dropFirst(index) { memberIndex[member] = i }
        if speaker == participant { speaker = nil }
        if featured == participant { featured = nil }
        relayout()
    }

    /// Letterboxes (`.fit`) or crops (`.fill`) `participant`'s picture in its slot from the
    /// next composition, whatever the layout says; nil goes back to the layout's choice.
    public mutating func setMode(_ mode: FitFill.Mode?, for participant: ParticipantID) {
        guard modeOverrides[participant] != mode else { return }
        modeOverrides[participant] = mode
        relayout()
    }

    /// Mutes or unmutes `participant`'s video (adding the participant if it is new). A
    /// muted participant shows the placeholder; after unmuting, its next frame shows.
    public mutating func setVideoMuted(participant: ParticipantID, _ muted: Bool) {
        let i = index(adding: participant)
        states[i].videoMuted = muted
        // Dropping the last picture returns its buffer to the decoder's pool, and keeps the
        // picture from before the mute from flashing up on unmute.
        if muted { states[i].frame = nil }
    }

    /// Marks `participant` as the one speaking (nil: nobody). The speaker's slot gets the
    /// highlight border, and speaker-led layouts show the speaker large; they keep showing
    /// the last speaker when nobody speaks.
    public mutating func setSpeaking(_ participant: ParticipantID?) {
        speaker = participant
        let previous = featured
        if let participant { featured = participant }
        if layoutKind.followsSpeaker && featured != previous {
            relayout()
        } else {
            for i in plans.indices { plans[i].highlighted = plans[i].participant.map { $0 == speaker } ?? false }
        }
    }

    /// Whether `participant`'s video is muted.
    public func isVideoMuted(_ participant: ParticipantID) -> Bool {
        memberIndex[participant].map { states[$0].videoMuted } ?? false
    }

    // MARK: Layout

    /// The slots of the current layout in canvas pixels, in drawing order.
    public var placedSlots: [PlacedSlot] {
        plans.map { PlacedSlot(rect: $0.rect, participant: $0.participant, mode: $0.mode, z: $0.z) }
    }

    /// How many slots a composition draws (the range of ``drawSlot(_:on:)``'s index).
    public var slotCount: Int { plans.count }

    /// The canvas rectangle of `participant`'s slot (the first, if the layout shows it twice),
    /// or nil when the layout does not show it.
    public func slotRect(of participant: ParticipantID) -> PixelRect? {
        plans.first { $0.participant == participant }?.rect
    }

    private mutating func relayout() {
        let bound = layoutKind.layout(members: members, featured: featured)
        let rects = bound.pixelRects(width: configuration.width, height: configuration.height)
        // Drawing order: by z, ties in slot order (a stable sort).
        let order = bound.slots.indices.sorted { (bound.slots[$0].z, $0) < (bound.slots[$1].z, $1) }
        layout = bound
        plans = order.map { i in
            let slot = bound.slots[i]
            let mode = slot.participant.flatMap { modeOverrides[$0] } ?? slot.mode
            return SlotPlan(rect: rects[i], mode: mode, z: slot.z, participant: slot.participant,
                            member: slot.participant.flatMap { memberIndex[$0] },
                            highlighted: slot.participant.map { $0 == speaker } ?? false)
        }
        let canvas = PixelRect(width: configuration.width, height: configuration.height)
        uncovered = CanvasCoverage.uncovered(canvas, by: rects)
        slotsOverlap = CanvasCoverage.anyOverlap(rects)
        laneCount = 0
        statistics.layoutChanges += 1
    }

    // MARK: Composing

    /// The canvas at `time`: every slot's latest picture (or placeholder) laid out, with the
    /// speaker highlighted. Never waits and, in steady state, allocates nothing.
    public mutating func compose(at time: Timestamp) -> VideoFrame {
        let canvas = beginComposition(at: time)
        for i in plans.indices { statistics.count(drawSlot(i, on: canvas)) }
        return endComposition(canvas)
    }

    /// Starts a composition at `time`: decides what every slot shows (retiring pictures older
    /// than the placeholder timeout), takes a canvas from the pool and paints the areas no
    /// slot covers. Draw the slots next with ``drawSlot(_:on:)``.
    public mutating func beginComposition(at time: Timestamp) -> MutableVideoFrame {
        let canvas = pool.makeFrame(timestamp: time)
        for rect in uncovered { canvas.fill(rect, with: configuration.backgroundColor) }
        for i in plans.indices {
            guard let member = plans[i].member else { continue }
            if let last = states[member].lastFrameTime, time - last >= configuration.placeholderTimeout {
                // A frozen picture would mislead; let its buffer go back to the decoder too.
                states[member].frame = nil
            }
            plans[i].content = states[member].frame
        }
        return canvas
    }

    /// Ends a composition: forgets the pictures it drew (so their buffers can be recycled)
    /// and returns the finished canvas.
    public mutating func endComposition(_ canvas: consuming MutableVideoFrame) -> VideoFrame {
        for i in plans.indices { plans[i].content = nil }
        statistics.composedFrames += 1
        return canvas.finish()
    }
}

/// What the compositor knows about one member.
struct Participant: Sendable {
    var frame: VideoFrame?
    var lastFrameTime: Timestamp?
    var videoMuted = false
}

/// One slot of the current layout in pixels, and what it shows in the composition under way.
struct SlotPlan: Sendable {
    let rect: PixelRect
    let mode: FitFill.Mode
    let z: Int
    let participant: ParticipantID?
    /// Where the participant's state is in `states`; nil when the layout names someone who
    /// is not a member (yet), who shows the placeholder.
    let member: Int?
    var highlighted: Bool
    /// The picture to draw, set by `beginComposition`; nil shows the placeholder (or the
    /// background when the slot is unbound).
    var content: VideoFrame? = nil
    /// Which thread draws the slot in `compose(at:lanes:)`.
    var lane = 0
}
