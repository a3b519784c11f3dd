/* kconv: the CUDA backend's table (kernels/cuda/), built where CUDA is
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include "kconv-backend.h"
#include "kconv-error.h"
#include "kconv-cuda.h"
#include "kconv-slot.h"
#include "kmatch-cuda.h"
#include "kmatch-cuda-deep.h"

static int
cuda_usable (void)
{
  return kconv_cuda_device_count () > 0;
}

/* Two 1D passes cost about rows + cols taps plus a second trip through
 * memory; only worth it once the 2D kernel is clearly larger. */
static int
separable_pays (const KConvPlan * plan)
{
  return plan->separable
      && plan->rows * plan->cols >= 2 * (plan->rows + plan->cols);
}

static KConvStatus
cuda_filter_new (KConvFilter * f, const KConvOptions * options)
{
  KConvCuda *cu = NULL;
  f->path = separable_pays (&f->plan) ? KCONV_PATH_SEPARABLE :
      KCONV_PATH_DIRECT;
  KConvStatus st = kconv_cuda_new (&f->plan, f->path == KCONV_PATH_SEPARABLE,
      options->device_id, options->gpu_wait, options->copy_streams, &cu);
  f->impl = cu;
  return st;
}

static KConvStatus
cuda_filter_run (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst)
{
  return kconv_cuda_run (f->impl, src, dst, f->n_threads);
}

static KConvStatus
cuda_filter_run_deep (KConvFilter * f, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst)
{
  return kconv_cuda_run_deep (f->impl, plan, src, dst, f->n_threads);
}

static KConvStatus
cuda_filter_run_device_deep (KConvFilter * f, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst, void *stream)
{
  return kconv_cuda_run_deep_device (f->impl, plan, src, dst, stream);
}

static KConvStatus
cuda_filter_submit (KConvFilter * f, KConvSlot * slot, const KConvImage * src,
    const KConvImage * dst)
{
  return kconv_cuda_submit (f->impl, (KConvCudaSlot **) & slot->frame, src,
      dst, f->n_threads);
}

static KConvStatus
cuda_filter_run_device (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst, void *stream)
{
  return kconv_cuda_run_device (f->impl, src, dst, stream);
}

static KConvStatus
cuda_filter_run_device_many (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst, int n, void *stream)
{
  return kconv_cuda_run_device_many (f->impl, src, dst, n, stream);
}

static void *
cuda_filter_stream (const KConvFilter * f)
{
  return kconv_cuda_compute_stream (f->impl);
}

static const char *
cuda_filter_describe (const KConvFilter * f)
{
  return kconv_cuda_strategy (f->impl);
}

static void
cuda_filter_free (KConvFilter * f)
{
  kconv_cuda_free (f->impl);
  f->impl = NULL;
}

/* A matcher on the GPU: the byte search, and the search of 16-bit
 * samples, made with the first template of them */
typedef struct
{
  KMatchCuda *bytes;
  KMatchCudaDeep *deep;
  int device_id;
} CudaMatcher;

static KConvStatus
cuda_match_new (const KConvOptions * options, void **impl)
{
  CudaMatcher *cm = calloc (1, sizeof *cm);
  if (!cm)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  cm->device_id = options->device_id;
  KConvStatus st = kmatch_cuda_new (options->device_id, options->gpu_wait,
      &cm->bytes);
  if (st != KCONV_OK) {
    free (cm);
    return st;
  }
  *impl = cm;
  return KCONV_OK;
}

static KConvStatus
cuda_match_set_template (void *impl, const uint8_t * tmpl, int tw, int th,
    int ch, const uint8_t * byte_mask)
{
  CudaMatcher *cm = impl;
  return kmatch_cuda_set_template (cm->bytes, tmpl, tw, th, ch, byte_mask);
}

static KConvStatus
cuda_match_set_template_deep (void *impl, const uint16_t * tmpl, int tw,
    int th, const uint8_t * mask)
{
  CudaMatcher *cm = impl;
  if (!cm->deep)
    KCONV_TRY (kmatch_cuda_deep_new (cm->device_id, &cm->deep));
  return kmatch_cuda_deep_set_template (cm->deep, tmpl, tw, th, mask);
}

static KConvStatus
cuda_match_search_deep (void *impl, const KMatchDeepQuery * q,
    KMatchPosition * best, uint64_t * sad_map)
{
  CudaMatcher *cm = impl;
  const KMatchCudaWords words = { q->pixel_stride, q->depth, q->shift,
    q->big_endian
  };
  if (!cm->deep)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no template set");
  return kmatch_cuda_deep_search (cm->deep, q->base, q->stride, q->on_device,
      &words, q->mw, q->mh, &best->x, &best->y, &best->sad, sad_map);
}

static KConvStatus
cuda_match_search_scored_deep (void *impl, const KMatchDeepQuery * q,
    const KMatchScoring * s, int max_matches, KMatchSums * out, int *n)
{
  CudaMatcher *cm = impl;
  const KMatchCudaWords words = { q->pixel_stride, q->depth, q->shift,
    q->big_endian
  };
  if (!cm->deep)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no template set");
  return kmatch_cuda_deep_search_scored (cm->deep, q->base, q->stride,
      q->on_device, &words, q->mw, q->mh, s, max_matches, out, n);
}

/* the result key holds 16-bit coordinates; templates of 1 or 3 channels */
static int
cuda_match_takes (const void *impl, int ch, int mw, int mh)
{
  return impl && (ch == 1 || ch == 3) && mw <= 65535 && mh <= 65535;
}

