/* kconv: the ssd, ncc and zncc searches on CUDA, after the correlation
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>
#include "kconv.h"
#include "kmatch-scoring.h"

/* What a search needs from its matcher's buffers: the compared samples,
 * packed (ch a pixel, rows pitch bytes apart, (mw + tw - 1) x (mh + th - 1)
 * pixels), and the sum of F T at every position (ft, mw x mh); the
 * scratch the box sums, scores and picks use, grown by
 * kmatch_cuda_methods_scratch. */
typedef struct
{
  const uint8_t *frame;
  int pitch;
  const uint64_t *ft;
  int mw, mh, tw, th;
  void *scratch;
  int max_matches;
  KMatchSums *d_sums; /* max_matches of them, device memory */
  int *d_found;       /* how many of them were found */
} KMatchCudaMethodsJob;

/* Bytes of scratch a search of mw x mh positions of a tw-wide template of
 * ch channels, picking max_matches, uses. */
size_t kmatch_cuda_methods_scratch (int mw, int mh, int tw, int ch,
    int max_matches);

/* Queues on stream the box sums, every position's score (s's formulas,
 * in the core's double arithmetic: the same bits as the host's) and the
 * picks: up to max_matches positions that do not overlap, best first,
 * each with its exact sums. */
KConvStatus kmatch_cuda_methods_queue (const KMatchScoring *s,
    const KMatchCudaMethodsJob *job, cudaStream_t stream);
