/* kconv: template matching on CUDA, as the core sees it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CUDA_H
#define KMATCH_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "kconv.h"
#include "kmatch-scoring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KMatchCuda KMatchCuda;

/* Every function here records why it fails with kconv_fail ()
 * (kconv-error.h). */
KConvStatus kmatch_cuda_new (int device_id, KConvGpuWait wait,
    KMatchCuda **out);
/* byte_mask: NULL, or tw * th * ch bytes, 0xff where the template counts
 * and 0 where it does not (transparent pixels). */
KConvStatus kmatch_cuda_set_template (KMatchCuda *g, const uint8_t *tmpl,
    int tw, int th, int ch, const uint8_t *byte_mask);

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
 * gathered on the GPU.  frame is host memory (pageable memory is copied to
 * pinned staging with n_threads threads first), or device memory when
 * on_device (read where it lies: nothing crosses the bus but the result).
 * Either the best position (sad_map NULL: only it crosses PCIe) or the
 * whole map too.  Waits for the answer. */
KConvStatus kmatch_cuda_search (KMatchCuda *g, const uint8_t *frame,
    ptrdiff_t stride, int on_device, const KMatchCudaLayout *layout, int mw,
    int mh, int *best_x, int *best_y, uint64_t *best_sad, uint64_t *sad_map,
    int n_threads);

/* Frames in flight: the same search queued on a slot of its own (made on
 * first use, *slot), without waiting.  The upload of one slot's frame
 * overlaps the search of the slot before.  A frame in pinned or device
 * memory must stay as it is until the wait; a pageable one is copied
 * before this returns.  kmatch_cuda_slot_best gives the answer after
 * kmatch_cuda_slot_wait.  The matcher's template must not change while
 * a slot is in flight (kmatch_cuda_set_template waits for them). */
typedef struct KMatchCudaSlot KMatchCudaSlot;
KConvStatus kmatch_cuda_submit (KMatchCuda *g, KMatchCudaSlot **slot,
    const uint8_t *frame, ptrdiff_t stride, int on_device,
    const KMatchCudaLayout *layout, int mw, int mh, uint64_t *sad_map,
    int n_threads);
KConvStatus kmatch_cuda_slot_wait (KMatchCudaSlot *slot);
/* Whether a wait would return at once (also when the device failed). */
int kmatch_cuda_slot_done (const KMatchCudaSlot *slot);
void kmatch_cuda_slot_best (const KMatchCudaSlot *slot, int *best_x,
    int *best_y, uint64_t *best_sad);
void kmatch_cuda_slot_free (KMatchCudaSlot *slot);

/* A search by ssd, ncc or zncc of a template without a mask, scored as s
 * says (kmatch-scoring.h), the region as kmatch_cuda_search takes it: up
 * to max_matches positions that do not overlap, best first, each with
 * the frame's exact sums there (*n_out of them in out).  Only those cross
 * PCIe.  Waits for the answer. */
KConvStatus kmatch_cuda_search_scored (KMatchCuda *g, const KMatchScoring *s,
    const uint8_t *frame, ptrdiff_t stride, int on_device,
    const KMatchCudaLayout *layout, int mw, int mh, int max_matches,
    KMatchSums *out, int *n_out, int n_threads);

/* Rows of host memory to a device buffer the matcher keeps (*dst, rows
 * *dst_stride bytes apart; it holds until the next upload), on its search
 * stream, waited for and counted as crossing the bus: a frame that
 * several matchers search, uploaded once. */
KConvStatus kmatch_cuda_upload (KMatchCuda *g, const void *src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, void **dst,
    ptrdiff_t *dst_stride);

/* Rows of device memory to page-locked memory the matcher keeps (*dst,
 * rows row_bytes apart; it holds until the next download), on its search
 * stream (after its searches), waited for and counted as crossing the
 * bus. */
KConvStatus kmatch_cuda_download (KMatchCuda *g, const void *src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, const void **dst);

void kmatch_cuda_free (KMatchCuda *g);

#ifdef __cplusplus
}
#endif
#endif
