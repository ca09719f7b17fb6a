public import ConferMedia

extension VideoCompositor {
    /// What the compositor draws on: canvas size and rate, colours, and when a silent
    /// participant's picture gives way to a placeholder.
    public struct Configuration: Hashable, Sendable {
        /// Canvas width in pixels.
        public var width: Int
        /// Canvas height in pixels.
        public var height: Int
        /// The rate the host composes at, in frames per second (a caller's pacing figure; the
        /// compositor itself draws whenever asked).
        public var frameRate: Double
        /// Colour of the canvas where no slot is, of letterbox bars and of unbound slots.
        public var backgroundColor: YUVColor
        /// Colour of a slot whose participant is muted or has stopped sending video.
        public var placeholderColor: YUVColor
        /// Colour of the border drawn around the speaker's slot.
        public var highlightColor: YUVColor
        /// Width of the speaker's border in pixels, drawn inside the slot; rounded down to
        /// an even number so the border covers whole chroma samples (0 draws none).
        public var highlightWidth: Int
        /// How long after a participant's last frame its slot shows the placeholder instead
        /// of a frozen picture, measured on the times passed to the compositor.
        public var placeholderTimeout: TimeDelta
        /// The libyuv filter used when a picture must be resized. Box is the default: it is
        /// as fast as bilinear for the common halving and does not alias when shrinking
        /// further (libyuv uses bilinear in its place when enlarging).
        public var filter: VideoScaler.Filter
        /// How many canvas frames the pool keeps; composed frames held by the caller (an
        /// encoder, a renderer) beyond this many are allocated afresh and counted.
        public var poolCapacity: Int

        /// A configuration for a `width` × `height` canvas; every other value has a default
        /// suited to a meeting.
        public init(width: Int = 1280, height: Int = 720, frameRate: Double = 30,
                    backgroundColor: YUVColor = .black,
                    placeholderColor: YUVColor = YUVColor(y: 40, u: 128, v: 128),
                    highlightColor: YUVColor = YUVColor(red: 255, green: 200, blue: 0),
                    highlightWidth: Int = 4,
                    placeholderTimeout: TimeDelta = .seconds(1),
                    filter: VideoScaler.Filter = .box,
                    poolCapacity: Int = 3) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.backgroundColor = backgroundColor
            self.placeholderColor = placeholderColor
            self.highlightColor = highlightColor
            self.highlightWidth = highlightWidth
            self.placeholderTimeout = placeholderTimeout
            self.filter = filter
            self.poolCapacity = poolCapacity
        }
    }

    /// Counters since the compositor was made.
    public struct Statistics: Hashable, Sendable, Codable {
        /// Canvas frames composed by ``VideoCompositor/compose(at:)``.
        public var composedFrames = 0
        /// Slots drawn by a plain copy because the picture already had the slot's size.
        public var copiedSlots = 0
        /// Slots drawn by resizing the picture.
        public var scaledSlots = 0
        /// Slots that showed a placeholder (muted, silent, or not yet sending).
        public var placeholderSlots = 0
        /// Slots whose resizing failed in libyuv and showed a placeholder instead.
        public var failedSlots = 0
        /// Times the layout was recomputed (joins, leaves, speaker changes, kind changes).
        public var layoutChanges = 0

        /// All counters at zero.
        public init() {}
    }

    /// What drawing one slot did.
    public enum SlotOutcome: Hashable, Sendable {
        /// The slot names nobody, so it was painted with the background colour, or it is
        /// too small to cover a pixel.
        case background
        /// The participant is muted or silent; the slot shows the placeholder.
        case placeholder
        /// The picture had the slot's size and was copied.
        case copied
        /// The picture was resized into the slot.
        case scaled
        /// Resizing failed; the slot shows the placeholder.
        case failed
    }

    /// A slot of the current layout in canvas pixels.
    public struct PlacedSlot: Hashable, Sendable {
        /// Where the slot is on the canvas.
        public var rect: PixelRect
        /// Who it shows, if anyone.
        public var participant: ParticipantID?
        /// Letterbox or crop.
        public var mode: FitFill.Mode
        /// Drawing order.
        public var z: Int
    }
}
