// libopus, libopusfile and libogg for Confer.
//
// Swift cannot call C variadic functions, and every Opus setting goes through one:
// `opus_encoder_ctl` and `opus_decoder_ctl`. Each helper below is a
// one-line, typed wrapper around a single request so Swift can call it.
#ifndef CONFER_COPUS_SHIM_H
#define CONFER_COPUS_SHIM_H
#include <opus/opus.h>
#include <opus/opusfile.h>
#include <ogg/ogg.h>

// opus_encoder_ctl is variadic.
static inline int confer_opus_set_bitrate(OpusEncoder *e, opus_int32 bps) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(bps)); }
static inline int confer_opus_get_bitrate(OpusEncoder *e, opus_int32 *bps) { return opus_encoder_ctl(e, OPUS_GET_BITRATE(bps)); }
static inline int confer_opus_set_complexity(OpusEncoder *e, opus_int32 c) { return opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(c)); }
static inline int confer_opus_set_inband_fec(OpusEncoder *e, opus_int32 on) { return opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(on)); }
static inline int confer_opus_set_packet_loss_perc(OpusEncoder *e, opus_int32 pct) { return opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(pct)); }
static inline int confer_opus_set_dtx(OpusEncoder *e, opus_int32 on) { return opus_encoder_ctl(e, OPUS_SET_DTX(on)); }
static inline int confer_opus_set_vbr(OpusEncoder *e, opus_int32 on) { return opus_encoder_ctl(e, OPUS_SET_VBR(on)); }
static inline int confer_opus_set_signal(OpusEncoder *e, opus_int32 s) { return opus_encoder_ctl(e, OPUS_SET_SIGNAL(s)); }
static inline int confer_opus_get_lookahead(OpusEncoder *e, opus_int32 *n) { return opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(n)); }
static inline int confer_opus_encoder_reset(OpusEncoder *e) { return opus_encoder_ctl(e, OPUS_RESET_STATE); }
// opus_decoder_ctl is variadic.
static inline int confer_opus_decoder_get_last_packet_duration(OpusDecoder *d, opus_int32 *n) { return opus_decoder_ctl(d, OPUS_GET_LAST_PACKET_DURATION(n)); }
static inline int confer_opus_decoder_reset(OpusDecoder *d) { return opus_decoder_ctl(d, OPUS_RESET_STATE); }
#endif
