public import ConferMedia

/// A typed RTP header extension: how its data bytes decode and encode.
///
/// The packet carries only a local id; which type an id means is negotiated (SDP
/// `a=extmap`) and kept in an ``RTPExtensionMap`` under the type's ``uri``.
public protocol RTPHeaderExtensionValue: Hashable, Sendable {
    /// The URI that names this extension in signaling.
    static var uri: String { get }
    /// How many data bytes the element carries.
    static var dataSize: Int { get }
    /// Decodes `extensionData`, or returns nil when its size is not ``dataSize``.
    init?(extensionData: UnsafeRawBufferPointer)
    /// Encodes the value into `buffer`, which holds exactly ``dataSize`` bytes.
    func write(to buffer: UnsafeMutableRawBufferPointer)
}

extension RTPHeaderExtensionValue {
    /// The encoded data bytes (allocates; for building owning packets).
    public var extensionData: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.dataSize)
        out.withUnsafeMutableBytes { write(to: $0) }
        return out
    }
}

/// The audio level of the packet's audio (RFC 6464): how loud it is, in −dBov, and
/// whether the sender's voice activity detector thinks someone is speaking.
public struct RTPAudioLevel: RTPHeaderExtensionValue {
    /// "urn:ietf:params:rtp-hdrext:ssrc-audio-level".
    public static let uri = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
    /// One byte: V bit and a 7-bit level.
    public static let dataSize = 1

    /// The V bit: the sender judged this packet to contain voice.
    public var voiceActivity: Bool
    /// The level as a positive number of dB below overload: 0 is loudest, 127 is silence.
    public var level: UInt8

    /// A level of `level` −dBov (values above 127 are clamped to 127, i.e. silence).
    @inlinable
    public init(level: UInt8, voiceActivity: Bool) {
        self.level = min(level, 127)
        self.voiceActivity = voiceActivity
    }

    /// The level in dBov: 0 for full scale down to −127.
    public var dBov: Int { -Int(level) }

    @inlinable
    public init?(extensionData data: UnsafeRawBufferPointer) {
        guard data.count == Self.dataSize else { return nil }
        self.init(level: data[0] & 0x7F, voiceActivity: data[0] & 0x80 != 0)
    }

    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = (voiceActivity ? 0x80 : 0) | (level & 0x7F)
    }
}

/// The sender's clock when the packet left, as 24-bit 6.18 fixed-point seconds that wrap
/// every 64 s (WebRTC's abs-send-time, used by receive-side bandwidth estimation).
public struct RTPAbsoluteSendTime: RTPHeaderExtensionValue {
    /// "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time".
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Three bytes, big-endian.
    public static let dataSize = 3
    /// Length of the cycle after which the value wraps.
    public static let wrapPeriod = TimeDelta(microseconds: 64_000_000)

    /// The 24-bit value: seconds in the top 6 bits, 1/2^18 s fractions in the low 18.
    public var rawValue: UInt32

    /// A value from its 24-bit form (higher bits are discarded).
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }

    /// The send time `time`, rounded to the nearest 1/2^18 s and reduced modulo 64 s.
    public init(_ time: Timestamp) {
        let period = Self.wrapPeriod.microseconds
        var us = time.microseconds % period
        if us < 0 { us += period }
        self.init(rawValue: UInt32(truncatingIfNeeded: ((us << 18) + 500_000) / 1_000_000))
    }

    /// The time since the start of the current 64-second cycle, to the nearest microsecond.
    public var sinceWrap: TimeDelta {
        TimeDelta(microseconds: (Int64(rawValue) * 1_000_000 + (1 << 17)) >> 18)
    }

    @inlinable
    public init?(extensionData data: UnsafeRawBufferPointer) {
        guard data.count == Self.dataSize else { return nil }
        self.init(rawValue: data.u24(0))
    }

    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer.put24(rawValue, at: 0)
    }
}

/// The transport-wide sequence number that transport-cc feedback refers to
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2).
public struct RTPTransportSequenceNumber: RTPHeaderExtensionValue {
    /// "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01".
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// Two bytes, big-endian.
    public static let dataSize = 2

    /// The 16-bit sequence number, counting every packet on the transport.
    public var value: UInt16

    /// The sequence number `value`.
    @inlinable
    public init(_ value: UInt16) { self.value = value }

    @inlinable
    public init?(extensionData data: UnsafeRawBufferPointer) {
        guard data.count == Self.dataSize else { return nil }
        value = data.u16(0)
    }

    public func write(to buffer: UnsafeMutableRawBufferPointer) {
        buffer.put16(value, at: 0)
    }
}
