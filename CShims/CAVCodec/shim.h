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
static inline AVBufferRef *confer_avframe_buffer(const AVFrame *f) { return f->buf[0]; }
// For a get_buffer2 callback: one buffer holds every plane.
static inline void confer_avframe_set_plane(AVFrame *f, int i, uint8_t *data, int linesize) {
    f->data[i] = data;
    f->linesize[i] = linesize;
}
static inline void confer_avframe_set_buffer(AVFrame *f, AVBufferRef *buffer) {
    f->buf[0] = buffer;
    f->extended_data = f->data;
}
// The padded size and the strictest stride alignment libavcodec asks of a get_buffer2
// allocation for this context (avcodec_align_dimensions2 gives one alignment per plane).
static inline int confer_avcodec_align_dimensions(AVCodecContext *c, int *width, int *height) {
    int align[AV_NUM_DATA_POINTERS] = {0};
    avcodec_align_dimensions2(c, width, height, align);
    int strictest = 1;
    for (int i = 0; i < AV_NUM_DATA_POINTERS; i++) if (align[i] > strictest) strictest = align[i];
    return strictest;
}
#endif
