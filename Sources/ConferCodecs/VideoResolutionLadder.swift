public import ConferMedia

/// Chooses the resolution to encode at from the bitrate the network allows, so that a
/// falling bitrate costs sharpness before it costs frame rate (libwebrtc's "balanced"
/// degradation).
///
/// A real-time encoder held below what its picture size needs at full frame rate skips
/// frames to keep the bitrate: libvpx at 700 kbit/s on a 1280×720 composite of nine
/// cameras drops two frames in three. Encoding a quarter of the pixels at that rate keeps
/// every frame, and the receivers scale it back up to their views.
///
/// **Steps.** The full size and 3/4, 1/2, 3/8 and 1/4 of it (even sizes, at least 16
/// pixels), each with the least bitrate it needs at full frame rate: libwebrtc's default
/// single-stream limits (0 at 320×180, 200 kbit/s at 480×270, 300 at 640×360, 500 at
/// 960×540, 900 at 1280×720), interpolated by pixel count, beyond 1280×720 in proportion to
/// it, and scaled by frame rate / 30.
///
/// **Switching.** Down at once, to the largest step the bitrate affords (each frame at the
/// wrong size is a frame dropped). Up only when the bitrate has afforded the larger step
/// with ``upswitchMargin`` to spare for ``upswitchHold`` without a break, so an estimate
/// that saws around a step's limit does not cost a keyframe each way. The smallest step
/// is kept whatever the bitrate: below it the encoder's own frame dropping is the last
/// resort.
///
/// **Frame rate, last.** A ladder made with `reducesFrameRate` has one more step below the
/// sizes: the smallest size that needs no bitrate of its own (320×180 at 30 fps) at half the
/// frame rate, taken when the bitrate falls below ``fullFrameRateBitrate(frameRate:)``. That
/// is how a sender serves a small tile the host shows at half rate (the host asks for less
/// than a full-rate thumbnail needs) and how a very weak uplink keeps an even 15 fps instead
/// of the encoder's erratic drops; libwebrtc's balanced degradation also lowers frame rate
/// once resolution is at its floor.
///
/// A value with an injected clock: every input carries its time.
public struct VideoResolutionLadder: Hashable, Sendable {
    /// One size to encode at and the least bitrate it needs at the configured frame rate.
    public struct Step: Hashable, Sendable, Codable {
        /// Width in pixels (even).
        public var width: Int
        /// Height in pixels (even).
        public var height: Int
        /// The least bitrate, in bit/s, at which this size keeps full frame rate.
        public var minimumBitrate: Int
        /// 1 for every frame; 2 for every other frame (the frame-rate step).
        public var frameRateDivisor = 1
    }

    /// libwebrtc's default single-stream limits: pixels, and the least start bitrate for them.
    static let limits: [(pixels: Double, bitrate: Double)] = [
        (320 * 180, 0), (480 * 270, 200_000), (640 * 360, 300_000), (960 * 540, 500_000), (1280 * 720, 900_000),
    ]
    /// Fractions of the full size tried, largest first.
    static let scales: [(Int, Int)] = [(1, 1), (3, 4), (1, 2), (3, 8), (1, 4)]
    /// How much more than a larger step's minimum the bitrate must be to switch up.
    public static let upswitchMargin = 1.15
    /// How long the bitrate must afford a larger step before switching up.
    public static let upswitchHold = TimeDelta.seconds(1)

    /// The sizes, largest first.
    public let steps: [Step]
    /// The index in ``steps`` of the size in use.
    public private(set) var index: Int
    /// How many times the size changed.
    public private(set) var switches = 0
    /// Since when the bitrate has afforded a larger step, while it does.
    private var affordsLargerSince: Timestamp?

