/* kconv: matches to a fraction of a pixel
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A curve through the scores of a match and its neighbours (a parabola)
 * is biased towards whole pixels on photographs, whose edges make the
 * scores rise more like a V than a parabola (up to 0.28 pixel measured).
 * Instead the match is refined where it lies, by Gauss-Newton on the
 * frame interpolated between its pixels (Catmull-Rom), inverse
 * compositional (Baker and Matthews, 2004): the shift d that makes the
 * frame at p + d equal the template at p, over the pixels that count,
 * for each channel with the method's model of light: as it is (sad, ssd),
 * scaled (ncc: F = a T) or scaled and offset (zncc: F = a T + b), a and b
 * fitted by least squares at each step.  The template's gradient and the
 * normal matrix are made once; each step interpolates the frame once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kmatch-private.h"
#include "kmatch-cpu.h"
#include "kconv-error.h"

/* steps at most, and the step under which it stops */
#define MAX_STEPS 20
#define STEP_DONE 1e-4
/* pixels of frame kept around the template: the interpolation's reach at
 * a shift of up to one pixel */
#define MARGIN 3

/* A window of the frame around a match, as doubles, one plane a channel,
 * with PAD pixels more round it (the edge repeated), so the interpolation
 * reads no pixel outside it */
#define PAD 3
typedef struct
{
  double *v;
  int ww, wh, ch;               /* the window's size, without the pad */
  int pw;                       /* a padded row */
  int ox, oy;                   /* where the match lies in it */
} Window;

/* Catmull-Rom weights for a fraction t of a pixel */
static void
cubic (double t, double w[4])
{
  const double t2 = t * t, t3 = t2 * t;
  w[0] = (-t3 + 2 * t2 - t) / 2;
  w[1] = (3 * t3 - 5 * t2 + 2) / 2;
  w[2] = (-3 * t3 + 4 * t2 + t) / 2;
  w[3] = (t3 - t2) / 2;
}

/* The window's sample at (x, y), x and y from -PAD */
#define at(w, c, x, y) ((w)->v[((size_t) (c) * ((w)->wh + 2 * PAD) + (y) + \
        PAD) * (w)->pw + (x) + PAD])

/* Where the window of a match lies in the frame: the template's area and
 * MARGIN pixels round it, clipped to the frame (past it the edge is
 * repeated) */
static void
window_bounds (const KMatch * m, const KConvImage * frame,
    const KMatchPosition * p, KMatchRegion * b)
{
  b->x = p->x - MARGIN > 0 ? p->x - MARGIN : 0;
  b->y = p->y - MARGIN > 0 ? p->y - MARGIN : 0;
  b->width = (p->x + m->tw + MARGIN < frame->width ?
      p->x + m->tw + MARGIN : frame->width) - b->x;
  b->height = (p->y + m->th + MARGIN < frame->height ?
      p->y + m->th + MARGIN : frame->height) - b->y;
}

/* The window packed from its pixels at base (the frame's pixel at the
 * window's corner, laid out as in frame, rows stride bytes apart) */
