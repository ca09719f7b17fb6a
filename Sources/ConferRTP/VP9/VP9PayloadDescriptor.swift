import ConferMedia

/// The layer indices of a VP9 payload descriptor (L bit, RFC 9628 §4.2).
///
/// ```
/// L:   |  TID  |U| SID |D|
/// ```
public struct VP9LayerIndices: Hashable, Sendable {
    /// TID: temporal layer (0…7).
    public var temporalLayer: UInt8
    /// U: switching up point.
    public var switchingUpPoint: Bool
    /// SID: spatial layer (0…7).
    public var spatialLayer: UInt8
    /// D: the layer frame depends on the spatial layer below it in the same picture.
    public var interLayerDependent: Bool

    /// Indices with the given values.
    public init(temporalLayer: UInt8 = 0, switchingUpPoint: Bool = false, spatialLayer: UInt8 = 0,
                interLayerDependent: Bool = false) {
        self.temporalLayer = temporalLayer
        self.switchingUpPoint = switchingUpPoint
        self.spatialLayer = spatialLayer
        self.interLayerDependent = interLayerDependent
    }

    var byte: UInt8 {
        (temporalLayer & 0x07) << 5 | (switchingUpPoint ? 0x10 : 0) | (spatialLayer & 0x07) << 1 | (interLayerDependent ? 1 : 0)
    }
}

/// Up to three P_DIFFs of a flexible-mode VP9 descriptor, stored inline so parsing allocates nothing.
public struct VP9ReferenceDiffs: RandomAccessCollection, Hashable, Sendable {
    private var first: UInt8 = 0, second: UInt8 = 0, third: UInt8 = 0
    /// How many diffs (0…3).
    public private(set) var count: Int = 0

    /// No diffs.
    public init() {}

    /// The given diffs; only the first three are kept.
    public init(_ diffs: [UInt8]) {
        for diff in diffs.prefix(3) { append(diff) }
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of diffs.
    public var endIndex: Int { count }
    /// The diff at `position` (0 ..< count).
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "VP9ReferenceDiffs index out of range")
        switch position {
        case 0: return first
        case 1: return second
        default: return third
        }
    }

    mutating func append(_ diff: UInt8) {
        switch count {
        case 0: first = diff
        case 1: second = diff
        default: third = diff
        }
        count += 1
    }
}

/// The VP9 payload descriptor at the start of every VP9 RTP payload (RFC 9628 §4.2).
///
/// ```
///      0 1 2 3 4 5 6 7
///     |I|P|L|F|B|E|V|Z| (REQUIRED)
/// I:  |M| PICTURE ID  | (RECOMMENDED)
/// M:  | EXTENDED PID  | (RECOMMENDED)
/// L:  |  TID  |U| SID |D| (CONDITIONALLY RECOMMENDED)
///     |   TL0PICIDX   | (CONDITIONALLY REQUIRED: L and not F)
/// F/P:|  P_DIFF     |N| (up to 3 times, flexible mode)
/// V:  | SS            | (OPTIONAL)
/// ```
public struct VP9PayloadDescriptor: PayloadDescriptor, Hashable, Sendable {
    /// The picture id, 7 or 15 bits, when the I bit is set.
    public var pictureID: UInt16?
    /// How the picture id is written.
    public var pictureIDLength: PictureIDLength
    /// P: the picture is predicted from an earlier picture (clear on keyframes).
    public var isInterPicturePredicted: Bool
    /// F: flexible mode (references given as P_DIFFs) rather than non-flexible mode.
    public var isFlexibleMode: Bool
    /// B: the payload starts a layer frame.
    public var startsFrame: Bool
    /// E: the payload ends a layer frame.
    public var endsFrame: Bool
    /// Z: the frame is not used to predict upper spatial layers.
    public var isNotUpperReference: Bool
    /// Layer indices, when the L bit is set.
    public var layer: VP9LayerIndices?
    /// TL0PICIDX, present with L in non-flexible mode.
    public var tl0PictureIndex: UInt8?
    /// P_DIFFs, present in flexible mode when P is set.
    public var referenceDiffs: VP9ReferenceDiffs
    /// The scalability structure, when the V bit is set.
    public var scalabilityStructure: VP9ScalabilityStructure?
    /// Where the VP9 bitstream bytes sit in the payload (after the descriptor).
    public var bitstream: Range<Int>
    /// Where the scalability structure starts in the parsed payload, so its resolutions can
    /// be read without building ``scalabilityStructure``.
    var scalabilityStructureOffset: Int?

    /// A descriptor with the given fields; `bitstream` is filled by parsing.
    public init(pictureID: UInt16? = nil, pictureIDLength: PictureIDLength = .fifteenBits,
                isInterPicturePredicted: Bool, isFlexibleMode: Bool = false, startsFrame: Bool, endsFrame: Bool,
                isNotUpperReference: Bool = false, layer: VP9LayerIndices? = nil, tl0PictureIndex: UInt8? = nil,
                referenceDiffs: VP9ReferenceDiffs = VP9ReferenceDiffs(),
                scalabilityStructure: VP9ScalabilityStructure? = nil) {
        self.pictureID = pictureID
        self.pictureIDLength = pictureID == nil ? .none : pictureIDLength
        self.isInterPicturePredicted = isInterPicturePredicted
        self.isFlexibleMode = isFlexibleMode
        self.startsFrame = startsFrame
        self.endsFrame = endsFrame
        self.isNotUpperReference = isNotUpperReference
        self.layer = layer
        self.tl0PictureIndex = tl0PictureIndex
        self.referenceDiffs = referenceDiffs
        self.scalabilityStructure = scalabilityStructure
        self.bitstream = 0..<0
    }

