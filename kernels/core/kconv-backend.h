/* kconv: what the core asks of a backend, and the table of them
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each backend (the scalar reference, the CPU, CUDA) is one table of
 * operations, in a file of its own (backend-*.c); filters and matchers hold
 * the table they run on and the backend's own state.  The core dispatches
 * through the table alone, and the rule for falling back is written once
 * (kconv_backend_start).  A new backend is a file with its table, a line in
 * kconv-backends.c and its build.
 */
#ifndef KCONV_BACKEND_H
#define KCONV_BACKEND_H

#include "kconv.h"
#include "kmatch.h"
#include "kconv-plan.h"
#include "kmatch-cpu.h"
#include "kmatch-scoring.h"

typedef struct KConvBackendOps KConvBackendOps;

struct KConvFilter
{
  KConvPlan plan;
  /* the plan for samples deeper than bytes (depth 0: none made yet) */
  KConvPlan deep;
  const KConvBackendOps *ops;   /* the backend it runs on */
  void *impl;                   /* that backend's state for it */
  KConvPath path;               /* set by the backend's filter_new */
  int n_threads;                /* CPU threads (copies, on CUDA) */
  KConvOptions options;         /* as it was made */
  /* kconv_filter_run_rects: the identity that copies the rectangles, and
   * the windows' buffer (host, page-locked or device memory) */
  KConvFilter *copier;
  uint8_t *scratch;
  size_t scratch_size;
  int scratch_kind;
  /* and on the CPU one one-thread copy of the filter for each thread of
   * its team, which filter the rectangles' strips side by side */
  KConvFilter **solo;
  int n_solo;
};

/* Lets kconv_filter_run_rects' copier and buffer go (kconv_filter_free) */
void kconv_filter_free_rects (KConvFilter * f);

/* A search the backend's device takes: the matched region's samples at
 * base, rows stride apart (device memory when on_device), packed as the
 * template is (in_order), or pixels of pixel_stride bytes whose channels
 * lie at offsets (or whose R, G, B give luma); mw x mh positions. */
typedef struct
{
  const uint8_t *base;
  ptrdiff_t stride;
  int on_device, in_order, pixel_stride, offsets[3], luma;
  int mw, mh, n_threads;
} KMatchQuery;

/* A search on the host: the matched region's samples packed as the
 * template is (ch a pixel), rows stride apart; the template, and with a
 * mask (0xff counts, 0 does not) the template's bytes that count
 * (tmpl_masked); mw x mh positions. */
typedef struct
{
  const uint8_t *base;
  ptrdiff_t stride;
  const uint8_t *tmpl, *tmpl_masked, *mask;
  int tw, th, ch, mw, mh, n_threads;
} KMatchHostQuery;

/* A search of 16-bit words (one channel) the backend's device takes: the
 * region's words at base (device memory when on_device), rows stride bytes
 * apart, pixel_stride bytes from one sample to the next; values of depth
 * bits, shift bits up, in either byte order; mw x mh positions. */
typedef struct
{
  const uint8_t *base;
  ptrdiff_t stride;
  int on_device, pixel_stride, depth, shift, big_endian;
  int mw, mh, n_threads;
} KMatchDeepQuery;

/* The same on the host: the region's values packed, rows stride values
 * apart; the template's values (0 where a mask says they do not count) and
 * the mask (NULL, or a byte a pixel: 0xff counts). */
typedef struct
{
  const uint16_t *base;
  ptrdiff_t stride;
  const uint16_t *tmpl;
  const uint8_t *mask;
  int tw, th, mw, mh, n_threads;
} KMatchDeepHostQuery;

struct KConvBackendOps
{
  KConvBackend id;
  /* whether it can run here (records nothing); else unusable says why */
  int (*usable) (void);
  const char *unusable;

