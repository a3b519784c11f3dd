/* kconv: filter objects and backend dispatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-error.h"
#include "kconv-tuning.h"
#include "kconv-plan.h"
#include "kconv-cpu.h"
#include "kconv-reference.h"
#include "kconv-team.h"
#include "kconv-backend.h"
#include "kconv-slot.h"
#ifdef KCONV_HAVE_CUDA
#include "kconv-cuda.h"
#endif

struct KConvFilter
{
  KConvPlan plan;
  KConvBackend backend;
  KConvPath path;
  KConvCpuFixed *cpu_fixed;     /* the CPU's 16-bit path that takes it */
  int cpu_box;                  /* exact, every weight one value */
  KConvCpuBox *cpu_box_sums;    /* its running sums in integer lanes */
  int n_threads;
  KConvCpuScratch cpu_scratch;
  KConvCpuFft *cpu_fft;
#ifdef KCONV_HAVE_CUDA
  KConvCuda *cuda;
#endif
};

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
  static const char *const cpu[] = { "direct", "fft", NULL };
  static const char *const cuda[] = { "small", "direct", "separable", "fft",
    "mma", "wgmma", "sepmma", NULL
  };
  const char *const *names = backend == KCONV_BACKEND_CPU ? cpu :
      backend == KCONV_BACKEND_CUDA ? cuda : NULL;
  int known = name == NULL;
  for (int i = 0; names && name && names[i]; i++)
    known |= strcmp (name, names[i]) == 0;
  if (!names || !known)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "no strategy \"%s\" "
        "on the %s backend", name ? name : "", kconv_backend_name (backend));
  KConvTuning t = kconv_tuning ();
  char *field = backend == KCONV_BACKEND_CPU ? t.cpu_strategy :
      t.cuda_strategy;
  snprintf (field, sizeof t.cpu_strategy, "%s", name ? name : "");
  kconv_tuning_set (&t);
  return KCONV_OK;
}

const char *
kconv_backend_name (KConvBackend backend)
{
  switch (backend) {
    case KCONV_BACKEND_AUTO:
      return "auto";
    case KCONV_BACKEND_CPU:
      return "cpu";
    case KCONV_BACKEND_CUDA:
      return "cuda";
    case KCONV_BACKEND_REFERENCE:
      return "reference";
  }
  return "unknown";
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

static int
cuda_usable (void)
{
#ifdef KCONV_HAVE_CUDA
  return kconv_cuda_device_count () > 0;
#else
  return 0;
#endif
}

/* Records why CUDA cannot run here, the one wording for it. */
static KConvStatus
cuda_unavailable (void)
{
  return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "%s",
#ifdef KCONV_HAVE_CUDA
      "no usable CUDA device was found"
#else
      "this build of kconv has no CUDA support"
#endif
      );
}

KConvStatus
kconv_backend_check (KConvBackend backend)
{
  switch (backend) {
    case KCONV_BACKEND_AUTO:
    case KCONV_BACKEND_CPU:
    case KCONV_BACKEND_REFERENCE:
      return KCONV_OK;
    case KCONV_BACKEND_CUDA:
      return cuda_usable ()? KCONV_OK : cuda_unavailable ();
  }
  return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "unknown backend %d",
      backend);
}

int
kconv_backend_available (KConvBackend backend)
{
  kconv_clear_error ();
  return kconv_backend_check (backend) == KCONV_OK;
}

KConvBackend
kconv_backend_resolve (KConvBackend backend)
{
  if (backend != KCONV_BACKEND_AUTO)
    return backend;
  return cuda_usable () ? KCONV_BACKEND_CUDA : KCONV_BACKEND_CPU;
}

/* Two 1D passes cost about rows + cols taps plus a second trip through
 * memory; only worth it once the 2D kernel is clearly larger. */
static int
separable_pays (const KConvPlan * plan)
{
  return plan->separable
      && plan->rows * plan->cols >= 2 * (plan->rows + plan->cols);
}

