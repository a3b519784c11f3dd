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
 * least 16 pixels a side where the template allows. */
void kmatch_prune_blocks (const uint8_t * tmpl, const uint8_t * mask, int tw,
    int th, int ch, KMatchPruneBlocks * pb);

/* Device bytes kmatch_prune_queue needs for an mw x mh search. */
size_t kmatch_prune_scratch_bytes (const KMatchPruneBlocks * pb, int mw,
    int mh, int tw, int th);

/* Queues on stream, for the mw x mh positions of the region in frame
 * (packed, pitch bytes a row): bound[y * mw + x], a lower bound of each
 * position's SAD, and *thresh, the exact SAD of the position with the
 * least bound (so at least the best).  A position whose bound exceeds
 * *thresh can neither be the best nor tie it.  tmpl and mask (NULL: all
 * count) are the template's plain samples on the device; key is a device
 * word the least bound is found in. */
KConvStatus kmatch_prune_queue (const KMatchPruneBlocks * pb,
    const uint8_t * frame, int pitch, int ch, int mw, int mh, int tw, int th,
    const uint8_t * tmpl, const uint8_t * mask, uint8_t * scratch,
    uint32_t ** bound, unsigned long long *key, uint32_t * thresh,
    cudaStream_t stream);

#endif
