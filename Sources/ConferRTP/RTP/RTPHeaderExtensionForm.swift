/// Which RFC 8285 layout a header extension block uses.
public enum RTPHeaderExtensionForm: Hashable, Sendable {
    /// Profile 0xBEDE: one byte per element header, ids 1–14, 1–16 data bytes.
    case oneByte
    /// Profile 0x100X: two bytes per element header, ids 1–255, 0–255 data bytes; `appBits`
    /// is the low nibble X, which RFC 8285 leaves to the application.
    case twoByte(appBits: UInt8)

    /// The one-byte form's "defined by profile" value.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The two-byte form's profile with its application bits cleared.
    public static let twoByteProfile: UInt16 = 0x1000

    /// The 16-bit profile written in the extension header.
    @inlinable
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case .twoByte(let appBits): Self.twoByteProfile | UInt16(appBits & 0x0F)
        }
    }

    /// The form a profile value denotes, or nil for a profile that is not RFC 8285's.
    @inlinable
    public init?(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == Self.twoByteProfile {
            self = .twoByte(appBits: UInt8(profile & 0x0F))
        } else {
            return nil
        }
    }

    /// Whether an element with `id` and `length` data bytes can be written in this form.
    public func canRepresent(id: UInt8, length: Int) -> Bool {
        switch self {
        case .oneByte: (1 ... 14).contains(id) && (1 ... 16).contains(length)
        case .twoByte: id >= 1 && (0 ... 255).contains(length)
        }
    }
}

/// One step of walking an RFC 8285 extension block: shared by validation at parse time and
/// by lazy iteration, so both agree on every byte.
@usableFromInline
enum RTPExtensionStep {
    /// An element with `id` whose data is `count` bytes at `start`; the next step is at `next`.
    case element(id: UInt8, start: Int, count: Int, next: Int)
    /// A padding byte; continue at `next`.
    case padding(next: Int)
    /// The end of the elements: the block ended, or RFC 8285 says to stop here.
    case end
    /// The element at `offset` runs past `end`.
    case truncated(id: UInt8, length: Int, offset: Int)

    /// The step at `position` in a block ending at `end` (offsets into `bytes`).
    @usableFromInline @inline(__always)
    static func at(_ position: Int, end: Int, twoByte: Bool, in bytes: UnsafeRawBufferPointer) -> RTPExtensionStep {
        guard position < end else { return .end }
        let first = bytes[position]
        if first == 0 { return .padding(next: position + 1) }
        if twoByte {
            guard position + 2 <= end else { return .truncated(id: first, length: -1, offset: position) }
            let count = Int(bytes[position + 1])
            let start = position + 2
            guard start + count <= end else { return .truncated(id: first, length: count, offset: position) }
            return .element(id: first, start: start, count: count, next: start + count)
        }
        let id = first >> 4
        // RFC 8285 §4.2: id 15 is reserved and ends processing of the whole block. An id 0
        // with a non-zero length is not padding and not an element; libwebrtc stops there
        // too, keeping the elements before it.
        if id == 15 || id == 0 { return .end }
        let count = Int(first & 0x0F) + 1
        let start = position + 1
        guard start + count <= end else { return .truncated(id: id, length: count, offset: position) }
        return .element(id: id, start: start, count: count, next: start + count)
    }
}