/* the GPU gathers (or makes the luma of) what it compares itself */
static const KMatchCudaLayout *
layout_of (const KMatchQuery * q, KMatchCudaLayout * layout)
{
  if (q->in_order)
    return NULL;
  layout->pixel_stride = q->pixel_stride;
  for (int c = 0; c < 3; c++)
    layout->offsets[c] = q->offsets[c];
  layout->luma = q->luma;
  return layout;
}

static KConvStatus
cuda_match_search (void *impl, const KMatchQuery * q, KMatchPosition * best,
    uint64_t * sad_map)
{
  KMatchCudaLayout layout;
  return kmatch_cuda_search (((CudaMatcher *) impl)->bytes, q->base, q->stride,
      q->on_device, layout_of (q, &layout), q->mw, q->mh, &best->x, &best->y,
      &best->sad, sad_map, q->n_threads);
}

static KConvStatus
cuda_match_search_scored (void *impl, const KMatchQuery * q,
    const KMatchScoring * s, int max_matches, KMatchSums * out, int *n)
{
  KMatchCudaLayout layout;
  return kmatch_cuda_search_scored (((CudaMatcher *) impl)->bytes, s,
      q->base, q->stride, q->on_device, layout_of (q, &layout), q->mw, q->mh,
      max_matches, out, n, q->n_threads);
}

static KConvStatus
cuda_match_submit (void *impl, KConvSlot * slot, const KMatchQuery * q)
{
  KMatchCudaLayout layout;
  return kmatch_cuda_submit (((CudaMatcher *) impl)->bytes,
      (KMatchCudaSlot **) & slot->match,
      q->base, q->stride, q->on_device, layout_of (q, &layout), q->mw, q->mh,
      NULL, q->n_threads);
}

static void
cuda_match_slot_best (KConvSlot * slot, KMatchPosition * best)
{
  kmatch_cuda_slot_best (slot->match, &best->x, &best->y, &best->sad);
}

static KConvStatus
cuda_match_upload (void *impl, const void *src, ptrdiff_t src_stride,
    size_t row_bytes, int rows, void **dst, ptrdiff_t *dst_stride)
{
  return kmatch_cuda_upload (((CudaMatcher *) impl)->bytes, src, src_stride,
      row_bytes, rows, dst, dst_stride);
}

static KConvStatus
cuda_match_download (void *impl, const void *src, ptrdiff_t src_stride,
    size_t row_bytes, int rows, const void **dst)
{
  return kmatch_cuda_download (((CudaMatcher *) impl)->bytes, src, src_stride,
      row_bytes, rows, dst);
}

static void
cuda_match_free (void *impl)
{
  CudaMatcher *cm = impl;
  kmatch_cuda_free (cm->bytes);
  kmatch_cuda_deep_free (cm->deep);
  free (cm);
}

static KConvStatus
cuda_slot_wait (KConvSlot * slot)
{
  KConvStatus st = kconv_cuda_slot_wait (slot->frame);
  KConvStatus searched = kmatch_cuda_slot_wait (slot->match);
  return st != KCONV_OK ? st : searched;
}

static int
cuda_slot_done (KConvSlot * slot)
{
  return kconv_cuda_slot_done (slot->frame)
      && kmatch_cuda_slot_done (slot->match);
}

static void
cuda_slot_free (KConvSlot * slot)
{
  kconv_cuda_slot_free (slot->frame);
  kmatch_cuda_slot_free (slot->match);
}

const KConvBackendOps kconv_backend_cuda = {
  .id = KCONV_BACKEND_CUDA,
  .usable = cuda_usable,
  .unusable = "no usable CUDA device was found",
  .filter_new = cuda_filter_new,
  .filter_run = cuda_filter_run,
  .filter_run_deep = cuda_filter_run_deep,
  .filter_run_device_deep = cuda_filter_run_device_deep,
  .filter_submit = cuda_filter_submit,
  .filter_run_device = cuda_filter_run_device,
  .filter_run_device_many = cuda_filter_run_device_many,
  .filter_stream = cuda_filter_stream,
  .filter_describe = cuda_filter_describe,
  .strategy_name = kconv_cuda_strategy_name,
  .filter_free = cuda_filter_free,
  .match_map = kconv_cpu_match_map,
  .match_correlate = kmatch_cpu_correlate,
  .match_map_deep = kconv_cpu_match_map_deep,
  .match_new = cuda_match_new,
  .match_set_template = cuda_match_set_template,
  .match_takes = cuda_match_takes,
  .match_search = cuda_match_search,
  .match_submit = cuda_match_submit,
  .match_slot_best = cuda_match_slot_best,
  .match_search_scored = cuda_match_search_scored,
  .match_upload = cuda_match_upload,
  .match_download = cuda_match_download,
  .match_free = cuda_match_free,
  .match_set_template_deep = cuda_match_set_template_deep,
  .match_search_deep = cuda_match_search_deep,
  .match_search_scored_deep = cuda_match_search_scored_deep,
  .slot_wait = cuda_slot_wait,
  .slot_done = cuda_slot_done,
  .slot_free = cuda_slot_free,
  .device_copy = kconv_cuda_copy_device,
  .device_sync = kconv_cuda_sync,
  .device_draw_box = kconv_cuda_draw_box,
  .device_alloc = kconv_cuda_device_alloc,
  .device_free = kconv_cuda_device_free,
  .host_alloc = kconv_cuda_host_alloc,
  .host_free = kconv_cuda_host_free,
  .transfer_bytes = kconv_cuda_transfer_bytes,
  .staged_bytes = kconv_cuda_staged_bytes,
};
