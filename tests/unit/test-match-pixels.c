/* kconv: the pixel work around a search (template cuts, packed planes,
 * search areas) against plain scalar definitions, on random images and
 * odd sizes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kmatch.h"
#include "test-rng.h"

/* Template cuts: every channel layout, from grey and from R, G, B (luma) */
static void
check_cuts (void)
{
  static const struct
  {
    int pixel_stride, n_channels, offsets[3], channels;
  } layouts[] = {
    {1, 1, {0}, 1},             /* grey */
    {2, 1, {1}, 1},             /* the luma of UYVY */
    {3, 3, {0, 1, 2}, 3},       /* RGB */
    {4, 3, {2, 1, 0}, 3},       /* BGRx */
    {4, 3, {1, 2, 3}, 1},       /* xRGB, cut as luma */
    {3, 3, {2, 1, 0}, 1},       /* BGR, cut as luma */
  };
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
    for (int trial = 0; trial < 20; trial++) {
      const int w = rnd_range (1, 61), h = rnd_range (1, 47);
      const int ps = layouts[l].pixel_stride, ch = layouts[l].channels;
      const ptrdiff_t stride = (ptrdiff_t) w * ps + rnd_range (0, 9);
      uint8_t *px = malloc ((size_t) stride * h);
      for (ptrdiff_t i = 0; i < stride * h; i++)
        px[i] = (uint8_t) rnd ();
      KConvImage im = { px, w, h, stride, ps, layouts[l].n_channels, {0} };
      memcpy (im.channel_offset, layouts[l].offsets, sizeof layouts[l].offsets);
      KMatchRegion r;
      r.width = rnd_range (1, w);
      r.height = rnd_range (1, h);
      r.x = rnd_range (0, w - r.width);
      r.y = rnd_range (0, h - r.height);

      uint8_t *t = kmatch_cut_template (&im, &r, ch);
      int wrong = !t;
      for (int y = 0; t && y < r.height; y++)
        for (int x = 0; x < r.width; x++) {
          const uint8_t *p = px + (ptrdiff_t) (r.y + y) * stride +
              (ptrdiff_t) (r.x + x) * ps;
          for (int c = 0; c < ch; c++) {
            int want = ch == 1 && im.n_channels == 3 ?
                (77 * p[im.channel_offset[0]] + 150 * p[im.channel_offset[1]]
                + 29 * p[im.channel_offset[2]] + 128) >> 8 :
                p[im.channel_offset[c]];
            wrong += t[((size_t) y * r.width + x) * ch + c] != want;
          }
        }
      CHECK (!wrong, "cut %dx%d at %d,%d of %dx%d, layout %zu: %d wrong",
          r.width, r.height, r.x, r.y, w, h, l, wrong);
      /* a region reaching outside the image is refused */
      KMatchRegion out = { w - r.width + 1, r.y, r.width, r.height };
      uint8_t *none = kmatch_cut_template (&im, &out, ch);
      CHECK (!none, "cut past the right edge refused");
      free (none);
      free (t);
      free (px);
    }
}

/* Planes packed into one image (planar GBR -> R, G, B) */
static void
check_interleave (void)
{
  for (int trial = 0; trial < 30; trial++) {
    const int w = rnd_range (1, 77), h = rnd_range (1, 33);
    const int n = rnd_range (1, 4);
    KConvImage planes[4];
    uint8_t *mem[4];
    for (int c = 0; c < n; c++) {
      const int ps = rnd_range (1, 3);
      const ptrdiff_t stride = (ptrdiff_t) w * ps + rnd_range (0, 5);
      mem[c] = malloc ((size_t) stride * h);
      for (ptrdiff_t i = 0; i < stride * h; i++)
        mem[c][i] = (uint8_t) rnd ();
      const KConvImage plane = { mem[c], w, h, stride, ps, 1, {0} };
      planes[c] = plane;
      planes[c].channel_offset[0] = rnd_range (0, ps - 1);
    }
    const ptrdiff_t dst_stride = (ptrdiff_t) w * n + rnd_range (0, 3);
    uint8_t *dst = calloc ((size_t) dst_stride, h);
    kmatch_interleave (planes, n, dst, dst_stride);
    int wrong = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int c = 0; c < n; c++)
          wrong += dst[y * dst_stride + x * n + c] !=
              mem[c][y * planes[c].stride + x * planes[c].pixel_stride +
              planes[c].channel_offset[0]];
    CHECK (!wrong, "%d planes of %dx%d: %d samples wrong", n, w, h, wrong);
    for (int c = 0; c < n; c++)
      free (mem[c]);
    free (dst);
  }
}

