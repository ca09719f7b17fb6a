import ConferMedia

/// Which frames can be decoded given what was delivered before them (libwebrtc's reference
/// finders, reduced to what the payload descriptors say).
///
/// Frames are judged in decode order. A keyframe is always decodable. Otherwise, after a
/// keyframe is needed (at the start, after a lost reference frame, after a decoder error)
/// nothing else is. Then, by what the stream tells:
/// - sequence only (H.264, VP8/VP9 without picture ids): the previous frame was delivered
///   and no packet is missing in between;
/// - picture ids: the previous picture was delivered (or, as above, sequence continuity);
///   an upper VP9 spatial layer needs its picture's lower layer;
/// - temporal layers (TL0PICIDX + TID): a base-layer frame needs the previous base-layer
///   frame; a frame of layer k needs its base-layer frame and, unless it is a layer sync
///   frame, that no frame of layers 1…k was lost since;
/// - VP9 flexible mode: every picture its P_DIFFs name was delivered (so a lost upper-layer
///   frame costs only the frames that name it, as with TL0PICIDX).
struct VideoDecodability: Sendable {
    private(set) var needsKeyframe = true
    private(set) var hasDelivered = false
    private(set) var lastConsumedWasDelivered = false
    /// Unwrapped picture ids delivered recently, by id modulo the ring size.
    private var delivered: [Int64]
    private static let ringSize = 256
    private var lastTL0: Int64?
    /// The lowest temporal layer that lost a frame since the last base-layer frame; UInt8.max for none.
    private var brokenLayer = UInt8.max

    private var pictureReference: (raw: UInt16, unwrapped: Int64, modulus: Int64)?
    private var tl0Reference: (raw: UInt8, unwrapped: Int64)?

    init() {
        delivered = Array(repeating: .min, count: Self.ringSize)
    }

    /// Forgets everything: the next frame must be a keyframe.
    mutating func reset() {
        self = VideoDecodability()
    }

    /// The unwrapped picture id of a frame (nearest to the last one seen).
    mutating func unwrapPictureID(_ raw: UInt16, modulus: Int64) -> Int64 {
        guard modulus > 0 else { return 0 }
        let value = Int64(raw) % modulus
        guard let reference = pictureReference, reference.modulus == modulus else {
            // First id, or a descriptor that changed its id length: start counting here.
            let unwrapped = (pictureReference?.unwrapped ?? 0) + (pictureReference == nil ? value : 1)
            pictureReference = (UInt16(value), unwrapped, modulus)
            return unwrapped
        }
        var delta = (value - Int64(reference.raw)) % modulus
        if delta < 0 { delta += modulus }
        if delta >= modulus / 2 { delta -= modulus }
        let unwrapped = reference.unwrapped + delta
        if delta > 0 { pictureReference = (UInt16(value), unwrapped, modulus) }
        return unwrapped
    }

    /// The unwrapped TL0PICIDX of a frame.
    mutating func unwrapTL0(_ raw: UInt8) -> Int64 {
        guard let reference = tl0Reference else {
            tl0Reference = (raw, Int64(raw))
            return Int64(raw)
        }
        let delta = Int64(Int8(bitPattern: raw &- reference.raw))
        let unwrapped = reference.unwrapped + delta
        if delta > 0 { tl0Reference = (raw, unwrapped) }
        return unwrapped
    }

    private func wasDelivered(_ pictureID: Int64) -> Bool {
        delivered[Int(truncatingIfNeeded: pictureID) & (Self.ringSize - 1)] == pictureID
    }

    /// Whether `frame` can be decoded now; `contiguous` says no packet is missing between the
    /// last frame consumed and this one, and the last frame consumed was delivered. With
    /// `afterGap`, packets before it are missing and would be given up to deliver it: frames of
    /// unknown layers lost, as ``gapLost()`` records.
    func isDecodable(_ frame: VideoFrameRecord, contiguous: Bool, afterGap: Bool) -> Bool {
        let brokenLayer = afterGap ? min(self.brokenLayer, 1) : self.brokenLayer
        let d = frame.description
        if d.isKeyframe && d.spatialLayer == 0 { return true }
        if needsKeyframe { return false }
        switch d.dependency {
        case .sequence:
            return contiguous
        case .picture:
            if d.spatialLayer > 0 { return wasDelivered(frame.pictureID) }
            return wasDelivered(frame.pictureID - 1) || contiguous
        case .temporal:
            if d.spatialLayer > 0 { return wasDelivered(frame.pictureID) }
            guard let lastTL0 else { return false }
            if d.temporalLayer == 0 { return lastTL0 == frame.tl0Index - 1 }
            return lastTL0 == frame.tl0Index && (d.layerSync || brokenLayer > d.temporalLayer)
        case .flexible:
            if d.referenceDiffs.isEmpty { return d.spatialLayer > 0 ? wasDelivered(frame.pictureID) : contiguous }
            return d.referenceDiffs.allSatisfy { wasDelivered(frame.pictureID - Int64($0)) }
        }
    }

    mutating func delivered(_ frame: VideoFrameRecord) {
        let d = frame.description
        hasDelivered = true
        lastConsumedWasDelivered = true
        if d.pictureIDModulus > 0 {
            delivered[Int(truncatingIfNeeded: frame.pictureID) & (Self.ringSize - 1)] = frame.pictureID
        }
        guard d.spatialLayer == 0 else { return }
        if d.isKeyframe {
            needsKeyframe = false
            brokenLayer = .max
            lastTL0 = d.dependency == .temporal ? frame.tl0Index : nil
        } else if d.dependency == .temporal && d.temporalLayer == 0 {
            lastTL0 = frame.tl0Index
            brokenLayer = .max
        }
    }

    /// A frame judged undecodable or thrown away: what depends on it cannot be decoded.
    mutating func dropped(_ frame: VideoFrameRecord) {
        lastConsumedWasDelivered = false
        let d = frame.description
        if d.isNonReference { return }
        if d.dependency == .temporal && d.temporalLayer > 0 {
            brokenLayer = min(brokenLayer, d.temporalLayer)
        } else if d.dependency == .flexible && d.temporalLayer > 0 {
            // No lower layer refers to it, and a frame that does names it in its P_DIFFs
            // and is judged by them: no keyframe is needed.
        } else {
            needsKeyframe = true
        }
    }

    /// Packets of unknown frames were given up before the next frame.
    mutating func gapLost() {
        lastConsumedWasDelivered = false
        // Their layers are unknown: every enhancement layer may have lost a reference.
        brokenLayer = min(brokenLayer, 1)
    }

    /// The decoder failed: its references are suspect until a keyframe.
    mutating func decoderFailed() {
        needsKeyframe = true
    }
}