static KConvStatus
pack_window (const KMatch * m, const KConvImage * frame, const uint8_t * base,
    ptrdiff_t stride, int luma, const KMatchPosition * p,
    const KMatchRegion * b, Window * w)
{
  w->ww = b->width;
  w->wh = b->height;
  w->ch = m->ch;
  w->ox = p->x - b->x;
  w->oy = p->y - b->y;
  const size_t n = (size_t) w->ww * w->wh;
  w->pw = w->ww + 2 * PAD;
  const size_t padded = (size_t) w->pw * (w->wh + 2 * PAD);
  w->v = malloc (padded * m->ch * sizeof *w->v);
  void *packed = malloc (n * m->ch * (m->depth ? 2 : 1));
  if (!w->v || !packed) {
    free (w->v);
    free (packed);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  if (m->depth) {
    uint16_t *values = packed;
    kmatch_cpu_pack_deep (values, base + frame->channel_offset[0], stride,
        frame->pixel_stride, frame->depth, frame->shift, frame->big_endian,
        w->ww, w->wh, 1);
  } else {
    uint8_t *bytes = packed;
    for (int c = 0; c < m->ch; c++)
      kmatch_cpu_pack (bytes + c * n, base, stride, frame->pixel_stride,
          frame->channel_offset + c, 1, luma, w->ww, w->wh, 1);
  }
  /* (past the window's edge, its edge repeated) */
  for (int c = 0; c < m->ch; c++)
    for (int y = -PAD; y < w->wh + PAD; y++)
      for (int x = -PAD; x < w->ww + PAD; x++) {
        const int cx = x < 0 ? 0 : x >= w->ww ? w->ww - 1 : x;
        const int cy = y < 0 ? 0 : y >= w->wh ? w->wh - 1 : y;
        const size_t from = c * n + (size_t) cy * w->ww + cx;
        w->v[((size_t) c * (w->wh + 2 * PAD) + y + PAD) * w->pw + x + PAD] =
            m->depth ? ((const uint16_t *) packed)[from] :
            ((const uint8_t *) packed)[from];
      }
  free (packed);
  return KCONV_OK;
}

/* The template's sample */
static double
tmpl_at (const KMatch * m, int c, int i, int j)
{
  const size_t at = ((size_t) j * m->tw + i) * m->ch + c;
  return m->depth ? m->tmpl16[at] : m->tmpl[at];
}

/* Whether the template's pixel counts, with its neighbours (its gradient
 * is made from them) */
static int
counts (const KMatch * m, int i, int j)
{
  if (i < 1 || j < 1 || i >= m->tw - 1 || j >= m->th - 1)
    return 0;
  if (!m->mask)
    return 1;
  const int s = m->ch;
  return m->mask[((size_t) j * m->tw + i) * s]
      && m->mask[((size_t) j * m->tw + i - 1) * s]
      && m->mask[((size_t) j * m->tw + i + 1) * s]
      && m->mask[((size_t) (j - 1) * m->tw + i) * s]
      && m->mask[((size_t) (j + 1) * m->tw + i) * s];
}

/* The template's pixels that count, made once for all matches: where
 * each lies, and per channel its sample and gradient; the normal matrix
 * of the gradient; rows of the frame interpolated across, and the frame
 * interpolated, for each step */
typedef struct KMatchRefiner
{
  int n;
  int *i, *j;
  double *t, *gx, *gy;          /* n a channel */
  double hxx, hxy, hyy;
  double *across;               /* (th + 3) x tw */
  double *f;                    /* n */
} Refiner;

static void
refiner_clear (Refiner * k)
{
  free (k->i);
  free (k->j);
  free (k->t);
  free (k->gx);
  free (k->gy);
  free (k->across);
  free (k->f);
}

void
kmatch_refiner_free (struct KMatchRefiner *r)
{
  if (r)
    refiner_clear (r);
  free (r);
}

static KConvStatus
refiner_init (const KMatch * m, Refiner * k)
{
  memset (k, 0, sizeof *k);
  const size_t most = (size_t) m->tw * m->th;
  k->i = malloc (most * sizeof *k->i);
  k->j = malloc (most * sizeof *k->j);
  k->t = malloc (most * m->ch * sizeof *k->t);
  k->gx = malloc (most * m->ch * sizeof *k->gx);
  k->gy = malloc (most * m->ch * sizeof *k->gy);
  k->across = malloc ((size_t) (m->th + 3) * m->tw * sizeof *k->across);
  k->f = malloc (most * sizeof *k->f);
  if (!k->i || !k->j || !k->t || !k->gx || !k->gy || !k->across || !k->f) {
    refiner_clear (k);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  for (int j = 0; j < m->th; j++)
    for (int i = 0; i < m->tw; i++)
      if (counts (m, i, j)) {
        k->i[k->n] = i;
        k->j[k->n++] = j;
      }
  for (int c = 0; c < m->ch; c++)
    for (int q = 0; q < k->n; q++) {
      const int i = k->i[q], j = k->j[q];
      const size_t at = (size_t) c * k->n + q;
      k->t[at] = tmpl_at (m, c, i, j);
      k->gx[at] = (tmpl_at (m, c, i + 1, j) - tmpl_at (m, c, i - 1, j)) / 2;
      k->gy[at] = (tmpl_at (m, c, i, j + 1) - tmpl_at (m, c, i, j - 1)) / 2;
      k->hxx += k->gx[at] * k->gx[at];
      k->hxy += k->gx[at] * k->gy[at];
      k->hyy += k->gy[at] * k->gy[at];
    }
  return KCONV_OK;
}

/* The frame of channel c interpolated at the counted pixels shifted by
 * (ix + wx's fraction, iy + wy's), into k->f: across the rows, then down */
static void
interpolate (const KMatch * m, Refiner * k, const Window * w, int c, int ix,
    int iy, const double wx[4], const double wy[4])
{
  const int tw = m->tw;
  for (int r = 0; r < m->th + 3; r++) {
    const double *src = &at (w, c, w->ox + ix - 1, w->oy + iy - 1 + r);
    double *row = k->across + (size_t) r * tw;
    for (int i = 0; i < tw; i++)
      row[i] = wx[0] * src[i] + wx[1] * src[i + 1] + wx[2] * src[i + 2]
          + wx[3] * src[i + 3];
  }
  for (int q = 0; q < k->n; q++) {
    const double *col = k->across + (size_t) k->j[q] * tw + k->i[q];
    k->f[q] = wy[0] * col[0] + wy[1] * col[tw] + wy[2] * col[2 * tw]
        + wy[3] * col[3 * tw];
  }
}

/* The shift (dx, dy) of the frame in w that matches the template best,
 * from 0; 0 where the template has no gradient to go by. */
static void
refine_one (const KMatch * m, Refiner * k, const Window * w, double *dx,
    double *dy)
{
  const double hxx = k->hxx, hxy = k->hxy, hyy = k->hyy;
  const double det = hxx * hyy - hxy * hxy;
  *dx = *dy = 0;
  if (!(det > 1e-9 * (hxx + hyy) * (hxx + hyy)))
    return;
  double x = 0, y = 0;
  for (int step = 0; step < MAX_STEPS; step++) {
    const int ix = (int) floor (x), iy = (int) floor (y);
    double wx[4], wy[4];
    cubic (x - ix, wx);
    cubic (y - iy, wy);
    double bx = 0, by = 0;
    for (int c = 0; c < m->ch; c++) {
      /* the frame at p + d, and the light's model fitted to it */
      interpolate (m, k, w, c, ix, iy, wx, wy);
      const double *t = k->t + (size_t) c * k->n;
      const double *gx = k->gx + (size_t) c * k->n;
      const double *gy = k->gy + (size_t) c * k->n;
      double st = 0, stt = 0, sf = 0, sft = 0;
      for (int q = 0; q < k->n; q++) {
        st += t[q];
        stt += t[q] * t[q];
        sf += k->f[q];
        sft += k->f[q] * t[q];
      }
      const double n = k->n;
      double a = 1, b = 0;
      if (m->method == KMATCH_METHOD_NCC)
        a = stt > 0 ? sft / stt : 1;
      else if (m->method == KMATCH_METHOD_ZNCC) {
        const double var = n * stt - st * st;
        a = var > 0 ? (n * sft - st * sf) / var : 1;
        b = n > 0 ? (sf - a * st) / n : 0;
      }
      if (!(fabs (a) > 1e-9))
        continue;
      for (int q = 0; q < k->n; q++) {
        const double r = (k->f[q] - b) / a - t[q];
        bx += gx[q] * r;
        by += gy[q] * r;
      }
    }
    /* (inverse compositional: the template's step, taken off the frame's
     * shift) */
    const double sx = (hyy * bx - hxy * by) / det;
    const double sy = (hxx * by - hxy * bx) / det;
    x -= sx;
    y -= sy;

    if (fabs (x) > 1 || fabs (y) > 1)
      return;                   /* (it ran off: the whole position) */
    if (fabs (sx) < STEP_DONE && fabs (sy) < STEP_DONE)
      break;
  }
  *dx = x;
  *dy = y;
}

/* kmatch_refine, and kmatch_refine_device (on_device: each window is
 * copied to the host first, and refined there) */
static KConvStatus
refine (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, KMatchPosition * matches, int n, int on_device)
{
  const char *fn = on_device ? "kmatch_refine_device" : "kmatch_refine";
  kconv_clear_error ();
  const KMatchRegion whole = { 0, 0, frame ? frame->width : 0,
    frame ? frame->height : 0
  };
  const KMatchRegion *r = region ? region : &whole;
  if (!m || (!m->tmpl && !m->tmpl16) || !frame || !frame->data
      || (n > 0 && !matches) || (luma && (m->ch != 1
              || frame->n_channels != 3)) || (!luma && !m->depth
          && frame->n_channels != m->ch) || (m->depth && frame->depth
          != m->depth) || r->x < 0 || r->y < 0
      || r->x + r->width > frame->width || r->y + r->height > frame->height)
    return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "%s: no template, frame "
        "or matches, a frame that is not the template's kind, or a region "
        "outside the frame", fn);
  if (on_device && (!m->impl || !m->ops->match_download))
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "%s: the matcher "
        "is not on a device", fn);
  if (n > 0 && !m->refiner) {
    Refiner *k = malloc (sizeof *k);
    KConvStatus made = k ? refiner_init (m, k) :
        kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    if (made != KCONV_OK) {
      free (k);
      return made;
    }
    m->refiner = k;
  }
  KConvStatus st = KCONV_OK;
  for (int i = 0; i < n && st == KCONV_OK; i++) {
    KMatchPosition *p = &matches[i];
    p->sub_x = p->x;
    p->sub_y = p->y;
    if (p->x < r->x || p->y < r->y || p->x + m->tw > r->x + r->width
        || p->y + m->th > r->y + r->height) {
      st = kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "%s: match %d at "
          "(%d, %d) does not lie inside the region", fn, i, p->x, p->y);
      break;
    }
    KMatchRegion b;
    window_bounds (m, frame, p, &b);
    const uint8_t *base = frame->data + (ptrdiff_t) b.y * frame->stride +
        (ptrdiff_t) b.x * frame->pixel_stride;
    ptrdiff_t stride = frame->stride;
    if (on_device) {
      /* (the window's copy in host memory, the matcher's) */
      const size_t row = kmatch_row_bytes (frame, luma ? 3 : m->ch, b.width);
      const void *host;
      st = m->ops->match_download (m->impl, base, frame->stride, row,
          b.height, &host);
      base = host;
      stride = (ptrdiff_t) row;
    }
    Window w;
    if (st == KCONV_OK)
      st = pack_window (m, frame, base, stride, luma, p, &b, &w);
    if (st != KCONV_OK)
      break;
    double dx, dy;
    refine_one (m, m->refiner, &w, &dx, &dy);
    free (w.v);
    /* within the region (refine_one keeps it within a pixel of the
     * match: where the true position lies near half way, the search's
     * whole pixel may be the farther one) */
    const double right = r->x + r->width - m->tw, bottom = r->y + r->height -
        m->th;
    p->sub_x = fmin (fmax (p->x + dx, r->x), right);
    p->sub_y = fmin (fmax (p->y + dy, r->y), bottom);
  }
  return st;
}

KConvStatus
kmatch_refine (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, KMatchPosition * matches, int n)
{
  return refine (m, frame, luma, region, matches, n, 0);
}

KConvStatus
kmatch_refine_device (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, KMatchPosition * matches, int n)
{
  return refine (m, frame, luma, region, matches, n, 1);
}
