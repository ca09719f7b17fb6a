// libx264 for Confer.
//
// x264.h needs <stdint.h> before it. `x264_encoder_open` is a macro that names the
// build's ABI (`x264_encoder_open_164`), and `x264_picture_t.img.plane` arrives in
// Swift as a tuple: helpers below cover both.
#ifndef CONFER_CX264_SHIM_H
#define CONFER_CX264_SHIM_H
#include <stdint.h>
#include <x264.h>

static inline x264_t *confer_x264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }
static inline void confer_x264_picture_set_plane(x264_picture_t *pic, int i, uint8_t *plane, int stride) {
    pic->img.plane[i] = plane;
    pic->img.i_stride[i] = stride;
}
#endif
