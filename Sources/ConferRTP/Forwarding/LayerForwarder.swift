/// Forwards one receiver what its link carries out of encodes that carry more, as an SFU
/// does: one of several streams of the same SSRC and timestamps (simulcast: the same
/// picture encoded at different sizes), and of that stream the temporal layers the link
/// carries. Whole frames above the receiver's layer, and every frame of the streams it does
/// not get, are left out; the packets that go are renumbered so that a left-out frame is
/// not loss to the receiver (no NACK, no gap in its reports), and the receiver's NACKs are
/// mapped back to the stream and number each packet had. Picture ids are shifted the same
/// way (``pictureIDShift``), as mediasoup and LiveKit do, so that a receiver that tracks
/// them (libwebrtc, FFmpeg) sees no missing picture either, unless ``shiftsPictureIDs`` is
/// off: VP9 in flexible mode names each frame's references as picture id differences
/// (P_DIFF), which a shift would break, and there a gap in picture ids is not loss.
///
/// Switching layers down happens at the next frame. Switching up goes one layer at a time,
/// at a frame of the next layer marked as a switching point (VP8's Y bit, VP9's U bit), or
/// at a keyframe: before that, the new layer's frames may refer to ones this receiver never
/// got. Switching streams happens at a keyframe of the target stream
/// (``beginFrameTime(targetHasKeyframe:)``), which then continues the receiver's numbers.
public struct LayerForwarder: Sendable {
    /// The stream the receiver should get (0: the first).
    public var targetStream: UInt8 = 0
    /// The stream forwarded now.
    public private(set) var currentStream: UInt8 = 0
    /// Times the forwarded stream changed.
    public private(set) var streamSwitches = 0
    /// Whether the next forwarded packet starts a stream: the offsets are set from it.
    private var rebases = false
    /// Whether the frame in progress belongs to a stream this receiver does not get now.
    private var frameIsOtherStream = false
    /// The last number the receiver got, as it got it.
    private var lastForwarded: UInt16?
    /// The last picture id (15 bits) the receiver got, as it got it.
    private var lastPictureID: UInt16?
    /// The highest layer the receiver should get.
    public var targetLayer: UInt8
    /// The highest layer being forwarded now.
    public private(set) var currentLayer: UInt8
    /// Whether the packets of the frame in progress are forwarded.
    public private(set) var forwardsFrame = true
    /// Whether frames are left out until the next keyframe: set for a receiver that has got
    /// nothing yet, since what comes before refers to pictures it never got.
    public var waitsForKeyframe = false
    /// Stream sequence number minus forwarded one: the packets left out so far.
    private var offset: UInt16 = 0
    /// Stream picture id minus forwarded one (15 bits): the frames left out so far; always 0
    /// unless ``shiftsPictureIDs``.
    public private(set) var pictureIDShift: UInt16 = 0
    /// Whether picture ids are shifted to hide left-out frames (off for VP9 flexible mode).
    public let shiftsPictureIDs: Bool
    /// The stream's number of each recently forwarded packet, by forwarded number.
    private var originals: [Entry]
    private let mask: Int

    /// Frames left out and their packets.
    public private(set) var framesDropped = 0
    /// Packets left out.
    public private(set) var packetsDropped = 0
    /// Times the forwarded layer changed.
    public private(set) var layerSwitches = 0

    private struct Entry: Sendable {
        var stream: UInt8
        var forwarded: UInt16
        var original: UInt16
        var pictureIDShift: UInt16
        var isValid: Bool
    }

    /// A forwarder starting at `layer`, remembering the numbers of the last `history`
    /// packets (rounded up to a power of two) for NACKs, shifting picture ids over left-out
    /// frames when `shiftsPictureIDs`.
    public init(layer: UInt8 = .max, history: Int = 1024, shiftsPictureIDs: Bool = true) {
        self.shiftsPictureIDs = shiftsPictureIDs
        targetLayer = layer
        currentLayer = layer
        var size = 1
        while size < max(history, 16) { size <<= 1 }
        originals = Array(repeating: Entry(stream: 0, forwarded: 0, original: 0, pictureIDShift: 0, isValid: false), count: size)
        mask = size - 1
    }

