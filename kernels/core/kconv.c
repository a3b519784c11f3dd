/* kconv: filter objects and backend dispatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-backend.h"
#include "kconv-error.h"
#include "kconv-tuning.h"
#include "kconv-plan.h"
#include "kconv-sample.h"
#include "kconv-team.h"
#include "kconv-slot.h"

const char *
kconv_status_string (KConvStatus status)
{
  switch (status) {
    case KCONV_OK:
      return "success";
    case KCONV_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case KCONV_ERROR_INVALID_KERNEL:
      return "invalid kernel (size outside 1..121 or a weight, divisor or "
          "offset that is not a finite number)";
    case KCONV_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case KCONV_ERROR_BACKEND_UNAVAILABLE:
      return "backend not available";
    case KCONV_ERROR_DEVICE:
      return "device error";
  }
  return "unknown status";
}

KConvStatus
kconv_force_strategy (KConvBackend backend, const char *name)
{
  kconv_clear_error ();
  const int paths = kconv_strategy_name (backend, 0) != NULL;
  int known = name == NULL;
  for (int i = 0; name && kconv_strategy_name (backend, i); i++)
    known |= strcmp (name, kconv_strategy_name (backend, i)) == 0;
  if (!paths || !known)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no strategy \"%s\" "
        "on the %s backend", name ? name : "", kconv_backend_name (backend));
  KConvTuning t = kconv_tuning ();
  char *field = backend == KCONV_BACKEND_CPU ? t.cpu_strategy : t.cuda_strategy;
  snprintf (field, sizeof t.cpu_strategy, "%s", name ? name : "");
  kconv_tuning_set (&t);
  return KCONV_OK;
}

const char *
kconv_strategy_name (KConvBackend backend, int i)
{
  const KConvBackendOps *ops = kconv_backend_ops (backend);
  return ops && ops->strategy_name && i >= 0 ? ops->strategy_name (i) : NULL;
}

const char *
kconv_path_name (KConvPath path)
{
  switch (path) {
    case KCONV_PATH_SEPARABLE:
      return "separable";
    case KCONV_PATH_FFT:
      return "fft";
    default:
      return "direct";
  }
}

typedef struct
{
  KConvFilter *f;
  const KConvOptions *options;
} FilterStart;

/* A filter's part on a backend (kconv_backend_start) */
static KConvStatus
filter_start (const KConvBackendOps * ops, void *obj)
{
  FilterStart *start = obj;
  KConvStatus st = ops->filter_new (start->f, start->options);
  if (st != KCONV_OK)
    ops->filter_free (start->f);
  return st;
}

KConvStatus
kconv_filter_new (const KConvKernel * kernel, KConvBorder border,
    const KConvOptions * options, KConvFilter ** out)
{
  static const KConvOptions defaults = { KCONV_BACKEND_AUTO, 0, -1 };
  kconv_clear_error ();
  if (!out)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_new: no "
        "place for the filter (out is NULL)");
  *out = NULL;
  if (!options)
    options = &defaults;
  if (!kconv_options_valid (options))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_new: "
        "negative n_threads, or an unknown backend, GPU wait or copy streams");
  /* (an unusable backend is said before a bad kernel) */
  KConvStatus st = kconv_backend_check (kconv_backend_resolve
      (options->backend));
  if (st != KCONV_OK)
    return st;
  KConvFilter *f = calloc (1, sizeof *f);
  if (!f)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  st = kconv_plan_init (&f->plan, kernel, border);
  if (st != KCONV_OK) {
    free (f);
    return st;
  }
  f->n_threads = kconv_team_threads (options->n_threads);
  f->options = *options;
  FilterStart start = { f, options };
  st = kconv_backend_start (options->backend, filter_start, &start, &f->ops);
  if (st != KCONV_OK) {
    kconv_plan_clear (&f->plan);
    free (f);
    return st;
  }
  *out = f;
  return KCONV_OK;
}

static int
image_valid (const KConvImage * im)
{
  if (!im || !im->data || im->width < 1 || im->height < 1
      || im->n_channels < 1 || im->n_channels > KCONV_MAX_CHANNELS
      || im->n_channels > im->pixel_stride
      || im->stride < (ptrdiff_t) im->width * im->pixel_stride
      || (im->depth != 0 && (im->depth < 8 || im->depth > 16)))
    return 0;
  const int deep = kconv_image_deep (im);
  /* a sample's bytes: one, or a word with the value inside it */
  const int bytes = deep ? 2 : 1;
  if (im->pixel_stride > (deep ? KCONV_MAX_PIXEL_BYTES : KCONV_MAX_CHANNELS)
      || (deep && (im->pixel_stride % 2 || im->shift < 0
              || im->shift + im->depth > 16))
      || (!deep && (im->shift || im->big_endian)))
    return 0;
  for (int c = 0; c < im->n_channels; c++)
    if (im->channel_offset[c] < 0
        || im->channel_offset[c] + bytes > im->pixel_stride
        || im->channel_offset[c] % bytes)
      return 0;
  return 1;
}