/* On the CPU the second trip stays in cache (a band's rows): measured with
 * kconv-bench, two passes pay from 3x3 on (1080p grey gaussian 3x3: 0.37
 * ms against 0.49 direct; RGBA 2.35 against 2.51). */
static int
cpu_separable_pays (const KConvPlan * plan)
{
  return plan->separable && plan->rows * plan->cols >= 9;
}

/* From this many weights on, the CPU convolves a non-separable kernel
 * through the FFT: the crossovers measured on 1080p RGBA, the same at one
 * thread and two, and for single precision on 4K RGBA at 4, 8 and 16
 * threads, where from 8 on 15x15 is already faster through the FFT (the
 * FFT's tiles spread better than the direct path's rows; see
 * kernels/PERFORMANCE.md).  Exact kernels transform in double precision,
 * the others in single where FFTW's float library is built in. */
#define CPU_FFT_MIN_TAPS_EXACT (23 * 23)
#define CPU_MANY_THREADS 8
#ifdef KCONV_HAVE_FFTWF
#define CPU_FFT_MIN_TAPS (17 * 17)
#define CPU_FFT_MIN_TAPS_MANY_THREADS (15 * 15)
#else
#define CPU_FFT_MIN_TAPS CPU_FFT_MIN_TAPS_EXACT
#define CPU_FFT_MIN_TAPS_MANY_THREADS CPU_FFT_MIN_TAPS_EXACT
#endif

/* From this many weights on, boxes take running sums in integer lanes
 * (kconv-box.c) rather than two passes of taps in 16-bit lanes: measured
 * on 1080p RGBA, 5x5 0.80 ms against 0.88 (AVX-512) and 1.33 (AVX2);
 * 3x3 stays with the taps where AVX-512 is there (0.72 against 0.84). */
#define CPU_BOX_SUMS_MIN_TAPS 25

/* An exact kernel whose weights are all one value */
static int
plan_is_box (const KConvPlan * plan)
{
  if (!plan->exact || plan->weights[0] == 0.f)
    return 0;
  for (int i = 1; i < plan->rows * plan->cols; i++)
    if (plan->weights[i] != plan->weights[0])
      return 0;
  return 1;
}

static KConvPath
cpu_path (const KConvPlan * plan, const KConvCpuFixed * fixed,
    const KConvCpuBox * box_sums, int n_threads)
{
  /* boxes of any shape (1xN and Nx1 too): running sums down and across */
  if (box_sums && plan->rows * plan->cols >= CPU_BOX_SUMS_MIN_TAPS)
    return KCONV_PATH_SEPARABLE;
  /* small exact kernels: one pass in 16-bit lanes beats two in floats */
  if (kconv_cpu_fixed_kind (fixed) == KCONV_CPU_FIXED_INT)
    return KCONV_PATH_DIRECT;
  if (kconv_cpu_fixed_kind (fixed) == KCONV_CPU_FIXED_INT_SEPARABLE)
    return KCONV_PATH_SEPARABLE;
  if (cpu_separable_pays (plan))
    return KCONV_PATH_SEPARABLE;
#ifdef KCONV_HAVE_FFTW
  /* a forced path, for measuring crossovers */
  const KConvTuning t = kconv_tuning ();
  if (t.cpu_strategy[0])
    return strcmp (t.cpu_strategy, "fft") ? KCONV_PATH_DIRECT : KCONV_PATH_FFT;
  const int min_taps = plan->exact ? CPU_FFT_MIN_TAPS_EXACT :
      n_threads >= CPU_MANY_THREADS ? CPU_FFT_MIN_TAPS_MANY_THREADS :
      CPU_FFT_MIN_TAPS;
  if (plan->rows * plan->cols >= min_taps)
    return KCONV_PATH_FFT;
#endif
  return KCONV_PATH_DIRECT;
}

