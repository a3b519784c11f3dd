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

/* Every function here records why it fails with kconv_fail ()
 * (kconv-error.h). */
KConvStatus kmatch_cuda_new (int device_id, KMatchCuda ** out);
/* byte_mask: NULL, or tw * th * ch bytes, 0xff where the template counts
 * and 0 where it does not (transparent pixels). */
KConvStatus kmatch_cuda_set_template (KMatchCuda * g, const uint8_t * tmpl,
    int tw, int th, int ch, const uint8_t * byte_mask);

/* How the compared samples lie in the frame's pixels: the bytes at
 * offsets[0 .. ch - 1] of each pixel_stride, or with luma the luma of R, G,
 * B at offsets[0 .. 2] (kmatch_rgb_luma). */
typedef struct
{
  int pixel_stride;
  int offsets[3];
  int luma;
} KMatchCudaLayout;

/* Samples of an mw + tw - 1 by mh + th - 1 region, rows `stride` bytes
 * apart: packed (ch per pixel) when layout is NULL, else as layout says,
 * gathered on the GPU.  frame is host memory, or device memory when
 * on_device (read where it lies: nothing crosses the bus but the result).
 * Either the best position (sad_map NULL: only it crosses PCIe) or the
 * whole map. */
KConvStatus kmatch_cuda_search (KMatchCuda * g, const uint8_t * frame,
    ptrdiff_t stride, int on_device, const KMatchCudaLayout * layout,
    int mw, int mh, int *best_x, int *best_y, uint64_t * best_sad,
    uint64_t * sad_map);
void kmatch_cuda_free (KMatchCuda * g);

#ifdef __cplusplus
}
#endif
#endif
