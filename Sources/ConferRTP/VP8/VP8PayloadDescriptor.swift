import ConferMedia

/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 §4.2).
///
/// ```
///      0 1 2 3 4 5 6 7
///     |X|R|N|S|R| PID | (REQUIRED)
/// X:  |I|L|T|K| RSV   | (OPTIONAL)
/// I:  |M| PictureID   | (OPTIONAL)
/// M:  | PictureID     | (OPTIONAL)
/// L:  |   TL0PICIDX   | (OPTIONAL)
/// T/K:|TID|Y| KEYIDX  | (OPTIONAL)
/// ```
public struct VP8PayloadDescriptor: PayloadDescriptor, Hashable, Sendable {
    /// N: the frame can be discarded without affecting any other frame.
    public var isNonReference: Bool
    /// S: the payload starts a VP8 partition.
    public var startsPartition: Bool
    /// PID: the index of the partition the payload's first byte belongs to (0…7).
    public var partitionIndex: UInt8
    /// The picture id, 7 or 15 bits, when the I bit is set.
    public var pictureID: UInt16?
    /// How the picture id is written.
    public var pictureIDLength: PictureIDLength
    /// TL0PICIDX, when the L bit is set.
    public var tl0PictureIndex: UInt8?
    /// TID, when the T bit is set.
    public var temporalLayer: UInt8?
    /// Y: the frame depends only on the base temporal layer (meaningful with T).
    public var layerSync: Bool
    /// KEYIDX, when the K bit is set.
    public var keyIndex: UInt8?
    /// Whether the VP8 payload header says keyframe: only known on a payload that starts
    /// partition 0 (S set, PID 0), from the inverse keyframe bit P of the frame tag.
    public var isKeyframe: Bool
    /// Where the VP8 bitstream bytes sit in the payload (after the descriptor).
    public var bitstream: Range<Int>

    /// A descriptor with the given fields; `bitstream` and `isKeyframe` are filled by parsing.
    public init(isNonReference: Bool = false, startsPartition: Bool, partitionIndex: UInt8 = 0,
                pictureID: UInt16? = nil, pictureIDLength: PictureIDLength = .fifteenBits,
                tl0PictureIndex: UInt8? = nil, temporalLayer: UInt8? = nil, layerSync: Bool = false,
                keyIndex: UInt8? = nil) {
        self.isNonReference = isNonReference
        self.startsPartition = startsPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.pictureIDLength = pictureID == nil ? .none : pictureIDLength
        self.tl0PictureIndex = tl0PictureIndex
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.keyIndex = keyIndex
        self.isKeyframe = false
        self.bitstream = 0..<0
    }

    /// Whether the payload is the first of a frame: S set and PID 0.
    public var startsFrame: Bool { startsPartition && partitionIndex == 0 }

    private var hasExtension: Bool {
        pictureIDLength != .none || tl0PictureIndex != nil || temporalLayer != nil || keyIndex != nil
    }

    /// Bytes the descriptor takes when written.
    public var encodedSize: Int {
        guard hasExtension else { return 1 }
        var size = 2
        size += pictureIDLength.encodedSize
        if tl0PictureIndex != nil { size += 1 }
        if temporalLayer != nil || keyIndex != nil { size += 1 }
        return size
    }

    /// Writes the descriptor at the start of `buffer`, which holds at least `encodedSize` bytes;
    /// returns the bytes written.
    @discardableResult
    public func write(to buffer: UnsafeMutableRawBufferPointer) -> Int {
        let extended = hasExtension
        buffer[0] = (extended ? 0x80 : 0) | (isNonReference ? 0x20 : 0) | (startsPartition ? 0x10 : 0) | (partitionIndex & 0x07)
        guard extended else { return 1 }
        let hasTK = temporalLayer != nil || keyIndex != nil
        buffer[1] = (pictureIDLength != .none ? 0x80 : 0) | (tl0PictureIndex != nil ? 0x40 : 0)
            | (temporalLayer != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0)
        var at = 2
        let id = pictureID ?? 0
        pictureIDLength.write(id, to: buffer, at: &at)
        if let tl0PictureIndex { buffer[at] = tl0PictureIndex; at += 1 }
        if hasTK {
            buffer[at] = ((temporalLayer ?? 0) & 0x03) << 6 | (layerSync ? 0x20 : 0) | ((keyIndex ?? 0) & 0x1F)
            at += 1
        }
        return at
    }

    /// Reads the descriptor at the start of `payload` and checks at least one bitstream byte follows.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> VP8PayloadDescriptor {
        func need(_ offset: Int, _ field: String) throws(PayloadError) {
            if offset >= payload.count { throw PayloadError(.truncated, codec: .vp8, field: field, offset: offset) }
        }
        try need(0, "payload descriptor")
        let b0 = payload[0]
        var d = VP8PayloadDescriptor(isNonReference: b0 & 0x20 != 0, startsPartition: b0 & 0x10 != 0,
                                     partitionIndex: b0 & 0x07)
        d.pictureIDLength = .none
        var at = 1
        if b0 & 0x80 != 0 {
            try need(at, "extension bits (I|L|T|K)")
            let x = payload[at]; at += 1
            if x & 0x80 != 0 {
                (d.pictureID, d.pictureIDLength) = try PictureIDLength.read(
                    from: payload, at: &at, codec: .vp8, field: "PictureID", extendedField: "PictureID (extended)")
            }
            if x & 0x40 != 0 {
                try need(at, "TL0PICIDX")
                d.tl0PictureIndex = payload[at]; at += 1
            }
            if x & 0x30 != 0 {
                try need(at, "TID|Y|KEYIDX")
                let t = payload[at]; at += 1
                if x & 0x20 != 0 {
                    d.temporalLayer = t >> 6
                    d.layerSync = t & 0x20 != 0
                }
                if x & 0x10 != 0 { d.keyIndex = t & 0x1F }
            }
        }
        try need(at, "VP8 payload header")
        d.bitstream = at..<payload.count
        // RFC 7741 §4.3: the P bit of the frame tag is 0 on keyframes.
        d.isKeyframe = d.startsFrame && payload[at] & 0x01 == 0
        return d
    }
}
