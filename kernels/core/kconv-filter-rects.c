/* kconv: convolution inside rectangles of an image only
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each rectangle's window (the rectangle and the kernel's reach round it,
 * clipped to the image) is filtered as an image of its own into a buffer
 * the filter keeps; inside the rectangle that is what the whole image's
 * filter gives, since the window's own edges lie beyond the kernel's
 * reach from it, and at the image's edges the borders are the image's.
 * Every window is filtered before any rectangle is written, so that in
 * place no window reads a sample already filtered.  In place the
 * rectangles' rows are then copied whole: the window's filter copied the
 * bytes it does not filter from the image itself, as they still are.
 * Into another image a 1x1 identity filter on the same backend copies
 * them, which writes the image's channels alone (keep_other_bytes): the
 * destination's other bytes stay as they are.
 *
 * On a GPU with the image in host memory, in place, every window's
 * upload, filter and download are queued on the filter's stream with one
 * wait at the end, where a window each was a round trip with its own.
 *
 * On the CPU with a team of threads, in place, the rectangles are cut
 * into strips of rows, as many as the team's threads, and all the strips'
 * windows are filtered in one team, each strip by a one-thread copy of
 * the filter: a window of 200 rows given the whole team woke sixteen
 * threads for 13 rows each, twice a frame (kernels/PERFORMANCE.md).
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-backend.h"
#include "kconv-error.h"
#include "kconv-team.h"

/* The window a rectangle's convolution reads: grown by the kernel's reach
 * and a pixel, clipped; with wrapping borders an axis that reaches an edge
 * is taken whole (the far edge is read) */
static KConvRect
window_of (const KConvPlan * p, KConvRect r, int width, int height)
{
  long long x0 = (long long) r.x - p->ax - 1, y0 = (long long) r.y - p->ay - 1;
  long long x1 = (long long) r.x + r.width + (p->cols - 1 - p->ax) + 1;
  long long y1 = (long long) r.y + r.height + (p->rows - 1 - p->ay) + 1;
  if (p->border == KCONV_BORDER_WRAP && (x0 < 0 || x1 > width))
    x0 = 0, x1 = width;
  if (p->border == KCONV_BORDER_WRAP && (y0 < 0 || y1 > height))
    y0 = 0, y1 = height;
  x0 = x0 < 0 ? 0 : x0;
  y0 = y0 < 0 ? 0 : y0;
  x1 = x1 > width ? width : x1;
  y1 = y1 > height ? height : y1;
  return (KConvRect) {
  (int) x0, (int) y0, (int) (x1 - x0), (int) (y1 - y0)};
}

/* The part r of im, as an image of its own */
static KConvImage
view (const KConvImage * im, KConvRect r)
{
  KConvImage v = *im;
  v.data = im->data + (ptrdiff_t) r.y * im->stride +
      (ptrdiff_t) r.x * im->pixel_stride;
  v.width = r.width;
  v.height = r.height;
  return v;
}

/* The identity the rectangles are copied by, made once */
static KConvStatus
copier (KConvFilter * f, KConvFilter ** out)
{
  if (!f->copier) {
    static const float one = 1.f;
    const KConvKernel identity = {.cols = 1,.rows = 1,.weights = &one,
      .divisor = 1
    };
    KConvOptions same = f->options;
    same.backend = f->ops->id;
    KConvStatus st = kconv_filter_new (&identity, KCONV_BORDER_REPLICATE,
        &same, &f->copier);
    if (st != KCONV_OK)
      return st;
  }
  *out = f->copier;
  return KCONV_OK;
}

/* Where the windows' buffer lives: device memory, page-locked host memory
 * (a CUDA filter's windows cross the bus by DMA) or plain host memory */
enum
{ SCRATCH_HOST, SCRATCH_PINNED, SCRATCH_DEVICE };

static void
scratch_free (KConvFilter * f)
{
  if (f->scratch_kind == SCRATCH_DEVICE)
    f->ops->device_free (f->scratch);
  else if (f->scratch_kind == SCRATCH_PINNED)
    f->ops->host_free (f->scratch);
  else
    free (f->scratch);
  f->scratch = NULL;
  f->scratch_size = 0;
}

