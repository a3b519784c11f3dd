/* kconv: several templates searched in one pass over a frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What a search costs beside the comparisons is reading the frame: on a
 * device, its crossing of the bus; on the host, making the samples
 * compared (a luma, a packed copy).  Here that is done once for every
 * template, over the box that holds all their regions, and each template
 * is then searched in it with its own method.
 */
#include <stdlib.h>
#include "kmatch-private.h"
#include "kmatch-cpu.h"
#include "kconv-error.h"

/* The box that holds every region */
static KMatchRegion
bounding_box (const KMatchRegion * regions, int n)
{
  int x0 = regions[0].x, y0 = regions[0].y;
  int x1 = x0 + regions[0].width, y1 = y0 + regions[0].height;
  for (int i = 1; i < n; i++) {
    const KMatchRegion *r = &regions[i];
    x0 = r->x < x0 ? r->x : x0;
    y0 = r->y < y0 ? r->y : y0;
    x1 = r->x + r->width > x1 ? r->x + r->width : x1;
    y1 = r->y + r->height > y1 ? r->y + r->height : y1;
  }
  const KMatchRegion box = { x0, y0, x1 - x0, y1 - y0 };
  return box;
}

/* The part of frame inside box, as an image of its own at data (laid out
 * as frame, rows stride bytes apart) */
static KConvImage
boxed (const KConvImage * frame, const KMatchRegion * box, uint8_t * data,
    ptrdiff_t stride)
{
  KConvImage im = *frame;
  im.data = data;
  im.width = box->width;
  im.height = box->height;
  im.stride = stride;
  return im;
}

static KMatchRegion
moved (const KMatchRegion * r, const KMatchRegion * box)
{
  const KMatchRegion m = { r->x - box->x, r->y - box->y, r->width,
    r->height
  };
  return m;
}

/* Matches found in the box, back where they lie in the frame */
static void
unmove (KMatchPosition * p, int n, const KMatchRegion * box)
{
  for (int i = 0; i < n; i++) {
    p[i].x += box->x;
    p[i].y += box->y;
    p[i].sub_x = p[i].x;
    p[i].sub_y = p[i].y;
  }
}

/* One template searched where the frame lies (host or device memory) */
static KConvStatus
search_one (KMatch * m, const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * r, int max_matches, KMatchPosition * out, int *n)
{
  if (on_device)
    return kmatch_search_device (m, frame, luma, r, max_matches, out, n);
  return (luma ? kmatch_search_luma : kmatch_search) (m, frame, r,
      max_matches, out, n, NULL);
}

/* Host frame, device matchers: the box crosses once, each template is
 * searched on the device (one the device does not take, on the host) */
static KConvStatus
search_uploaded (KMatch * const *ms, int n, const KConvImage * frame,
    int luma, const KMatchRegion * regions, const KMatchRegion * box,
    int max_matches, KMatchPosition * matches, int *n_matches)
{
  KMatch *m0 = ms[0];
  const uint8_t *src = frame->data + (ptrdiff_t) box->y * frame->stride +
      (ptrdiff_t) box->x * frame->pixel_stride;
  const size_t row = kmatch_row_bytes (frame, luma ? 3 : frame->n_channels,
      box->width);
  void *dev;
  ptrdiff_t dev_stride;
  KConvStatus st = m0->ops->match_upload (m0->impl, src, frame->stride, row,
      box->height, &dev, &dev_stride);
  if (st != KCONV_OK)
    return st;
  const KConvImage on = boxed (frame, box, dev, dev_stride);
  for (int i = 0; i < n && st == KCONV_OK; i++) {
    KMatchPosition *out = matches + (size_t) i * max_matches;
    const KMatchRegion r = moved (&regions[i], box);
    st = search_one (ms[i], &on, luma, 1, &r, max_matches, out, &n_matches[i]);
    if (st == KCONV_OK) {
      unmove (out, n_matches[i], box);
      continue;
    }
    if (st == KCONV_ERROR_BACKEND_UNAVAILABLE)
      st = search_one (ms[i], frame, luma, 0, &regions[i], max_matches, out,
          &n_matches[i]);
  }
  return st;
}

/* Host frame whose samples must be made (a luma, or gathered from wider
 * pixels): made once, over the box */
static KConvStatus
search_packed (KMatch * const *ms, int n, const KConvImage * frame, int luma,
    const KMatchRegion * regions, const KMatchRegion * box, int max_matches,
    KMatchPosition * matches, int *n_matches)
{
  const int ch = ms[0]->ch;
  uint8_t *packed = malloc ((size_t) box->width * box->height * ch);
  if (!packed)
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  kmatch_cpu_pack (packed, frame->data + (ptrdiff_t) box->y * frame->stride +
      (ptrdiff_t) box->x * frame->pixel_stride, frame->stride,
      frame->pixel_stride, frame->channel_offset, ch, luma, box->width,
      box->height, ms[0]->n_threads);
  KConvImage im = boxed (frame, box, packed, (ptrdiff_t) box->width * ch);
  im.pixel_stride = im.n_channels = ch;
  for (int c = 0; c < ch; c++)
    im.channel_offset[c] = c;
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < n && st == KCONV_OK; i++) {
    KMatchPosition *out = matches + (size_t) i * max_matches;
    const KMatchRegion r = moved (&regions[i], box);
    st = kmatch_search (ms[i], &im, &r, max_matches, out, &n_matches[i], NULL);
    if (st == KCONV_OK)
      unmove (out, n_matches[i], box);
  }
  free (packed);
  return st;
}

KConvStatus
kmatch_search_many (KMatch * const *matchers, int n, const KConvImage * frame,
    int luma, int on_device, const KMatchRegion * regions, int max_matches,
    KMatchPosition * matches, int *n_matches)
{
  kconv_clear_error ();
  if (!matchers || n < 1 || !frame || !frame->data || !regions || !matches
      || !n_matches || max_matches < 1)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_search_many: "
        "no matchers, frame, regions or place for the matches");
  int same_kind = 1, eight_bit = frame->depth <= 8;
  for (int i = 0; i < n; i++) {
    const KMatch *m = matchers[i];
    const KMatchRegion *r = &regions[i];
    if (!m || (!m->tmpl && !m->tmpl16) || r->x < 0 || r->y < 0
        || r->width < 1 || r->height < 1 || r->x + r->width > frame->width
        || r->y + r->height > frame->height)
      return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "kmatch_search_many: "
          "matcher %d has no template, or its region lies outside the "
          "frame", i);
    same_kind &= m->ch == matchers[0]->ch && m->ops == matchers[0]->ops;
    eight_bit &= !m->depth;
    n_matches[i] = 0;
  }
  const KMatchRegion box = bounding_box (regions, n);
  KMatch *m0 = matchers[0];
  int in_order = !luma && frame->pixel_stride == m0->ch;
  for (int c = 0; c < m0->ch && in_order; c++)
    in_order = frame->channel_offset[c] == c;

  if (same_kind && !on_device && m0->impl && m0->ops->match_upload)
    return search_uploaded (matchers, n, frame, luma, regions, &box,
        max_matches, matches, n_matches);
  if (same_kind && !on_device && eight_bit && !in_order && n > 1)
    return search_packed (matchers, n, frame, luma, regions, &box,
        max_matches, matches, n_matches);
  /* in device memory, or samples compared as they lie: nothing to share */
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < n && st == KCONV_OK; i++)
    st = search_one (matchers[i], frame, luma, on_device, &regions[i],
        max_matches, matches + (size_t) i * max_matches, &n_matches[i]);
  return st;
}