KConvStatus
kconv_filter_new (const KConvKernel * kernel, KConvBorder border,
    const KConvOptions * options, KConvFilter ** out)
{
  kconv_clear_error ();
  static const KConvOptions defaults = { KCONV_BACKEND_AUTO, 0, -1 };
  if (!out)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_new: no "
        "place for the filter (out is NULL)");
  *out = NULL;
  if (!options)
    options = &defaults;
  if (options->n_threads < 0 || options->backend < KCONV_BACKEND_AUTO
      || options->backend > KCONV_BACKEND_REFERENCE)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_new: "
        "negative n_threads or an unknown backend");

  KConvBackend backend = kconv_backend_resolve (options->backend);
  KConvStatus st = kconv_backend_check (backend);
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
  /* more threads than cores only wait on each other (and each takes
   * scratch memory): at most one a core */
  f->n_threads = !options->n_threads ? kconv_default_threads () :
      options->n_threads < kconv_cpu_count () ? options->n_threads :
      kconv_cpu_count ();
  /* the CPU's 16-bit paths, worked out once (a CUDA filter may fall back) */
  f->cpu_box = plan_is_box (&f->plan);
  if (backend != KCONV_BACKEND_REFERENCE && kconv_tuning ().cpu_fixed) {
    f->cpu_fixed = kconv_cpu_fixed_new (&f->plan);
    if (f->cpu_box)
      f->cpu_box_sums = kconv_cpu_box_new (&f->plan);
  }
  f->path = backend == KCONV_BACKEND_REFERENCE ? KCONV_PATH_DIRECT :
      backend == KCONV_BACKEND_CPU ?
      cpu_path (&f->plan, f->cpu_fixed, f->cpu_box_sums,
          f->n_threads) :
      separable_pays (&f->plan) ? KCONV_PATH_SEPARABLE : KCONV_PATH_DIRECT;
  f->backend = backend;
#ifdef KCONV_HAVE_FFTW
  if (f->path == KCONV_PATH_FFT && !(f->cpu_fft = kconv_cpu_fft_new (&f->plan))) {
    kconv_filter_free (f);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  }
#endif

#ifdef KCONV_HAVE_CUDA
  if (backend == KCONV_BACKEND_CUDA) {
    st = kconv_cuda_new (&f->plan, f->path == KCONV_PATH_SEPARABLE,
        options->device_id, &f->cuda);
    if (st != KCONV_OK && options->backend == KCONV_BACKEND_AUTO) {
      f->backend = KCONV_BACKEND_CPU;   /* auto: a GPU that fails to start */
      f->path = cpu_path (&f->plan, f->cpu_fixed, f->cpu_box_sums,
          f->n_threads);
#ifdef KCONV_HAVE_FFTW
      if (f->path == KCONV_PATH_FFT)
        f->cpu_fft = kconv_cpu_fft_new (&f->plan);
      if (f->path == KCONV_PATH_FFT && !f->cpu_fft)
        f->path = KCONV_PATH_DIRECT;
#endif
    } else if (st != KCONV_OK) {
      kconv_filter_free (f);
      return st;
    }
  }
#endif
  *out = f;
  return KCONV_OK;
}

static int
image_valid (const KConvImage * im)
{
  if (!im || !im->data || im->width < 1 || im->height < 1
      || im->pixel_stride < 1 || im->pixel_stride > KCONV_MAX_CHANNELS
      || im->n_channels < 1 || im->n_channels > im->pixel_stride
      || im->stride < (ptrdiff_t) im->width * im->pixel_stride)
    return 0;
  for (int c = 0; c < im->n_channels; c++)
    if (im->channel_offset[c] < 0 || im->channel_offset[c] >= im->pixel_stride)
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
      && memcmp (src->channel_offset, dst->channel_offset,
      sizeof src->channel_offset) == 0 && !images_overlap (src, dst);
}

