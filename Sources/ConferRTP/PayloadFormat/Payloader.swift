public import ConferMedia

/// Splits encoded frames into RTP payloads for one codec (pion/rtp's `Payloader`).
///
/// A payloader sees only payload bytes: the bytes after the RTP header. The caller adds
/// the header with the sequence number and timestamp and sets the marker bit it is told.
/// It owns a scratch buffer that it reuses, so packetizing a frame allocates nothing once
/// the buffer has grown to the largest payload size asked for.
public protocol Payloader {
    /// The codec whose frames this payloader splits.
    static var codec: Codec { get }

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes and hands each to
    /// `emit` in order, with the marker flag to set on its RTP packet.
    ///
    /// The buffer passed to `emit` is valid only during that call and is reused for the
    /// next payload. Every reason the frame cannot be packetized is found before the first
    /// payload is emitted, so on `.payload` nothing was emitted.
    mutating func payload<EmitFailure: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int,
        _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(EmitFailure) -> Void
    ) throws(PayloaderFailure<EmitFailure>)
}

extension Payloader {
    /// Splits `frame` into newly allocated payloads of at most `maxPayloadSize` bytes; the
    /// RTP marker belongs on the last one only (Opus aside, see ``OpusPayloader``).
    public mutating func payloads(_ frame: EncodedFrame, maxPayloadSize: Int) throws(PayloadError) -> [[UInt8]] {
        var result: [[UInt8]] = []
        do {
            try payload(frame, maxPayloadSize: maxPayloadSize) { bytes, _ in result.append(Array(bytes)) }
        } catch {
            throw error.payloadError
        }
        return result
    }

    /// Like ``payloads(_:maxPayloadSize:)`` but keeps each payload's marker flag.
    public mutating func markedPayloads(_ frame: EncodedFrame, maxPayloadSize: Int) throws(PayloadError) -> [(payload: [UInt8], marker: Bool)] {
        var result: [(payload: [UInt8], marker: Bool)] = []
        do {
            try payload(frame, maxPayloadSize: maxPayloadSize) { bytes, marker in result.append((Array(bytes), marker)) }
        } catch {
            throw error.payloadError
        }
        return result
    }
}

/// Where a payload sits in its frame, as far as frame assembly needs to know.
public struct PayloadBoundaries: Hashable, Sendable {
    /// The payload begins a partition (pion's `IsPartitionHead`): a VP8 frame, a VP9 layer
    /// frame, an H.264 NAL unit, an Opus packet.
    public var isPartitionHead: Bool
    /// The payload certainly begins a new frame even when the packet before it is missing.
    /// Equal to `isPartitionHead` except for H.264, where a NAL unit start is a frame start
    /// only for parameter sets, SEI, access unit delimiters and a picture's first slice.
    public var isFrameHead: Bool
    /// The payload ends a frame (pion's `IsPartitionTail`): marker bit, VP9 E bit.
    public var isPartitionTail: Bool

    /// Boundaries with the given flags.
    public init(isPartitionHead: Bool, isFrameHead: Bool, isPartitionTail: Bool) {
        self.isPartitionHead = isPartitionHead
        self.isFrameHead = isFrameHead
        self.isPartitionTail = isPartitionTail
    }
}

/// Reads RTP payloads of one codec back into its bitstream (pion/rtp's `Depacketizer`).
///
/// `parse`, `isPartitionHead` and `isPartitionTail` look at one payload. Frame assembly
/// (ConferJitter's `VideoJitterBuffer`, which finds frames by ``boundaries(of:marker:)``) calls `beginFrame`, then `append` for each payload of the frame in
/// sequence order, then `endFrame`; those may keep state between payloads (an open H.264
/// FU-A fragment) and fill the codec's fields of the frame (keyframe flag, VP8/VP9 info,
/// H.264 NAL unit ranges). None of them allocates once the frame's buffers have grown.
public protocol Depacketizer {
    /// What `parse` reads from one payload: the payload descriptor and the range of codec
    /// bitstream bytes it carries.
    associatedtype Descriptor: Sendable

    /// The codec whose payloads this reads.
    static var codec: Codec { get }

    /// Reads and validates one payload's descriptor.
    func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> Descriptor
    /// Whether `payload` begins a partition. False for anything unparseable.
    func isPartitionHead(_ payload: UnsafeRawBufferPointer) -> Bool
    /// Whether a payload with this `marker` ends a frame. False for anything unparseable.
    func isPartitionTail(marker: Bool, payload: UnsafeRawBufferPointer) -> Bool
    /// Validates `payload` and says where it sits in its frame, without allocating.
    func boundaries(of payload: UnsafeRawBufferPointer, marker: Bool) throws(PayloadError) -> PayloadBoundaries

    /// Prepares `frame` for a new frame's payloads: resets the codec fields this
    /// depacketizer fills (the assembler has already emptied `frame.data`).
    mutating func beginFrame(_ frame: inout EncodedFrame)
    /// Appends the bitstream `payload` carries to `frame.data` and fills the codec fields
    /// the payload tells about.
    mutating func append(_ payload: UnsafeRawBufferPointer, to frame: inout EncodedFrame) throws(PayloadError)
    /// Checks that the frame's last payload left nothing half done.
    mutating func endFrame(_ frame: inout EncodedFrame) throws(PayloadError)
}

/// A payload descriptor that reads itself from the start of one payload.
public protocol PayloadDescriptor: Sendable {
    /// Reads and validates the descriptor of `payload`.
    static func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> Self
}

extension Depacketizer where Descriptor: PayloadDescriptor {
    /// Reads and validates one payload's descriptor.
    public func parse(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> Descriptor {
        try Descriptor.parse(payload)
    }
}

extension Depacketizer {
    /// Reads one payload's descriptor from an array.
    public func parse(_ payload: [UInt8]) throws(PayloadError) -> Descriptor {
        let result: Result<Descriptor, PayloadError> = payload.withUnsafeBytes { bytes in
            do throws(PayloadError) { return .success(try parse(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Reassembles one frame from its payloads, given in sequence order, with the marker
    /// flags they came with; for tests and tools (frame assembly from packets is ConferJitter's `VideoJitterBuffer`).
    public mutating func depacketize(_ payloads: [[UInt8]], timestamp: Timestamp = .zero) throws(PayloadError) -> EncodedFrame {
        var frame = EncodedFrame(codec: Self.codec, timestamp: timestamp)
        beginFrame(&frame)
        for payload in payloads {
            var failure: PayloadError?
            payload.withUnsafeBytes { bytes in
                do throws(PayloadError) { try append(bytes, to: &frame) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try endFrame(&frame)
        return frame
    }
}

extension Depacketizer {
    /// Default: the partition-head flag of ``boundaries(of:marker:)``.
    public func isPartitionHead(_ payload: UnsafeRawBufferPointer) -> Bool {
        (try? boundaries(of: payload, marker: false))?.isPartitionHead ?? false
    }

    /// Default: the partition-tail flag of ``boundaries(of:marker:)``.
    public func isPartitionTail(marker: Bool, payload: UnsafeRawBufferPointer) -> Bool {
        (try? boundaries(of: payload, marker: marker))?.isPartitionTail ?? false
    }
}