    /// A ladder below `width` × `height` at `frameRate` frames per second, starting at the
    /// largest step `startBitrate` (bit/s) affords; with `reducesFrameRate`, ending in the
    /// half-rate step (see the type's notes).
    public init(width: Int, height: Int, frameRate: Double, startBitrate: Int, reducesFrameRate: Bool = false) {
        var steps: [Step] = []
        for (numerator, denominator) in Self.scales {
            let w = width * numerator / denominator / 2 * 2
            let h = height * numerator / denominator / 2 * 2
            guard w >= 16, h >= 16, steps.last.map({ $0.width != w || $0.height != h }) ?? true else { continue }
            let needed = Self.minimumBitrate(pixels: Double(w * h)) * max(frameRate, 1) / 30
            steps.append(Step(width: w, height: h, minimumBitrate: Int(needed.rounded())))
        }
        if steps.isEmpty { steps = [Step(width: width, height: height, minimumBitrate: 0)] }
        if reducesFrameRate {
            // Sizes below the first that needs nothing are never chosen: the half-rate step
            // takes that size, and full rate needs at least the floor at every size (a small
            // camera's full size may need less of its own).
            let floorIndex = steps.firstIndex { $0.minimumBitrate == 0 } ?? steps.count - 1
            steps.removeSubrange((floorIndex + 1)...)
            var half = steps[floorIndex]
            let floor = Self.fullFrameRateBitrate(frameRate: frameRate)
            for index in steps.indices { steps[index].minimumBitrate = max(steps[index].minimumBitrate, floor) }
            half.minimumBitrate = 0
            half.frameRateDivisor = 2
            steps.append(half)
        }
        self.steps = steps
        index = Self.largestAffordable(steps, bitrate: startBitrate, margin: 1)
    }

    /// The size in use.
    public var current: Step { steps[index] }

    /// Takes the bitrate (bit/s) allowed at `now`; returns the new step when the size
    /// should change, nil to keep it.
    public mutating func update(bitrate: Int, at now: Timestamp) -> Step? {
        if bitrate < current.minimumBitrate, index + 1 < steps.count {
            index = Self.largestAffordable(steps, bitrate: bitrate, margin: 1)
            affordsLargerSince = nil
            switches += 1
            return current
        }
        let target = Self.largestAffordable(steps, bitrate: bitrate, margin: Self.upswitchMargin)
        guard target < index else {
            affordsLargerSince = nil
            return nil
        }
        let since = affordsLargerSince ?? now
        affordsLargerSince = since
        guard now - since >= Self.upswitchHold else { return nil }
        index = target
        affordsLargerSince = nil
        switches += 1
        return current
    }

    /// The least video bitrate (bit/s) worth sending for a picture shown `width` × `height`
    /// at `frameRate`: what twice its pixels need (a sender's ladder then encodes a size at
    /// or above the slot, never far above), and at least ``minimumSlotBitrate`` (in
    /// proportion to `frameRate`, so a half-rate slot asks for a half-rate thumbnail). A host asks
    /// each participant for this through REMB, so a small tile costs a small stream.
    public static func bitrate(forShowing width: Int, height: Int, frameRate: Double) -> Int {
        let needed = minimumBitrate(pixels: 2 * Double(max(width, 0) * max(height, 0))) * max(frameRate, 1) / 30
        return max(Int(needed.rounded()), Int((Double(minimumSlotBitrate) * max(frameRate, 1) / 30).rounded()))
    }

    /// The floor of ``bitrate(forShowing:height:frameRate:)`` at 30 frames per second
    /// (in proportion at other rates): below it even a thumbnail looks broken.
    public static let minimumSlotBitrate = 150_000

    /// The least bitrate (bit/s) at which a ladder that reduces frame rate keeps its
    /// smallest size at full `frameRate`: a full-rate slot's floor less the switching
    /// margin, so that a host's request for a full-rate thumbnail brings full rate back.
    public static func fullFrameRateBitrate(frameRate: Double) -> Int {
        Int((Double(minimumSlotBitrate) * max(frameRate, 1) / 30 / upswitchMargin).rounded(.down))
    }

    /// The least bitrate `pixels` need at 30 frames per second.
    static func minimumBitrate(pixels: Double) -> Double {
        guard let last = limits.last else { return 0 }
        if pixels >= last.pixels { return last.bitrate * pixels / last.pixels }
        guard let upper = limits.firstIndex(where: { $0.pixels >= pixels }), upper > 0 else { return 0 }
        let a = limits[upper - 1], b = limits[upper]
        return a.bitrate + (b.bitrate - a.bitrate) * (pixels - a.pixels) / (b.pixels - a.pixels)
    }

    /// The index of the largest step whose minimum × `margin` is within `bitrate`, or the smallest step.
    static func largestAffordable(_ steps: [Step], bitrate: Int, margin: Double) -> Int {
        steps.firstIndex { Double($0.minimumBitrate) * margin <= Double(bitrate) } ?? steps.count - 1
    }
}
