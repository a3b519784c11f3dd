/* kconv: a matching backend against the scalar reference, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Random frames with padded strides and 1, 3 or 4-byte pixels, templates
 * from 1x1 to the size of the frame, planted copies with noise, ties and
 * search regions: the SAD maps must be equal and the positions the same.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "match-table.h"
#include "photo.h"

/* luma: a grey template in the luma of R, G, B at the offsets
 * (kmatch_search_luma), checked against the reference searching a luma
 * frame made here, one pixel at a time */
typedef struct
{
  int ps, ch, offsets[3], luma;
} Layout;

static const Layout layouts[] = {
  {1, 1, {0}}, {3, 3, {0, 1, 2}}, {4, 3, {1, 2, 3}}, {4, 1, {2}},
  {2, 1, {0}},                  /* YUY2's luma */
  {4, 3, {0, 1, 2}, 1},         /* RGBA, luma */
  {3, 3, {2, 1, 0}, 1},         /* BGR, luma */
};

/* the template's channels: one for a luma search */
static int
template_channels (const Layout * lay)
{
  return lay->luma ? 1 : lay->ch;
}

/* plants the template (plus noise of +-noise) at (px, py) */
static void
plant (uint8_t * frame, ptrdiff_t stride, const Layout * lay,
    const uint8_t * t, int tw, int th, int px, int py, int noise)
{
  if (lay->luma)
    return;                     /* (a luma cannot be planted exactly) */
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++)
      for (int c = 0; c < lay->ch; c++) {
        int v = t[(j * tw + i) * lay->ch + c];
        if (noise)
          v += rnd_range (-noise, noise);
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        frame[(py + j) * stride + (px + i) * lay->ps + lay->offsets[c]] =
            (uint8_t) v;
      }
}

/* Smooth content, as in photographs (where a search can prune): a few
 * slow waves and bright rectangles over the whole row, stride included. */
static void
fill_smooth (uint8_t * frame, ptrdiff_t stride, int h)
{
  float fx[3], fy[3], ph[3];
  for (int k = 0; k < 3; k++) {
    fx[k] = (float) rnd_range (1, 40) / 400.0f;
    fy[k] = (float) rnd_range (1, 40) / 400.0f;
    ph[k] = (float) rnd_range (0, 628) / 100.0f;
  }
  for (int y = 0; y < h; y++)
    for (ptrdiff_t i = 0; i < stride; i++) {
      float v = 128;
      for (int k = 0; k < 3; k++)
        v += 40 * sinf (fx[k] * (float) i + fy[k] * (float) y + ph[k]);
      frame[y * stride + i] = (uint8_t) v;
    }
  for (int r = 0; r < 6; r++) {
    const ptrdiff_t x0 = rnd_range (0, (int) stride - 1);
    const int y0 = rnd_range (0, h - 1), v = rnd_range (0, 255);
    for (int y = y0; y < h && y < y0 + 30; y++)
      for (ptrdiff_t i = x0; i < stride && i < x0 + 40; i++)
        frame[y * stride + i] = (uint8_t) ((frame[y * stride + i] + v) / 2);
  }
}

/* The template cut from what the reference searches (the frame, or its
 * luma), plus noise of +-noise. */
static void
cut (uint8_t * t, const KConvImage * im, int tw, int th, int px, int py,
    int noise)
{
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++)
      for (int c = 0; c < im->n_channels; c++) {
        int v = im->data[(py + j) * im->stride + (px + i) * im->pixel_stride +
            im->channel_offset[c]];
        if (noise)
          v += rnd_range (-noise, noise);
        t[(j * tw + i) * im->n_channels + c] =
            (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
      }
}

/* Photographs (tests/photos.sh), 1920x1080 grey and RGB, when given. */
#define PHOTO_W 1920
#define PHOTO_H 1080
static uint8_t *photo_grey, *photo_rgb;

int
match_table_load_photos (const char *dir, const char *name)
{
  free (photo_grey);
  free (photo_rgb);
  photo_grey = photo_load (dir, name, PHOTO_W, PHOTO_H, 1);
  photo_rgb = photo_load (dir, name, PHOTO_W, PHOTO_H, 3);
  return photo_grey && photo_rgb ? 0 : -1;
}

