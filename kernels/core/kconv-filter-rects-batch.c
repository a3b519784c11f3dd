/* kconv: a frame's rectangles filtered in one go
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kconv_filter_run_rects (kconv-filter-rects.c) filters each rectangle's
 * window as an image of its own; a small window then costs more as a call
 * than as pixels (kernels/PERFORMANCE.md).  In place, two ways round it:
 *
 * On a GPU with the image in host memory, every window's upload, filter
 * and download are queued on the filter's stream with one wait at the
 * end, where a window each was a round trip with its own.
 *
 * On the CPU with a team of threads, the rectangles are cut into strips
 * of rows, as many as the team's threads, and all the strips' windows
 * are filtered in one team, each strip by a one-thread copy of the
 * filter: a window of 200 rows given the whole team woke sixteen threads
 * for 13 rows each, twice a frame.
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-rects-private.h"
#include "kconv-error.h"
#include "kconv-team.h"

/* ---- the CPU's team: strips ---- */

/* One-thread copies of f, one for each thread of its team (each with its
 * own scratch: a filter runs on one thread at a time), made once */
static KConvStatus
solo_filters (KConvFilter * f)
{
  if (f->solo)
    return KCONV_OK;
  const KConvKernel k = {.cols = f->plan.cols,.rows = f->plan.rows,
    .weights = f->plan.weights,.divisor = f->plan.divisor_f,
    .offset = f->plan.offset_f,.absolute = f->plan.absolute
  };
  KConvOptions one = f->options;
  one.backend = f->ops->id;
  one.n_threads = 1;
  KConvFilter **solo = calloc (f->n_threads, sizeof *solo);
  if (!solo)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; i < f->n_threads; i++) {
    KConvStatus st = kconv_filter_new (&k, f->plan.border, &one, &solo[i]);
    if (st != KCONV_OK) {
      while (i-- > 0)
        kconv_filter_free (solo[i]);
      free (solo);
      return st;
    }
  }
  f->solo = solo;
  f->n_solo = f->n_threads;
  return KCONV_OK;
}

/* A strip of a rectangle, and its window's place in the buffer */
typedef struct
{
  KConvRect rect, win;
  size_t at;
} Strip;

/* The rectangles cut into strips, about one a thread, none shorter than
 * twice the kernel's height (a strip's window filters the reach's rows
 * round it again): *n_strips of them, their windows *total bytes */
static Strip *
cut_strips (const KConvFilter * f, const KConvRect * rects, int n,
    const KConvImage * im, int *n_strips, size_t *total)
{
  long long rows = 0;
  for (int i = 0; i < n; i++)
    rows += rects[i].height;
  long long h = (rows + f->n_solo - 1) / f->n_solo;
  if (h < 2LL * f->plan.rows)
    h = 2LL * f->plan.rows;
  int count = 0;
  for (int i = 0; i < n; i++)
    count += (int) ((rects[i].height + h - 1) / h);
  Strip *s = malloc (sizeof *s * count);
  if (!s)
    return NULL;
  *n_strips = count;
  *total = 0;
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int y = 0; y < rects[i].height; y += (int) h, k++) {
      const int sh = rects[i].height - y < h ? rects[i].height - y : (int) h;
      s[k].rect = (KConvRect) {
      rects[i].x, rects[i].y + y, rects[i].width, sh};
      s[k].win = rects_window (&f->plan, s[k].rect, im->width, im->height);
      s[k].at = *total;
      *total += (size_t) s[k].win.width * im->pixel_stride * s[k].win.height;
    }
  return s;
}

typedef struct
{
  KConvFilter *const *solo;
  const Strip *strips;
  int n;
  const KConvImage *im;
  uint8_t *buf;
  KConvStatus *status;          /* each part's */
} StripJob;

/* Part t: strips t, t + parts, ... filtered by copy t into the buffer */
static void
filter_strips (int t, int parts, void *ctx)
{
  const StripJob *j = ctx;
  for (int i = t; i < j->n && j->status[t] == KCONV_OK; i += parts) {
    const Strip *s = &j->strips[i];
    KConvImage w = rects_view (j->im, s->win), out = w;
    out.data = j->buf + s->at;
    out.stride = (ptrdiff_t) s->win.width * j->im->pixel_stride;
    out.keep_other_bytes = 0;
    j->status[t] = kconv_filter_run (j->solo[t], &w, &out);
  }
}

