public import ConferMedia

/// Where each participant's picture goes on the composite canvas, in canvas-relative units.
///
/// Coordinates are fractions of the canvas (0…1 across and down), so one layout serves
/// every canvas size; ``pixelRects(width:height:)`` turns it into pixels. Slots are drawn
/// in increasing ``Slot/z`` (ties in array order), so a higher slot covers a lower one — the
/// inset of picture-in-picture. A slot may name the participant it shows; slots that name
/// nobody are given the remaining members in join order by the compositor.
///
/// A layout is valid by construction: the built-in layouts (``grid(_:mode:)``,
/// ``activeSpeaker(_:others:thumbnails:mode:)``, ``pictureInPicture(main:inset:corner:size:mode:)``,
/// ``presenter(_:cameras:maximumCameras:)``) produce valid slots, and ``init(slots:)`` and
/// ``init(json:)`` check what they are given.
public struct VideoLayout: Hashable, Sendable {
    /// One rectangle of the canvas and what to show in it.
    public struct Slot: Hashable, Sendable {
        /// Left edge as a fraction of the canvas width.
        public var x: Double
        /// Top edge as a fraction of the canvas height.
        public var y: Double
        /// Width as a fraction of the canvas width.
        public var width: Double
        /// Height as a fraction of the canvas height.
        public var height: Double
        /// Drawing order: higher values are drawn later, on top.
        public var z: Int
        /// Letterbox (`.fit`) or crop (`.fill`) a picture of another shape.
        public var mode: FitFill.Mode
        /// The participant shown here, or nil to take the next member not placed elsewhere.
        public var participant: ParticipantID?

        /// A slot at (`x`, `y`) of `width` × `height` canvas fractions.
        public init(x: Double, y: Double, width: Double, height: Double, z: Int = 0,
                    mode: FitFill.Mode = .fit, participant: ParticipantID? = nil) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.z = z
            self.mode = mode
            self.participant = participant
        }
    }

    /// The most slots a layout may have: a 10 × 10 grid; more would be unreadable and would
    /// let a hostile description cost unbounded work per composed frame.
    public static let maximumSlotCount = 100

    /// The slots, in the order they were given.
    public private(set) var slots: [Slot]

    /// A layout of `slots`, checked: 1…``maximumSlotCount`` slots, each inside the canvas
    /// with a positive size and finite coordinates.
    public init(slots: [Slot]) throws(LayoutError) {
        try Self.validate(slots)
        self.slots = slots
    }

    /// A layout the built-in constructors have made valid by construction.
    init(unchecked slots: [Slot]) { self.slots = slots }

    /// A layout with no slots: the canvas shows only its background.
    public static let empty = VideoLayout(unchecked: [])

    /// Which participants the slots name explicitly, in slot order.
    public var boundParticipants: [ParticipantID] { slots.compactMap(\.participant) }

    /// A copy whose slots that name nobody show `members` (those not named by another slot),
    /// in order; slots left over stay unbound and show the background.
    public func binding(_ members: [ParticipantID]) -> VideoLayout {
        let named = Set(boundParticipants)
        var remaining = members.lazy.filter { !named.contains($0) }.makeIterator()
        var bound = slots
        for i in bound.indices where bound[i].participant == nil {
            guard let next = remaining.next() else { break }
            bound[i].participant = next
        }
        return VideoLayout(unchecked: bound)
    }

    // MARK: Pixels

    /// Each slot's rectangle on a `width` × `height` canvas, in slot order.
    ///
    /// Every interior edge falls on an even pixel (I420 chroma covers 2×2 pixels), and slots
    /// that share an edge in canvas units share it in pixels, so a tiling layout tiles the
    /// canvas exactly with no gap or overlap. Edges at 0 and 1 map to the canvas edges even
    /// when the canvas has an odd size. A slot too small to cover two pixels may come out empty.
    public func pixelRects(width: Int, height: Int) -> [PixelRect] {
        slots.map { Self.pixelRect(of: $0, width: width, height: height) }
    }

    static func pixelRect(of slot: Slot, width: Int, height: Int) -> PixelRect {
        let left = edge(slot.x, size: width), right = edge(slot.x + slot.width, size: width)
        let top = edge(slot.y, size: height), bottom = edge(slot.y + slot.height, size: height)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The even pixel nearest to `fraction` of `size`, or `size` itself at the far edge.
    ///
    /// The tiny bias moves the rounding tie off the exact half-way point: neighbouring slots
    /// compute a shared edge by different sums (x + width here, x there) that can differ in
    /// the last bit, and a tie must not send them to different pixels.
    static func edge(_ fraction: Double, size: Int) -> Int {
        guard fraction > 0 else { return 0 }
        guard fraction < 1 else { return size }
        let half = (fraction * Double(size) / 2 + 0.5 + 1e-9).rounded(.down)
        return min(size, 2 * Int(half))
    }

    // MARK: Validation

    /// Slots may overshoot the far canvas edge by this much, so that `x + width` computed in
    /// floating point from fractions such as 1/3 still counts as inside.
    static let tolerance = 1e-9

    static func validate(_ slots: [Slot]) throws(LayoutError) {
        guard !slots.isEmpty else { throw LayoutError(.noSlots, "a layout needs at least one slot") }
        guard slots.count <= maximumSlotCount else {
            throw LayoutError(.tooManySlots, "\(slots.count) slots; at most \(maximumSlotCount) are allowed")
        }
        for (index, slot) in slots.enumerated() {
            try check(slot.x, named: "x", slot: index, start: true)
            try check(slot.y, named: "y", slot: index, start: true)
            try check(slot.width, named: "width", slot: index, start: false)
            try check(slot.height, named: "height", slot: index, start: false)
            if slot.x + slot.width > 1 + tolerance {
                throw LayoutError(.outOfRange, slot: index, field: "width",
                                  "x + width = \(slot.x + slot.width) reaches past the right edge (1)")
            }
            if slot.y + slot.height > 1 + tolerance {
                throw LayoutError(.outOfRange, slot: index, field: "height",
                                  "y + height = \(slot.y + slot.height) reaches past the bottom edge (1)")
            }
        }
    }

    private static func check(_ value: Double, named field: String, slot: Int, start: Bool) throws(LayoutError) {
        guard value.isFinite else {
            throw LayoutError(.invalidValue, slot: slot, field: field, "\(value) is not a finite number")
        }
        if start {
            guard value >= 0, value <= 1 else {
                throw LayoutError(.outOfRange, slot: slot, field: field, "\(value) is outside 0…1")
            }
        } else {
            guard value > 0 else {
                throw LayoutError(.nonPositiveSize, slot: slot, field: field, "\(value) is not a positive size")
            }
            guard value <= 1 + tolerance else {
                throw LayoutError(.outOfRange, slot: slot, field: field, "\(value) is larger than the canvas (1)")
            }
        }
    }
}
