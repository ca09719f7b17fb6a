/// How a VP9 stream encoded in temporal layers tells its receivers about the layers.
///
/// RFC 9628 describes layers with a layer byte (TID, U) and, in flexible mode, each
/// frame's references as picture id differences (P_DIFF): a receiver forwarded only some
/// layers then knows which gaps in the picture ids are frames it was never meant to get.
/// FFmpeg 5.1's demuxer (`rtpdec_vp9.c`) follows an older draft and misreads every layout
/// that carries a layer byte, flexible or not; a stream for it must leave the layers out.
public enum VP9LayerSignalling: Sendable, Hashable, CaseIterable {
    /// RFC 9628 flexible mode (F = 1, L = 1): TID and U in every payload, a P_DIFF per inter
    /// frame; picture ids forwarded as they are, gaps and all. What libwebrtc sends for VP9
    /// SVC; GStreamer and Confer read it.
    case flexibleMode
    /// No layer fields (F = 0, L = 0), as a stream of one layer: the forwarder shifts picture
    /// ids past the frames it leaves out, as it does for VP8, so each receiver sees one
    /// unbroken stream at its own frame rate. Readable by FFmpeg 5.1. The cost: a receiver
    /// cannot tell a lost upper-layer frame from a lost base-layer one, so it recovers every
    /// loss (NACK, then a keyframe) as it would in a stream of one layer.
    case pictureIDsOnly

    /// Whether a forwarder shifts picture ids past the frames it leaves out: only when no
    /// P_DIFF names them.
    public var shiftsPictureIDs: Bool { self == .pictureIDsOnly }
}
