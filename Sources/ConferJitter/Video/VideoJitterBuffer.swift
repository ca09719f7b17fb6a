public import ConferMedia
public import ConferRTP

/// A complete frame waiting in decode order, its packets still in the ring.
struct VideoFrameRecord: Sendable {
    var first: Int64
    var last: Int64
    var localCapture: Timestamp
    var mediaTime: Timestamp
    var firstArrival: Timestamp
    var description: VideoFrameDescription
    var pictureID: Int64
    var tl0Index: Int64
}

/// The video jitter buffer of one received stream (one SSRC): frame assembly, reordering,
/// loss recovery by NACK, keyframe requests, decodability, and render timing from an
/// adaptive target delay.
///
/// It is the data structure only, in the style of GStreamer's `rtpjitterbuffer`: a value
/// with no I/O, no threads and no clock. Its driver passes the time to every call, does what
/// the returned ``VideoJitterBufferAction``s say (send a NACK or a keyframe request, decode a
/// frame) and calls ``poll(at:)`` again at ``nextWakeup``.
///
/// How it works, in order:
/// - **Packets** go into a ring by unwrapped sequence number; duplicates, late packets,
///   malformed payloads and far-away sequence numbers are dropped and counted. Four far
///   packets in a row that follow each other mean the sender restarted its numbering.
/// - **Frames** are found when their last missing packet arrives: every packet from a frame
///   head to a partition tail (marker, VP9 E bit), contiguous, one timestamp (the codec's
///   ``Depacketizer`` says which payload is which). They wait in decode order with their
///   packets; a frame is depacketized only when it is delivered.
/// - **Decodability**: see `VideoDecodability` — keyframes, picture-id chains, temporal
///   layers, H.264 sequence continuity. A gap before a frame that needs what was in it is
///   waited for (while NACKs run) until the frame is ``VideoJitterBufferConfiguration/maxLateness``
///   past its render time or a packet in the gap is given up; then the gap becomes a lost
///   item, the frames that depended on it are dropped, and a keyframe is requested
///   (throttled by ``KeyframeRequester``).
/// - **NACK** (``NackTracker``): missing numbers are asked for once they have been missing
///   longer than the reordering seen, then every RTT, up to 10 times or until they are older
///   than ``VideoJitterBufferConfiguration/maxDelay``. Retransmissions (``RTXPacket``) fill
///   their holes and are counted apart.
/// - **Timing**: a frame's render time is its capture time mapped to local time (through the
///   least-delayed frame) plus the target delay: the 95th percentile of recent delay
///   variation (``JitterEstimator``), plus — while retransmissions are in use — the time one
///   takes (an RTT, and a frame interval for noticing a frame's lost last packet), plus a
///   render margin. It rises at once, decays slowly, and is capped in milliseconds and in
///   frames; hitting the cap is counted. A frame that completes after its render time is
///   delivered at once (it is still needed as a reference).
///
/// Memory is bounded by the configuration: the packet ring, the NACK list and the frame
/// queue never grow past it, whatever arrives. In steady state an insert allocates nothing,
/// provided the driver lets go of the returned actions (and delivered frames) before the
/// next call: the action array, NACK lists and frame buffers are reused.
public struct VideoJitterBuffer: Sendable {
    /// The settings in force.
    public let configuration: VideoJitterBufferConfiguration
    /// The codec of the stream.
    public var codec: Codec { reader.codec }
    /// The next time ``poll(at:)`` has something to do (a frame due, a NACK to repeat, a
    /// keyframe request to repeat, a wait to end), or nil when only a packet can change anything.
    public internal(set) var nextWakeup: Timestamp?
    /// The RTT used for NACK retries, keyframe request throttling and the target delay.
    public private(set) var rtt: TimeDelta

    var reader: VideoPayloadReader
    var packets: VideoPacketRing
    var received: VideoReceivedWindow
    /// Complete frames, ascending by first sequence number, all at or after `nextSequenceNumber`.
    var frames: [VideoFrameRecord] = []
    var decodability = VideoDecodability()
    var timing: VideoTiming
    var target = VideoTargetDelay()
    var estimator: JitterEstimator
    var nack: NackTracker
    var nackWakeup: Timestamp?
    var nackWakeupIsStale = false
    var keyframes: KeyframeRequester
    var freezes = FreezeDetector()
    var counters = VideoReceiveStatistics()
    var currentTarget = TimeDelta.zero
    var frameWakeup: Timestamp?