/* Room for the windows: the filter's buffer, grown */
static KConvStatus
scratch (KConvFilter * f, size_t size, int on_device, uint8_t ** out)
{
  const int kind = on_device ? SCRATCH_DEVICE : f->ops->host_alloc ?
      SCRATCH_PINNED : SCRATCH_HOST;
  if (f->scratch && f->scratch_size >= size && f->scratch_kind == kind) {
    *out = f->scratch;
    return KCONV_OK;
  }
  scratch_free (f);
  f->scratch = kind == SCRATCH_DEVICE ? f->ops->device_alloc (size) :
      kind == SCRATCH_PINNED ? f->ops->host_alloc (size) : malloc (size);
  f->scratch_size = f->scratch ? size : 0;
  f->scratch_kind = kind;
  if (!f->scratch)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "no memory for the %zu "
        "bytes of the regions' windows%s", size, on_device ? " on the GPU" :
        "");
  *out = f->scratch;
  return KCONV_OK;
}

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
      s[k].win = window_of (&f->plan, s[k].rect, im->width, im->height);
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
    KConvImage w = view (j->im, s->win), out = w;
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
static int
run_strips (KConvFilter * f, const KConvImage * im, const KConvRect * rects,
    int n, KConvStatus * st)
{
  if (f->ops->id != KCONV_BACKEND_CPU || f->n_threads < 2
      || f->plan.border == KCONV_BORDER_WRAP || solo_filters (f) != KCONV_OK)
    return 0;
  int n_strips = 0;
  size_t total = 0;
  Strip *strips = cut_strips (f, rects, n, im, &n_strips, &total);
  KConvStatus *status = calloc (f->n_solo, sizeof *status);
  uint8_t *buf = NULL;
  int done = strips && status && scratch (f, total, 0, &buf) == KCONV_OK;
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

/* The windows of rects and their places in a buffer, *total bytes */
static KConvRect *
windows_of (const KConvFilter * f, const KConvRect * rects, int n,
    const KConvImage * im, size_t **at, size_t *total)
{
  KConvRect *win = malloc (sizeof *win * n);
  *at = malloc (sizeof **at * n);
  *total = 0;
  if (!win || !*at) {
    free (win);
    free (*at);
    *at = NULL;
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    win[i] = window_of (&f->plan, rects[i], im->width, im->height);
    (*at)[i] = *total;
    *total += (size_t) win[i].width * im->pixel_stride * win[i].height;
  }
  return win;
}

/* In place on a device backend, the image in host memory: 1 and *st, or
 * 0 where the ordinary path should run (a backend without device memory,
 * or a filter on a device other than the default one: the buffer is made
 * on the current device, which the ordinary path never needs).  The
 * windows go up into device memory, are filtered there into as many
 * more, and their rectangles come down into the image, all on the
 * filter's stream. */
static int
run_uploaded (KConvFilter * f, const KConvImage * im, const KConvRect * rects,
    int n, KConvStatus * st)
{
  if (!f->ops->device_alloc || !f->ops->device_copy || !f->ops->device_sync
      || f->options.device_id > 0)
    return 0;
  size_t *at = NULL, total = 0;
  KConvRect *win = windows_of (f, rects, n, im, &at, &total);
  const int ps = im->pixel_stride;
  uint8_t *buf = NULL;
  void *stream = kconv_filter_stream (f);
  *st = win ? scratch (f, 2 * total, 1, &buf) :
      kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    const KConvImage w = view (im, win[i]);
    const ptrdiff_t pitch = (ptrdiff_t) win[i].width * ps;
    *st = f->ops->device_copy (buf + at[i], pitch, w.data, w.stride,
        (size_t) pitch, win[i].height, stream);
  }
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    KConvImage w = view (im, win[i]), out;
    w.data = buf + at[i];
    w.stride = (ptrdiff_t) win[i].width * ps;
    w.keep_other_bytes = 0;
    out = w;
    out.data = buf + total + at[i];
    *st = kconv_filter_run_device (f, &w, &out, stream);
  }
  for (int i = 0; *st == KCONV_OK && i < n; i++) {
    const ptrdiff_t pitch = (ptrdiff_t) win[i].width * ps;
    const uint8_t *from = buf + total + at[i] +
        (ptrdiff_t) (rects[i].y - win[i].y) * pitch +
        (ptrdiff_t) (rects[i].x - win[i].x) * ps;
    const KConvImage to = view (im, rects[i]);
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

static int
rects_inside (const KConvRect * rects, int n, const KConvImage * im)
{
  for (int i = 0; i < n; i++)
    if (rects[i].x < 0 || rects[i].y < 0 || rects[i].width < 1
        || rects[i].height < 1 || rects[i].x > im->width - rects[i].width
        || rects[i].y > im->height - rects[i].height)
      return 0;
  return 1;
}

static KConvStatus
run_rects (KConvFilter * f, const KConvImage * src, const KConvImage * dst,
    const KConvRect * rects, int n, int on_device, void *stream)
{
  kconv_clear_error ();
  if (!f || !src || !dst || n < 0 || (n > 0 && !rects)
      || src->width != dst->width || src->height != dst->height
      || src->pixel_stride != dst->pixel_stride
      || !rects_inside (rects, n, src))
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kconv_filter_run_rects: "
        "the images differ in size or layout, or a rectangle does not lie "
        "inside them");
  if (on_device && !f->ops->device_alloc)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "the %s backend has "
        "no device memory", kconv_backend_name (f->ops->id));
  if (n == 0)
    return KCONV_OK;
  KConvStatus st;
  const int in_place = src->data == dst->data && src->stride == dst->stride;
  if (!on_device && in_place && (run_uploaded (f, dst, rects, n, &st)
          || run_strips (f, dst, rects, n, &st)))
    return st;
  size_t *at = NULL, total = 0;
  KConvRect *win = windows_of (f, rects, n, src, &at, &total);
  st = win ? KCONV_OK : kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  uint8_t *buf = NULL;
  KConvFilter *copy = NULL;
  if (st == KCONV_OK)
    st = scratch (f, total, on_device, &buf);
  if (st == KCONV_OK && !in_place)
    st = copier (f, &copy);
  /* every window first: in place, none may read a rectangle written */
  for (int i = 0; st == KCONV_OK && i < n; i++) {
    KConvImage w = view (src, win[i]), out = w;
    out.data = buf + at[i];
    out.stride = (ptrdiff_t) win[i].width * src->pixel_stride;
    out.keep_other_bytes = 0;
    st = on_device ? kconv_filter_run_device (f, &w, &out, stream) :
        kconv_filter_run (f, &w, &out);
  }
  for (int i = 0; st == KCONV_OK && i < n; i++) {
    const KConvRect inner = { rects[i].x - win[i].x, rects[i].y - win[i].y,
      rects[i].width, rects[i].height
    };
    KConvImage filtered = view (src, inner);
    filtered.data = buf + at[i] + (ptrdiff_t) inner.y * win[i].width *
        src->pixel_stride + (ptrdiff_t) inner.x * src->pixel_stride;
    filtered.stride = (ptrdiff_t) win[i].width * src->pixel_stride;
    filtered.keep_other_bytes = 0;
    KConvImage to = view (dst, rects[i]);
    to.keep_other_bytes = 1;
    const size_t row = (size_t) rects[i].width * src->pixel_stride;
    if (in_place && on_device)
      st = kconv_device_copy (to.data, to.stride, filtered.data,
          filtered.stride, row, rects[i].height, stream);
    else if (in_place)
      for (int y = 0; y < rects[i].height; y++)
        memcpy (to.data + (ptrdiff_t) y * to.stride, filtered.data +
            (ptrdiff_t) y * filtered.stride, row);
    else
      st = on_device ? kconv_filter_run_device (copy, &filtered, &to,
          stream) : kconv_filter_run (copy, &filtered, &to);
  }
  free (win);
  free (at);
  return st;
}

KConvStatus
kconv_filter_run_rects (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst, const KConvRect * rects, int n)
{
  return run_rects (f, src, dst, rects, n, 0, NULL);
}

KConvStatus
kconv_filter_run_rects_device (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst, const KConvRect * rects, int n, void *stream)
{
  return run_rects (f, src, dst, rects, n, 1, stream);
}

void
kconv_filter_free_rects (KConvFilter * f)
{
  kconv_filter_free (f->copier);
  for (int i = 0; i < f->n_solo; i++)
    kconv_filter_free (f->solo[i]);
  free (f->solo);
  scratch_free (f);
}
