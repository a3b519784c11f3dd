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

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* Records why the current call fails (printf-style) and returns status. */
KConvStatus kconv_fail (KConvStatus status, const char *format, ...)
    __attribute__((format (printf, 2, 3)));

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

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */

/* Returns the status of a call that failed. */
#define KCONV_TRY(call) do { \
    KConvStatus kconv_st_ = (call); \
    if (kconv_st_ != KCONV_OK) \
      return kconv_st_; \
  } while (0)

#ifdef __CUDACC__
/* The one CUDA check: a CUDA error becomes KCONV_ERROR_DEVICE, with what
 * failed and CUDA's words for the error recorded.  (An injected fault
 * reads as cudaErrorLaunchFailure.) */
static inline KConvStatus
kconv_cuda_status (cudaError_t err, const char *what)
{
  if (err == cudaSuccess && kconv_fault_due (what))
    err = cudaErrorLaunchFailure;
  if (err == cudaSuccess)
    return KCONV_OK;
  return kconv_fail (KCONV_ERROR_DEVICE, "%s: %s (%s)", what,
      cudaGetErrorName (err), cudaGetErrorString (err));
}

/* A CUDA runtime call whose failure the caller returns. */
#define KCONV_CUDA_CHECK(call) KCONV_TRY (kconv_cuda_status ((call), #call))
#endif

#endif /* KCONV_ERROR_H */