/* A crop of the photograph, its bytes as they come row by row (RGB for
 * 3- and 4-byte pixels, grey otherwise): natural texture in any layout. */
static void
fill_photo (uint8_t * frame, ptrdiff_t stride, int h, int ps)
{
  const int rgb = ps >= 3, row = PHOTO_W * (rgb ? 3 : 1);
  const uint8_t *src = rgb ? photo_rgb : photo_grey;
  const int x0 = rnd_range (0, row - (int) stride), y0 =
      rnd_range (0, PHOTO_H - h);
  for (int y = 0; y < h; y++)
    memcpy (frame + y * stride, src + (size_t) (y0 + y) * row + x0, stride);
}

/* FLAT: one grey with a few rectangles, the template that grey: every
 * flat position ties (a test card's black, as a template cut from it) */
enum
{ RANDOM, TIES, SMOOTH, PHOTO, FLAT };

static void
fill_flat (uint8_t * frame, ptrdiff_t stride, int w, int h, int ps)
{
  memset (frame, 16, stride * h);
  for (int k = 0; k < 3; k++) {
    const int x0 = rnd_range (0, w - 1), y0 = rnd_range (0, h - 1);
    const int x1 = rnd_range (x0, w - 1), y1 = rnd_range (y0, h - 1);
    const uint8_t v = (uint8_t) rnd ();
    for (int y = y0; y <= y1; y++)
      memset (frame + y * stride + x0 * ps, v, (size_t) (x1 - x0 + 1) * ps);
  }
}

