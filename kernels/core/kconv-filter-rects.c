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
 * Where a frame's windows cost more as calls than as pixels, they are
 * filtered in one go (kconv-filter-rects-batch.c).
 */
#include <stdlib.h>
#include <string.h>
#include "kconv-rects-private.h"
#include "kconv-error.h"
#include "kconv-sample.h"

/* The window a rectangle's convolution reads: grown by the kernel's reach
 * and a pixel, clipped; with wrapping borders an axis that reaches an edge
 * is taken whole (the far edge is read) */
KConvRect
rects_window (const KConvPlan * p, KConvRect r, int width, int height)
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
KConvImage
rects_view (const KConvImage * im, KConvRect r)
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
KConvStatus
rects_scratch (KConvFilter * f, size_t size, int on_device, uint8_t ** out)
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

/* The windows of rects and their places in a buffer, *total bytes */
KConvRect *
rects_windows (const KConvFilter * f, const KConvRect * rects, int n,
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
    win[i] = rects_window (&f->plan, rects[i], im->width, im->height);
    (*at)[i] = *total;
    *total += (size_t) win[i].width * im->pixel_stride * win[i].height;
  }
  return win;
}

/* The windows src[i] into out[i], device images, queued on stream: side
 * by side where the backend can (a small window costs a tile's latency on
 * one multiprocessor, not its area: kernels/PERFORMANCE.md), else in
 * turn */
KConvStatus
rects_filter_device (KConvFilter * f, const KConvImage * src,
    const KConvImage * out, int n, void *stream)
{
  int deep = 0;
  for (int i = 0; i < n; i++)
    deep |= kconv_image_deep (&src[i]) || kconv_image_deep (&out[i]);
  if (n > 1 && !deep && f->ops->filter_run_device_many)
    return f->ops->filter_run_device_many (f, src, out, n, stream);
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < n && st == KCONV_OK; i++)
    st = kconv_filter_run_device (f, &src[i], &out[i], stream);
  return st;
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
  if (!on_device && in_place && (rects_run_uploaded (f, dst, rects, n, &st)
          || rects_run_strips (f, dst, rects, n, &st)))
    return st;
  size_t *at = NULL, total = 0;
  KConvRect *win = rects_windows (f, rects, n, src, &at, &total);
  /* each window, then where it is filtered to */
  KConvImage *views = malloc (sizeof *views * 2 * n);
  st = win && views ? KCONV_OK : kconv_fail (KCONV_ERROR_OUT_OF_MEMORY,
      "out of memory");
  uint8_t *buf = NULL;
  KConvFilter *copy = NULL;
  if (st == KCONV_OK)
    st = rects_scratch (f, total, on_device, &buf);
  if (st == KCONV_OK && !in_place)
    st = copier (f, &copy);
  for (int i = 0; st == KCONV_OK && i < n; i++) {
    views[i] = views[n + i] = rects_view (src, win[i]);
    views[n + i].data = buf + at[i];
    views[n + i].stride = (ptrdiff_t) win[i].width * src->pixel_stride;
    views[n + i].keep_other_bytes = 0;
  }
  /* every window first: in place, none may read a rectangle written */
  if (st == KCONV_OK && on_device)
    st = rects_filter_device (f, views, views + n, n, stream);
  for (int i = 0; st == KCONV_OK && !on_device && i < n; i++)
    st = kconv_filter_run (f, &views[i], &views[n + i]);
  for (int i = 0; st == KCONV_OK && i < n; i++) {
    const KConvRect inner = { rects[i].x - win[i].x, rects[i].y - win[i].y,
      rects[i].width, rects[i].height
    };
    KConvImage filtered = rects_view (src, inner);
    filtered.data = buf + at[i] + (ptrdiff_t) inner.y * win[i].width *
        src->pixel_stride + (ptrdiff_t) inner.x * src->pixel_stride;
    filtered.stride = (ptrdiff_t) win[i].width * src->pixel_stride;
    filtered.keep_other_bytes = 0;
    KConvImage to = rects_view (dst, rects[i]);
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
  free (views);
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
