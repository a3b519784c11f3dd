/* kconv: the ssd, ncc and zncc searches against the formulas, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every method x no mask / a random mask / a disc x grey, RGB, RGBA and
 * luma layouts x random, smooth and flat frames and photographs, with a
 * template planted under a change of brightness and contrast.  Checked:
 *  - every score within 1e-5 of the double-precision formulas
 *    (kmatch_reference_scores: means first, then deviations); SSD scores
 *    to 1e-12 (exact sums);
 *  - the position reported is the formulas' best, or scores within 1e-5
 *    of it;
 *  - the backend's scores have the same bits as the reference backend's
 *    (the same integer sums, the same arithmetic after them);
 *  - a template planted as it is is found there; under a change of
 *    brightness and contrast zncc still finds it (correlation > 0.99);
 *  - flat windows and flat templates: zncc's correlation is 0;
 *  - three matches searched without maps (where a device searches alone),
 *    in a region of the frame, are the reference's three, with the same
 *    bits; with a device, the frame in its memory gives them too (and a
 *    template with a mask is refused there, with a reason).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "match-methods-table.h"
#include "kconv-reference.h"

typedef struct
{
  int ps, ch, offsets[3], luma;
} Layout;

static const Layout layouts[] = {
  {1, 1, {0}}, {3, 3, {0, 1, 2}}, {4, 3, {2, 1, 0}}, {4, 3, {0, 1, 2}, 1},
};

enum
{ RANDOM, SMOOTH, FLAT, PHOTO };
static const char *const contents[] = { "random", "smooth", "flat", "photo" };

enum
{ NO_MASK, RANDOM_MASK, DISC };

static const uint8_t *photo;
static int photo_w, photo_h;
static MatchTableUpload upload;
static MatchTableFree free_device;

void
match_methods_table_set_device (MatchTableUpload up, MatchTableFree fr)
{
  upload = up;
  free_device = fr;
}

void
match_methods_table_set_photo (const uint8_t * rgb, int w, int h)
{
  photo = rgb;
  photo_w = w;
  photo_h = h;
}

/* the frame's bytes: content over the whole row, stride included */
static void
fill (uint8_t * f, ptrdiff_t stride, int h, int content)
{
  const int x0 = photo ? rnd_range (0, photo_w * 3 - (int) stride) : 0;
  const int y0 = photo ? rnd_range (0, photo_h - h) : 0;
  const int level = rnd_range (0, 255);
  for (int y = 0; y < h; y++)
    for (ptrdiff_t i = 0; i < stride; i++) {
      int v;
      switch (content) {
        case SMOOTH:
          v = 128 + (int) (60 * sin (0.05 * (double) i + 0.07 * y) +
              40 * cos (0.11 * y));
          break;
        case FLAT:
          v = level;
          break;
        case PHOTO:
          v = photo[(size_t) (y0 + y) * photo_w * 3 + x0 + i];
          break;
        default:
          v = rnd_range (0, 255);
      }
      f[y * stride + i] = (uint8_t) v;
    }
}

/* what the reference searches: the samples packed, or the luma */
static void
packed_view (uint8_t * dst, const uint8_t * f, ptrdiff_t stride, int w,
    int h, const Layout * lay)
{
  const int ch = lay->luma ? 1 : lay->ch;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = f + y * stride + x * lay->ps;
      if (lay->luma)
        dst[(size_t) y * w + x] = kmatch_rgb_luma (p[lay->offsets[0]],
            p[lay->offsets[1]], p[lay->offsets[2]]);
      else
        for (int c = 0; c < ch; c++)
          dst[((size_t) y * w + x) * ch + c] = p[lay->offsets[c]];
    }
}

/* Plants the template at (px, py) times gain plus bias (clipped), in the
 * frame's own layout (not for luma, which the frame cannot be given). */
static void
plant (uint8_t * f, ptrdiff_t stride, const Layout * lay, const uint8_t * t,
    int tw, int th, int px, int py, double gain, int bias)
{
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++)
      for (int c = 0; c < lay->ch; c++) {
        double v = t[(j * tw + i) * lay->ch + c] * gain + bias;
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        f[(py + j) * stride + (px + i) * lay->ps + lay->offsets[c]] =
            (uint8_t) lround (v);
      }
}