static void
run_case (KConvBackend backend, const Layout * lay, int w, int h, int tw,
    int th, int use_region, int max_matches, int planted, int content)
{
  const int ties = content == TIES;
  ptrdiff_t stride = (ptrdiff_t) w * lay->ps + rnd_range (0, 19);
  uint8_t *frame = malloc (stride * h);
  const int tch = template_channels (lay);
  uint8_t *t = malloc ((size_t) tw * th * tch);
  const int natural = content == SMOOTH || content == PHOTO;
  if (content == SMOOTH)
    fill_smooth (frame, stride, h);
  if (content == PHOTO)
    fill_photo (frame, stride, h, lay->ps);
  const int flat = content == FLAT;
  if (flat)
    fill_flat (frame, stride, w, h, lay->ps);
  for (ptrdiff_t i = 0; i < stride * h && !natural && !flat; i++)
    frame[i] = ties ? (uint8_t) (rnd () % 2) : (uint8_t) rnd ();
  for (int i = 0; i < tw * th * tch; i++)
    t[i] = flat ? 16 : ties ? (uint8_t) (rnd () % 2) : (uint8_t) rnd ();
  int px = rnd_range (0, w - tw), py = rnd_range (0, h - th);
  if (planted && !natural)
    plant (frame, stride, lay, t, tw, th, px, py, planted > 1 ? 3 : 0);

  KMatchRegion region = { 0, 0, w, h };
  if (use_region) {
    region.x = rnd_range (0, w - tw);
    region.y = rnd_range (0, h - th);
    region.width = rnd_range (tw, w - region.x);
    region.height = rnd_range (th, h - region.y);
  }
  int mw = region.width - tw + 1, mh = region.height - th + 1;
  uint64_t *map_ref = malloc (sizeof (uint64_t) * mw * mh);
  uint64_t *map = malloc (sizeof (uint64_t) * mw * mh);
  memset (map, 0xa5, sizeof (uint64_t) * mw * mh);

  KConvImage im = { frame, w, h, stride, lay->ps, lay->ch,
    {lay->offsets[0], lay->offsets[1], lay->offsets[2]}
  };
  /* what the reference searches: the frame, or its luma made here */
  KConvImage imr = im;
  uint8_t *luma = NULL;
  if (lay->luma) {
    luma = malloc ((size_t) w * h);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const uint8_t *px = frame + y * stride + x * lay->ps;
        luma[y * w + x] = kmatch_rgb_luma (px[lay->offsets[0]],
            px[lay->offsets[1]], px[lay->offsets[2]]);
      }
    const KConvImage grey = { luma, w, h, w, 1, 1, {0} };
    imr = grey;
  }
  /* natural content: the template cut from it (noise if planted > 1) */
  if (natural)
    cut (t, &imr, tw, th, px, py, planted > 1 ? 3 : 0);
  KConvStatus (*search) (KMatch *, const KConvImage *, const KMatchRegion *,
      int, KMatchPosition *, int *, uint64_t *) = lay->luma ?
      kmatch_search_luma : kmatch_search;
  /* half the cases with a transparent part: a random mask, or a disc */
  uint8_t *mask = NULL;
  const int masked = rnd () % 2;
  if (masked) {
    mask = malloc ((size_t) tw * th);
    const int disc = rnd () % 2;
    for (int j = 0; j < th; j++)
      for (int i = 0; i < tw; i++) {
        const int dx = 2 * i - tw + 1, dy = 2 * j - th + 1;
        mask[j * tw + i] =
            disc ? dx * dx + dy * dy <= tw * th : rnd () % 3 != 0;
      }
  }
  KConvOptions ref_opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  KConvOptions opt = { backend, rnd_range (1, 3), -1 };
  KMatch *mr = NULL, *m = NULL;
  KMatchPosition pr[8], p[8];
  int nr = 0, n = 0;
  int ok = kmatch_new (&ref_opt, &mr) == KCONV_OK
      && kmatch_new (&opt, &m) == KCONV_OK
      && kmatch_set_template (mr, t, tw, th, (ptrdiff_t) tw * tch,
      tch) == KCONV_OK
      && kmatch_set_template (m, t, tw, th, (ptrdiff_t) tw * tch,
      tch) == KCONV_OK
      && kmatch_set_template_mask (mr, mask, tw) == KCONV_OK
      && kmatch_set_template_mask (m, mask, tw) == KCONV_OK
      && kmatch_search (mr, &imr, use_region ? &region : NULL, max_matches,
      pr, &nr, map_ref) == KCONV_OK
      && search (m, &im, use_region ? &region : NULL, max_matches, p,
      &n, map) == KCONV_OK;
  char what[160];
  snprintf (what, sizeof what, "%dx%d (ps %d, %d ch%s) template %dx%d%s, "
      "region %d,%d %dx%d, %d matches%s%s", w, h, lay->ps, lay->ch,
      lay->luma ? ", luma" : "", tw, th, masked ? " masked" : "",
      region.x, region.y, region.width, region.height, max_matches,
      planted ? ", planted" : "", ties ? ", ties" : content == SMOOTH ?
      ", smooth" : content == PHOTO ? ", photograph" : flat ? ", flat" : "");
  CHECK (ok, "%s: search failed", what);
  if (ok) {
    CHECK (memcmp (map, map_ref, sizeof (uint64_t) * mw * mh) == 0,
        "%s: SAD maps differ", what);
    CHECK (n == nr && memcmp (p, pr, sizeof (KMatchPosition) * n) == 0,
        "%s: positions differ (%d,%d vs %d,%d)", what, n ? p[0].x : -1,
        n ? p[0].y : -1, nr ? pr[0].x : -1, nr ? pr[0].y : -1);
    if (planted == 1 && !use_region && !ties && (!lay->luma || natural))
      CHECK (p[0].sad == 0 && (p[0].y < py || (p[0].y == py && p[0].x <= px)),
          "%s: planted copy at %d,%d not found (got %d,%d)", what, px, py,
          p[0].x, p[0].y);
    /* the reference's own ties rule: nothing earlier is as good */
    for (int y = 0; ok && y < mh; y++)
      for (int x = 0; x < mw; x++) {
        uint64_t s = map_ref[y * mw + x];
        int before = y + region.y < pr[0].y || (y + region.y == pr[0].y
            && x + region.x < pr[0].x);
        if (s < pr[0].sad || (s == pr[0].sad && before)) {
          CHECK (0, "%s: (%d,%d) beats the best", what, x, y);
          ok = 0;
          break;
        }
      }
    /* without a map (the GPU brings only the best back, the CPU prunes) */
    KMatchPosition q[8];
    int nq = 0;
    CHECK (search (m, &im, use_region ? &region : NULL, max_matches, q, &nq,
            NULL) == KCONV_OK && nq == nr
        && memcmp (q, pr, sizeof (KMatchPosition) * nr) == 0,
        "%s: positions without a map differ (%d,%d sad %llu vs %d,%d sad "
        "%llu)", what, nq ? q[0].x : -1, nq ? q[0].y : -1,
        nq ? (unsigned long long) q[0].sad : 0ULL, pr[0].x, pr[0].y,
        (unsigned long long) pr[0].sad);
    /* submitted on a slot (frames in flight), waited for at once */
    KConvSlot *slot = kconv_slot_new ();
    nq = 0;
    CHECK (slot && kmatch_submit (m, slot, &im, lay->luma,
            use_region ? &region : NULL, max_matches) == KCONV_OK
        && kconv_slot_wait (slot) == KCONV_OK
        && kmatch_slot_matches (slot, q, &nq) == KCONV_OK && nq == nr
        && memcmp (q, pr, sizeof (KMatchPosition) * nr) == 0,
        "%s: positions submitted on a slot differ (%d,%d vs %d,%d)", what,
        nq ? q[0].x : -1, nq ? q[0].y : -1, pr[0].x, pr[0].y);
    kconv_slot_free (slot);
    for (int a = 0; a < n; a++)
      for (int b = a + 1; b < n; b++)
        CHECK (!(p[a].x < p[b].x + tw && p[b].x < p[a].x + tw
                && p[a].y < p[b].y + th && p[b].y < p[a].y + th),
            "%s: matches %d and %d overlap", what, a, b);
  }
  kmatch_free (mr);
  kmatch_free (m);
  free (frame);
  free (mask);
  free (luma);
  free (t);
  free (map);
  free (map_ref);
}

