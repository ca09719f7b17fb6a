internal import CX264
public import ConferMedia

/// An H.264 constrained-baseline encoder over libx264, set up for real-time meetings.
///
/// It uses the `zerolatency` tune (no B-frames, no lookahead, sliced threads), so each
/// picture in gives its access unit out at once. Rate control is ABR held near constant
/// by a VBV buffer of ``vbvBufferDuration``; SPS and PPS go before every IDR, so a receiver
/// can start at any keyframe. Output is Annex-B, with each NAL unit's range recorded in
/// ``EncodedFrame/nalUnits`` for the RTP packetizer.
///
/// ``VideoEncoderSettings/errorResilient`` has no x264 counterpart and is ignored: H.264
/// streams recover at the next IDR, which receivers ask for with ``requestKeyframe()``.
/// ``VideoEncoderSettings/threads`` of 0 lets x264 choose.
///
/// The encoder owns its `x264_t`; encoding reuses the output frame's buffers and allocates
/// nothing per frame once they have grown to the largest access unit.
public struct X264Encoder: ~Copyable, VideoEncoder {
    /// Errors come from libx264 or from settings and pictures it cannot take.
    public typealias Failure = X264Error

    /// Always ``Codec/h264``.
    public var codec: Codec { .h264 }
    /// The settings in force (``setBitrate(_:)`` updates the bitrate).
    public private(set) var settings: VideoEncoderSettings
    /// The x264 preset chosen from ``VideoEncoderSettings/speed``.
    public let preset: X264Preset
    /// How many seconds of the target bitrate the VBV buffer holds: short enough that the
    /// stream stays near constant bitrate for a real-time link, long enough for an IDR.
    public static let vbvBufferDuration = 1.0

    private let encoder: OpaquePointer
    private var input = x264_picture_t()
    private var encoded = x264_picture_t()
    private var keyframeRequested = false
    private let frameDuration: TimeDelta

    /// Opens an encoder for `settings`.
    public init(settings: VideoEncoderSettings) throws(X264Error) {
        try Self.validate(settings)
        let preset = X264Preset(speed: settings.speed)
        var param = x264_param_t()
        let presetStatus = x264_param_default_preset(&param, preset.rawValue, "zerolatency")
        guard presetStatus >= 0 else {
            throw X264Error(.library, operation: "x264_param_default_preset", code: presetStatus,
                            message: "preset \(preset.rawValue) with tune zerolatency was refused")
        }
        param.i_log_level = X264_LOG_ERROR
        param.i_width = Int32(settings.width)
        param.i_height = Int32(settings.height)
        param.i_csp = X264_CSP_I420
        let (fpsNum, fpsDen) = Self.rational(settings.frameRate)
        param.i_fps_num = fpsNum
        param.i_fps_den = fpsDen
        // Rate control follows the configured frame rate, not capture timestamps, which
        // jitter in real time; zerolatency sets this too, but it must not depend on the tune.
        param.b_vfr_input = 0
        // 0 asks x264 for its automatic thread count.
        param.i_threads = Int32(max(0, settings.threads))
        // Slice threads add no frame of delay, unlike frame threads.
        param.b_sliced_threads = 1
        param.b_repeat_headers = 1
        param.b_annexb = 1
        param.b_aud = 0
        if settings.keyframeInterval > 0 {
            param.i_keyint_max = Int32(settings.keyframeInterval)
        } else {
            param.i_keyint_max = X264_KEYINT_MAX_INFINITE
            // "Only on request or at the start": a scene cut must not add keyframes either.
            param.i_scenecut_threshold = 0
        }
        Self.applyRate(settings.bitrate, to: &param)
        let profileStatus = x264_param_apply_profile(&param, "baseline")
        guard profileStatus >= 0 else {
            throw X264Error(.library, operation: "x264_param_apply_profile", code: profileStatus,
                            message: "the baseline profile does not fit these settings")
        }
        guard let encoder = confer_x264_encoder_open(&param) else {
            throw X264Error(.library, operation: "x264_encoder_open", code: -1,
                            message: "x264 refused \(settings.width)×\(settings.height) at \(settings.frameRate) fps")
        }
        self.encoder = encoder
        self.settings = settings
        self.preset = preset
        frameDuration = .frameInterval(fps: settings.frameRate)
        x264_picture_init(&input)
        input.img.i_csp = X264_CSP_I420
        input.img.i_plane = 3
        x264_picture_init(&encoded)
    }

    deinit { x264_encoder_close(encoder) }

    /// Changes the target bitrate from the next frame on (`x264_encoder_reconfig`).
    public mutating func setBitrate(_ bitsPerSecond: Int) throws(X264Error) {
        try Self.validateBitrate(bitsPerSecond)
        var param = x264_param_t()
        x264_encoder_parameters(encoder, &param)
        Self.applyRate(bitsPerSecond, to: &param)
        let status = x264_encoder_reconfig(encoder, &param)
        guard status >= 0 else {
            throw X264Error(.library, operation: "x264_encoder_reconfig", code: status,
                            message: "bitrate \(bitsPerSecond) b/s was refused")
        }
        settings.bitrate = bitsPerSecond
    }