  /* Filters.  filter_new makes f->impl for f->plan (the device when it
   * has devices) and sets f->path.  NULL submit: it runs at once; NULL
   * run_device and stream: host memory only. */
    KConvStatus (*filter_new) (KConvFilter * f, const KConvOptions * options);
    KConvStatus (*filter_run) (KConvFilter * f, const KConvImage * src,
      const KConvImage * dst);
    KConvStatus (*filter_submit) (KConvFilter * f, KConvSlot * slot,
      const KConvImage * src, const KConvImage * dst);
    KConvStatus (*filter_run_device) (KConvFilter * f, const KConvImage * src,
      const KConvImage * dst, void *stream);
  /* src[i] into dst[i] for i < n (bytes, device memory) side by side,
   * ordered on stream as one launch (NULL: one after another) */
    KConvStatus (*filter_run_device_many) (KConvFilter * f,
      const KConvImage * src, const KConvImage * dst, int n, void *stream);
  /* images of 16-bit words (depth 9 .. 16), with the plan for their depth;
   * run at once (NULL: bytes only) */
    KConvStatus (*filter_run_deep) (KConvFilter * f, const KConvPlan * plan,
      const KConvImage * src, const KConvImage * dst);
  /* the same in device memory, queued on stream (NULL: not there) */
    KConvStatus (*filter_run_device_deep) (KConvFilter * f,
      const KConvPlan * plan, const KConvImage * src, const KConvImage * dst,
      void *stream);
  void *(*filter_stream) (const KConvFilter * f);
  const char *(*filter_describe) (const KConvFilter * f);
  /* its paths' names, as kconv_force_strategy takes them (NULL past the
   * last; NULL op: one path) */
  const char *(*strategy_name) (int i);
  void (*filter_free) (KConvFilter * f);

  /* Searches on the host (every backend: a device's matcher hands the
   * searches it does not take to the host).  match_map fills the SAD of
   * every position.  match_best (NULL: none) finds the max_matches best
   * without a map, as kmatch.c picks them from one: returns how many, -1
   * when memory is short, -2 where it cannot tell (a map is made then);
   * what it keeps between searches lives in *state, freed by
   * match_state_free. */
  void (*match_map) (const KMatchHostQuery * q, uint64_t * map);
  int (*match_best) (void **state, const KMatchHostQuery * q,
      int max_matches, KMatchPosition * out);
  void (*match_state_free) (void *state);
  /* the SAD of every position of a search of 16-bit words: 0, or -1 when
   * memory is short */
  int (*match_map_deep) (const KMatchDeepHostQuery * q, uint64_t * map);
  /* and the best of them without a map, as match_best (NULL: none) */
  int (*match_best_deep) (void **state, const KMatchDeepHostQuery * q,
      int max_matches, KMatchPosition * out);
  void (*match_state_free_deep) (void *state);
  /* the correlations the ssd, ncc and zncc searches are made of
   * (kmatch-methods.c): 0, or -1 when memory is short */
  int (*match_correlate) (const KMatchCorrelation * q, uint64_t * out);

