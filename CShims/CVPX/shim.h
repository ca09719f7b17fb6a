// libvpx (VP8 and VP9) for Confer.
//
// `vpx_codec_enc_init` and `vpx_codec_dec_init` are function-like macros that pass the
// ABI version, and `vpx_codec_control_` is variadic: Swift can call none of them, so
// each gets a one-line typed helper here.
#ifndef CONFER_CVPX_SHIM_H
#define CONFER_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

// Function-like macros that add VPX_ENCODER_ABI_VERSION / VPX_DECODER_ABI_VERSION.
static inline vpx_codec_err_t confer_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface, const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, iface, cfg, flags);
}
static inline vpx_codec_err_t confer_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface, const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, iface, cfg, flags);
}
// vpx_codec_control_ is variadic: one helper for int-valued controls, one for int* getters.
static inline vpx_codec_err_t confer_vpx_control_int(vpx_codec_ctx_t *ctx, int id, int value) { return vpx_codec_control_(ctx, id, value); }
static inline vpx_codec_err_t confer_vpx_control_uint(vpx_codec_ctx_t *ctx, int id, unsigned int value) { return vpx_codec_control_(ctx, id, value); }
static inline vpx_codec_err_t confer_vpx_control_get_int(vpx_codec_ctx_t *ctx, int id, int *value) { return vpx_codec_control_(ctx, id, value); }
// VP9 SVC controls that take a pointer to a struct (temporal layers on VP9).
static inline vpx_codec_err_t confer_vpx_set_svc_parameters(vpx_codec_ctx_t *ctx, vpx_svc_extra_cfg_t *parameters) { return vpx_codec_control_(ctx, VP9E_SET_SVC_PARAMETERS, parameters); }
static inline vpx_codec_err_t confer_vpx_set_svc_layer_id(vpx_codec_ctx_t *ctx, vpx_svc_layer_id_t *id) { return vpx_codec_control_(ctx, VP9E_SET_SVC_LAYER_ID, id); }
static inline vpx_codec_err_t confer_vpx_get_svc_layer_id(vpx_codec_ctx_t *ctx, vpx_svc_layer_id_t *id) { return vpx_codec_control_(ctx, VP9E_GET_SVC_LAYER_ID, id); }
#endif