static KConvCpuPass
cpu_pass (const KConvFilter * f)
{
  const int separable = f->path == KCONV_PATH_SEPARABLE;
  const KConvCpuFixedKind fixed = kconv_cpu_fixed_kind (f->cpu_fixed);
  /* boxes by integer running sums from the size where they beat two
   * passes of taps */
  if (separable && f->cpu_box_sums
      && f->plan.rows * f->plan.cols >= CPU_BOX_SUMS_MIN_TAPS)
    return KCONV_CPU_BOX;
  if ((fixed == KCONV_CPU_FIXED_INT && !separable)
      || (fixed == KCONV_CPU_FIXED_INT_SEPARABLE && separable)
      || (fixed == KCONV_CPU_FIXED_BLUR && separable))
    return KCONV_CPU_FIXED;
  /* boxes past what 16 bits hold: running sums */
  if (separable && f->cpu_box)
    return KCONV_CPU_BOX;
  return separable ? KCONV_CPU_SEPARABLE : KCONV_CPU_DIRECT;
}

/* kconv_filter_run on images already checked */
static KConvStatus
filter_run (KConvFilter * f, const KConvImage * src, const KConvImage * dst)
{
  switch (f->backend) {
    case KCONV_BACKEND_REFERENCE:
      return kconv_reference_run (&f->plan, src, dst);
    case KCONV_BACKEND_CPU:
#ifdef KCONV_HAVE_FFTW
      if (f->path == KCONV_PATH_FFT)
        return kconv_cpu_fft_run (f->cpu_fft, f->n_threads, src, dst);
#endif
      return kconv_cpu_run (&f->plan, cpu_pass (f), f->cpu_fixed,
          f->cpu_box_sums, f->n_threads, &f->cpu_scratch, src, dst);
#ifdef KCONV_HAVE_CUDA
    case KCONV_BACKEND_CUDA:
      return kconv_cuda_run (f->cuda, src, dst, f->n_threads);
#endif
    default:
      return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the filter's "
          "backend is not available in this build");
  }
}

KConvStatus
kconv_filter_run (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst)
{
  kconv_clear_error ();
  if (!f || !images_match (src, dst))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_run: the "
        "images are invalid, differ in size or layout, or overlap");
  return filter_run (f, src, dst);
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
#ifdef KCONV_HAVE_CUDA
  if (f->backend == KCONV_BACKEND_CUDA)
    return kconv_cuda_run_device (f->cuda, src, dst, stream);
#endif
  return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE,
      "device images need the CUDA backend");
}

void *
kconv_filter_stream (const KConvFilter * f)
{
#ifdef KCONV_HAVE_CUDA
  if (f && f->backend == KCONV_BACKEND_CUDA)
    return kconv_cuda_compute_stream (f->cuda);
#endif
  (void) f;
  return NULL;
}

KConvStatus
kconv_device_copy (void *dst, ptrdiff_t dst_stride, const void *src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, void *stream)
{
  kconv_clear_error ();
#ifdef KCONV_HAVE_CUDA
  return kconv_cuda_copy_device (dst, dst_stride, src, src_stride,
      row_bytes, rows, stream);
#else
  (void) dst, (void) dst_stride, (void) src, (void) src_stride;
  (void) row_bytes, (void) rows, (void) stream;
  return cuda_unavailable ();
#endif
}

KConvStatus
kconv_device_sync (void *stream)
{
  kconv_clear_error ();
#ifdef KCONV_HAVE_CUDA
  return kconv_cuda_sync (stream);
#else
  (void) stream;
  return cuda_unavailable ();
#endif
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
  kconv_clear_error ();
#ifdef KCONV_HAVE_CUDA
  return kconv_cuda_draw_box (im, x, y, w, h, thickness, value, stream);
#else
  (void) im, (void) x, (void) y, (void) w, (void) h, (void) thickness;
  (void) value, (void) stream;
  return cuda_unavailable ();
#endif
}

#ifndef KCONV_HAVE_CUDA
void
kconv_transfer_bytes (uint64_t * to_device, uint64_t * to_host)
{
  *to_device = *to_host = 0;
}

