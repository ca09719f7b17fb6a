/// Forwards the temporal layers one receiver's link carries out of a stream that has more,
/// as an SFU does: whole frames above the receiver's layer are left out, and the packets
/// that go are renumbered so that a left-out frame is not loss to the receiver (no NACK, no
/// gap in its reports); the receiver's NACKs are mapped back to the stream's own numbers.
/// Picture ids are shifted the same way (``pictureIDShift``), as mediasoup and LiveKit do,
/// so that a receiver that tracks them (libwebrtc, FFmpeg) sees no missing picture either.
///
/// Switching down happens at the next frame. Switching up goes one layer at a time, at a
/// frame of the next layer marked as a switching point (VP8's Y bit, VP9's U bit), or at a
/// keyframe: before that, the new layer's frames may refer to ones this receiver never got.
public struct TemporalLayerForwarder: Sendable {
    /// The highest layer the receiver should get.
    public var targetLayer: UInt8
    /// The highest layer being forwarded now.
    public private(set) var currentLayer: UInt8
    /// Whether the packets of the frame in progress are forwarded.
    public private(set) var forwardsFrame = true
    /// Stream sequence number minus forwarded one: the packets left out so far.
    private var offset: UInt16 = 0
    /// Stream picture id minus forwarded one (15 bits): the frames left out so far.
    public private(set) var pictureIDShift: UInt16 = 0
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
        var forwarded: UInt16
        var original: UInt16
        var pictureIDShift: UInt16
        var isValid: Bool
    }

    /// A forwarder starting at `layer`, remembering the numbers of the last `history`
    /// packets (rounded up to a power of two) for NACKs.
    public init(layer: UInt8 = .max, history: Int = 1024) {
        targetLayer = layer
        currentLayer = layer
        var size = 1
        while size < max(history, 16) { size <<= 1 }
        originals = Array(repeating: Entry(forwarded: 0, original: 0, pictureIDShift: 0, isValid: false), count: size)
        mask = size - 1
    }

    /// Decides whether the frame starting now (of `layer`, a switching point when
    /// `isSwitchingPoint`, a keyframe when `isKeyframe`) goes to the receiver; its packets
    /// then go through ``forward(_:)``.
    @discardableResult
    public mutating func beginFrame(layer: UInt8, isSwitchingPoint: Bool, isKeyframe: Bool) -> Bool {
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
            pictureIDShift = (pictureIDShift &+ 1) & 0x7FFF
        }
        return forwardsFrame
    }

    /// The number packet `sequenceNumber` of the current frame goes out with, or nil when
    /// the frame is left out.
    public mutating func forward(_ sequenceNumber: UInt16) -> UInt16? {
        guard forwardsFrame else {
            offset &+= 1
            packetsDropped += 1
            return nil
        }
        let forwarded = sequenceNumber &- offset
        originals[Int(forwarded) & mask] = Entry(forwarded: forwarded, original: sequenceNumber,
                                                 pictureIDShift: pictureIDShift, isValid: true)
        return forwarded
    }

    /// The stream's number of the packet forwarded as `forwarded`, if it is recent enough
    /// to be remembered (a NACK for anything else is answered with nothing).
    public func original(ofForwarded forwarded: UInt16) -> UInt16? {
        originalAndShift(ofForwarded: forwarded)?.original
    }

    /// The stream's number of the packet forwarded as `forwarded` and the picture id shift
    /// it went out with (a retransmission must carry the same picture id).
    public func originalAndShift(ofForwarded forwarded: UInt16) -> (original: UInt16, pictureIDShift: UInt16)? {
        let entry = originals[Int(forwarded) & mask]
        return entry.isValid && entry.forwarded == forwarded ? (entry.original, entry.pictureIDShift) : nil
    }

    /// A 15-bit picture id as the receiver knows it, given the shift its packet went with.
    public static func shifted(_ pictureID: UInt16, by shift: UInt16) -> UInt16 { (pictureID &- shift) & 0x7FFF }
}