    /// Whether the receiver gets `stream` now or is waiting to switch to it.
    public func getsStream(_ stream: UInt8) -> Bool { currentStream == stream || targetStream == stream }

    /// Starts the frames of one frame time (one per stream): switches to ``targetStream``
    /// when its frame at this time is a keyframe (`targetHasKeyframe`), so the receiver gets
    /// exactly one stream's frame at each time.
    public mutating func beginFrameTime(targetHasKeyframe: Bool) {
        guard targetStream != currentStream, targetHasKeyframe else { return }
        currentStream = targetStream
        streamSwitches += 1
        rebases = true
    }

    /// Decides whether the frame starting now (of stream `stream`, of `layer`, a switching
    /// point when `isSwitchingPoint`, a keyframe when `isKeyframe`) goes to the receiver;
    /// its packets then go through ``forward(_:pictureID:)``. A frame of a stream the
    /// receiver does not get changes nothing.
    @discardableResult
    public mutating func beginFrame(stream: UInt8 = 0, layer: UInt8, isSwitchingPoint: Bool, isKeyframe: Bool) -> Bool {
        frameIsOtherStream = stream != currentStream
        guard !frameIsOtherStream else {
            forwardsFrame = false
            return false
        }
        if waitsForKeyframe, !isKeyframe {
            forwardsFrame = false
            framesDropped += 1
            return false
        }
        waitsForKeyframe = false
        let before = currentLayer
        if isKeyframe || targetLayer < currentLayer {
            currentLayer = targetLayer
        } else if targetLayer > currentLayer, layer == currentLayer + 1, isSwitchingPoint {
            currentLayer = layer
        }
        if currentLayer != before { layerSwitches += 1 }
        forwardsFrame = layer <= currentLayer || isKeyframe
        if !forwardsFrame {
            framesDropped += 1
            if shiftsPictureIDs { pictureIDShift = (pictureIDShift &+ 1) & 0x7FFF }
        }
        return forwardsFrame
    }

    /// The number packet `sequenceNumber` of the current frame (whose 15-bit picture id is
    /// `pictureID`, if the payload has one) goes out with, or nil when the frame is left out.
    public mutating func forward(_ sequenceNumber: UInt16, pictureID: UInt16? = nil) -> UInt16? {
        guard !frameIsOtherStream else { return nil }
        guard forwardsFrame else {
            offset &+= 1
            packetsDropped += 1
            return nil
        }
        if rebases {
            // The new stream's numbers and picture ids continue the receiver's.
            rebases = false
            offset = lastForwarded.map { sequenceNumber &- ($0 &+ 1) } ?? 0
            if shiftsPictureIDs, let pictureID, let lastPictureID {
                pictureIDShift = (pictureID &- (lastPictureID &+ 1)) & 0x7FFF
            }
        }
        let forwarded = sequenceNumber &- offset
        lastForwarded = forwarded
        if let pictureID { lastPictureID = Self.shifted(pictureID & 0x7FFF, by: pictureIDShift) }
        originals[Int(forwarded) & mask] = Entry(stream: currentStream, forwarded: forwarded, original: sequenceNumber,
                                                 pictureIDShift: pictureIDShift, isValid: true)
        return forwarded
    }

    /// The stream's number of the packet forwarded as `forwarded`, if it is recent enough
    /// to be remembered (a NACK for anything else is answered with nothing).
    public func original(ofForwarded forwarded: UInt16) -> UInt16? {
        originalAndShift(ofForwarded: forwarded)?.original
    }

    /// The stream and the stream's number of the packet forwarded as `forwarded`, and the
    /// picture id shift it went out with (a retransmission must carry the same picture id).
    public func originalAndShift(ofForwarded forwarded: UInt16) -> (stream: UInt8, original: UInt16, pictureIDShift: UInt16)? {
        let entry = originals[Int(forwarded) & mask]
        return entry.isValid && entry.forwarded == forwarded ? (entry.stream, entry.original, entry.pictureIDShift) : nil
    }

    /// A 15-bit picture id as the receiver knows it, given the shift its packet went with.
    public static func shifted(_ pictureID: UInt16, by shift: UInt16) -> UInt16 { (pictureID &- shift) & 0x7FFF }
}