/* Search areas: the definition, pixel by pixel (a position is searched
 * when the template placed there lies in the region and, when tracking,
 * within the radius of the last match) */
static int
inside (KMatchRegion r, int x, int y)
{
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}

static void
check_search_areas (void)
{
  for (int trial = 0; trial < 400; trial++) {
    const int W = rnd_range (1, 40), H = rnd_range (1, 40);
    const int tw = rnd_range (1, 8), th = rnd_range (1, 8);
    KMatchRegion region = { rnd_range (-5, W + 5), rnd_range (-5, H + 5),
      rnd_range (1, W + 10), rnd_range (1, H + 10)
    };
    const int use_region = rnd () & 1;
    KMatchPosition last = { rnd_range (0, W), rnd_range (0, H), 0 };
    const int radius = rnd () % 3 == 0 ? 0 : rnd () % 7 == 0 ?
        0x7fffffff : rnd_range (1, 12);
    KMatchRegion got = kmatch_search_area (use_region ? &region : NULL,
        &last, radius, tw, th, W, H);

    /* the expected area, pixel by pixel */
    KMatchRegion frame = { 0, 0, W, H };
    KMatchRegion base = use_region ? region : frame;
    int x0 = W, y0 = H, x1 = 0, y1 = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        if (inside (base, x, y)) {
          x0 = x < x0 ? x : x0;
          y0 = y < y0 ? y : y0;
          x1 = x + 1 > x1 ? x + 1 : x1;
          y1 = y + 1 > y1 ? y + 1 : y1;
        }
    KMatchRegion want = { x0 < x1 ? x0 : 0, y0 < y1 ? y0 : 0, 0, 0 };
    if (x0 < x1 && y0 < y1) {
      want.width = x1 - x0;
      want.height = y1 - y0;
    } else {
      want = kmatch_region_clip (base, W, H);   /* empty: as clipped */
    }
    if (radius > 0 && want.width > 0 && want.height > 0) {
      long long nx0 = (long long) last.x - radius, ny0 = (long long) last.y -
          radius, nx1 = (long long) last.x + tw + radius, ny1 =
          (long long) last.y + th + radius;
      nx0 = nx0 > want.x ? nx0 : want.x;
      ny0 = ny0 > want.y ? ny0 : want.y;
      nx1 = nx1 < want.x + want.width ? nx1 : want.x + want.width;
      ny1 = ny1 < want.y + want.height ? ny1 : want.y + want.height;
      if (nx1 - nx0 >= tw && ny1 - ny0 >= th) {
        const KMatchRegion inside = { (int) nx0, (int) ny0,
          (int) (nx1 - nx0), (int) (ny1 - ny0)
        };
        want = inside;
      }
    }
    CHECK (memcmp (&got, &want, sizeof got) == 0, "frame %dx%d region "
        "%d,%d,%d,%d (%s) last %d,%d radius %d template %dx%d: got "
        "%d,%d,%d,%d, want %d,%d,%d,%d", W, H, region.x, region.y,
        region.width, region.height, use_region ? "on" : "off", last.x,
        last.y, radius, tw, th, got.x, got.y, got.width, got.height, want.x,
        want.y, want.width, want.height);
  }
}

int
main (int argc, char **argv)
{
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261123u;
  printf ("seed %u\n", seed);
  test_rng_seed (seed);
  check_cuts ();
  check_interleave ();
  check_search_areas ();
  return check_summary ();
}
