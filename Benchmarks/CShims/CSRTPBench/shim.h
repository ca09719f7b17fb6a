// libsrtp2 for the SRTP benchmarks, which call srtp_protect directly beside Confer's
// wrapper. A copy of ../../CShims/CSRTP under another module name: SwiftPM takes no target
// path outside the package root, and two targets named CSRTP could not share a build graph.
#ifndef CONFER_CSRTPBENCH_SHIM_H
#define CONFER_CSRTPBENCH_SHIM_H
#include <srtp2/srtp.h>
#endif
