/* kconv: template matching on CUDA, the bounds that prune the search
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CUDA_PRUNE_H
#define KMATCH_CUDA_PRUNE_H

#include <stdint.h>
#include <cuda_runtime.h>
#include "kconv.h"

#define KMATCH_PRUNE_MAX_BLOCKS 64
#define KMATCH_PRUNE_MAX_BLOCK_BYTES 384 /* a block's row, at most */

/* Blocks of the template whose every pixel counts: their offsets (in
 * pixels) and sums (over their bw x bh pixels' channels).  n 0: no bound. */
typedef struct
{
  int n, bw, bh;
  int dx[KMATCH_PRUNE_MAX_BLOCKS], dy[KMATCH_PRUNE_MAX_BLOCKS];
  uint32_t sum[KMATCH_PRUNE_MAX_BLOCKS];
} KMatchPruneBlocks;

/* The blocks of a tw x th template of ch samples a pixel (mask: NULL or
 * 0xff / 0 per sample), up to 4 x 4 of them (8 x 8 with a mask), each at
 * least 16 pixels a side where the template allows and at most
 * KMATCH_PRUNE_MAX_BLOCK_BYTES wide. */
void kmatch_prune_blocks (const uint8_t * tmpl, const uint8_t * mask, int tw,
    int th, int ch, KMatchPruneBlocks * pb);

/* The groups of 4 x 4 positions of an mw x mh search (the last row and
 * column of groups may be partial). */
size_t kmatch_prune_groups (int mw, int mh);

/* Device bytes kmatch_prune_queue needs for an mw x mh search. */
size_t kmatch_prune_scratch_bytes (const KMatchPruneBlocks * pb, int mw,
    int mh);

/* Queues on stream, for the mw x mh positions of the region in frame
 * (packed, pitch bytes a row): group_least[gy * ((mw + 3) / 4) + gx], the
 * least key (bound, y, x) of the group of 4 x 4 positions from (4 gx, 4 gy),
 * the bound a lower bound of the position's SAD; and *thresh, the key
 * (SAD, y, x) of the position with the least bound, so at least the best's.
 * A group whose key exceeds *thresh holds neither the best nor a position
 * that ties it earlier.  tmpl and mask (NULL: all count) are the template's
 * plain samples on the device; key is a device word the least bound is
 * found in. */
/* Then left[0], the number of groups not ruled out, and left[1 + i] the
 * index (gy * ((mw + 3) / 4) + gx) of the i-th of them, for i < left_cap
 * (in no order). */
KConvStatus kmatch_prune_queue (const KMatchPruneBlocks * pb,
    const uint8_t * frame, int pitch, int ch, int mw, int mh, int tw, int th,
    const uint8_t * tmpl, const uint8_t * mask, uint8_t * scratch,
    const uint64_t ** group_least, unsigned long long *key, uint64_t * thresh,
    const uint32_t ** left, uint32_t left_cap, cudaStream_t stream);

#endif
