public import ConferMedia
internal import CVPX

/// A real-time VP8 or VP9 encoder over libvpx, tuned the way WebRTC tunes it.
///
/// One-pass constant-bitrate rate control with no look-ahead, WebRTC's quantizer range,
/// under/overshoot and buffer model (1000 / 500 / 600 ms; files: variable bitrate, see
/// ``VideoRateControl``), keyframes only at the start, on
/// request or every ``VideoEncoderSettings/keyframeInterval`` frames. For VP9 it adds row
/// multithreading, tile columns by thread count and cyclic-refresh adaptive quantization.
///
/// Input pictures are not copied: libvpx reads the frame's planes in place. Output goes
/// into the caller's ``EncodedFrame``, reusing its buffers: the first frame written into an
/// output grows its data once to the keyframe size cap, and from then on ``encode(_:into:)``
/// allocates nothing (unless a frame overshoots that cap or the bitrate is raised).
///
/// The picture size is fixed when the encoder is made; for another size, make a new encoder
/// (libvpx cannot grow a running encoder past its first size, and WebRTC re-creates it too).
/// Frames of any other size are rejected with ``VPXError/Code/invalidParameter``.
///
/// Temporal layers (``VideoEncoderSettings/temporalLayers``) work for both codecs with the
/// same pattern and reference flags: VP8 through its temporal-layer controls, VP9 through
/// libvpx's SVC path (one spatial layer, the layering given frame by frame as libvpx's
/// `vpx_temporal_svc_encoder` example does). See ``setTemporalLayers(_:)`` for what a
/// change of layer count costs on VP9.
public final class VPXEncoder: VideoEncoder {
    /// ``Codec/vp8`` or ``Codec/vp9``.
    public let codec: Codec
    /// The settings in force; ``setBitrate(_:)`` updates ``VideoEncoderSettings/bitrate``.
    public private(set) var settings: VideoEncoderSettings
    /// Whether rate control may drop frames to hold the bitrate (``encode(_:into:)`` then returns false).
    public let allowsFrameDropping: Bool

    /// Replaced only when VP9 first turns temporal layers on (see ``setTemporalLayers(_:)``).
    private var context: VPXContext
    private let iface: OpaquePointer
    private var config: vpx_codec_enc_cfg_t
    /// Whether the context runs libvpx's VP9 SVC path (made with temporal layers). Every frame
    /// then gets the pattern's reference flags and layer id, one layer included, so each
    /// refers to the last base frame only and its P_DIFF is known.
    private var usesSVC = false
    /// The picture id of the last base-layer frame written, which the next VP9 frame of an
    /// SVC context refers to.
    private var lastBasePictureID: UInt16?
    /// Frame length in 90 kHz ticks, the encoder's time base (the RTP video clock).
    private let frameTicks: Int64
    private var lastPTS: Int64?
    private var keyframePending = false
    private var pictureID: UInt16
    private var tl0PictureIndex: UInt8 = 0
    /// Whether a frame has been written (the first base-layer frame keeps TL0PICIDX's start).
    private var hasWrittenFrame = false
    /// Where the next frame falls in the temporal layer pattern (reset by a keyframe).
    private var patternIndex = 0
    /// Bits sent beyond the target so far, for dropping upper-layer frames.
    private var excessBits = 0.0
    /// How far ahead of its target a layered stream may run before upper-layer frames
    /// are dropped: a third of a second (libvpx's own threshold sits at 30 % of its buffer).
    private static let maximumExcess = 0.3
    /// Keyframe size cap as a percentage of an average frame (`VP8E_SET_MAX_INTRA_BITRATE_PCT`).
    private let maxIntraPercent: UInt32
    /// The keyframe size cap in bits asked for with ``setKeyframeSizeLimit(_:)``, if any.
    private var keyframeSizeLimit: Int?
    /// The intra cap last given to libvpx.
    private var appliedIntraPercent: UInt32 = 0

    /// The time base given to libvpx: the 90 kHz RTP video clock, as WebRTC uses.
    private static let clockRate: Int32 = 90_000
    /// Encoder buffer model in milliseconds (WebRTC's values): size, initial and optimal fill.
    private static let bufferMs: (size: UInt32, initial: UInt32, optimal: UInt32) = (1000, 500, 600)
    /// Buffer fill below which libvpx drops a frame, in percent of the optimal level (WebRTC's 30).
    private static let dropFrameThreshold: UInt32 = 30

