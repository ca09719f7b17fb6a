/// A parsed RTP packet (RFC 3550 §5.1) read in place: every field is read from the
/// caller's bytes on demand, so parsing copies and allocates nothing.
///
/// The view borrows `bytes`: it is valid only while that memory is alive and unchanged
/// (inside a `withUnsafeBytes` closure, or while a receive buffer is held). Use
/// ``RTPPacket`` to keep a packet beyond that.
///
/// Parsing validates the whole header — version, CSRC list, extension block and every
/// RFC 8285 element length, padding — so every accessor afterwards is total.
public struct RTPPacketView {
    /// The whole packet, as given to ``init(_:)``.
    public let bytes: UnsafeRawBufferPointer
    /// Bytes before the payload: the fixed header, CSRCs and the extension block.
    public let headerSize: Int
    /// Bytes of padding at the end, including the count byte; zero when the P bit is clear.
    public let paddingSize: Int
    // Offsets of the extension data (after its 4-byte header); both zero without the X bit.
    @usableFromInline let extensionStart: Int
    @usableFromInline let extensionEnd: Int

    /// Parses and validates the packet in `bytes`.
    ///
    /// Inlinable, like the accessors, so parsing a packet costs a few loads and compares
    /// in the caller rather than a cross-module call per field.
    ///
    /// - Throws: the first problem found, in header order: ``RTPError/truncatedHeader(length:)``,
    ///   ``RTPError/badVersion(_:)``, ``RTPError/csrcListTruncated(count:length:)``,
    ///   ``RTPError/extensionHeaderTruncated(offset:)``,
    ///   ``RTPError/extensionLengthBeyondPacket(words:offset:)``,
    ///   ``RTPError/extensionElementTruncated(id:length:offset:)``,
    ///   ``RTPError/badPadding(count:offset:)``.
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) throws(RTPError) {
        let length = bytes.count
        guard length >= RTPHeader.fixedSize else { throw .truncatedHeader(length: length) }
        let first = bytes[0]
        guard first >> 6 == 2 else { throw .badVersion(first >> 6) }
        let csrcCount = Int(first & 0x0F)
        var position = RTPHeader.fixedSize + 4 * csrcCount
        guard position <= length else { throw .csrcListTruncated(count: csrcCount, length: length) }

        var extensionStart = 0
        var extensionEnd = 0
        if first & 0x10 != 0 {
            guard position + 4 <= length else { throw .extensionHeaderTruncated(offset: position) }
            let words = Int(bytes.u16(position + 2))
            extensionStart = position + 4
            extensionEnd = extensionStart + 4 * words
            guard extensionEnd <= length else {
                throw .extensionLengthBeyondPacket(words: words, offset: position)
            }
            if let form = RTPHeaderExtensionForm(profile: bytes.u16(position)) {
                try Self.validateElements(bytes, from: extensionStart, to: extensionEnd, form: form)
            }
            position = extensionEnd
        }

        var paddingSize = 0
        if first & 0x20 != 0 {
            let count = bytes[length - 1]
            guard count != 0, Int(count) <= length - position else {
                throw .badPadding(count: count, offset: length - 1)
            }
            paddingSize = Int(count)
        }
        self.bytes = bytes
        self.headerSize = position
        self.paddingSize = paddingSize
        self.extensionStart = extensionStart
        self.extensionEnd = extensionEnd
    }

    /// Walks every RFC 8285 element once so later iteration cannot meet a bad length.
    @usableFromInline
    static func validateElements(
        _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, form: RTPHeaderExtensionForm
    ) throws(RTPError) {
        let twoByte = form != .oneByte
        var position = start
        while true {
            switch RTPExtensionStep.at(position, end: end, twoByte: twoByte, in: bytes) {
            case .element(_, _, _, let next), .padding(let next):
                position = next
            case .end:
                return
            case .truncated(let id, let length, let offset):
                throw .extensionElementTruncated(id: id, length: length, offset: offset)
            }
        }
    }

    // MARK: Fixed header

    /// The P bit: the packet ends in padding.
    @inlinable public var hasPadding: Bool { bytes[0] & 0x20 != 0 }
    /// The X bit: a header extension follows the CSRCs.
    @inlinable public var hasExtension: Bool { bytes[0] & 0x10 != 0 }
    /// How many CSRCs follow the fixed header (0–15).
    @inlinable public var csrcCount: Int { Int(bytes[0] & 0x0F) }
    /// The M bit, whose meaning the payload format defines (end of frame for video).
    @inlinable public var marker: Bool { bytes[1] & 0x80 != 0 }
    /// The 7-bit payload type.
    @inlinable public var payloadType: UInt8 { bytes[1] & 0x7F }
    /// The 16-bit sequence number.
    @inlinable public var sequenceNumber: UInt16 { bytes.u16(2) }
    /// The 32-bit media timestamp.
    @inlinable public var timestamp: UInt32 { bytes.u32(4) }
    /// The synchronization source.
    @inlinable public var ssrc: UInt32 { bytes.u32(8) }

    /// The CSRC at `index` (0 ..< ``csrcCount``).
    @inlinable public func csrc(at index: Int) -> UInt32 { bytes.u32(RTPHeader.fixedSize + 4 * index) }

    // MARK: Extension

    /// The 16-bit profile of the header extension, or nil without the X bit.
    @inlinable public var extensionProfile: UInt16? {
        extensionEnd == 0 ? nil : bytes.u16(extensionStart - 4)
    }

    /// The RFC 8285 form of the header extension, or nil without one or for another profile.
    @inlinable public var extensionForm: RTPHeaderExtensionForm? {
        extensionProfile.flatMap(RTPHeaderExtensionForm.init(profile:))
    }

    /// The extension block's data after its 4-byte header (empty without the X bit).
    @inlinable public var extensionBlock: UnsafeRawBufferPointer {
        bytes.sub(extensionStart, extensionEnd - extensionStart)
    }

    /// The RFC 8285 elements, walked lazily; empty for other profiles.
    @inlinable public var extensions: RTPHeaderExtensionElements {
        guard let form = extensionForm else {
            return RTPHeaderExtensionElements(bytes: bytes, start: 0, end: 0, twoByte: false)
        }
        return RTPHeaderExtensionElements(
            bytes: bytes, start: extensionStart, end: extensionEnd, twoByte: form != .oneByte)
    }

    /// The data of the first element with `id`, or nil when absent.
    @inlinable public func extensionData(id: UInt8) -> UnsafeRawBufferPointer? {
        extensions.first(id: id)?.data
    }

    /// The element with `id` decoded as `T`, or nil when absent.
    ///
    /// - Throws: ``RTPError/badExtensionValue(id:length:offset:)`` when the element's size
    ///   is wrong for `T`.
    @inlinable public func extensionValue<T: RTPHeaderExtensionValue>(_ type: T.Type, id: UInt8) throws(RTPError) -> T? {
        guard let element = extensions.first(id: id) else { return nil }
        guard let value = T(extensionData: element.data) else {
            throw .badExtensionValue(id: id, length: element.data.count, offset: element.offset)
        }
        return value
    }

    // MARK: Payload

    /// The payload: the bytes between the header and the padding.
    @inlinable public var payload: UnsafeRawBufferPointer {
        bytes.sub(headerSize, bytes.count - headerSize - paddingSize)
    }
}

extension RTPPacketView {
    /// Parses the packet in `bytes` and hands its view to `body`, for callers that hold the
    /// packet in an array; the view must not escape `body`.
    @inlinable
    public static func withView<R>(of bytes: [UInt8], _ body: (RTPPacketView) -> R) throws(RTPError) -> R {
        let result: Result<R, RTPError> = bytes.withUnsafeBytes { raw in
            Result { () throws(RTPError) -> R in body(try RTPPacketView(raw)) }
        }
        return try result.get()
    }
}
