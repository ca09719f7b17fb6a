// libyuv (scaling and colour conversion) for Confer. libyuv ships no pkg-config file;
// its headers are plain C when not compiled as C++.
#ifndef CONFER_CYUV_SHIM_H
#define CONFER_CYUV_SHIM_H
#include <libyuv.h>
#endif