static int
images_overlap (const KConvImage * a, const KConvImage * b)
{
  const uint8_t *a_end = a->data + (a->height - 1) * a->stride +
      a->width * a->pixel_stride;
  const uint8_t *b_end = b->data + (b->height - 1) * b->stride +
      b->width * b->pixel_stride;
  return a->data < b_end && b->data < a_end;
}

static int
images_match (const KConvImage * src, const KConvImage * dst)
{
  return image_valid (src) && image_valid (dst)
      && src->width == dst->width && src->height == dst->height
      && src->pixel_stride == dst->pixel_stride
      && src->n_channels == dst->n_channels
      && kconv_image_depth (src) == kconv_image_depth (dst)
      && src->shift == dst->shift && src->big_endian == dst->big_endian
      && memcmp (src->channel_offset, dst->channel_offset,
      sizeof src->channel_offset) == 0 && !images_overlap (src, dst);
}

/* The filter's plan for samples of the image's depth, made the first time
 * a depth is seen (8 bits: the filter's own) */
static KConvStatus
plan_for_depth (KConvFilter * f, const KConvImage * im, const KConvPlan ** plan)
{
  const int depth = kconv_image_depth (im);
  if (depth != f->deep.depth) {
    kconv_plan_clear (&f->deep);
    if (depth != 8) {
      KConvStatus st = kconv_plan_init_depth (&f->deep, &f->plan, depth);
      if (st != KCONV_OK)
        return st;
    }
  }
  *plan = depth == 8 ? &f->plan : &f->deep;
  return KCONV_OK;
}

/* Deeper samples than bytes: on the backend's own path for them */
static KConvStatus
run_deep (KConvFilter * f, const KConvImage * src, const KConvImage * dst)
{
  const KConvPlan *plan;
  KConvStatus st = plan_for_depth (f, src, &plan);
  if (st != KCONV_OK)
    return st;
  if (!f->ops->filter_run_deep)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the %s backend "
        "takes 8-bit samples only", kconv_backend_name (f->ops->id));
  return f->ops->filter_run_deep (f, plan, src, dst);
}

KConvStatus
kconv_filter_run (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst)
{
  kconv_clear_error ();
  if (!f || !images_match (src, dst))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_run: the "
        "images are invalid, differ in size or layout, or overlap");
  if (kconv_image_deep (src))
    return run_deep (f, src, dst);
  return f->ops->filter_run (f, src, dst);
}

KConvStatus
kconv_filter_run_device (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst, void *stream)
{
  kconv_clear_error ();
  if (!f || !src || !dst || src->width != dst->width
      || src->height != dst->height || src->n_channels != dst->n_channels)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT,
        "kconv_filter_run_device: the images differ in size or channels");
  if (kconv_image_deep (src) || kconv_image_deep (dst)) {
    const KConvPlan *plan;
    KConvStatus st = plan_for_depth (f, src, &plan);
    if (st != KCONV_OK)
      return st;
    if (!f->ops->filter_run_device_deep
        || kconv_image_depth (src) != kconv_image_depth (dst))
      return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_"
          "run_device: 16-bit samples of one depth on a backend that takes "
          "them in device memory");
    return f->ops->filter_run_device_deep (f, plan, src, dst, stream);
  }
  if (!f->ops->filter_run_device)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "device images need "
        "a backend with devices, not %s", kconv_backend_name (f->ops->id));
  return f->ops->filter_run_device (f, src, dst, stream);
}

void *
kconv_filter_stream (const KConvFilter * f)
{
  return f && f->ops->filter_stream ? f->ops->filter_stream (f) : NULL;
}

/* The backend with device memory, or why there is none */
static const KConvBackendOps *
device_backend (KConvStatus * st)
{
  const KConvBackendOps *device = kconv_backend_device ();
  *st = device ? KCONV_OK : kconv_backend_check (KCONV_BACKEND_CUDA);
  return device;
}

KConvStatus
kconv_device_copy (void *dst, ptrdiff_t dst_stride, const void *src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, void *stream)
{
  KConvStatus st;
  kconv_clear_error ();
  const KConvBackendOps *device = device_backend (&st);
  return device ? device->device_copy (dst, dst_stride, src, src_stride,
      row_bytes, rows, stream) : st;
}

