/* kconv: template matching of 16-bit samples on CUDA, as the core sees it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CUDA_DEEP_H
#define KMATCH_CUDA_DEEP_H

#include <stddef.h>
#include <stdint.h>
#include "kconv.h"
#include "kmatch-scoring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KMatchCudaDeep KMatchCudaDeep;

/* Every function here records why it fails with kconv_fail ()
 * (kconv-error.h). */
KConvStatus kmatch_cuda_deep_new (int device_id, KMatchCudaDeep ** out);

/* tw x th values, one channel; mask: NULL, or a byte a pixel, non-zero
 * where it counts. */
KConvStatus kmatch_cuda_deep_set_template (KMatchCudaDeep * d,
    const uint16_t * tmpl, int tw, int th, const uint8_t * mask);

/* How the words lie in the frame */
typedef struct
{
  int pixel_stride;             /* bytes from one sample to the next */
  int depth, shift, big_endian;
} KMatchCudaWords;

/* The search of an mw + tw - 1 by mh + th - 1 region whose first word is
 * at frame, rows `stride` bytes apart: host memory (it crosses the bus
 * first) or device memory when on_device (read where it lies).  The best
 * position (smallest SAD, then y, then x), and the whole map when sad_map
 * is not NULL.  At most 65535 x 65535 positions, templates at most 65536
 * wide.  Waits for the answer. */
KConvStatus kmatch_cuda_deep_search (KMatchCudaDeep * d, const uint8_t * frame,
    ptrdiff_t stride, int on_device, const KMatchCudaWords * words, int mw,
    int mh, int *best_x, int *best_y, uint64_t * best_sad,
    uint64_t * sad_map);

/* The same region searched by ssd, ncc or zncc (sc: the template's sums,
 * which has no mask, and whose sums fit the formulas' 64-bit forms): up
 * to max_matches positions that do not overlap, best first (the least
 * score, then y, then x, as the host picks), each with the frame's exact
 * sums there, for the host to score as it would (kmatch-scoring.h).
 * Templates of at most 2^21 pixels (the sums of products stay exact in
 * double precision).  Waits for the answer. */
KConvStatus kmatch_cuda_deep_search_scored (KMatchCudaDeep * d,
    const uint8_t * frame, ptrdiff_t stride, int on_device,
    const KMatchCudaWords * words, int mw, int mh, const KMatchScoring * sc,
    int max_matches, KMatchSums * out, int *n);

void kmatch_cuda_deep_free (KMatchCudaDeep * d);

#ifdef __cplusplus
}
#endif
#endif