    /// Whether the payload starts a keyframe: B set, P clear, and spatial layer 0.
    public var startsKeyframe: Bool {
        startsFrame && !isInterPicturePredicted && (layer?.spatialLayer ?? 0) == 0
    }

    /// Bytes the descriptor takes when written.
    public var encodedSize: Int {
        var size = 1
        size += pictureIDLength.encodedSize
        if layer != nil { size += isFlexibleMode ? 1 : 2 }
        if isFlexibleMode && isInterPicturePredicted { size += referenceDiffs.count }
        if let scalabilityStructure { size += scalabilityStructure.encodedSize }
        return size
    }

    /// Writes the descriptor at the start of `buffer`, which holds at least `encodedSize` bytes;
    /// returns the bytes written.
    @discardableResult
    public func write(to buffer: UnsafeMutableRawBufferPointer) -> Int {
        let i: UInt8 = pictureIDLength != .none ? 0x80 : 0
        let p: UInt8 = isInterPicturePredicted ? 0x40 : 0
        let l: UInt8 = layer != nil ? 0x20 : 0
        let f: UInt8 = isFlexibleMode ? 0x10 : 0
        let b: UInt8 = startsFrame ? 0x08 : 0
        let e: UInt8 = endsFrame ? 0x04 : 0
        let v: UInt8 = scalabilityStructure != nil ? 0x02 : 0
        buffer[0] = i | p | l | f | b | e | v | (isNotUpperReference ? 0x01 : 0)
        var at = 1
        let id = pictureID ?? 0
        pictureIDLength.write(id, to: buffer, at: &at)
        if let layer {
            buffer[at] = layer.byte; at += 1
            if !isFlexibleMode { buffer[at] = tl0PictureIndex ?? 0; at += 1 }
        }
        if isFlexibleMode && isInterPicturePredicted {
            for (index, diff) in referenceDiffs.enumerated() {
                buffer[at] = diff << 1 | (index + 1 < referenceDiffs.count ? 1 : 0); at += 1
            }
        }
        if let scalabilityStructure { at = scalabilityStructure.write(to: buffer, at: at) }
        return at
    }

    /// Reads the descriptor at the start of `payload` and checks at least one bitstream byte follows.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> VP9PayloadDescriptor {
        try parse(payload, buildingScalabilityStructure: true)
    }

    /// Reads the descriptor; with `buildingScalabilityStructure` false the SS is checked and
    /// skipped but not built, so parsing allocates nothing.
    static func parse(_ payload: UnsafeRawBufferPointer, buildingScalabilityStructure: Bool)
        throws(PayloadError) -> VP9PayloadDescriptor {
        func need(_ offset: Int, _ field: String) throws(PayloadError) {
            if offset >= payload.count { throw PayloadError(.truncated, codec: .vp9, field: field, offset: offset) }
        }
        try need(0, "payload descriptor (I|P|L|F|B|E|V|Z)")
        let b0 = payload[0]
        var d = VP9PayloadDescriptor(isInterPicturePredicted: b0 & 0x40 != 0, isFlexibleMode: b0 & 0x10 != 0,
                                     startsFrame: b0 & 0x08 != 0, endsFrame: b0 & 0x04 != 0,
                                     isNotUpperReference: b0 & 0x01 != 0)
        d.pictureIDLength = .none
        var at = 1
        if b0 & 0x80 != 0 {
            (d.pictureID, d.pictureIDLength) = try PictureIDLength.read(
                from: payload, at: &at, codec: .vp9, field: "PICTURE ID", extendedField: "EXTENDED PID")
        }
        if b0 & 0x20 != 0 {
            try need(at, "layer indices (TID|U|SID|D)")
            let l = payload[at]; at += 1
            d.layer = VP9LayerIndices(temporalLayer: l >> 5, switchingUpPoint: l & 0x10 != 0,
                                      spatialLayer: (l >> 1) & 0x07, interLayerDependent: l & 0x01 != 0)
            if !d.isFlexibleMode {
                try need(at, "TL0PICIDX")
                d.tl0PictureIndex = payload[at]; at += 1
            }
        }
        if d.isFlexibleMode && d.isInterPicturePredicted {
            while true {
                try need(at, "P_DIFF")
                let diff = payload[at]
                d.referenceDiffs.append(diff >> 1)
                if diff & 0x01 == 0 { break }
                if d.referenceDiffs.count == 3 {
                    throw PayloadError(.invalid, codec: .vp9, field: "P_DIFF N (more than 3 references)", offset: at)
                }
                at += 1
            }
            at += 1
        }
        if b0 & 0x02 != 0 {
            d.scalabilityStructureOffset = at
            let ss = try VP9ScalabilityStructure.read(payload, at: at, build: buildingScalabilityStructure)
            d.scalabilityStructure = ss.structure ?? VP9ScalabilityStructure()
            at = ss.end
        }
        try need(at, "VP9 payload")
        d.bitstream = at..<payload.count
        return d
    }
}
