internal import ConferMedia
internal import CVPX

/// Owns one `vpx_codec_ctx_t`: the only place a libvpx context is destroyed.
///
/// libvpx keeps pointers into the context, so it lives at a fixed heap address for the
/// whole life of this object. Not `Sendable`: a codec context has one user at a time.
final class VPXContext {
    /// The context; valid from init until deinit.
    let pointer: UnsafeMutablePointer<vpx_codec_ctx_t>

    /// Opens an encoder for `iface` with `config`.
    convenience init(encoder iface: OpaquePointer, config: UnsafePointer<vpx_codec_enc_cfg_t>) throws(VPXError) {
        try self.init(.encoderInit) { confer_vpx_codec_enc_init($0, iface, config, 0) }
    }

    /// Opens a decoder for `iface` with `config`.
    convenience init(decoder iface: OpaquePointer, config: UnsafePointer<vpx_codec_dec_cfg_t>) throws(VPXError) {
        try self.init(.decoderInit) { confer_vpx_codec_dec_init($0, iface, config, 0) }
    }

    /// libvpx's encoder or decoder interface for `codec`: VP8 and VP9 are the two it has.
    static func interface(for codec: Codec, encoder: Bool) throws(VPXError) -> OpaquePointer {
        switch (codec, encoder) {
        case (.vp8, true): return vpx_codec_vp8_cx()
        case (.vp9, true): return vpx_codec_vp9_cx()
        case (.vp8, false): return vpx_codec_vp8_dx()
        case (.vp9, false): return vpx_codec_vp9_dx()
        default:
            let detail = encoder ? "VPXEncoder encodes VP8 or VP9, not \(codec)" : "VPXDecoder decodes VP8 or VP9, not \(codec)"
            throw VPXError(code: .invalidParameter, operation: encoder ? .encoderInit : .decoderInit, detail: detail)
        }
    }

    /// Makes a context at a fixed address and opens it with `open`.
    private init(_ operation: VPXError.Operation,
                 open: (UnsafeMutablePointer<vpx_codec_ctx_t>) -> vpx_codec_err_t) throws(VPXError) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: vpx_codec_ctx_t())
        let status = open(pointer)
        guard status == VPX_CODEC_OK else {
            // A failed init leaves nothing to destroy, but may leave a detail string behind.
            let error = VPXError(status, operation: operation, context: pointer)
            pointer.deallocate()
            throw error
        }
    }

    deinit {
        vpx_codec_destroy(pointer)
        pointer.deallocate()
    }

    /// Throws a ``VPXError`` for `status` unless it is `VPX_CODEC_OK`.
    func check(_ status: vpx_codec_err_t, _ operation: VPXError.Operation) throws(VPXError) {
        guard status == VPX_CODEC_OK else { throw VPXError(status, operation: operation, context: pointer) }
    }

    /// Sets an encoder control whose argument is an `int`.
    func control(_ id: vp8e_enc_control_id, _ value: Int32) throws(VPXError) {
        try check(confer_vpx_control_int(pointer, Int32(bitPattern: id.rawValue), value), .control)
    }

    /// Sets an encoder control whose argument is an `unsigned int`.
    func control(_ id: vp8e_enc_control_id, unsigned value: UInt32) throws(VPXError) {
        try check(confer_vpx_control_uint(pointer, Int32(bitPattern: id.rawValue), value), .control)
    }

    /// Sets a decoder control whose argument is an `int`.
    func control(_ id: vp8_dec_control_id, _ value: Int32) throws(VPXError) {
        try check(confer_vpx_control_int(pointer, Int32(bitPattern: id.rawValue), value), .control)
    }

    /// Reads a decoder control that writes an `int`; nil when the codec does not answer it.
    func query(_ id: vp8_dec_control_id) -> Int32? {
        var value: Int32 = 0
        guard confer_vpx_control_get_int(pointer, Int32(bitPattern: id.rawValue), &value) == VPX_CODEC_OK else { return nil }
        return value
    }
}
