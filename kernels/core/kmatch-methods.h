/* kconv: the searches by ssd, ncc and zncc
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each is made of exact integer sums at every position, which a backend
 * correlates (match_correlate) or which are box sums of the frame: the
 * sum of F T, and the sums of F per channel and of F^2 under the template.
 * The scores follow from them here, the same on every backend.
 */
#ifndef KMATCH_METHODS_H
#define KMATCH_METHODS_H

#include "kmatch.h"
#include "kconv-backend.h"

typedef struct KMatchScorer KMatchScorer;

/* A template of tw x th pixels of ch (1 or 3) packed samples for method,
 * with mask (NULL, or a byte a sample: 0xff counts, 0 does not).  NULL when
 * memory is short. */
KMatchScorer *kmatch_scorer_new (KMatchMethod method, const uint8_t * tmpl,
    int tw, int th, int ch, const uint8_t * mask);

/* The same for a template of one channel of 16-bit values of depth bits
 * (9 .. 16), for frames of that depth: the same sums and formulas, the
 * largest sample 2^depth - 1 where 255 was (the scores mean the same). */
KMatchScorer *kmatch_scorer_new_deep (KMatchMethod method,
    const uint16_t * tmpl, int tw, int th, int depth, const uint8_t * mask);

/* The region searched: rw x rh pixels at base, rows stride apart, of
 * pixel_stride bytes whose channels lie at offsets (or whose R, G, B give
 * luma). */
typedef struct
{
  const uint8_t *base;
  ptrdiff_t stride;
  int pixel_stride;
  const int *offsets;
  int luma, rw, rh, n_threads;
  /* a deep scorer's frame: words of depth bits, shift bits up, either
   * byte order (KConvImage's), the value at offsets[0] */
  int depth, shift, big_endian;
} KMatchScoredRegion;

/* Scores every position of the region on ops and picks up to max_matches
 * positions that do not overlap, best first (relative to the region).
 * score_map (NULL: none) receives every score; sum_map (NULL: none) every
 * SSD (ssd alone). */
KConvStatus kmatch_scorer_search (KMatchScorer * s,
    const KConvBackendOps * ops, const KMatchScoredRegion * r,
    int max_matches, KMatchPosition * matches, int *n_matches,
    double *score_map, uint64_t * sum_map);

/* What a device needs to search for the template (kmatch-scoring.h); 0
 * when no device can: a template with a mask, or sums too large for 64
 * bits. */
int kmatch_scorer_scoring (const KMatchScorer * s, KMatchScoring * out);

/* The n positions a device picked (relative to the region), scored from
 * their sums as the host scores them: the same bits. */
void kmatch_scorer_report (const KMatchScorer * s, const KMatchSums * sums,
    int n, KMatchPosition * matches);

void kmatch_scorer_free (KMatchScorer * s);

#endif /* KMATCH_METHODS_H */
