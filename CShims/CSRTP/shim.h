// libsrtp2 for Confer. Every function Confer needs is a plain C function; this header
// only gathers the includes.
#ifndef CONFER_CSRTP_SHIM_H
#define CONFER_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
