public import ConferMedia
public import Confer
import ConferRTP

/// The media plan every member of a live meeting derives from the same few facts — the
/// room's codec and canvas, and each member's slot — so the host and each participant agree
/// on SSRCs and payload types without sending them.
///
/// SSRC ranges, by slot `s` (the host is slot 0, members count from 1):
/// - `0x1000_0000 | s << 4`: a member's camera (`+1`) and its RTX (`+2`)
/// - `0x2000_0000 | s << 4 + 1`: its microphone
/// - `0x3000_0000 | s << 4 + 1`: its receive side's RTCP (feedback about the composite)
/// - `0x6000_0000 | s << 4 + 1`: the host's receive chain for it
/// - `0x7000_0000 | s << 4`: consent checks (``RTCPConsentCheck``), the member's (`+1`) and
///   the host's to it (`+2`): a range of their own, so a check is known before it is opened
/// - the host's composite video, RTX and audio keep ``HostPipelineConfiguration``'s
///   `0x4000_000x`/`0x5000_0001`, which none of the ranges above can reach. (`confer meeting`
///   gave participant 1's host-side chain `0x4000_0001`, the composite's own SSRC.)
public struct LiveMeetingPlan: Sendable, Hashable {
    /// The composite's codec (participants send the same).
    public var codec: Codec
    /// The host's canvas.
    public var canvasWidth: Int
    /// The host's canvas.
    public var canvasHeight: Int
    /// Frames per second, composite and cameras.
    public var frameRate: Double

    /// A plan for `codec` with a small canvas a loopback meeting on two cores can keep up with.
    public init(codec: Codec = .vp8, canvasWidth: Int = 640, canvasHeight: Int = 360, frameRate: Double = 24) {
        self.codec = codec
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        self.frameRate = frameRate
    }

    /// The host's configuration before its own choices (layout, bitrate).
    public var hostConfiguration: HostPipelineConfiguration {
        var configuration = HostPipelineConfiguration()
        configuration.codec = codec
        configuration.width = canvasWidth
        configuration.height = canvasHeight
        configuration.frameRate = frameRate
        // The host's loop polls at the pipeline's times, which pacing needs.
        configuration.paces = true
        return configuration
    }

    /// A member's camera SSRC.
    public static func cameraSSRC(slot: UInt32) -> UInt32 { 0x1000_0001 | (slot & 0x00FF_FFFF) << 4 }
    /// A member's camera RTX SSRC.
    public static func cameraRTXSSRC(slot: UInt32) -> UInt32 { 0x1000_0002 | (slot & 0x00FF_FFFF) << 4 }
    /// A member's microphone SSRC.
    public static func microphoneSSRC(slot: UInt32) -> UInt32 { 0x2000_0001 | (slot & 0x00FF_FFFF) << 4 }
    /// The SSRC of a member's feedback about the composite.
    public static func receiverSSRC(slot: UInt32) -> UInt32 { 0x3000_0001 | (slot & 0x00FF_FFFF) << 4 }
    /// The SSRC of the host's feedback about a member's streams.
    public static func hostReceiverSSRC(slot: UInt32) -> UInt32 { 0x6000_0001 | (slot & 0x00FF_FFFF) << 4 }
    /// The SSRC of a member's consent checks (its challenges and answers).
    public static func consentSSRC(slot: UInt32) -> UInt32 { 0x7000_0001 | (slot & 0x00FF_FFFF) << 4 }
    /// The SSRC of the host's consent checks to a member.
    public static func hostConsentSSRC(slot: UInt32) -> UInt32 { 0x7000_0002 | (slot & 0x00FF_FFFF) << 4 }
    /// The slot of the member that sent `datagram`, read from its SSRC (in the clear under
    /// SRTP): a camera, RTX, microphone, feedback or consent SSRC of the ranges above; nil for
    /// anything else, the host's own SSRCs included. Says nothing of who really sent it: only
    /// the member's keys can.
    public static func memberSlot(of datagram: UnsafeRawBufferPointer) -> UInt32? {
        let offset = RTPDatagramRoute.isRTCP(datagram) ? 4 : 8
        guard datagram.count >= offset + 4 else { return nil }
        let ssrc = (offset ..< offset + 4).reduce(UInt32(0)) { $0 << 8 | UInt32(datagram[$1]) }
        switch (ssrc >> 28, ssrc & 0xF) {
        case (0x1, 1), (0x1, 2), (0x2, 1), (0x3, 1), (0x7, 1): return (ssrc >> 4) & 0x00FF_FFFF
        default: return nil
        }
    }
    /// Whether `datagram` is a consent check: RTCP whose first packet's SSRC is in the
    /// consent range. That SSRC is sent in the clear, so the check is routed before SRTP.
    public static func isConsentCheck(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard datagram.count >= 8, RTPDatagramRoute.isRTCP(datagram) else { return false }
        return datagram[4] >> 4 == 0x7
    }
}
