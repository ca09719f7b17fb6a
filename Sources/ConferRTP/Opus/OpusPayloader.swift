public import ConferMedia

/// Puts each Opus packet into one RTP payload, as it is (RFC 7587 §4.2).
///
/// Opus packets are never split, so a frame larger than the payload size is an error.
/// The marker is not used for Opus except, optionally, on the first packet after a
/// discontinuous-transmission pause (RFC 7587 §4.1 allows that, as RFC 3551 does for
/// the start of a talkspurt).
public struct OpusPayloader: Payloader, Sendable {
    /// The codec this handles.
    public static var codec: Codec { .opus }

    /// Whether to set the marker on the first packet after DTX silence. A packet of at
    /// most two bytes (a TOC byte and no audio) is taken as DTX silence, as libopus emits it.
    public var marksTalkspurts: Bool
    /// Set to mark the next packet whatever it follows (say, after the app muted and
    /// unmuted); cleared once that packet is emitted.
    public var marksNextPacket: Bool
    /// Whether the last packet was DTX silence.
    private var inSilence: Bool = false

    /// A payloader; by default it never sets the marker.
    public init(marksTalkspurts: Bool = false) {
        self.marksTalkspurts = marksTalkspurts
        self.marksNextPacket = false
    }

    /// The largest payload a DTX silence packet takes.
    static let silencePacketSize = 2

    /// Splits `frame` into payloads of at most `maxPayloadSize` bytes; see ``Payloader/payload(_:maxPayloadSize:_:)``.
    public mutating func payload<EmitFailure: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int,
        _ emit: (_ payload: UnsafeRawBufferPointer, _ marker: Bool) throws(EmitFailure) -> Void
    ) throws(PayloaderFailure<EmitFailure>) {
        try PayloaderFailure<EmitFailure>.requireData(of: frame, codec: .opus)
        guard frame.data.count <= maxPayloadSize else {
            throw .payload(PayloadError(.doesNotFit, codec: .opus, field: "Opus packet larger than maxPayloadSize",
                                        offset: maxPayloadSize))
        }
        let silent = frame.data.count <= Self.silencePacketSize
        let marker = marksNextPacket || (marksTalkspurts && inSilence && !silent)
        // See VP8Payloader: only `emit` throws inside, so the cast back is exact.
        do {
            try frame.data.withUnsafeBytes { bytes in try emit(bytes, marker) }
        } catch {
            throw .emit(error as! EmitFailure)
        }
        inSilence = silent
        marksNextPacket = false
    }
}
