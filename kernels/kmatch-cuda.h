/* kconv: template matching on CUDA, as the core sees it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CUDA_H
#define KMATCH_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "kconv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KMatchCuda KMatchCuda;

KConvStatus kmatch_cuda_new (int device_id, KMatchCuda ** out,
    const char **why);
KConvStatus kmatch_cuda_set_template (KMatchCuda * g, const uint8_t * tmpl,
    int tw, int th, int ch);

/* Packed host samples (ch per pixel, rows `stride` bytes apart) of an
 * mw + tw - 1 by mh + th - 1 region.  Either the best position (sad_map
 * NULL: only it crosses PCIe) or the whole map. */
KConvStatus kmatch_cuda_search (KMatchCuda * g, const uint8_t * frame,
    ptrdiff_t stride, int mw, int mh, int *best_x, int *best_y,
    uint64_t * best_sad, uint64_t * sad_map);

const char *kmatch_cuda_error (const KMatchCuda * g);
void kmatch_cuda_free (KMatchCuda * g);

#ifdef __cplusplus
}
#endif
#endif
