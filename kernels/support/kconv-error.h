/* kconv: how the core and its backends say why a call failed
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One model everywhere: the function that sees a failure records its
 * detail in thread-local storage with kconv_fail () and returns the
 * status; kconv_last_error () (kconv.h) reads it back in the same thread.
 * No shared static buffers, no detail passed up by hand.
 */
#ifndef KCONV_ERROR_H
#define KCONV_ERROR_H

#include "kconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records why the current call fails (printf-style) and returns status. */
KConvStatus kconv_fail (KConvStatus status, const char *format, ...)
    __attribute__ ((format (printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* The one CUDA check: a failing runtime call records its name and CUDA's
 * words for the error, and the caller returns KCONV_ERROR_DEVICE. */
#define KCONV_CUDA_CHECK(call) do { \
    cudaError_t kconv_err_ = (call); \
    if (kconv_err_ != cudaSuccess) \
      return kconv_fail (KCONV_ERROR_DEVICE, "%s: %s (%s)", #call, \
          cudaGetErrorName (kconv_err_), cudaGetErrorString (kconv_err_)); \
  } while (0)
#endif

#endif /* KCONV_ERROR_H */
