// CSodium: the only place the C API of libsodium (Debian's libsodium-dev, 1.0.18) enters the package.
//
// Exactly one Swift module, `Sodium`, imports this (`internal import CSodium`); no C type escapes
// into a public Swift signature.
//
// Everything `Sodium` uses is callable from Swift as it is: the limits that <sodium.h> defines
// through function-like macros (for example `crypto_pwhash_argon2id_MEMLIMIT_MAX`) are read through
// libsodium's own accessor functions (`crypto_pwhash_argon2id_memlimit_max()`), and the encoded
// length of Base64 through `sodium_base64_encoded_len()`. So this header only includes <sodium.h>.
#ifndef CSODIUM_SHIM_H
#define CSODIUM_SHIM_H

#include <sodium.h>

#endif