    /// Opens a `codec` encoder (``Codec/vp8`` or ``Codec/vp9``) for `settings`.
    ///
    /// - Parameters:
    ///   - allowsFrameDropping: let rate control skip frames rather than overshoot the bitrate.
    ///   - firstPictureID: the 15-bit picture id of the first frame (RTP senders often pick it at random).
    public init(codec: Codec, settings: VideoEncoderSettings, allowsFrameDropping: Bool = true,
                firstPictureID: UInt16 = 0) throws(VPXError) {
        let iface = try VPXContext.interface(for: codec, encoder: true)
        try Self.validate(settings, codec: codec)
        self.codec = codec
        self.iface = iface
        self.settings = settings
        self.allowsFrameDropping = allowsFrameDropping
        pictureID = firstPictureID & 0x7FFF
        frameTicks = max(1, Int64((Double(Self.clockRate) / settings.frameRate).rounded()))
        // WebRTC caps a keyframe at the frames that fit in half the optimal buffer (9 at 30 fps), at least 3.
        maxIntraPercent = max(300, UInt32(Double(Self.bufferMs.optimal) * 0.5 * settings.frameRate / 10))

        var config = vpx_codec_enc_cfg_t()
        let status = vpx_codec_enc_config_default(iface, &config, 0)
        guard status == VPX_CODEC_OK else { throw VPXError(status, operation: .encoderInit, context: nil) }
        // libvpx sets up per-layer rate control only when an SVC encoder is opened with
        // layers: opened with the most it will have, it is then set to the count asked for.
        var opening = settings
        opening.temporalLayers = max(settings.temporalLayers, settings.maximumTemporalLayers ?? 1)
        let svc = codec == .vp9 && opening.temporalLayers > 1
        if !svc { opening = settings }
        Self.apply(opening, codec: codec, svc: svc, allowsFrameDropping: allowsFrameDropping, to: &config)
        self.config = config
        context = try withUnsafePointer(to: &config) { (pointer) throws(VPXError) -> VPXContext in
            try VPXContext(encoder: iface, config: pointer)
        }
        usesSVC = svc
        try applyControls()
        if opening.temporalLayers != settings.temporalLayers {
            Self.applyLayers(settings, svc: svc, allowsFrameDropping: allowsFrameDropping, to: &self.config)
            try context.check(vpx_codec_enc_config_set(context.pointer, &self.config), .encoderInit)
        }
    }

    /// Re-opens the VP9 encoder on libvpx's SVC path for `changed` (temporal layers): the
    /// next frame is a keyframe, since the new context has no reference frames.
    private func reopenWithSVC(_ changed: VideoEncoderSettings) throws(VPXError) {
        var config = vpx_codec_enc_cfg_t()
        let status = vpx_codec_enc_config_default(iface, &config, 0)
        guard status == VPX_CODEC_OK else { throw VPXError(status, operation: .encoderInit, context: nil) }
        Self.apply(changed, codec: codec, svc: true, allowsFrameDropping: allowsFrameDropping, to: &config)
        let iface = iface
        let reopened = try withUnsafePointer(to: &config) { (pointer) throws(VPXError) -> VPXContext in
            try VPXContext(encoder: iface, config: pointer)
        }
        context = reopened
        self.config = config
        settings = changed
        usesSVC = true
        appliedIntraPercent = 0
        lastBasePictureID = nil
        try applyControls()
    }

