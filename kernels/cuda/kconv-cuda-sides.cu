/* kconv: several small images filtered at once, on side streams
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A small image (a region's window, kconv_filter_run_rects) is a grid of
 * a block or a few, and its time is one block's latency: a whole tile's
 * work on one multiprocessor, 7-17 us on an H200 (kernels/PERFORMANCE.md),
 * while the rest of the device idles.  Queued one after another on one
 * stream, n windows cost n such latencies; on side streams they run side
 * by side.  The side streams wait for what the caller's stream held, and
 * the caller's stream waits for them, so the call is ordered on it as one
 * launch would be.
 */
#include <stdlib.h>
#include <cuda_runtime.h>
#include "kconv-cuda-sides.h"
#include "kconv-error.h"

struct KConvCudaSides
{
  int n; /* streams made */
  cudaStream_t stream[KCONV_CUDA_SIDES];
  cudaEvent_t fork, join[KCONV_CUDA_SIDES];
};

static KConvStatus
sides_make (KConvCudaSides *s)
{
  KCONV_CUDA_CHECK (
      cudaEventCreateWithFlags (&s->fork, cudaEventDisableTiming));
  for (; s->n < KCONV_CUDA_SIDES; s->n++) {
    cudaError_t err =
        cudaStreamCreateWithFlags (&s->stream[s->n], cudaStreamNonBlocking);
    if (err == cudaSuccess && (err = cudaEventCreateWithFlags (&s->join[s->n],
                                   cudaEventDisableTiming)) != cudaSuccess)
      cudaStreamDestroy (s->stream[s->n]);
    KCONV_CUDA_CHECK (err);
  }
  return KCONV_OK;
}

KConvStatus
kconv_cuda_sides_fork (KConvCudaSides **sides, void *stream, int n, void **side)
{
  if (!*sides) {
    *sides = (KConvCudaSides *) calloc (1, sizeof **sides);
    if (!*sides)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    KConvStatus st = sides_make (*sides);
    if (st != KCONV_OK) {
      kconv_cuda_sides_free (*sides);
      *sides = NULL;
      return st;
    }
  }
  KConvCudaSides *s = *sides;
  KCONV_CUDA_CHECK (cudaEventRecord (s->fork, (cudaStream_t) stream));
  for (int i = 0; i < n && i < KCONV_CUDA_SIDES; i++) {
    KCONV_CUDA_CHECK (cudaStreamWaitEvent (s->stream[i], s->fork, 0));
    side[i] = s->stream[i];
  }
  return KCONV_OK;
}

KConvStatus
kconv_cuda_sides_join (KConvCudaSides *s, void *stream, int n)
{
  for (int i = 0; i < n && i < KCONV_CUDA_SIDES; i++) {
    KCONV_CUDA_CHECK (cudaEventRecord (s->join[i], s->stream[i]));
    KCONV_CUDA_CHECK (
        cudaStreamWaitEvent ((cudaStream_t) stream, s->join[i], 0));
  }
  return KCONV_OK;
}

void
kconv_cuda_sides_free (KConvCudaSides *s)
{
  if (!s)
    return;
  for (int i = 0; i < s->n; i++) {
    cudaStreamDestroy (s->stream[i]);
    cudaEventDestroy (s->join[i]);
  }
  if (s->fork)
    cudaEventDestroy (s->fork);
  free (s);
}
