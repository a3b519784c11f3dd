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

/* Forgets the last failure's detail.  Each entry point of the API that
 * returns a status calls it first, so that the detail read after a failure
 * is that failure's, never an earlier one's. */
void kconv_clear_error (void);

/* Fault injection, compiled into test builds alone (meson setup
 * -Dfault_injection=true): with KCONV_FAULT=KIND:N in the environment
 * (KIND alloc, copy, launch or sync), the Nth CUDA call of that kind in the
 * process, counted from 1, fails as if the GPU had.  Whether the call with
 * the source text `call` is that one (counts it). */
#ifdef KCONV_FAULT_INJECTION
int kconv_fault_due (const char *call);
#else
#define kconv_fault_due(call) 0
#endif

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* The one CUDA check: a failing runtime call records its name and CUDA's
 * words for the error, and the caller returns KCONV_ERROR_DEVICE.  (An
 * injected fault reads as cudaErrorLaunchFailure.) */
#define KCONV_CUDA_CHECK(call) do { \
    cudaError_t kconv_err_ = (call); \
    if (kconv_err_ == cudaSuccess && kconv_fault_due (#call)) \
      kconv_err_ = cudaErrorLaunchFailure; \
    if (kconv_err_ != cudaSuccess) \
      return kconv_fail (KCONV_ERROR_DEVICE, "%s: %s (%s)", #call, \
          cudaGetErrorName (kconv_err_), cudaGetErrorString (kconv_err_)); \
  } while (0)
#endif

#endif /* KCONV_ERROR_H */
