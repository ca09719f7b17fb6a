// libspeexdsp's resampler, used to bring WAV input to 48 kHz.
#ifndef CONFER_CSPEEXDSP_SHIM_H
#define CONFER_CSPEEXDSP_SHIM_H
#include <speex/speex_resampler.h>
#endif