    private static func validate(_ settings: VideoEncoderSettings, codec: Codec) throws(VPXError) {
        func reject(_ why: String) -> VPXError { VPXError(code: .invalidParameter, operation: .encoderInit, detail: why) }
        // libvpx's limit is 16383 in each direction (14-bit sizes in the VP8 header).
        guard (1...16383).contains(settings.width), (1...16383).contains(settings.height) else {
            throw reject("picture size \(settings.width)x\(settings.height) is outside 1…16383")
        }
        guard settings.frameRate > 0, settings.frameRate <= 1000 else {
            throw reject("frame rate \(settings.frameRate) is outside (0, 1000]")
        }
        guard settings.bitrate > 0 else { throw reject("bitrate \(settings.bitrate) must be positive") }
        guard settings.threads >= 1, settings.threads <= 64 else { throw reject("threads \(settings.threads) is outside 1…64") }
        // libvpx's cpu-used ranges; VP9 silently clamps, so check here to say what was wrong.
        let speeds = codec == .vp8 ? -16...16 : -9...9
        guard speeds.contains(settings.speed) else {
            throw reject("speed \(settings.speed) is outside \(codec)'s \(speeds.lowerBound)…\(speeds.upperBound)")
        }
        guard settings.keyframeInterval >= 0 else { throw reject("keyframe interval \(settings.keyframeInterval) is negative") }
        guard (1...3).contains(settings.temporalLayers) else {
            throw reject("\(settings.temporalLayers) temporal layers is outside 1…3")
        }
        if let maximum = settings.maximumTemporalLayers, !(1...3).contains(maximum) {
            throw reject("a maximum of \(maximum) temporal layers is outside 1…3")
        }
    }

    /// One frame of a temporal layer pattern: its layer, whether it depends on the base
    /// layer only (a forwarder may switch up there), and the libvpx flags that make it so.
    private struct LayerFrame {
        var layer: UInt8
        var isSync: Bool
        var flags: Int32
    }

    /// The patterns: 0, 1 for two layers and 0, 2, 1, 2 for three (libwebrtc's order).
    /// Every upper-layer frame refers to the last base frame only and updates nothing, not
    /// even the entropy context, so each is a switching point and any upper frame can be
    /// dropped on its own. libwebrtc's three-layer pattern lets the last frame refer to the
    /// middle one as well, which compresses a little better but makes a forwarder's switch
    /// up depend on a middle frame rate control may have skipped.
    private static func pattern(layers: Int) -> [LayerFrame] {
        switch layers {
        case 2: return patterns.two
        case 3: return patterns.three
        default: return patterns.one
        }
    }

    /// Built once: `encode` reads one per frame and must not allocate.
    private static let patterns: (one: [LayerFrame], two: [LayerFrame], three: [LayerFrame]) = {
        let baseFlags = VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF
        let upperFlags = baseFlags | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_ENTROPY
        let base = LayerFrame(layer: 0, isSync: false, flags: baseFlags)
        func upper(_ layer: UInt8) -> LayerFrame { LayerFrame(layer: layer, isSync: true, flags: upperFlags) }
        return ([base], [base, upper(1)], [base, upper(2), upper(1), upper(2)])
    }()

    /// Sets libvpx's per-layer targets from `settings` (cumulative, in kbit/s).
    ///
    /// On VP9's SVC path (`svc`) libvpx reads the per-layer targets from `layer_target_bitrate`
    /// and wants the layering described even for one layer, with the layer ids given per frame
    /// (bypass mode).
    private static func applyLayers(_ settings: VideoEncoderSettings, svc: Bool, allowsFrameDropping: Bool,
                                    to config: inout vpx_codec_enc_cfg_t) {
        let layers = settings.temporalLayers
        if svc {
            config.ss_number_layers = 1
            config.temporal_layering_mode = Int32(VP9E_TEMPORAL_LAYERING_MODE_BYPASS.rawValue)
            withUnsafeMutableBytes(of: &config.layer_target_bitrate) { raw in
                let values = raw.bindMemory(to: UInt32.self)
                for (index, bitrate) in settings.cumulativeLayerBitrates.enumerated() { values[index] = kilobits(bitrate) }
            }
        }
        if settings.rateControl == .realTime {
            // With temporal layers the encoder drops upper-layer frames itself (see
            // `excessBits`): libvpx's dropping judges each layer by its own buffer and so
            // drops base frames first, the ones every receiver needs.
            config.rc_dropframe_thresh = allowsFrameDropping && layers == 1 ? dropFrameThreshold : 0
        }
        guard layers > 1 else {
            config.ts_number_layers = 1
            config.ts_periodicity = svc ? 1 : 0
            if svc {
                withUnsafeMutableBytes(of: &config.ts_rate_decimator) { $0.bindMemory(to: UInt32.self)[0] = 1 }
                withUnsafeMutableBytes(of: &config.ts_layer_id) { $0.bindMemory(to: UInt32.self)[0] = 0 }
                withUnsafeMutableBytes(of: &config.ts_target_bitrate) { $0.bindMemory(to: UInt32.self)[0] = kilobits(settings.bitrate) }
            }
            return
        }
        config.ts_number_layers = UInt32(layers)
        config.ts_periodicity = UInt32(layers == 2 ? 2 : 4)
        let bitrates = settings.cumulativeLayerBitrates
        withUnsafeMutableBytes(of: &config.ts_target_bitrate) { raw in
            let values = raw.bindMemory(to: UInt32.self)
            for (index, bitrate) in bitrates.enumerated() { values[index] = kilobits(bitrate) }
        }
        withUnsafeMutableBytes(of: &config.ts_rate_decimator) { raw in
            let values = raw.bindMemory(to: UInt32.self)
            for index in 0..<layers { values[index] = UInt32(1 << (layers - 1 - index)) }
        }
        withUnsafeMutableBytes(of: &config.ts_layer_id) { raw in
            let values = raw.bindMemory(to: UInt32.self)
            for (index, frame) in pattern(layers: layers).enumerated() { values[index] = UInt32(frame.layer) }
        }
    }