void
kconv_staged_bytes (uint64_t * to_device, uint64_t * to_host)
{
  *to_device = *to_host = 0;
}
#endif

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
#ifdef KCONV_HAVE_CUDA
  if (f->backend == KCONV_BACKEND_CUDA)
    return kconv_cuda_submit (f->cuda, &slot->cuda, src, dst, f->n_threads);
#endif
  return filter_run (f, src, dst);
}

KConvStatus
kconv_slot_wait (KConvSlot * slot)
{
  kconv_clear_error ();
  if (!slot)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_slot_wait: no "
        "slot");
#ifdef KCONV_HAVE_CUDA
  KConvStatus st = kconv_cuda_slot_wait (slot->cuda);
  KConvStatus searched = kmatch_cuda_slot_wait (slot->match);
  return st != KCONV_OK ? st : searched;
#else
  return KCONV_OK;
#endif
}

int
kconv_slot_done (KConvSlot * slot)
{
  if (!slot)
    return 1;
#ifdef KCONV_HAVE_CUDA
  return kconv_cuda_slot_done (slot->cuda)
      && kmatch_cuda_slot_done (slot->match);
#else
  return 1;
#endif
}

void
kconv_slot_free (KConvSlot * slot)
{
  if (!slot)
    return;
#ifdef KCONV_HAVE_CUDA
  kconv_cuda_slot_free (slot->cuda);
  kmatch_cuda_slot_free (slot->match);
#endif
  free (slot->matches);
  free (slot);
}

void *
kconv_host_alloc (size_t size, int *pinned)
{
  *pinned = 0;
#ifdef KCONV_HAVE_CUDA
  if (kconv_cuda_device_count () > 0) {
    void *p = kconv_cuda_host_alloc (size);
    if (p) {
      *pinned = 1;
      return p;
    }
  }
#endif
  return aligned_alloc (64, (size + 63) / 64 * 64);
}

void
kconv_host_free (void *data, int pinned)
{
#ifdef KCONV_HAVE_CUDA
  if (pinned) {
    kconv_cuda_host_free (data);
    return;
  }
#endif
  free (data);
}

void
kconv_filter_free (KConvFilter * f)
{
  if (!f)
    return;
  kconv_cpu_scratch_clear (&f->cpu_scratch);
  kconv_cpu_fixed_free (f->cpu_fixed);
  kconv_cpu_box_free (f->cpu_box_sums);
#ifdef KCONV_HAVE_FFTW
  kconv_cpu_fft_free (f->cpu_fft);
#endif
#ifdef KCONV_HAVE_CUDA
  kconv_cuda_free (f->cuda);
#endif
  kconv_plan_clear (&f->plan);
  free (f);
}

KConvBackend
kconv_filter_backend (const KConvFilter * f)
{
  return f->backend;
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
#ifdef KCONV_HAVE_CUDA
  if (f->backend == KCONV_BACKEND_CUDA)
    return kconv_cuda_strategy (f->cuda);
#endif
  const KConvCpuPass pass = f->backend == KCONV_BACKEND_CPU ? cpu_pass (f) :
      KCONV_CPU_DIRECT;
  switch (f->path) {
    case KCONV_PATH_SEPARABLE:
      if (pass == KCONV_CPU_FIXED)
        return f->plan.exact ? "separable: horizontal then vertical pass, "
            "exact in 16-bit lanes" : "separable: horizontal then vertical "
            "pass, 16-bit fixed point";
      if (pass == KCONV_CPU_BOX && f->cpu_box_sums)
        return "separable: running sums down and across (a box), exact in "
            "integer lanes";
      if (pass == KCONV_CPU_BOX)
        return "separable: running sums down and across (a box), exact";
      return "separable: horizontal then vertical pass";
    case KCONV_PATH_FFT:
#ifdef KCONV_HAVE_FFTWF
      if (!f->plan.exact)
        return "FFT (FFTW, single precision)";
#endif
      return "FFT (FFTW, double precision)";
    default:
      return pass == KCONV_CPU_FIXED ? "direct 2D pass, exact in 16-bit lanes"
          : "direct 2D pass";
  }
}