KConvStatus
kconv_device_sync (void *stream)
{
  KConvStatus st;
  kconv_clear_error ();
  const KConvBackendOps *device = device_backend (&st);
  return device ? device->device_sync (stream) : st;
}

void
kconv_image_draw_box (const KConvImage * im, int x, int y, int w, int h,
    int thickness, const uint8_t value[KCONV_MAX_CHANNELS])
{
  const int x1 = x + w < im->width ? x + w : im->width;
  const int y1 = y + h < im->height ? y + h : im->height;
  for (int j = y < 0 ? 0 : y; j < y1; j++)
    for (int i = x < 0 ? 0 : x; i < x1; i++) {
      if (i - x >= thickness && x + w - 1 - i >= thickness
          && j - y >= thickness && y + h - 1 - j >= thickness)
        continue;
      uint8_t *p = im->data + (ptrdiff_t) j * im->stride +
          (ptrdiff_t) i * im->pixel_stride;
      for (int c = 0; c < im->n_channels; c++)
        p[im->channel_offset[c]] = value[c];
    }
}

KConvStatus
kconv_device_draw_box (const KConvImage * im, int x, int y, int w, int h,
    int thickness, const uint8_t value[KCONV_MAX_CHANNELS], void *stream)
{
  KConvStatus st;
  kconv_clear_error ();
  const KConvBackendOps *device = device_backend (&st);
  return device ? device->device_draw_box (im, x, y, w, h, thickness, value,
      stream) : st;
}

void
kconv_transfer_bytes (uint64_t * to_device, uint64_t * to_host)
{
  const KConvBackendOps *device = kconv_backend_device ();
  *to_device = *to_host = 0;
  if (device)
    device->transfer_bytes (to_device, to_host);
}

void
kconv_staged_bytes (uint64_t * to_device, uint64_t * to_host)
{
  const KConvBackendOps *device = kconv_backend_device ();
  *to_device = *to_host = 0;
  if (device)
    device->staged_bytes (to_device, to_host);
}

KConvSlot *
kconv_slot_new (void)
{
  return calloc (1, sizeof (KConvSlot));
}

KConvStatus
kconv_filter_submit (KConvFilter * f, KConvSlot * slot,
    const KConvImage * src, const KConvImage * dst)
{
  kconv_clear_error ();
  if (!f || !slot || !images_match (src, dst))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_submit: "
        "the images are invalid, differ in size or layout, or overlap");
  if (kconv_image_deep (src))
    return run_deep (f, src, dst);
  if (f->ops->filter_submit)
    return f->ops->filter_submit (f, slot, src, dst);
  return f->ops->filter_run (f, src, dst);
}

/* (only a device backend ever leaves frames in a slot) */
KConvStatus
kconv_slot_wait (KConvSlot * slot)
{
  kconv_clear_error ();
  if (!slot)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_slot_wait: no "
        "slot");
  const KConvBackendOps *device = kconv_backend_device ();
  return device ? device->slot_wait (slot) : KCONV_OK;
}

int
kconv_slot_done (KConvSlot * slot)
{
  const KConvBackendOps *device = kconv_backend_device ();
  return !slot || !device || device->slot_done (slot);
}

void
kconv_slot_free (KConvSlot * slot)
{
  if (!slot)
    return;
  const KConvBackendOps *device = kconv_backend_device ();
  if (device)
    device->slot_free (slot);
  free (slot->matches);
  free (slot);
}

void *
kconv_host_alloc (size_t size, int *pinned)
{
  const KConvBackendOps *device = kconv_backend_device ();
  void *p = NULL;
  if (device && device->usable ())
    p = device->host_alloc (size);
  *pinned = p != NULL;
  return p ? p : aligned_alloc (64, (size + 63) / 64 * 64);
}

void
kconv_host_free (void *data, int pinned)
{
  const KConvBackendOps *device = kconv_backend_device ();
  if (pinned && device)
    device->host_free (data);
  else
    free (data);
}

void
kconv_filter_free (KConvFilter * f)
{
  if (!f)
    return;
  kconv_filter_free_rects (f);
  f->ops->filter_free (f);
  kconv_plan_clear (&f->plan);
  kconv_plan_clear (&f->deep);
  free (f);
}

KConvBackend
kconv_filter_backend (const KConvFilter * f)
{
  return f->ops->id;
}

KConvPath
kconv_filter_path (const KConvFilter * f)
{
  return f->path;
}

int
kconv_filter_is_exact (const KConvFilter * f)
{
  return f->plan.exact;
}

const char *
kconv_filter_strategy (const KConvFilter * f)
{
  return f->ops->filter_describe (f);
}