static int
same_match (const KMatchPosition * a, const KMatchPosition * b)
{
  return a->x == b->x && a->y == b->y && a->score == b->score
      && a->correlation == b->correlation && a->sad == b->sad;
}

/* Three matches in a region, searched without maps by the reference (ms[0])
 * and the backend (ms[1]): the same, bit for bit; and with a device, the
 * frame in its memory. */
static void
check_without_maps (KMatch ** ms, const KConvImage * im, int luma,
    int masking, int w, int h, int tw, int th)
{
  KMatchRegion region = { 0, 0, w, h };
  if (rnd_range (0, 1)) {
    region.x = rnd_range (0, w - tw);
    region.y = rnd_range (0, h - th);
    region.width = rnd_range (tw, w - region.x);
    region.height = rnd_range (th, h - region.y);
  }
  KMatchPosition got[2][3], dev[3];
  int n[2], nd = 0;
  for (int k = 0; k < 2; k++) {
    KConvStatus st = (luma ? kmatch_search_luma : kmatch_search) (ms[k], im,
        &region, 3, got[k], &n[k], NULL);
    CHECK (st == KCONV_OK, "search without maps (%s)", kconv_last_error ());
  }
  CHECK (n[0] == n[1], "%d matches, the reference's %d", n[1], n[0]);
  for (int i = 0; i < n[0] && i < n[1]; i++)
    CHECK (same_match (&got[0][i], &got[1][i]), "match %d without maps at "
        "(%d, %d) score %.17g, the reference's (%d, %d) %.17g", i,
        got[1][i].x, got[1][i].y, got[1][i].score, got[0][i].x, got[0][i].y,
        got[0][i].score);
  if (!upload)
    return;
  const size_t bytes = (size_t) im->stride * im->height;
  KConvImage on = *im;
  on.data = upload (im->data, bytes);
  CHECK (on.data != NULL, "upload");
  if (!on.data)
    return;
  KConvStatus st = kmatch_search_device (ms[1], &on, luma, &region, 3, dev,
      &nd);
  if (masking) {
    CHECK (st == KCONV_ERROR_BACKEND_UNAVAILABLE
        && strstr (kconv_last_error (), "transparency"),
        "a mask in device memory: %d (%s)", st, kconv_last_error ());
  } else {
    CHECK (st == KCONV_OK && nd == n[1], "in device memory: %d, %d matches "
        "(%s)", st, nd, kconv_last_error ());
    for (int i = 0; st == KCONV_OK && i < nd && i < n[1]; i++)
      CHECK (same_match (&dev[i], &got[1][i]), "match %d in device memory "
          "at (%d, %d), in host memory (%d, %d)", i, dev[i].x, dev[i].y,
          got[1][i].x, got[1][i].y);
    /* to a fraction of a pixel from windows copied back: the host's
     * positions to the bit */
    if (st == KCONV_OK && nd == n[1]) {
      CHECK (kmatch_refine (ms[1], im, luma, &region, got[1], n[1]) ==
          KCONV_OK && kmatch_refine_device (ms[1], &on, luma, &region, dev,
              nd) == KCONV_OK, "refine (%s)", kconv_last_error ());
      for (int i = 0; i < nd; i++)
        CHECK (dev[i].sub_x == got[1][i].sub_x
            && dev[i].sub_y == got[1][i].sub_y, "match %d refined in device "
            "memory (%.17g, %.17g), in host memory (%.17g, %.17g)", i,
            dev[i].sub_x, dev[i].sub_y, got[1][i].sub_x, got[1][i].sub_y);
    }
  }
  free_device ((void *) on.data);
}