/* Part t: those strips' rows back into the image */
static void
copy_strips (int t, int parts, void *ctx)
{
  const StripJob *j = ctx;
  const int ps = j->im->pixel_stride;
  for (int i = t; i < j->n; i += parts) {
    const Strip *s = &j->strips[i];
    const ptrdiff_t pitch = (ptrdiff_t) s->win.width * ps;
    const uint8_t *from = j->buf + s->at + (ptrdiff_t) (s->rect.y -
        s->win.y) * pitch + (ptrdiff_t) (s->rect.x - s->win.x) * ps;
    uint8_t *to = j->im->data + (ptrdiff_t) s->rect.y * j->im->stride +
        (ptrdiff_t) s->rect.x * ps;
    for (int y = 0; y < s->rect.height; y++)
      memcpy (to + (ptrdiff_t) y * j->im->stride, from + y * pitch,
          (size_t) s->rect.width * ps);
  }
}

/* In place on the CPU's team: 1 and *st, or 0 where the ordinary path
 * should run (one thread, wrapping borders, or a part that failed: that
 * path says why on the caller's thread) */
int
rects_run_strips (KConvFilter * f, const KConvImage * im,
    const KConvRect * rects, int n, KConvStatus * st)
{
  if (f->ops->id != KCONV_BACKEND_CPU || f->n_threads < 2
      || f->plan.border == KCONV_BORDER_WRAP || solo_filters (f) != KCONV_OK)
    return 0;
  int n_strips = 0;
  size_t total = 0;
  Strip *strips = cut_strips (f, rects, n, im, &n_strips, &total);
  KConvStatus *status = calloc (f->n_solo, sizeof *status);
  uint8_t *buf = NULL;
  int done = strips && status && rects_scratch (f, total, 0, &buf) == KCONV_OK;
  if (done) {
    StripJob job = { f->solo, strips, n_strips, im, buf, status };
    const int parts = n_strips < f->n_solo ? n_strips : f->n_solo;
    kconv_team_run (parts, filter_strips, &job);
    for (int t = 0; t < parts; t++)
      done &= status[t] == KCONV_OK;
    /* every window first: none may read a row written back */
    if (done)
      kconv_team_run (parts, copy_strips, &job);
  }
  free (strips);
  free (status);
  *st = KCONV_OK;
  return done;
}

/* ---- a GPU, the image in host memory: one wait ---- */

/* In place on a device backend, the image in host memory: 1 and *st, or
 * 0 where the ordinary path should run (a backend without device memory,
 * or a filter on a device other than the default one: the buffer is made
 * on the current device, which the ordinary path never needs).  The
 * windows go up into device memory, are filtered there into as many
 * more, and their rectangles come down into the image, all on the
 * filter's stream. */
int
rects_run_uploaded (KConvFilter * f, const KConvImage * im,
    const KConvRect * rects, int n, KConvStatus * st)
{
  if (!f->ops->device_alloc || !f->ops->device_copy || !f->ops->device_sync
      || f->options.device_id > 0)
    return 0;
  size_t *at = NULL, total = 0;
  KConvRect *win = rects_windows (f, rects, n, im, &at, &total);
  const int ps = im->pixel_stride;
  uint8_t *buf = NULL;
  void *stream = kconv_filter_stream (f);
  *st = win ? rects_scratch (f, 2 * total, 1, &buf) :
      kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    const KConvImage w = rects_view (im, win[i]);
    const ptrdiff_t pitch = (ptrdiff_t) win[i].width * ps;
    *st = f->ops->device_copy (buf + at[i], pitch, w.data, w.stride,
        (size_t) pitch, win[i].height, stream);
  }
  /* each window as uploaded, then where it is filtered to */
  KConvImage *views = *st == KCONV_OK ? malloc (sizeof *views * 2 * n) : NULL;
  if (*st == KCONV_OK && !views)
    *st = kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    views[i] = rects_view (im, win[i]);
    views[i].data = buf + at[i];
    views[i].stride = (ptrdiff_t) win[i].width * ps;
    views[i].keep_other_bytes = 0;
    views[n + i] = views[i];
    views[n + i].data = buf + total + at[i];
  }
  if (*st == KCONV_OK)
    *st = rects_filter_device (f, views, views + n, n, stream);
  free (views);
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    const ptrdiff_t pitch = (ptrdiff_t) win[i].width * ps;
    const uint8_t *from = buf + total + at[i] +
        (ptrdiff_t) (rects[i].y - win[i].y) * pitch +
        (ptrdiff_t) (rects[i].x - win[i].x) * ps;
    const KConvImage to = rects_view (im, rects[i]);
    *st = f->ops->device_copy (to.data, to.stride, from, pitch,
        (size_t) rects[i].width * ps, rects[i].height, stream);
  }
  /* (waited for after a failure too: nothing may still read the buffer) */
  const KConvStatus waited = win ? f->ops->device_sync (stream) : KCONV_OK;
  if (*st == KCONV_OK)
    *st = waited;
  free (win);
  free (at);
  return 1;
}