    /// libvpx's target bitrate unit is kbit/s; round rather than truncate, never below 1.
    private static func kilobits(_ bitsPerSecond: Int) -> UInt32 {
        UInt32(clamping: max(1, (bitsPerSecond + 500) / 1000))
    }

    private static func apply(_ settings: VideoEncoderSettings, codec: Codec, svc: Bool, allowsFrameDropping: Bool,
                              to config: inout vpx_codec_enc_cfg_t) {
        config.g_w = UInt32(settings.width)
        config.g_h = UInt32(settings.height)
        config.g_timebase = vpx_rational(num: 1, den: clockRate)
        config.g_threads = UInt32(settings.threads)
        config.g_lag_in_frames = 0
        config.g_pass = VPX_RC_ONE_PASS
        config.g_error_resilient = settings.errorResilient ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        config.rc_target_bitrate = kilobits(settings.bitrate)
        config.rc_resize_allowed = 0
        switch settings.rateControl {
        case .realTime:
            config.rc_end_usage = VPX_CBR
            // `applyLayers` turns it off again for a layered stream.
            config.rc_dropframe_thresh = allowsFrameDropping ? dropFrameThreshold : 0
            config.rc_min_quantizer = 2
            config.rc_max_quantizer = codec == .vp8 ? 52 : 56
            config.rc_undershoot_pct = 100
            config.rc_overshoot_pct = 15
            config.rc_buf_sz = bufferMs.size
            config.rc_buf_initial_sz = bufferMs.initial
            config.rc_buf_optimal_sz = bufferMs.optimal
        case .file:
            // libvpx's defaults for the rest (quantizers 4…63, a 6 s buffer), as FFmpeg
            // and GStreamer leave them; every frame is encoded.
            config.rc_end_usage = VPX_VBR
            config.rc_dropframe_thresh = 0
        }
        applyLayers(settings, svc: svc, allowsFrameDropping: allowsFrameDropping, to: &config)
        if settings.keyframeInterval > 0 {
            config.kf_mode = VPX_KF_AUTO
            config.kf_min_dist = 0
            config.kf_max_dist = UInt32(settings.keyframeInterval)
        } else {
            config.kf_mode = VPX_KF_DISABLED
        }
    }

    private func applyControls() throws(VPXError) {
        try context.control(VP8E_SET_CPUUSED, Int32(clamping: settings.speed))
        try applyIntraPercent()
        switch codec {
        case .vp8:
            // One token partition: the RTP packetizer's partition offsets rely on it (see
            // `vp8TokenPartitionOffset`), and it is what WebRTC uses.
            try context.control(VP8E_SET_TOKEN_PARTITIONS, Int32(VP8_ONE_TOKENPARTITION.rawValue))
            try context.control(VP8E_SET_STATIC_THRESHOLD, unsigned: 1)
        default:
            try context.control(VP9E_SET_ROW_MT, unsigned: 1)
            // log2 of the thread count; libvpx lowers it where the picture is too narrow.
            let tileColumns = Int32(Int.bitWidth - 1 - settings.threads.leadingZeroBitCount)
            try context.control(VP9E_SET_TILE_COLUMNS, tileColumns)
            try context.control(VP9E_SET_AQ_MODE, unsigned: 3)
            try context.control(VP9E_SET_NOISE_SENSITIVITY, unsigned: 0)
            if usesSVC { try applySVCControls() }
        }
    }

