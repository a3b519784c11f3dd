/* kconv: exact template matching that skips the positions it can prove lose
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same answer as the exhaustive map and greedy pick in kmatch.c, from
 * fewer positions summed in full:
 *  - a seed: both images shrunk by s x s block means are searched, then
 *    the exact sums around the best shrunk position set a threshold that
 *    is usually the answer already;
 *  - multilevel successive elimination: for any split of the template
 *    into blocks, the sum over blocks of |sum of the frame's block - sum
 *    of the template's| is at most the SAD (triangle inequality).  Level l
 *    splits it into 2^l x 2^l blocks, each four reads of an integral image;
 *    a position goes one level finer only while its bound does not exceed
 *    the threshold;
 *  - partial distortion elimination: an exact sum stops once it exceeds
 *    the threshold.
 * A position is dropped only when what is known of it lies strictly above
 * a sum already found, so ties survive and the smallest y, then x, still
 * wins.
 */
#include "kmatch-sad.h"
#include "kmatch-cpu.h"

#define PRUNE_SAMPLE uint8_t
/* (sums wrap modulo 2^32: exact for any box of fewer than 2^32 / 255
 * pixels) */
#define PRUNE_SUM uint32_t
#define PRUNE_STATE KMatchPrune
#define PRUNE_NAME(x) kmatch_prune_##x
#define PRUNE_SAD_ROW kmatch_sad_row
#define PRUNE_SAD_ROW_MASKED kmatch_sad_row_masked
#define PRUNE_SHRUNK_MAP(f, stride, t, tw, th, ch, mw, mh, map, mask, n) \
  (kmatch_cpu_map (f, stride, t, tw, th, ch, mw, mh, map, mask, n), 0)
#include "kmatch-prune-impl.h"
