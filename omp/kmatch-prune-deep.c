/* kconv: the search that prunes (kmatch-prune.c) for 16-bit values
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same bounds and seed over one channel of values 0 .. 65535, with an
 * integral image of 64-bit sums.
 */
#include "kmatch-sad.h"
#include "kmatch-cpu.h"

#define PRUNE_SAMPLE uint16_t
#define PRUNE_SUM uint64_t
#define PRUNE_STATE KMatchPruneDeep
#define PRUNE_NAME(x) kmatch_prune_deep_##x
#define PRUNE_SAD_ROW kmatch_sad_row_deep
#define PRUNE_SAD_ROW_MASKED kmatch_sad_row_deep_masked
#define PRUNE_SHRUNK_MAP(f, stride, t, tw, th, ch, mw, mh, map, mask, n) \
  kmatch_cpu_map_deep (f, stride, t, mask, tw, th, mw, mh, map, n)
#include "kmatch-prune-impl.h"
