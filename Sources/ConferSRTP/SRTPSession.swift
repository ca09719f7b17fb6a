internal import CSRTP

/// One direction of SRTP and SRTCP protection for every stream that shares a master key.
///
/// Owns one libsrtp `srtp_t`. An ``Direction-swift.enum/outbound`` session protects
/// what this side sends; an ``Direction-swift.enum/inbound`` one verifies and decrypts
/// what the peer sends and keeps the replay window. Streams (SSRCs) need no registration:
/// libsrtp clones its per-SSRC state from the session template the first time an SSRC
/// protects, or authenticates, successfully.
///
/// Packets are processed in place in the caller's memory; a call does nothing per packet
/// beyond argument checks, libsrtp's call and a counter, and allocates nothing.
///
/// - Note: A final class, deliberately not `Sendable`. libsrtp contexts are not thread
///   safe, so a session must have one owner at a time, and the compiler enforces that for
///   a non-Sendable class: it can be created in one place and *sent* to the actor or task
///   that will own it (region isolation), but not shared between two. A `~Copyable`
///   struct would prove the same, but could not live in an `Array` or `Dictionary`, and a
///   host keeps one outbound session per participant in exactly such a collection.
public final class SRTPSession {
    /// Which way a session's packets go.
    public enum Direction: String, Sendable, Codable {
        /// Protects packets this side sends (libsrtp `ssrc_any_outbound`).
        case outbound
        /// Unprotects packets this side receives (libsrtp `ssrc_any_inbound`).
        case inbound
    }

    /// libsrtp's default replay window is 128 packets; video bursts reorder further than
    /// that, so Confer uses libwebrtc's 1024.
    public static let defaultReplayWindow = 1024

    /// The profile of the session's key.
    public let profile: SRTPProfile
    /// Which way the session works.
    public let direction: Direction
    /// Packets processed and dropped so far.
    public private(set) var stats = SRTPStats()

    private let context: srtp_t
    private let rtpOverhead: Int
    private let rtcpOverhead: Int

    /// A session for `key` in `direction`, with a replay window of `replayWindow` packets
    /// (64 to 32767, libsrtp's limits) for the streams it receives.
    public init(key: SRTPMasterKey, direction: Direction, replayWindow: Int = SRTPSession.defaultReplayWindow) throws(SRTPError) {
        let initStatus = SRTPLibrary.initStatus
        guard initStatus == srtp_err_status_ok else { throw SRTPError(status: initStatus, during: "srtp_init") }
        guard (64 ..< 0x8000).contains(replayWindow) else {
            throw SRTPError(.badParameter, name: "replay_window", "the replay window must hold 64 to 32767 packets")
        }
        profile = key.profile
        self.direction = direction
        rtpOverhead = key.profile.rtpOverhead
        rtcpOverhead = key.profile.rtcpOverhead

        var policy = srtp_policy_t()
        key.profile.apply(rtp: &policy.rtp, rtcp: &policy.rtcp)
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(replayWindow)
        // Retransmissions go out as new RTX packets with their own sequence numbers, so a
        // repeated index on the sending side is always a bug (and a keystream reuse).
        policy.allow_repeat_tx = 0
        policy.next = nil

        // libsrtp takes a non-const pointer and derives its session keys inside
        // srtp_create, so the copy is needed only for the call and is wiped after it.
        let keyCopy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.keyingMaterial.count)
        _ = keyCopy.initialize(from: key.keyingMaterial)
        defer {
            keyCopy.update(repeating: 0)
            keyCopy.deallocate()
        }
        policy.key = keyCopy.baseAddress

        var created: srtp_t?
        let status = srtp_create(&created, &policy)
        guard status == srtp_err_status_ok, let created else {
            throw SRTPError(status: status, during: "srtp_create")
        }
        context = created
    }

    deinit {
        srtp_dealloc(context)
    }

    // MARK: In place, in caller memory

    /// Protects the RTP packet in the first `length` bytes of `buffer` in place and returns
    /// the protected length (`length + profile.rtpOverhead`).
    ///
    /// `buffer` must have room for the tag after the packet. libsrtp's header asks for
    /// `SRTP_MAX_TRAILER_LEN` (144) spare bytes, but without an MKI, which Confer never
    /// configures, it writes only the tag; the tests pin that with guard bytes for every
    /// profile. The packet must start on a 4-byte boundary, as libsrtp reads it as words.
    public func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try process(buffer, length: length, minimum: 12, trailer: rtpOverhead, want: .outbound, operation: "srtp_protect", srtp_protect)
    }

    /// Verifies and decrypts the SRTP packet in the first `length` bytes of `buffer` in place
    /// and returns the RTP length. A forged or replayed packet throws and is counted; the
    /// session then goes on with the next packet.
    public func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try process(buffer, length: length, minimum: 12 + rtpOverhead, trailer: 0, want: .inbound, operation: "srtp_unprotect", srtp_unprotect)
    }

    /// Protects the RTCP packet (or compound) in the first `length` bytes of `buffer` in
    /// place and returns the SRTCP length (`length + profile.rtcpOverhead`).
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try process(buffer, length: length, minimum: 8, trailer: rtcpOverhead, want: .outbound, operation: "srtp_protect_rtcp", srtp_protect_rtcp)
    }

    /// Verifies and decrypts the SRTCP packet in the first `length` bytes of `buffer` in
    /// place and returns the RTCP length.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        try process(buffer, length: length, minimum: 8 + rtcpOverhead, trailer: 0, want: .inbound, operation: "srtp_unprotect_rtcp", srtp_unprotect_rtcp)
    }

    /// The one path every packet takes: checks that make libsrtp's assumptions true, the
    /// call, the counters.
    @inline(__always)
    private func process(
        _ buffer: UnsafeMutableRawBufferPointer,
        length: Int,
        minimum: Int,
        trailer: Int,
        want: Direction,
        operation: String,
        _ call: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t
    ) throws(SRTPError) -> Int {
        do throws(SRTPError) {
            guard direction == want else {
                throw SRTPError(.wrongDirection, name: "direction", want == .outbound
                    ? "protect was called on an inbound session" : "unprotect was called on an outbound session")
            }
            guard length >= minimum, length <= buffer.count, let base = buffer.baseAddress else {
                throw SRTPError(.badParameter, name: "length", "the packet is shorter than a header and tag, or longer than its buffer")
            }
            guard buffer.count - length >= trailer, length <= Int(Int32.max) - trailer else {
                throw SRTPError(.bufferTooSmall, name: "buffer_too_small", "the buffer has no room after the packet for the SRTP trailer")
            }
            guard UInt(bitPattern: base) & 3 == 0 else {
                throw SRTPError(.badParameter, name: "alignment", "the packet does not start on a 4-byte boundary")
            }
            var length32 = Int32(length)
            let status = call(context, base, &length32)
            guard status == srtp_err_status_ok else { throw SRTPError(status: status, during: operation) }
            if want == .outbound { stats.packetsProtected += 1 } else { stats.packetsUnprotected += 1 }
            return Int(length32)
        } catch {
            stats.count(error)
            throw error
        }
    }
}

@available(*, unavailable, message: "an SRTPSession has one owner at a time; send it, do not share it")
extension SRTPSession: Sendable {}
