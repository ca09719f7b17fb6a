// zlib for Confer: only crc32(), the CRC-32 of STUN's FINGERPRINT attribute (RFC 8489 §14.7).
#ifndef CONFER_CZLIB_SHIM_H
#define CONFER_CZLIB_SHIM_H
#include <zlib.h>
#endif
