// libpng for Confer. Only libpng's simplified API (png_image_*) is used: it reports
// errors through return values instead of longjmp, which Swift cannot survive.
#ifndef CONFER_CPNG_SHIM_H
#define CONFER_CPNG_SHIM_H
#include <png.h>
#endif
