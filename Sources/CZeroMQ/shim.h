// CZeroMQ: the only place the C API of libzmq (Debian's libzmq3-dev, 4.3.x) enters the package.
//
// Exactly one Swift module, `ZeroMQ`, imports this (`internal import CZeroMQ`); no C type escapes
// into a public Swift signature.
//
// Almost all of <zmq.h> is callable from Swift as it is. What follows adds only what Swift cannot
// use directly:
//
// - Error numbers that <zmq.h> defines as `ZMQ_HAUSNUMERO + n` when the platform lacks them. Swift
//   imports such macros inconsistently (only when the platform's <errno.h> does not define the name
//   first), so they are restated here as constants with stable names that always import.
// - The size of `zmq_msg_t`. A message must never be copied (small messages live inside the
//   struct), so Swift code keeps it in memory it allocates once and never moves; `Socket` asserts
//   that Swift's size of the type equals this one and that its alignment is a pointer's.
#ifndef CZEROMQ_SHIM_H
#define CZEROMQ_SHIM_H

#include <errno.h>
#include <zmq.h>

/// libzmq's "context was terminated" error number.
static const int CZMQ_ETERM = ETERM;
/// libzmq's "operation cannot be done in the socket's current state" error number.
static const int CZMQ_EFSM = EFSM;
/// "No route to the peer" (a ROUTER with ZMQ_ROUTER_MANDATORY and an unknown routing id).
static const int CZMQ_EHOSTUNREACH = EHOSTUNREACH;
/// "Protocol not supported" (an unknown transport in an endpoint).
static const int CZMQ_EPROTONOSUPPORT = EPROTONOSUPPORT;
/// "Operation not supported" (for example receiving on a PUB socket).
static const int CZMQ_ENOTSUP = ENOTSUP;
/// "Address in use".
static const int CZMQ_EADDRINUSE = EADDRINUSE;
/// "Address not available".
static const int CZMQ_EADDRNOTAVAIL = EADDRNOTAVAIL;
/// "Not a socket" (a closed or invalid socket handle).
static const int CZMQ_ENOTSOCK = ENOTSOCK;
/// "No thread available" (the context's I/O threads are exhausted).
static const int CZMQ_EMTHREAD = EMTHREAD;
/// "Incompatible protocol".
static const int CZMQ_ENOCOMPATPROTO = ENOCOMPATPROTO;

/// The size in bytes of `zmq_msg_t`, for checking Swift's layout of it.
static const int CZMQ_MSG_SIZE = (int)sizeof(zmq_msg_t);

#endif
