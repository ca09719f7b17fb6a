// libavcodec + libavutil (H.264 decoding) for Confer.
//
// `AVERROR`, `AVERROR_EOF` and `av_err2str` are macros, and `AVFrame.data` /
// `AVFrame.linesize` arrive in Swift as 8-tuples: the helpers below expose them.
#ifndef CONFER_CAVCODEC_SHIM_H
#define CONFER_CAVCODEC_SHIM_H
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>

static inline int confer_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int confer_averror_eof(void) { return AVERROR_EOF; }
// AVERROR_INVALIDDATA is built by the function-like macro FFERRTAG, which Swift cannot import.
static inline int confer_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline uint8_t *confer_avframe_plane(const AVFrame *f, int i) { return f->data[i]; }
static inline int confer_avframe_linesize(const AVFrame *f, int i) { return f->linesize[i]; }
#endif