/* Frames in flight: FRAMES frames submitted on slots of their own before
 * any is waited for, half in pinned memory, then the template changed and
 * as many again; each slot must give the answer of a search waited for at
 * once on the CPU (checked against the reference above) for its frame and
 * the template it was submitted with. */
#define FRAMES 6
static void
run_in_flight (KConvBackend backend, const Layout * lay, int w, int h,
    int tw, int th)
{
  const int tch = template_channels (lay);
  const ptrdiff_t stride = (ptrdiff_t) w * lay->ps + 5;
  const size_t bytes = (size_t) stride * h;
  uint8_t *frames[2 * FRAMES], *t[2];
  int pinned[2 * FRAMES];
  KConvSlot *slots[2 * FRAMES];
  KMatchPosition expect[2 * FRAMES];
  KConvOptions opt = { backend, 2, -1 }, ref_opt = {
    KCONV_BACKEND_CPU, 2, -1
  };
  KMatch *m = NULL, *mr = NULL;
  int ok = kmatch_new (&opt, &m) == KCONV_OK
      && kmatch_new (&ref_opt, &mr) == KCONV_OK;
  for (int k = 0; k < 2; k++) {
    t[k] = malloc ((size_t) tw * th * tch);
    for (int i = 0; i < tw * th * tch; i++)
      t[k][i] = (uint8_t) rnd ();
  }
  for (int i = 0; i < 2 * FRAMES; i++) {
    frames[i] = i % 2 ? kconv_host_alloc (bytes, &pinned[i]) : malloc (bytes);
    if (i % 2 == 0)
      pinned[i] = 0;
    for (size_t b = 0; b < bytes; b++)
      frames[i][b] = (uint8_t) rnd ();
    plant (frames[i], stride, lay, t[i / FRAMES], tw, th,
        rnd_range (0, w - tw), rnd_range (0, h - th), 0);
    slots[i] = kconv_slot_new ();
  }
  for (int k = 0; k < 2 && ok; k++) {
    ok = kmatch_set_template (m, t[k], tw, th, (ptrdiff_t) tw * tch, tch)
        == KCONV_OK && kmatch_set_template (mr, t[k], tw, th,
        (ptrdiff_t) tw * tch, tch) == KCONV_OK;
    for (int i = k * FRAMES; i < (k + 1) * FRAMES && ok; i++) {
      KConvImage im = { frames[i], w, h, stride, lay->ps, lay->ch,
        {lay->offsets[0], lay->offsets[1], lay->offsets[2]}
      };
      int n = 0;
      ok = (lay->luma ? kmatch_search_luma : kmatch_search) (mr, &im, NULL,
          1, &expect[i], &n, NULL) == KCONV_OK && n == 1
          && kmatch_submit (m, slots[i], &im, lay->luma, NULL, 1) == KCONV_OK;
    }
  }
  CHECK (ok, "in flight, %dx%d (ps %d, %d ch%s) template %dx%d: submission "
      "failed", w, h, lay->ps, lay->ch, lay->luma ? ", luma" : "", tw, th);
  for (int i = 0; i < 2 * FRAMES && ok; i++) {
    KMatchPosition got = { -1, -1, 0 };
    int n = 0;
    CHECK (kconv_slot_wait (slots[i]) == KCONV_OK
        && kmatch_slot_matches (slots[i], &got, &n) == KCONV_OK && n == 1
        && got.x == expect[i].x && got.y == expect[i].y
        && got.sad == expect[i].sad, "in flight, %dx%d (ps %d, %d ch%s) "
        "template %dx%d, frame %d%s: %d,%d sad %llu, expected %d,%d sad %llu",
        w, h, lay->ps, lay->ch, lay->luma ? ", luma" : "", tw, th, i,
        pinned[i] ? " (pinned)" : "", got.x, got.y,
        (unsigned long long) got.sad, expect[i].x, expect[i].y,
        (unsigned long long) expect[i].sad);
  }
  for (int i = 0; i < 2 * FRAMES; i++) {
    kconv_slot_free (slots[i]);
    if (i % 2)
      kconv_host_free (frames[i], pinned[i]);
    else
      free (frames[i]);
  }
  free (t[0]);
  free (t[1]);
  kmatch_free (m);
  kmatch_free (mr);
}

