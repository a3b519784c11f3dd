/* kconv: the CPU backend's table (omp/: OpenMP threads, vector lanes, FFTW)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-backend.h"
#include "kconv-cpu.h"
#include "kmatch-cpu.h"
#include "kconv-error.h"
#include "kconv-tuning.h"

/* What a filter keeps on the CPU */
typedef struct
{
  KConvCpuFixed *fixed;         /* the 16-bit path that takes it */
  int box;                      /* exact, every weight one value */
  KConvCpuBox *box_sums;        /* its running sums in integer lanes */
  KConvCpuScratch scratch;
  KConvCpuFft *fft;
} CpuFilter;

/* On the CPU the second trip stays in cache (a band's rows): measured with
 * kconv-bench, two passes pay from 3x3 on (1080p grey gaussian 3x3: 0.37
 * ms against 0.49 direct; RGBA 2.35 against 2.51). */
static int
separable_pays (const KConvPlan * plan)
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

/* Whether every weight is one value (not 0), exact or not */
static int
weights_one_value (const KConvPlan * plan)
{
  for (int i = 1; i < plan->rows * plan->cols; i++)
    if (plan->weights[i] != plan->weights[0])
      return 0;
  return plan->weights[0] != 0.f;
}

/* An exact kernel whose weights are all one value */
static int
plan_is_box (const KConvPlan * plan)
{
  return plan->exact && weights_one_value (plan);
}

static KConvPath
cpu_path (const KConvPlan * plan, const CpuFilter * c, int n_threads)
{
  /* boxes of any shape (1xN and Nx1 too): running sums down and across */
  if (c->box_sums && plan->rows * plan->cols >= CPU_BOX_SUMS_MIN_TAPS)
    return KCONV_PATH_SEPARABLE;
  /* small exact kernels: one pass in 16-bit lanes beats two in floats */
  if (kconv_cpu_fixed_kind (c->fixed) == KCONV_CPU_FIXED_INT)
    return KCONV_PATH_DIRECT;
  if (kconv_cpu_fixed_kind (c->fixed) == KCONV_CPU_FIXED_INT_SEPARABLE)
    return KCONV_PATH_SEPARABLE;
  if (separable_pays (plan))
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

static KConvCpuPass
cpu_pass (const KConvFilter * f)
{
  const CpuFilter *c = f->impl;
  const int separable = f->path == KCONV_PATH_SEPARABLE;
  const KConvCpuFixedKind fixed = kconv_cpu_fixed_kind (c->fixed);
  /* boxes by integer running sums from the size where they beat two
   * passes of taps */
  if (separable && c->box_sums
      && f->plan.rows * f->plan.cols >= CPU_BOX_SUMS_MIN_TAPS)
    return KCONV_CPU_BOX;
  if ((fixed == KCONV_CPU_FIXED_INT && !separable)
      || (fixed == KCONV_CPU_FIXED_INT_SEPARABLE && separable)
      || (fixed == KCONV_CPU_FIXED_BLUR && separable))
    return KCONV_CPU_FIXED;
  /* boxes past what 16 bits hold: running sums */
  if (separable && c->box)
    return KCONV_CPU_BOX;
  return separable ? KCONV_CPU_SEPARABLE : KCONV_CPU_DIRECT;
}

static int
cpu_usable (void)
{
  return 1;
}

static void
cpu_filter_free (KConvFilter * f)
{
  CpuFilter *c = f->impl;
  if (!c)
    return;
  kconv_cpu_scratch_clear (&c->scratch);
  kconv_cpu_fixed_free (c->fixed);
  kconv_cpu_box_free (c->box_sums);
#ifdef KCONV_HAVE_FFTW
  kconv_cpu_fft_free (c->fft);
#endif
  free (c);
  f->impl = NULL;
}

static KConvStatus
cpu_filter_new (KConvFilter * f, const KConvOptions * options)
{
  (void) options;
  CpuFilter *c = calloc (1, sizeof *c);
  if (!c)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  f->impl = c;
  /* the 16-bit paths, worked out once */
  c->box = plan_is_box (&f->plan);
  if (kconv_tuning ().cpu_fixed) {
    c->fixed = kconv_cpu_fixed_new (&f->plan);
    if (c->box)
      c->box_sums = kconv_cpu_box_new (&f->plan);
  }
  f->path = cpu_path (&f->plan, c, f->n_threads);
#ifdef KCONV_HAVE_FFTW
  if (f->path == KCONV_PATH_FFT && !(c->fft = kconv_cpu_fft_new (&f->plan))) {
    cpu_filter_free (f);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for the "
        "FFT's plans");
  }
#endif
  return KCONV_OK;
}

