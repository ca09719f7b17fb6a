import ConferMedia

/// The scalability structure (SS) a VP9 payload descriptor carries when its V bit is set
/// (RFC 9628 §4.2.1): the number of spatial layers, optionally their resolutions, and
/// optionally the picture group that describes the temporal pattern in non-flexible mode.
///
/// ```
/// V:   | N_S |Y|G|-|-|-|
/// Y:   |     WIDTH     | (16 bits, N_S + 1 times, each followed by)
///      |     HEIGHT    | (16 bits)
/// G:   |      N_G      |
/// N_G: |  TID  |U| R |-|-|    (N_G times, each followed by)
///      |    P_DIFF     |      (R times)
/// ```
public struct VP9ScalabilityStructure: Hashable, Sendable {
    /// One spatial layer's picture size.
    public struct Resolution: Hashable, Sendable {
        /// Width in pixels.
        public var width: UInt16
        /// Height in pixels.
        public var height: UInt16
        /// A `width` × `height` layer.
        public init(width: UInt16, height: UInt16) {
            self.width = width
            self.height = height
        }
    }

    /// One picture of the picture group.
    public struct PictureGroupEntry: Hashable, Sendable {
        /// TID of the picture.
        public var temporalLayer: UInt8
        /// U: the picture is a switching-up point.
        public var switchingUpPoint: Bool
        /// P_DIFFs of the pictures it references (at most 3).
        public var referenceDiffs: [UInt8]
        /// An entry for a picture of `temporalLayer` referencing the given picture-id differences.
        public init(temporalLayer: UInt8, switchingUpPoint: Bool = false, referenceDiffs: [UInt8]) {
            self.temporalLayer = temporalLayer
            self.switchingUpPoint = switchingUpPoint
            self.referenceDiffs = referenceDiffs
        }
    }

    /// How many spatial layers the stream has (N_S + 1, 1…8).
    public var spatialLayerCount: Int
    /// Each spatial layer's resolution (Y bit), `spatialLayerCount` of them.
    public var resolutions: [Resolution]?
    /// The picture group (G bit), at most 255 entries.
    public var pictureGroup: [PictureGroupEntry]?

    /// A structure describing `spatialLayerCount` layers.
    public init(spatialLayerCount: Int = 1, resolutions: [Resolution]? = nil, pictureGroup: [PictureGroupEntry]? = nil) {
        self.spatialLayerCount = spatialLayerCount
        self.resolutions = resolutions
        self.pictureGroup = pictureGroup
    }

    /// Bytes the structure takes when written.
    public var encodedSize: Int {
        // The same clamping as `write`: 1…8 layers, 255 entries, 3 diffs each.
        var size = 1
        if resolutions != nil { size += 4 * max(1, min(spatialLayerCount, 8)) }
        if let pictureGroup {
            size += 1
            for entry in pictureGroup.prefix(255) { size += 1 + min(entry.referenceDiffs.count, 3) }
        }
        return size
    }

    /// Writes the structure at `offset` in `buffer`, which has room for `encodedSize` bytes;
    /// returns the offset after it. Counts beyond what the fields can hold are clamped.
    func write(to buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var at = offset
        let layers = max(1, min(spatialLayerCount, 8))
        buffer[at] = UInt8(layers - 1) << 5 | (resolutions != nil ? 0x10 : 0) | (pictureGroup != nil ? 0x08 : 0)
        at += 1
        if let resolutions {
            for layer in 0..<layers {
                let r = layer < resolutions.count ? resolutions[layer] : Resolution(width: 0, height: 0)
                buffer[at] = UInt8(r.width >> 8); buffer[at + 1] = UInt8(r.width & 0xFF)
                buffer[at + 2] = UInt8(r.height >> 8); buffer[at + 3] = UInt8(r.height & 0xFF)
                at += 4
            }
        }
        if let pictureGroup {
            let entries = min(pictureGroup.count, 255)
            buffer[at] = UInt8(entries); at += 1
            for entry in pictureGroup.prefix(entries) {
                let r = min(entry.referenceDiffs.count, 3)
                buffer[at] = (entry.temporalLayer & 0x07) << 5 | (entry.switchingUpPoint ? 0x10 : 0) | UInt8(r) << 2
                at += 1
                for diff in entry.referenceDiffs.prefix(r) { buffer[at] = diff; at += 1 }
            }
        }
        return at
    }

    /// The resolution of `layer` in a structure already checked by `read`, without building it.
    static func resolution(in payload: UnsafeRawBufferPointer, at offset: Int, layer: Int) -> Resolution? {
        let head = payload[offset]
        guard head & 0x10 != 0, layer <= Int(head >> 5) else { return nil }
        let p = offset + 1 + 4 * layer
        return Resolution(width: UInt16(payload[p]) << 8 | UInt16(payload[p + 1]),
                          height: UInt16(payload[p + 2]) << 8 | UInt16(payload[p + 3]))
    }

    /// Reads (or, with `build` false, only checks and skips) a structure at `offset`;
    /// returns it, if built, and the offset after it.
    static func read(_ payload: UnsafeRawBufferPointer, at offset: Int, build: Bool)
        throws(PayloadError) -> (structure: VP9ScalabilityStructure?, end: Int) {
        func need(_ count: Int, at offset: Int, _ field: String) throws(PayloadError) {
            if offset + count > payload.count { throw PayloadError(.truncated, codec: .vp9, field: field, offset: offset) }
        }
        var at = offset
        try need(1, at: at, "SS (N_S|Y|G)")
        let head = payload[at]; at += 1
        let layers = Int(head >> 5) + 1
        var structure = build ? VP9ScalabilityStructure(spatialLayerCount: layers) : nil
        if head & 0x10 != 0 {
            try need(4 * layers, at: at, "SS WIDTH/HEIGHT")
            if build {
                var resolutions: [Resolution] = []
                resolutions.reserveCapacity(layers)
                for layer in 0..<layers {
                    let p = at + 4 * layer
                    resolutions.append(Resolution(width: UInt16(payload[p]) << 8 | UInt16(payload[p + 1]),
                                                  height: UInt16(payload[p + 2]) << 8 | UInt16(payload[p + 3])))
                }
                structure!.resolutions = resolutions
            }
            at += 4 * layers
        }
        if head & 0x08 != 0 {
            try need(1, at: at, "SS N_G")
            let entries = Int(payload[at]); at += 1
            var group: [PictureGroupEntry] = []
            if build { group.reserveCapacity(entries) }
            for _ in 0..<entries {
                try need(1, at: at, "SS picture group TID|U|R")
                let e = payload[at]; at += 1
                let r = Int(e >> 2) & 0x03
                try need(r, at: at, "SS picture group P_DIFF")
                if build {
                    group.append(PictureGroupEntry(temporalLayer: e >> 5, switchingUpPoint: e & 0x10 != 0,
                                                   referenceDiffs: Array(payload[at..<at + r])))
                }
                at += r
            }
            if build { structure!.pictureGroup = group }
        }
        return (structure, at)
    }
}