void
match_table_run (KConvBackend backend, unsigned seed)
{
  static const int sizes[][2] = {
    {1, 1}, {2, 3}, {17, 5}, {64, 48}, {101, 37}, {33, 97}
  };
  test_rng_seed (seed);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
      int w = sizes[s][0], h = sizes[s][1];
      /* 1x1, as large as the frame, and odd sizes between */
      run_case (backend, &layouts[l], w, h, 1, 1, 0, 1, 1, 0);
      run_case (backend, &layouts[l], w, h, w, h, 0, 1, 0, 0);
      for (int k = 0; k < 4; k++) {
        int tw = rnd_range (1, w), th = rnd_range (1, h);
        run_case (backend, &layouts[l], w, h, tw, th, k == 3, 1 + k % 3,
            1 + k % 2, 0);
      }
      run_case (backend, &layouts[l], w, h, rnd_range (1, w),
          rnd_range (1, h), 0, 4, 0, TIES);
    }
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
    run_in_flight (backend, &layouts[l], 333, 197, 24, 17);
    run_in_flight (backend, &layouts[l], 1280, 720, 48, 40);
  }
  /* templates too large for a GPU's shared memory, grey and RGB */
  run_case (backend, &layouts[0], 270, 240, 260, 230, 0, 1, 1, 0);
  run_case (backend, &layouts[1], 160, 130, 150, 120, 0, 2, 2, 0);
  /* smooth frames, where the CPU's search prunes: every layout, templates
   * from 16 pixels a side up, planted exactly and with noise, several
   * matches, regions */
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
    for (int k = 0; k < 6; k++) {
      const int w = rnd_range (120, 260), h = rnd_range (90, 200);
      run_case (backend, &layouts[l], w, h, rnd_range (16, 70),
          rnd_range (16, 70), k % 3 == 2, 1 + k % 4, 1 + k % 2, SMOOTH);
    }
  /* flat frames (ties over most of them), one match: the GPU's pruned
   * search keeps the tie rule */
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
    for (int k = 0; k < 3; k++) {
      const int w = rnd_range (100, 260), h = rnd_range (90, 200);
      run_case (backend, &layouts[l], w, h, rnd_range (16, 70),
          rnd_range (16, 70), k == 2, 1, 0, FLAT);
    }
  /* and crops of a photograph, when one is loaded */
  for (size_t l = 0; photo_grey && l < sizeof layouts / sizeof layouts[0]; l++)
    for (int k = 0; k < 4; k++) {
      const int w = rnd_range (150, 320), h = rnd_range (100, 240);
      run_case (backend, &layouts[l], w, h, rnd_range (16, 80),
          rnd_range (16, 80), k == 3, 1 + k % 3, 1 + k % 2, PHOTO);
    }
}