    var isStarted = false
    var ssrc: UInt32?
    /// The decode position: every sequence number before it is delivered, dropped or given up.
    var nextSequenceNumber: Int64 = 0
    var newestSequenceNumber: Int64 = 0
    var firstSequenceNumber: Int64 = 0
    /// Whether the packet before `nextSequenceNumber` ended a frame.
    var nextIsFrameBoundary = false
    /// Before the first frame is consumed, packets down to just above this may still extend the stream's start.
    var startFloor: Int64 = 0
    var hasConsumedFrame = false
    var lastConsumedMediaTime = Timestamp.zero
    /// Consecutive packets far outside the window, and the last of them.
    var farRun = 0
    var lastFarSequenceNumber: UInt16 = 0
    /// Sequence numbers the NACK tracker gave up, at or after `nextSequenceNumber`, ascending.
    var lostMarkers: [Int64] = []
    var lastRetransmittedFrameAt: Timestamp?
    var expectedBeforeRestart = 0
    var uniqueRetransmissions = 0
    var lastTransit: UInt32?
    var jitterTicks = 0.0

    var actions: [VideoJitterBufferAction] = []
    var outputs: [EncodedFrame] = []
    var outputsUsed = 0

    /// A buffer for a `codec` stream: VP8, VP9 or H.264.
    ///
    /// - Throws: ``VideoJitterBufferErrorKind/notAVideoCodec`` for Opus.
    public init(codec: Codec, configuration: VideoJitterBufferConfiguration = VideoJitterBufferConfiguration())
        throws(VideoJitterBufferError) {
        reader = try VideoPayloadReader(codec: codec)
        var nackConfiguration = configuration.nack
        nackConfiguration.maxAge = configuration.maxDelay
        self.configuration = configuration
        packets = VideoPacketRing(capacity: configuration.packetCapacity, maxPayloadSize: configuration.maxPayloadSize)
        received = VideoReceivedWindow(size: 2 * packets.capacity)
        timing = VideoTiming(clockRate: codec.rtpClockRate, discontinuity: configuration.timingDiscontinuity)
        estimator = JitterEstimator(configuration: configuration.jitter)
        nack = NackTracker(configuration: nackConfiguration)
        keyframes = KeyframeRequester(method: configuration.keyframeRequestMethod,
                                      minInterval: configuration.minKeyframeRequestInterval)
        rtt = configuration.initialRTT
        frames.reserveCapacity(64)
        lostMarkers.reserveCapacity(64)
        actions.reserveCapacity(16)
    }

    // MARK: Input

    /// Buffers one RTP packet of the stream that arrived at `arrival`, and returns what to do now.
    ///
    /// The driver demultiplexes by SSRC (one buffer per stream). The first packet fixes the
    /// SSRC; a packet with another SSRC means the sender restarted with a new one, so
    /// everything buffered is dropped and the buffer starts again from that packet.
    public mutating func insert(_ packet: RTPPacketView, arrival: Timestamp) -> [VideoJitterBufferAction] {
        beginCall()
        if let ssrc, ssrc != packet.ssrc {
            restartStream(reason: .streamRestart, at: arrival)
        }
        ssrc = packet.ssrc
        insertPacket(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                     payload: packet.payload, isRetransmission: false, arrival: arrival)
        return endCall(at: arrival)
    }

    /// Buffers a retransmitted packet (RFC 4588 RTX, already matched to this stream by the
    /// driver) under its original sequence number. It counts as a retransmission: never as
    /// a newly received packet, and never as a second frame.
    public mutating func insertRetransmission(_ rtx: RTXPacket, arrival: Timestamp) -> [VideoJitterBufferAction] {
        insert(sequenceNumber: rtx.originalSequenceNumber, timestamp: rtx.packet.timestamp, marker: rtx.packet.marker,
               payload: rtx.originalPayload, isRetransmission: true, arrival: arrival)
    }