    /// Makes the next encoded frame an IDR (with SPS and PPS before it).
    public mutating func requestKeyframe() { keyframeRequested = true }

    /// Encodes `frame` into `output`: one Annex-B access unit, NAL ranges, keyframe flag
    /// and timestamps. Returns false when x264 produced nothing for the frame.
    public mutating func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws(X264Error) -> Bool {
        guard frame.width == settings.width, frame.height == settings.height else {
            throw X264Error(.invalidPicture, operation: "encode",
                            message: "picture is \(frame.width)×\(frame.height), the encoder takes \(settings.width)×\(settings.height)")
        }
        input.i_type = keyframeRequested ? X264_TYPE_IDR : X264_TYPE_AUTO
        input.i_pts = frame.timestamp.microseconds
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var nalCount: Int32 = 0
        // x264 only reads the planes (it copies them into its own frame), so the frame's
        // pixels are handed over as they are, without a copy of ours.
        let size = frame.withPlanes { y, u, v in
            confer_x264_picture_set_plane(&input, 0, UnsafeMutablePointer(mutating: y.base), Int32(y.stride))
            confer_x264_picture_set_plane(&input, 1, UnsafeMutablePointer(mutating: u.base), Int32(u.stride))
            confer_x264_picture_set_plane(&input, 2, UnsafeMutablePointer(mutating: v.base), Int32(v.stride))
            return x264_encoder_encode(encoder, &nals, &nalCount, &input, &encoded)
        }
        guard size >= 0 else {
            throw X264Error(.library, operation: "x264_encoder_encode", code: size, message: "encoding a frame failed")
        }
        keyframeRequested = false
        guard size > 0, let nals, nalCount > 0 else { return false }

        output.data.removeAll(keepingCapacity: true)
        output.data.reserveCapacity(Int(size))
        output.nalUnits.removeAll(keepingCapacity: true)
        for index in 0..<Int(nalCount) {
            let nal = nals[index]
            // With b_annexb, p_payload starts with the start code x264 wrote.
            let startCode = nal.b_long_startcode != 0 ? 4 : 3
            let length = Int(nal.i_payload)
            guard length > startCode, let payload = nal.p_payload else { continue }
            let offset = output.data.count
            output.data.append(contentsOf: UnsafeBufferPointer(start: payload, count: length))
            output.nalUnits.append((offset + startCode)..<(offset + length))
        }
        output.codec = .h264
        output.isKeyframe = encoded.b_keyframe != 0
        output.timestamp = Timestamp(microseconds: encoded.i_pts)
        output.duration = frameDuration
        output.width = settings.width
        output.height = settings.height
        output.vp8 = nil
        output.vp9 = nil
        return true
    }

    /// ABR capped by a VBV of the same rate: the closest x264 has to real-time CBR without
    /// filler data.
    private static func applyRate(_ bitsPerSecond: Int, to param: inout x264_param_t) {
        let kilobits = Int32(clamping: max(1, bitsPerSecond / 1000))
        param.rc.i_rc_method = X264_RC_ABR
        param.rc.i_bitrate = kilobits
        param.rc.i_vbv_max_bitrate = kilobits
        param.rc.i_vbv_buffer_size = max(1, Int32((Double(kilobits) * vbvBufferDuration).rounded()))
    }

    /// `fps` as a fraction with a denominator of 1000, reduced.
    private static func rational(_ fps: Double) -> (UInt32, UInt32) {
        let (numerator, denominator) = MediaMath.thousandthsFraction(fps)
        return (UInt32(numerator), UInt32(denominator))
    }

    private static func validate(_ settings: VideoEncoderSettings) throws(X264Error) {
        func invalid(_ message: String) -> X264Error { X264Error(.invalidSettings, operation: "init", message: message) }
        guard (2...16384).contains(settings.width), (2...16384).contains(settings.height),
              settings.width % 2 == 0, settings.height % 2 == 0 else {
            throw invalid("size \(settings.width)×\(settings.height): I420 H.264 needs even sides from 2 to 16384")
        }
        guard settings.frameRate.isFinite, settings.frameRate >= 0.001, settings.frameRate <= 1000 else {
            throw invalid("frame rate \(settings.frameRate) is outside 0.001…1000 fps")
        }
        guard settings.keyframeInterval >= 0 else {
            throw invalid("keyframe interval \(settings.keyframeInterval) is negative")
        }
        try validateBitrate(settings.bitrate)
    }

    private static func validateBitrate(_ bitsPerSecond: Int) throws(X264Error) {
        // x264 counts kilobits in an Int32; below 1 kb/s nothing useful can be coded.
        guard (1000...2_000_000_000).contains(bitsPerSecond) else {
            throw X264Error(.invalidSettings, operation: "bitrate",
                            message: "bitrate \(bitsPerSecond) b/s is outside 1 kb/s…2 Gb/s")
        }
    }
}