static void
run_case (KConvBackend backend, KMatchMethod method, const Layout * lay,
    int w, int h, int tw, int th, int content, int masking)
{
  const int ch = lay->luma ? 1 : lay->ch;
  const ptrdiff_t stride = (ptrdiff_t) w * lay->ps + rnd_range (0, 9);
  const int mw = w - tw + 1, mh = h - th + 1;
  uint8_t *f = malloc ((size_t) stride * h);
  uint8_t *view = malloc ((size_t) w * h * ch);
  uint8_t *t = malloc ((size_t) tw * th * ch);
  uint8_t *mask = malloc ((size_t) tw * th);
  uint8_t *byte_mask = malloc ((size_t) tw * th * ch);
  double *ref = malloc (sizeof *ref * mw * mh);
  double *ref_corr = malloc (sizeof *ref_corr * mw * mh);
  double *got = malloc (sizeof *got * mw * mh);
  double *gold = malloc (sizeof *gold * mw * mh);

  fill (f, stride, h, content);
  /* the template: a piece of what is searched, planted elsewhere too
   * under a change of light (for layouts the frame can take) */
  const int cx = rnd_range (0, mw - 1), cy = rnd_range (0, mh - 1);
  const int px = rnd_range (0, mw - 1), py = rnd_range (0, mh - 1);
  packed_view (view, f, stride, w, h, lay);
  for (int j = 0; j < th; j++)
    memcpy (t + (size_t) j * tw * ch, view + ((size_t) (cy + j) * w + cx) *
        ch, (size_t) tw * ch);
  if (!lay->luma && content != FLAT)
    plant (f, stride, lay, t, tw, th, px, py, 0.75, 20);
  packed_view (view, f, stride, w, h, lay);

  int keep = 0;
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++) {
      const double dx = i - (tw - 1) / 2.0, dy = j - (th - 1) / 2.0;
      const double r = (tw < th ? tw : th) / 2.0;
      int on = masking == NO_MASK ? 1 : masking == DISC ?
          dx * dx + dy * dy <= r * r : rnd_range (0, 3) != 0;
      if (j == th / 2 && i == tw / 2)
        on = 1;                 /* (at least one pixel counts) */
      mask[j * tw + i] = (uint8_t) (on ? 0xff : 0);
      keep += on;
      for (int c = 0; c < ch; c++)
        byte_mask[(j * tw + i) * ch + c] = mask[j * tw + i];
    }

  kmatch_reference_scores (view, (ptrdiff_t) w * ch, t, tw, th, ch, mw, mh,
      method, masking ? byte_mask : NULL, ref, ref_corr);

  const KConvImage im = { f, w, h, stride, lay->ps, lay->luma ? 3 : ch,
    {lay->offsets[0], lay->offsets[1], lay->offsets[2]}
  };
  KMatchPosition best[2] = { {-1, -1, 0}, {-1, -1, 0} };
  int n = 0;
  KMatch *ms[2];
  for (int pass = 0; pass < 2; pass++) {
    const KConvOptions o = { pass ? backend : KCONV_BACKEND_REFERENCE, 2, -1 };
    KMatch *m;
    CHECK (kmatch_new (&o, &m) == KCONV_OK, "matcher");
    CHECK (kmatch_set_method (m, method) == KCONV_OK, "method");
    CHECK (kmatch_set_template (m, t, tw, th, (ptrdiff_t) tw * ch, ch)
        == KCONV_OK, "template");
    if (masking)
      CHECK (kmatch_set_template_mask (m, mask, tw) == KCONV_OK, "mask");
    CHECK (kmatch_template_pixels (m) == keep, "pixels that count");
    KConvStatus st = kmatch_search_scores (m, &im, lay->luma, NULL, 1,
        &best[pass], &n, pass ? got : gold);
    CHECK (st == KCONV_OK && n == 1, "%s search (%s)",
        kmatch_method_name (method), kconv_last_error ());
    ms[pass] = m;
  }
  check_without_maps (ms, &im, lay->luma, masking, w, h, tw, th);
  kmatch_free (ms[0]);
  kmatch_free (ms[1]);

  const double tol = method == KMATCH_METHOD_SSD ? 1e-12 : 1e-5;
  double worst = 0, ref_best = INFINITY;
  int same_bits = 1, bx = 0, by = 0;
  for (int i = 0; i < mw * mh; i++) {
    const double d = fabs (got[i] - ref[i]);
    worst = d > worst ? d : worst;
    same_bits &= got[i] == gold[i];
    if (ref[i] < ref_best) {
      ref_best = ref[i];
      bx = i % mw;
      by = i / mw;
    }
  }
  const KMatchPosition *b = &best[1];
  CHECK (worst <= tol && same_bits && b->x >= 0
      && ref[b->y * mw + b->x] <= ref_best + 1e-5
      && b->score == got[b->y * mw + b->x] && best[0].x == b->x
      && best[0].y == b->y,
      "%s %dx%d (ps %d, %s, %s, mask %d) template %dx%d: largest error "
      "%.3g, same bits as the reference backend %d, found (%d, %d) score "
      "%.9f, the formulas' best (%d, %d) %.9f",
      kmatch_method_name (method), w, h, lay->ps, lay->luma ? "luma" :
      "samples", contents[content], masking, tw, th, worst, same_bits, b->x,
      b->y, b->score, bx, by, ref_best);
  if (method != KMATCH_METHOD_SSD)
    CHECK (fabs (b->correlation - ref_corr[b->y * mw + b->x]) <= 1e-5,
        "%s correlation %.9f, the formulas' %.9f",
        kmatch_method_name (method), b->correlation,
        ref_corr[b->y * mw + b->x]);
  if (content == FLAT && method == KMATCH_METHOD_ZNCC)
    CHECK (b->correlation == 0 && b->score == 0.5, "zncc on a flat frame: "
        "correlation %g, score %g (0 and 0.5 expected)", b->correlation,
        b->score);
  /* zncc sees through the change of light: where the template was planted
   * the correlation is 1 but for rounding, whose noise (a variance of
   * 1/12 a sample) weighs on faint templates: checked where each channel
   * varies by 10 or more (the rounding then costs under 0.008) */
  double least_var = INFINITY;
  for (int c = 0; c < ch; c++) {
    double sum = 0, sq = 0;
    for (int i = 0; i < tw * th; i++) {
      sum += t[i * ch + c];
      sq += (double) t[i * ch + c] * t[i * ch + c];
    }
    const double var = sq / (tw * th) - (sum / (tw * th)) * (sum / (tw * th));
    least_var = var < least_var ? var : least_var;
  }
  if (method == KMATCH_METHOD_ZNCC && !lay->luma && content != FLAT
      && masking == NO_MASK && tw * th >= 16 && least_var >= 10)
    CHECK (ref_corr[py * mw + px] > 0.99 || ref_corr[py * mw + px] == 0,
        "zncc at the planted copy %.6f", ref_corr[py * mw + px]);

  free (f);
  free (view);
  free (t);
  free (mask);
  free (byte_mask);
  free (ref);
  free (ref_corr);
  free (got);
  free (gold);
}

void
match_methods_table_run (KConvBackend backend, unsigned seed)
{
  test_rng_seed (seed);
  static const int sizes[][4] = {
    {1, 1, 1, 1}, {7, 5, 3, 2}, {33, 17, 8, 8}, {64, 40, 5, 9},
    {97, 61, 16, 16}, {40, 30, 40, 30}, {130, 70, 21, 13},
  };
  const int n_layouts = sizeof layouts / sizeof layouts[0];
  const int n_sizes = sizeof sizes / sizeof sizes[0];
  int cases = 0;
  for (int method = KMATCH_METHOD_SSD; method <= KMATCH_METHOD_ZNCC; method++)
    for (int l = 0; l < n_layouts; l++)
      for (int s = 0; s < n_sizes; s++)
        for (int content = RANDOM; content <= PHOTO; content++)
          for (int masking = NO_MASK; masking <= DISC; masking++) {
            if (content == PHOTO && !photo)
              continue;
            run_case (backend, (KMatchMethod) method, &layouts[l],
                sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], content,
                masking);
            cases++;
          }
  printf ("methods: %d cases\n", cases);
}