    /// Buffers one packet given by its fields (for drivers that parsed it already, and for tests).
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer,
                                isRetransmission: Bool = false, arrival: Timestamp) -> [VideoJitterBufferAction] {
        beginCall()
        insertPacket(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: payload,
                     isRetransmission: isRetransmission, arrival: arrival)
        return endCall(at: arrival)
    }

    /// Buffers one packet whose payload is in an array.
    public mutating func insert(sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8],
                                isRetransmission: Bool = false, arrival: Timestamp) -> [VideoJitterBufferAction] {
        payload.withUnsafeBytes {
            insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker, payload: $0,
                   isRetransmission: isRetransmission, arrival: arrival)
        }
    }

    /// Delivers the frames now due, sends NACKs and keyframe requests now due, ends waits
    /// that are over. Call at ``nextWakeup`` (earlier or later is harmless).
    public mutating func poll(at now: Timestamp) -> [VideoJitterBufferAction] {
        beginCall()
        return endCall(at: now)
    }

    /// Sets the round-trip time (from RTCP: receiver reports, XR, or transport feedback).
    public mutating func updateRTT(_ rtt: TimeDelta) {
        self.rtt = max(.zero, rtt)
        nackWakeupIsStale = true
    }

    /// The decoder failed on a delivered frame: its references are suspect, so frames up to
    /// the next keyframe are dropped and a keyframe is requested.
    public mutating func decoderFailed(at now: Timestamp) -> [VideoJitterBufferAction] {
        beginCall()
        decodability.decoderFailed()
        requestKeyframe(.decoderFailed, at: now)
        return endCall(at: now)
    }

    /// The decoder decoded a delivered frame (for ``VideoReceiveStatistics/framesDecoded``).
    public mutating func frameDecoded(at time: Timestamp, isKeyframe: Bool) {
        counters.framesDecoded += 1
        if isKeyframe { counters.keyFramesDecoded += 1 }
    }

    /// A decoded frame was rendered at `time` (for ``VideoReceiveStatistics/framesRendered``
    /// and freeze detection, see ``FreezeDetector``).
    public mutating func frameRendered(at time: Timestamp) {
        freezes.frameRendered(at: time)
    }

    /// Drops everything buffered (the frames count as dropped) and waits for a new stream
    /// that starts with a keyframe; statistics carry on.
    public mutating func reset(at now: Timestamp) -> [VideoJitterBufferAction] {
        beginCall()
        restartStream(reason: .streamRestart, at: now)
        ssrc = nil
        return endCall(at: now)
    }

    // MARK: State

    /// The target delay now: what is added to a frame's mapped capture time to render it.
    public var targetDelay: TimeDelta { currentTarget }
    /// Packets buffered (at most the packet capacity).
    public var bufferedPacketCount: Int { packets.count }
    /// The packet capacity in force (a power of two).
    public var packetCapacity: Int { packets.capacity }
    /// Complete frames waiting for their render time or for a gap before them.
    public var bufferedFrameCount: Int { frames.count }
    /// Sequence numbers on the NACK list.
    public var pendingNackCount: Int { nack.pendingCount }
    /// Bytes of storage the buffer holds for reuse (packet payload slots, reserved when it is
    /// made, and delivered frames).
    public var retainedBytes: Int {
        packets.retainedBytes + outputs.reduce(0) { $0 + $1.data.capacity }
            + frames.capacity * MemoryLayout<VideoFrameRecord>.stride
    }

    /// A snapshot of the counters.
    public var statistics: VideoReceiveStatistics {
        var s = counters
        let expected = expectedBeforeRestart + (isStarted ? Int(newestSequenceNumber - firstSequenceNumber + 1) : 0)
        s.packetsLost = max(0, expected - s.packetsReceived - uniqueRetransmissions)
        s.jitter = jitterTicks / Double(codec.rtpClockRate)
        s.framesRendered = freezes.framesRendered
        s.freezeCount = freezes.freezeCount
        s.totalFreezesDuration = freezes.totalFreezesDuration.seconds
        s.pauseCount = freezes.pauseCount
        s.totalPausesDuration = freezes.totalPausesDuration.seconds
        s.currentTargetDelay = currentTarget.seconds
        s.isDelayCapped = target.isCapped
        s.nackCount = nack.statistics.nackCount
        s.packetsNacked = nack.statistics.packetsNacked
        s.packetsRecovered = nack.statistics.packetsRecovered
        s.packetsGivenUp = nack.statistics.packetsGivenUp
        s.pliCount = keyframes.pliCount
        s.firCount = keyframes.firCount
        return s
    }

    // MARK: Call framing

    mutating func beginCall() {
        // The caller has let go of the last call's actions (or this copies): reuse the storage.
        actions.removeAll(keepingCapacity: true)
        outputsUsed = 0
    }

    mutating func endCall(at now: Timestamp) -> [VideoJitterBufferAction] {
        runNack(at: now)
        process(at: now)
        runKeyframeRequests(at: now)
        refreshNackWakeup()
        // A queued keyframe ends the wait without another request (or its drop makes one).
        let keyframeWakeup = keyframes.isWaiting && !hasQueuedKeyframe ? keyframes.nextWakeup(rtt: rtt) : nil
        nextWakeup = earliest(earliest(frameWakeup, nackWakeup), keyframeWakeup)
        return actions
    }

    private func earliest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// How long to wait before asking for a packet again: one RTT (libwebrtc's choice). A
    /// retransmission takes the RTT plus the link's jitter, so a shorter wait would repeat
    /// the request too early, and a longer one (RTT plus jitter) costs a freeze on every
    /// twice-lost packet; the sender throttles what comes too early.
    var retryInterval: TimeDelta { rtt }
}