static KConvStatus
cpu_filter_run (KConvFilter * f, const KConvImage * src, const KConvImage * dst)
{
  CpuFilter *c = f->impl;
#ifdef KCONV_HAVE_FFTW
  if (f->path == KCONV_PATH_FFT)
    return kconv_cpu_fft_run (c->fft, f->n_threads, src, dst);
#endif
  return kconv_cpu_run (&f->plan, cpu_pass (f), c->fixed, c->box_sums,
      f->n_threads, &c->scratch, src, dst);
}

/* 16-bit words: boxes by running sums over widened rows from the size
 * where those pay for bytes; small kernels in one pass over words
 * (kconv-words.c); others in floats, separable where that pays, else
 * direct (the FFT's large non-separable kernels too) */
static KConvStatus
cpu_filter_run_deep (KConvFilter * f, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst)
{
  CpuFilter *c = f->impl;
  KConvCpuPass pass = KCONV_CPU_DIRECT;
  if (weights_one_value (plan)
      && plan->rows * plan->cols >= CPU_BOX_SUMS_MIN_TAPS)
    pass = KCONV_CPU_BOX;
  else if (kconv_tuning ().cpu_fixed && kconv_cpu_words_takes (plan))
    pass = KCONV_CPU_FIXED;
  else if (separable_pays (plan))
    pass = KCONV_CPU_SEPARABLE;
  return kconv_cpu_run (plan, pass, NULL, NULL, f->n_threads, &c->scratch,
      src, dst);
}

static const char *
cpu_filter_describe (const KConvFilter * f)
{
  const CpuFilter *c = f->impl;
  const KConvCpuPass pass = cpu_pass (f);
  switch (f->path) {
    case KCONV_PATH_SEPARABLE:
      if (pass == KCONV_CPU_FIXED)
        return f->plan.exact ? "separable: horizontal then vertical pass, "
            "exact in 16-bit lanes" : "separable: horizontal then vertical "
            "pass, 16-bit fixed point";
      if (pass == KCONV_CPU_BOX && c->box_sums)
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

void
kconv_cpu_match_map (const KMatchHostQuery * q, uint64_t * map)
{
  kmatch_cpu_map (q->base, q->stride, q->mask ? q->tmpl_masked : q->tmpl,
      q->tw, q->th, q->ch, q->mw, q->mh, map, q->mask, q->n_threads);
}

int
kconv_cpu_match_map_deep (const KMatchDeepHostQuery * q, uint64_t * map)
{
  return kmatch_cpu_map_deep (q->base, q->stride, q->tmpl, q->mask, q->tw,
      q->th, q->mw, q->mh, map, q->n_threads);
}

/* the search that skips what it can prove loses (omp/kmatch-prune.c) */
static int
cpu_match_best (void **state, const KMatchHostQuery * q, int max_matches,
    KMatchPosition * out)
{
  if (!*state && !(*state = kmatch_prune_new ()))
    return -1;
  return kmatch_prune_search (*state, q->base, q->stride,
      q->mask ? q->tmpl_masked : q->tmpl, q->mask, q->tw, q->th, q->ch, q->mw,
      q->mh, max_matches, out, q->n_threads);
}

static void
cpu_match_state_free (void *state)
{
  kmatch_prune_free (state);
}

static int
cpu_match_best_deep (void **state, const KMatchDeepHostQuery * q,
    int max_matches, KMatchPosition * out)
{
  if (!*state && !(*state = kmatch_prune_deep_new ()))
    return -1;
  return kmatch_prune_deep_search (*state, q->base, q->stride, q->tmpl,
      q->mask, q->tw, q->th, 1, q->mw, q->mh, max_matches, out, q->n_threads);
}

static void
cpu_match_state_free_deep (void *state)
{
  kmatch_prune_deep_free (state);
}

/* the paths the tuning's cpu_strategy forces (cpu_path) */
static const char *
cpu_strategy_name (int i)
{
  static const char *const names[] = { "direct", "fft" };
  return i < (int) (sizeof names / sizeof names[0]) ? names[i] : NULL;
}

const KConvBackendOps kconv_backend_cpu = {
  .id = KCONV_BACKEND_CPU,
  .usable = cpu_usable,
  .filter_new = cpu_filter_new,
  .filter_run = cpu_filter_run,
  .filter_run_deep = cpu_filter_run_deep,
  .filter_describe = cpu_filter_describe,
  .strategy_name = cpu_strategy_name,
  .filter_free = cpu_filter_free,
  .match_map = kconv_cpu_match_map,
  .match_map_deep = kconv_cpu_match_map_deep,
  .match_best = cpu_match_best,
  .match_state_free = cpu_match_state_free,
  .match_best_deep = cpu_match_best_deep,
  .match_state_free_deep = cpu_match_state_free_deep,
  .match_correlate = kmatch_cpu_correlate,
};