  /* Matchers on a device (NULL on the host backends).  match_takes:
   * whether the device searches this template over mw x mh positions
   * (else the host does). */
    KConvStatus (*match_new) (const KConvOptions * options, void **impl);
    KConvStatus (*match_set_template) (void *impl, const uint8_t * tmpl,
      int tw, int th, int ch, const uint8_t * byte_mask);
  int (*match_takes) (const void *impl, int ch, int mw, int mh);
    KConvStatus (*match_search) (void *impl, const KMatchQuery * q,
      KMatchPosition * best, uint64_t * sad_map);
    KConvStatus (*match_submit) (void *impl, KConvSlot * slot,
      const KMatchQuery * q);
  void (*match_slot_best) (KConvSlot * slot, KMatchPosition * best);
  /* an ssd, ncc or zncc search of a template without a mask on the device
   * (NULL: the host searches): up to max_matches positions that do not
   * overlap, best first, with the frame's sums at each (kmatch-scoring.h) */
    KConvStatus (*match_search_scored) (void *impl, const KMatchQuery * q,
      const KMatchScoring * s, int max_matches, KMatchSums * out, int *n);
  /* templates and searches of 16-bit words on the device (NULL: the host
   * searches them); mask as the host query's */
    KConvStatus (*match_set_template_deep) (void *impl,
      const uint16_t * tmpl, int tw, int th, const uint8_t * mask);
    KConvStatus (*match_search_deep) (void *impl, const KMatchDeepQuery * q,
      KMatchPosition * best, uint64_t * sad_map);
  /* an ssd, ncc or zncc search of 16-bit words on the device, as
   * match_search_scored (NULL: the host searches) */
    KConvStatus (*match_search_scored_deep) (void *impl,
      const KMatchDeepQuery * q, const KMatchScoring * s, int max_matches,
      KMatchSums * out, int *n);
  /* rows of host memory copied to a device buffer the matcher keeps
   * (*dst, until the next upload), waited for and counted: a frame
   * several matchers search (kmatch_search_many) */
    KConvStatus (*match_upload) (void *impl, const void *src,
      ptrdiff_t src_stride, size_t row_bytes, int rows, void **dst,
      ptrdiff_t *dst_stride);
  /* rows of device memory copied to host memory the matcher keeps (*dst,
   * rows row_bytes apart, until the next download), waited for and
   * counted as crossing the bus */
    KConvStatus (*match_download) (void *impl, const void *src,
      ptrdiff_t src_stride, size_t row_bytes, int rows, const void **dst);
  void (*match_free) (void *impl);

  /* A slot's frames in flight on the backend (NULL: none ever are) */
    KConvStatus (*slot_wait) (KConvSlot * slot);
  int (*slot_done) (KConvSlot * slot);
  void (*slot_free) (KConvSlot * slot);

  /* Device memory (NULL on the host backends); copies between device
   * memory and device or host memory (the direction from the pointers) */
    KConvStatus (*device_copy) (void *dst, ptrdiff_t dst_stride,
      const void *src, ptrdiff_t src_stride, size_t row_bytes, int rows,
      void *stream);
    KConvStatus (*device_sync) (void *stream);
    KConvStatus (*device_draw_box) (const KConvImage * image, int x, int y,
      int w, int h, int thickness, const uint8_t value[KCONV_MAX_CHANNELS],
      void *stream);
  void *(*device_alloc) (size_t size);  /* in the current context; NULL if
                                         * it cannot */
  void (*device_free) (void *data);
  void *(*host_alloc) (size_t size);    /* page-locked; NULL if it cannot */
  void (*host_free) (void *data);
  void (*transfer_bytes) (uint64_t * to_device, uint64_t * to_host);
  void (*staged_bytes) (uint64_t * to_device, uint64_t * to_host);
};

extern const KConvBackendOps kconv_backend_reference;
extern const KConvBackendOps kconv_backend_cpu;
extern const KConvBackendOps kconv_backend_cuda;

/* The CPU's SAD map, which a device's matcher also runs for the searches
 * it does not take */
void kconv_cpu_match_map (const KMatchHostQuery * q, uint64_t * map);
int kconv_cpu_match_map_deep (const KMatchDeepHostQuery * q, uint64_t * map);

/* Whether every field of the options is in its range */
int kconv_options_valid (const KConvOptions * options);

/* The backend's table, NULL when this build has none (AUTO: none). */
const KConvBackendOps *kconv_backend_ops (KConvBackend backend);

/* The backend with device memory in this build, NULL if none. */
const KConvBackendOps *kconv_backend_device (void);

/* KCONV_OK when the backend can run here (AUTO: always); else the status,
 * with the reason recorded (kconv_fail). */
KConvStatus kconv_backend_check (KConvBackend backend);

/* The one fallback rule.  Starts obj on the backend `asked` resolves to
 * (start: the backend's part of it); where that was AUTO's choice of a
 * device that then fails to start, on the CPU instead.  *chosen is the
 * backend it runs on. */
KConvStatus kconv_backend_start (KConvBackend asked,
    KConvStatus (*start) (const KConvBackendOps * ops, void *obj), void *obj,
    const KConvBackendOps ** chosen);

#endif /* KCONV_BACKEND_H */
