public import ConferMedia

/// Reassembles whole frames from the RTP payloads of one SSRC, in order or slightly
/// reordered, with a codec's ``Depacketizer``.
///
/// A frame is complete when every sequence number from a frame head to a partition tail
/// (marker bit, VP9 E bit) is present with one RTP timestamp. Frames come out in sequence
/// order: a complete frame waits behind a missing packet until `reorderWindow` newer
/// packets have arrived, then the frames before it are given up and counted. It is a plain
/// value with no clock and no I/O (GStreamer's jitter buffer keeps its data structure
/// apart from the element that drives it): call ``insert(sequenceNumber:timestamp:marker:payload:)``
/// for each packet, then ``nextFrame()`` until it returns nil. A jitter buffer that waits
/// in time rather than packets can call ``skipMissing()``.
///
/// Memory is bounded: at most `capacity` packets are buffered (so no frame may span more);
/// a packet further ahead forces the oldest frames out, counted in ``stats``. A run of
/// packets from far behind is taken as a sender that restarted its sequence numbers. Payload buffers and the emitted
/// frame's storage are reused, so in steady state assembly allocates nothing, provided
/// the caller lets go of each frame before asking for the next.
public struct FrameAssembler<D: Depacketizer> {
    private var buffer: FrameAssemblyBuffer
    private var depacketizer: D
    /// The frame handed out last; its buffers are reused for the next.
    private var frame: EncodedFrame
    private var lastRTPTimestamp: UInt32 = 0
    private var extendedTimestamp: Int64 = 0
    private var firstExtendedTimestamp: Int64?

    /// An assembler for `depacketizer`'s codec buffering up to `capacity` packets (rounded
    /// up to a power of two, 16…32768) and waiting out reordering of `reorderWindow` packets.
    public init(depacketizer: D, capacity: Int = 512, reorderWindow: Int = 16) {
        self.buffer = FrameAssemblyBuffer(capacity: capacity, reorderWindow: reorderWindow)
        self.depacketizer = depacketizer
        self.frame = EncodedFrame(codec: D.codec)
    }

    /// The most packets buffered at once (a power of two).
    public var capacity: Int { buffer.capacity }
    /// How many newer packets may arrive after a gap before the packet missing there is
    /// taken as lost.
    public var reorderWindow: Int { buffer.reorderWindow }
    /// What happened so far.
    public var stats: FrameAssemblerStats { buffer.stats }
    /// How many packets are buffered.
    public var bufferedPacketCount: Int { buffer.pendingCount }

    /// Buffers one packet's payload. An empty payload is taken as RTP padding: it fills its
    /// sequence number and belongs to no frame.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                payload: UnsafeRawBufferPointer) -> FrameAssemblerInsertion {
        var boundaries = PayloadBoundaries(isPartitionHead: false, isFrameHead: false, isPartitionTail: false)
        if !payload.isEmpty {
            do {
                boundaries = try depacketizer.boundaries(of: payload, marker: marker)
            } catch {
                buffer.stats.packetsMalformed += 1
                return .malformed(error)
            }
        }
        return buffer.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, boundaries: boundaries, payload: payload)
    }

    /// Buffers one packet's payload from an array.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                                payload: [UInt8]) -> FrameAssemblerInsertion {
        payload.withUnsafeBytes { insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: $0) }
    }

    /// The next complete frame in sequence order, or nil until more packets arrive.
    ///
    /// Its `timestamp` is the RTP timestamp relative to the first emitted frame's, at the
    /// codec's clock rate. Width and height carry over from the last frame that told them.
    public mutating func nextFrame() -> EncodedFrame? {
        while let run = buffer.nextRun() {
            if let frame = assemble(run.first, through: run.last) { return frame }
        }
        return nil
    }

    /// Stops waiting for the oldest missing packet: the frames before the next frame start
    /// are given up now. For a jitter buffer that decides by time.
    public mutating func skipMissing() {
        buffer.skipMissing()
    }

    /// Drops everything buffered (counted as discarded) and starts again with the next packet.
    public mutating func reset() {
        buffer.reset()
        firstExtendedTimestamp = nil
    }

    /// Depacketizes the packets from `first` through `last` into the reused frame.
    private mutating func assemble(_ first: UInt16, through last: UInt16) -> EncodedFrame? {
        // Take the frame and depacketizer out of `self` so they are uniquely referenced
        // (no copy-on-write) while the buffer is read.
        var output = frame
        frame = EncodedFrame(codec: D.codec)
        var reader = depacketizer
        output.codec = D.codec
        output.data.removeAll(keepingCapacity: true)
        output.duration = .zero
        reader.beginFrame(&output)
        var failure: PayloadError?
        var sequenceNumber = first
        while failure == nil {
            failure = buffer.withPayload(of: sequenceNumber) { payload -> PayloadError? in
                do throws(PayloadError) {
                    try reader.append(payload, to: &output)
                    return nil
                } catch {
                    return error
                }
            }
            if sequenceNumber == last { break }
            sequenceNumber &+= 1
        }
        if failure == nil {
            do throws(PayloadError) { try reader.endFrame(&output) } catch { failure = error }
        }
        let rtpTimestamp = buffer.timestamp(of: first)
        buffer.finishRun(through: last)
        depacketizer = reader
        guard failure == nil else {
            frame = output
            buffer.stats.framesMalformed += 1
            return nil
        }
        output.timestamp = mediaTimestamp(rtpTimestamp)
        frame = output
        buffer.stats.framesEmitted += 1
        return output
    }

    /// `rtpTimestamp` unwrapped and made relative to the first emitted frame's.
    private mutating func mediaTimestamp(_ rtpTimestamp: UInt32) -> Timestamp {
        if let first = firstExtendedTimestamp {
            extendedTimestamp += Int64(Int32(bitPattern: rtpTimestamp &- lastRTPTimestamp))
            lastRTPTimestamp = rtpTimestamp
            return Timestamp.fromTicks(extendedTimestamp - first, rate: D.codec.rtpClockRate)
        }
        lastRTPTimestamp = rtpTimestamp
        extendedTimestamp = Int64(rtpTimestamp)
        firstExtendedTimestamp = extendedTimestamp
        return .zero
    }
}

extension FrameAssembler: Sendable where D: Sendable {}
