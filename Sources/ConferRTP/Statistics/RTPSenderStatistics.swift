public import ConferMedia

/// What one source has sent, and the sender reports (RFC 3550 §6.4.1) that describe it.
///
/// The NTP time in a report comes from an injected ``NTPClockMapping`` and the RTP
/// timestamp of the same instant is extrapolated from the last packet sent, so nothing
/// here reads a clock.
public struct RTPSenderStatistics: Hashable, Sendable {
    /// The source.
    public let ssrc: UInt32
    /// Its RTP clock rate, in Hz.
    public let clockRate: Int
    /// Packets sent.
    public private(set) var packetsSent: Int64 = 0
    /// Payload octets sent (headers and padding excluded, as the SR's octet count wants).
    public private(set) var octetsSent: Int64 = 0
    private var lastRTPTimestamp: UInt32?
    private var lastCaptureTime: Timestamp = .zero

    /// Statistics for `ssrc`, whose payload clock runs at `clockRate` Hz.
    public init(ssrc: UInt32, clockRate: Int) {
        self.ssrc = ssrc
        self.clockRate = max(clockRate, 1)
    }

    /// Accounts for a packet of `payloadSize` bytes carrying media timestamp `rtpTimestamp`,
    /// which was captured at `captureTime` on the media clock.
    public mutating func sent(payloadSize: Int, rtpTimestamp: UInt32, captureTime: Timestamp) {
        packetsSent += 1
        octetsSent += Int64(max(payloadSize, 0))
        lastRTPTimestamp = rtpTimestamp
        lastCaptureTime = captureTime
    }

    /// The RTP timestamp corresponding to `time`, extrapolated from the last packet sent
    /// (0 before any packet).
    public func rtpTimestamp(at time: Timestamp) -> UInt32 {
        guard let lastRTPTimestamp else { return 0 }
        let ticks = RTPPacketizer.ticks(time - lastCaptureTime, clockRate: clockRate)
        return lastRTPTimestamp &+ UInt32(truncatingIfNeeded: ticks)
    }

    /// A sender report as of `now`, with NTP time from `clock` and the given reception
    /// reports. Counts wrap at 2^32 as the fields do.
    public func makeSenderReport(
        now: Timestamp, clock: NTPClockMapping, reportBlocks: [RTCPReportBlock] = []
    ) -> RTCPSenderReport {
        RTCPSenderReport(
            ssrc: ssrc, ntpTime: clock.ntpTime(at: now), rtpTimestamp: rtpTimestamp(at: now),
            packetCount: UInt32(truncatingIfNeeded: packetsSent),
            octetCount: UInt32(truncatingIfNeeded: octetsSent), reportBlocks: reportBlocks)
    }

    /// The round-trip time a report block about this source reveals when it arrives at
    /// `now` (RFC 3550 §6.4.1: A − LSR − DLSR), or nil when its LSR is zero.
    public func roundTripTime(from block: RTCPReportBlock, receivedAt now: Timestamp, clock: NTPClockMapping) -> TimeDelta? {
        block.roundTripTime(receivedAt: clock.ntpTime(at: now))
    }
}