    /// Turns on VP9's SVC path: one spatial layer at full size, every temporal layer with
    /// the stream's quantizer range.
    private func applySVCControls() throws(VPXError) {
        try context.control(VP9E_SET_SVC, 1)
        var parameters = vpx_svc_extra_cfg_t()
        /// Sets every element of one of libvpx's fixed `int` arrays (imported as tuples).
        func fill<Tuple>(_ array: inout Tuple, with value: Int32) {
            withUnsafeMutableBytes(of: &array) { raw in
                let values = raw.bindMemory(to: Int32.self)
                for index in values.indices { values[index] = value }
            }
        }
        fill(&parameters.max_quantizers, with: Int32(config.rc_max_quantizer))
        fill(&parameters.min_quantizers, with: Int32(config.rc_min_quantizer))
        fill(&parameters.scaling_factor_num, with: 1)
        fill(&parameters.scaling_factor_den, with: 1)
        try context.check(confer_vpx_set_svc_parameters(context.pointer, &parameters), .control)
    }

    /// Changes the target bitrate from the next frame on (the base layer keeps its share).
    public func setBitrate(_ bitsPerSecond: Int) throws(VPXError) {
        try setBitrate(bitsPerSecond, baseLayerShare: settings.baseLayerShare)
    }

    /// Changes the target bitrate and the base temporal layer's share of it from the next frame on.
    public func setBitrate(_ bitsPerSecond: Int, baseLayerShare: Double?) throws(VPXError) {
        guard bitsPerSecond > 0 else {
            throw VPXError(code: .invalidParameter, operation: .configure, detail: "bitrate \(bitsPerSecond) must be positive")
        }
        var changed = settings
        changed.bitrate = bitsPerSecond
        changed.baseLayerShare = baseLayerShare
        config.rc_target_bitrate = Self.kilobits(bitsPerSecond)
        Self.applyLayers(changed, svc: usesSVC, allowsFrameDropping: allowsFrameDropping, to: &config)
        try context.check(vpx_codec_enc_config_set(context.pointer, &config), .configure)
        settings = changed
        try applyIntraPercent()
    }

    /// Changes the number of temporal layers (1…3) from the next frame on, which starts
    /// the new pattern with a base frame. Every frame so far refers only to frames before
    /// it, so no keyframe is needed: a host turns layers on when a receiver needs fewer and
    /// off when none does, since a layered stream costs more bits for the same picture.
    ///
    /// VP9 works the same once on libvpx's SVC path, which it takes when opened with layers
    /// or with ``VideoEncoderSettings/maximumTemporalLayers`` above one: changes of layer count
    /// (to one and back included) go through `vpx_codec_enc_config_set` with no keyframe
    /// (tested against libvpx 1.12: the rate holds and a base-only decoder keeps decoding).
    /// libvpx sets up its per-layer rate control only when an SVC encoder is opened with
    /// more than one layer (turned on later, it misses the target tenfold), so a VP9 encoder
    /// opened with one layer and no such maximum is re-opened on the SVC path the first time
    /// layers turn on, which costs a keyframe.
    public func setTemporalLayers(_ layers: Int) throws(VPXError) {
        guard layers != settings.temporalLayers else { return }
        guard (1...3).contains(layers) else {
            throw VPXError(code: .invalidParameter, operation: .configure,
                           detail: "\(layers) temporal layers is outside 1…3")
        }
        var changed = settings
        changed.temporalLayers = layers
        // The new pattern starts with a base frame, its excess measured afresh.
        patternIndex = 0
        excessBits = 0
        if codec == .vp9 && !usesSVC {
            try reopenWithSVC(changed)
            return
        }
        Self.applyLayers(changed, svc: usesSVC, allowsFrameDropping: allowsFrameDropping, to: &config)
        try context.check(vpx_codec_enc_config_set(context.pointer, &config), .configure)
        settings = changed
    }

    /// Caps keyframes at about `bits` (nil: WebRTC's cap, half the optimal buffer), never
    /// below one average frame: a stream forwarded to a weak link keeps its keyframes to
    /// what that link carries in a moment.
    public func setKeyframeSizeLimit(_ bits: Int?) throws(VPXError) {
        keyframeSizeLimit = bits
        try applyIntraPercent()
    }

    /// The intra cap in percent of an average frame: WebRTC's, or less under a size limit.
    private var intraPercent: UInt32 {
        guard let keyframeSizeLimit else { return maxIntraPercent }
        let averageFrame = Double(settings.bitrate) / settings.frameRate
        let percent = Double(keyframeSizeLimit) / max(averageFrame, 1) * 100
        return UInt32(min(max(percent, 100), Double(maxIntraPercent)))
    }

    private func applyIntraPercent() throws(VPXError) {
        let percent = intraPercent
        guard percent != appliedIntraPercent else { return }
        try context.control(VP8E_SET_MAX_INTRA_BITRATE_PCT, unsigned: percent)
        appliedIntraPercent = percent
    }

    /// Makes the next encoded frame a keyframe.
    public func requestKeyframe() {
        keyframePending = true
    }

    /// Encodes `frame` into `output`; false when rate control dropped it (then `output` is unchanged).
    ///
    /// `frame` must have the size the encoder was made for.
    public func encode(_ frame: VideoFrame, into output: inout EncodedFrame) throws(VPXError) -> Bool {
        guard frame.width == settings.width, frame.height == settings.height else {
            throw VPXError(code: .invalidParameter, operation: .encode,
                           detail: "frame is \(frame.width)x\(frame.height) but the encoder was made for "
                               + "\(settings.width)x\(settings.height); make a new encoder for a new size")
        }
        // libvpx's rate control needs strictly increasing time stamps.
        var pts = frame.timestamp.ticks(rate: Int(Self.clockRate))
        if let lastPTS, pts <= lastPTS { pts = lastPTS + frameTicks }
        var flags: vpx_enc_frame_flags_t = keyframePending ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        var layerFrame = LayerFrame(layer: 0, isSync: false, flags: 0)
        if settings.temporalLayers > 1 || usesSVC {
            // A keyframe (asked for, or the first) starts the pattern again.
            if keyframePending || !hasWrittenFrame { patternIndex = 0 }
            let pattern = Self.pattern(layers: settings.temporalLayers)
            layerFrame = pattern[patternIndex % pattern.count]
            patternIndex = (patternIndex + 1) % pattern.count
            // A leaky bucket of the bits sent beyond the target: while it holds more than
            // `maximumExcess` seconds of the bitrate, upper-layer frames are skipped (as
            // libwebrtc's FrameDropper does); base frames never are.
            if let lastPTS { excessBits = max(0, excessBits - Double(settings.bitrate) * Double(pts - lastPTS) / Double(Self.clockRate)) }
            if allowsFrameDropping, layerFrame.layer > 0, !keyframePending,
               excessBits > Double(settings.bitrate) * Self.maximumExcess {
                lastPTS = pts
                return false
            }
            flags |= vpx_enc_frame_flags_t(UInt32(bitPattern: layerFrame.flags))
            if usesSVC {
                // libvpx 1.12 reads the per-spatial-layer id; the older field is set as well.
                var id = vpx_svc_layer_id_t()
                id.temporal_layer_id = Int32(layerFrame.layer)
                id.temporal_layer_id_per_spatial.0 = Int32(layerFrame.layer)
                try context.check(confer_vpx_set_svc_layer_id(context.pointer, &id), .control)
            } else {
                try context.control(VP8E_SET_TEMPORAL_LAYER_ID, Int32(layerFrame.layer))
            }
        }
        let status = frame.withPlanes { y, u, v in
            // Wrap, then point at the frame's own planes: libvpx reads them in place (no copy).
            var image = vpx_image_t()
            _ = vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(frame.width), UInt32(frame.height), 1,
                             UnsafeMutablePointer(mutating: y.base))
            image.planes = (UnsafeMutablePointer(mutating: y.base), UnsafeMutablePointer(mutating: u.base),
                            UnsafeMutablePointer(mutating: v.base), nil)
            image.stride = (Int32(y.stride), Int32(u.stride), Int32(v.stride), 0)
            return vpx_codec_encode(context.pointer, &image, pts, UInt(frameTicks), flags, UInt(VPX_DL_REALTIME))
        }
        try context.check(status, .encode)
        lastPTS = pts

        var iterator: vpx_codec_iter_t?
        var wrote = false
        var isKeyframe = false
        while let packet = vpx_codec_get_cx_data(context.pointer, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let compressed = packet.pointee.data.frame
            if !wrote {
                output.data.removeAll(keepingCapacity: true)
                if output.data.capacity < expectedLargestFrame { output.data.reserveCapacity(expectedLargestFrame) }
                wrote = true
            }
            if let bytes = compressed.buf, compressed.sz > 0 {
                output.data.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: compressed.sz))
            }
            if compressed.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0 { isKeyframe = true }
        }
        guard wrote else { return false }
        if settings.temporalLayers > 1 { excessBits += Double(output.data.count * 8) }
        if isKeyframe {
            keyframePending = false
            // A keyframe is a base frame (even one libvpx chose itself); the pattern goes on after it.
            patternIndex = 1
            layerFrame = LayerFrame(layer: 0, isSync: false, flags: 0)
        }
        describe(frame, isKeyframe: isKeyframe, layer: layerFrame, in: &output)
        return true
    }

    /// Bytes of the largest frame rate control aims for (a keyframe at the intra cap), capped
    /// at 4 MiB. Outputs grow to this at once rather than in steps as frame sizes vary.
    private var expectedLargestFrame: Int {
        let bytesPerFrame = Double(settings.bitrate) / 8 / settings.frameRate
        return Int(min(Double(1 << 22), bytesPerFrame * Double(maxIntraPercent) / 100))
    }

    /// Fills everything in `output` but the bitstream, reusing its arrays.
    private func describe(_ frame: VideoFrame, isKeyframe: Bool, layer: LayerFrame, in output: inout EncodedFrame) {
        // TL0PICIDX counts base-layer frames; upper frames carry the index of the base they follow.
        if layer.layer == 0, hasWrittenFrame { tl0PictureIndex &+= 1 }
        hasWrittenFrame = true
        output.codec = codec
        output.isKeyframe = isKeyframe
        output.timestamp = frame.timestamp
        output.duration = .frameInterval(fps: settings.frameRate)
        output.width = frame.width
        output.height = frame.height
        output.nalUnits.removeAll(keepingCapacity: true)
        switch codec {
        case .vp8:
            // Take the info out of `output` so its offsets array is uniquely referenced and reused.
            var info = output.vp8 ?? VP8FrameInfo(pictureID: 0)
            output.vp8 = nil
            info.pictureID = pictureID
            info.temporalLayer = layer.layer
            info.layerSync = layer.isSync
            info.tl0PictureIndex = tl0PictureIndex
            info.partitionOffsets.removeAll(keepingCapacity: true)
            info.partitionOffsets.append(0)
            if let tokens = Self.vp8TokenPartitionOffset(output.data) { info.partitionOffsets.append(tokens) }
            output.vp8 = info
            output.vp9 = nil
        default:
            // On the SVC path every frame refers to the last base frame only (the pattern's flags).
            let distance = usesSVC && !isKeyframe ? lastBasePictureID.map { (pictureID &- $0) & 0x7FFF } : nil
            output.vp9 = VP9FrameInfo(pictureID: pictureID, temporalLayer: layer.layer, switchingUpPoint: layer.isSync,
                                      interPicturePredicted: !isKeyframe, tl0PictureIndex: tl0PictureIndex,
                                      referenceDistance: distance.map { UInt8(clamping: min(max($0, 1), 127)) })
            output.vp8 = nil
            if layer.layer == 0 { lastBasePictureID = pictureID }
        }
        pictureID = (pictureID &+ 1) & 0x7FFF
    }

    /// Where the DCT token partition starts in a VP8 frame encoded with one token partition.
    ///
    /// The 3-byte frame tag holds the keyframe bit (bit 0, zero for a keyframe) and the first
    /// partition's size (bits 5…23, RFC 6386 §9.1); a keyframe adds a 7-byte start code and
    /// size. With one token partition there is no partition-size table, so the token data
    /// follows the first partition directly. Nil when the sizes do not fit the frame.
    static func vp8TokenPartitionOffset(_ data: [UInt8]) -> Int? {
        guard data.count >= 3 else { return nil }
        let tag = Int(data[0]) | Int(data[1]) << 8 | Int(data[2]) << 16
        let headerSize = tag & 1 == 0 ? 10 : 3
        let offset = headerSize + (tag >> 5)
        return offset < data.count ? offset : nil
    }
}
