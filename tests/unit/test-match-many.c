/* kconv: several templates in one pass over a frame (kmatch_search_many)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three templates cut from a photograph (KCONV_PHOTOS, from
 * tests/photos.sh; without it made-up blobs), one of them with a mask,
 * searched in one pass and each on its own: the same matches, to the
 * bit, for every method, in pixel layouts that share a packed copy
 * (RGBA, BGRx, the luma of RGBA) and ones compared as they lie (grey,
 * 16-bit grey, P010's 10-bit luma), each template in a region of its own,
 * on the CPU and, where there is one, on CUDA (the frame uploaded once).
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "photo.h"
#include "kmatch.h"

#define FW 320
#define FH 200
#define N 3

typedef struct
{
  const char *name;
  int ps, ch, luma, offsets[3];
  int depth, shift;             /* 16-bit words of depth bits (else 0) */
} Layout;

/* the frame: a piece of the photograph (or blobs), ps bytes a pixel */
static uint8_t *
make_frame (const uint8_t * rgb, const Layout * lay)
{
  uint8_t *f = malloc ((size_t) FW * FH * lay->ps);
  if (lay->depth) {
    /* the green channel at the depth, little-endian words */
    for (int i = 0; i < FW * FH; i++) {
      const unsigned g = rgb[(size_t) i * 3 + 1];
      const unsigned v = (g << (lay->depth - 8) | g >> (16 - lay->depth))
          << lay->shift;
      f[(size_t) i * 2] = (uint8_t) v;
      f[(size_t) i * 2 + 1] = (uint8_t) (v >> 8);
    }
    return f;
  }
  for (int i = 0; i < FW * FH; i++)
    for (int b = 0; b < lay->ps; b++)
      f[(size_t) i * lay->ps + b] = 0x5a;
  for (int i = 0; i < FW * FH; i++)
    for (int c = 0; c < (lay->ps == 1 ? 1 : 3); c++)
      f[(size_t) i * lay->ps + lay->offsets[c]] = rgb[(size_t) i * 3 + c];
  return f;
}

static int
same (const KMatchPosition * a, const KMatchPosition * b)
{
  return a->x == b->x && a->y == b->y && a->sad == b->sad
      && a->score == b->score && a->correlation == b->correlation;
}

static void
run (KConvBackend backend, const uint8_t * rgb, const Layout * lay,
    KMatchMethod method)
{
  const KConvOptions opt = { backend, 0, -1 };
  const KConvImage im0 = { NULL, FW, FH, (ptrdiff_t) FW * lay->ps, lay->ps,
    lay->luma ? 3 : lay->ch, {lay->offsets[0], lay->offsets[1],
        lay->offsets[2]}
  };
  KConvImage im = im0;
  uint8_t *frame = make_frame (rgb, lay);
  im.data = frame;
  im.depth = lay->depth;
  im.shift = lay->shift;
  static const int sizes[N][2] = { {16, 12}, {24, 24}, {40, 20} };
  KMatch *ms[N];
  KMatchRegion regions[N];
  for (int k = 0; k < N; k++) {
    const int tw = sizes[k][0], th = sizes[k][1];
    const int tx = 20 + 90 * k, ty = 30 + 50 * k;
    const KMatchRegion cut = { tx, ty, tw, th };
    void *t = lay->depth ? (void *) kmatch_cut_template_deep (&im, &cut) :
        (void *) kmatch_cut_template (&im, &cut, lay->ch);
    CHECK (t && kmatch_new (&opt, &ms[k]) == KCONV_OK
        && kmatch_set_method (ms[k], method) == KCONV_OK
        && (lay->depth ? kmatch_set_template_deep (ms[k], t, tw, th, tw,
                lay->depth) : kmatch_set_template (ms[k], t, tw, th,
                (ptrdiff_t) tw * lay->ch, lay->ch)) == KCONV_OK,
        "template %d: %s", k, kconv_last_error ());
    if (k == 1) {               /* a disc of it counts */
      uint8_t mask[24 * 24];
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++)
          mask[j * tw + i] = (i - 11.5) * (i - 11.5) + (j - 11.5) * (j -
              11.5) <= 144;
      CHECK (kmatch_set_template_mask (ms[k], mask, tw) == KCONV_OK, "mask");
    }
    free (t);
    /* most of the frame, a band round the template, a corner that holds
     * it (none starts at the frame's corner: the pass reads their box) */
    const KMatchRegion r[N] = { {5, 3, FW - 10, FH - 6}, {3, ty - 10, FW - 6,
        th + 20},
    {tx - 5, ty - 7, tw + 60, th + 30}
    };
    regions[k] = r[k];
  }
  KMatchPosition many[N * 2], one[2];
  int n_many[N], n_one;
  KConvStatus st = kmatch_search_many (ms, N, &im, lay->luma, 0, regions, 2,
      many, n_many);
  CHECK (st == KCONV_OK, "%s, %s: kmatch_search_many: %s", lay->name,
      kmatch_method_name (method), kconv_last_error ());
  for (int k = 0; k < N && st == KCONV_OK; k++) {
    CHECK ((lay->luma ? kmatch_search_luma : kmatch_search) (ms[k], &im,
            &regions[k], 2, one, &n_one, NULL) == KCONV_OK, "search");
    CHECK (n_one == n_many[k], "%s, %s, template %d: %d matches, alone %d",
        lay->name, kmatch_method_name (method), k, n_many[k], n_one);
    for (int i = 0; i < n_one && i < n_many[k]; i++)
      CHECK (same (&many[k * 2 + i], &one[i]), "%s, %s, %s, template %d, "
          "match %d: (%d, %d) score %.17g, alone (%d, %d) %.17g",
          kconv_backend_info (backend)->name, lay->name,
          kmatch_method_name (method), k, i, many[k * 2 + i].x,
          many[k * 2 + i].y, many[k * 2 + i].score, one[i].x, one[i].y,
          one[i].score);
    /* (each finds its own template, cut where its region holds it) */
    if (k != 1)
      CHECK (n_one > 0 && one[0].x == 20 + 90 * k && one[0].y == 30 + 50 * k,
          "%s, %s, template %d found at (%d, %d)", lay->name,
          kmatch_method_name (method), k, one[0].x, one[0].y);
  }
  for (int k = 0; k < N; k++)
    kmatch_free (ms[k]);
  free (frame);
}

int
main (void)
{
  const char *dir = getenv ("KCONV_PHOTOS");
  uint8_t *photo = dir && *dir ? photo_load (dir, "astronaut", 1920, 1080,
      3) : NULL;
  uint8_t *rgb = malloc ((size_t) FW * FH * 3);
  srand (11);
  for (int y = 0; y < FH; y++)
    for (int x = 0; x < FW; x++)
      for (int c = 0; c < 3; c++)
        rgb[((size_t) y * FW + x) * 3 + c] = photo ?
            photo[((size_t) (300 + y) * 1920 + 800 + x) * 3 + c] :
            (uint8_t) ((x * 7 + y * 13 + c * 50 + (rand () & 63)) & 255);
  printf ("%s\n", photo ? "astronaut photograph" : "made-up frame");
  free (photo);

  static const Layout layouts[] = {
    {"RGBA", 4, 3, 0, {0, 1, 2}},
    {"BGRx", 4, 3, 0, {2, 1, 0}},
    {"luma of RGBA", 4, 1, 1, {0, 1, 2}},
    {"grey", 1, 1, 0, {0}},
    {"GRAY16_LE", 2, 1, 0, {0}, 16, 0},
    {"P010 luma", 2, 1, 0, {0}, 10, 6},
  };
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  for (int b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b])) {
      printf ("%s: not here\n", kconv_backend_info (backends[b])->name);
      continue;
    }
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
      for (int m = KMATCH_METHOD_SAD; m <= KMATCH_METHOD_ZNCC; m++)
        run (backends[b], rgb, &layouts[l], (KMatchMethod) m);
  }

  /* a region outside the frame is refused */
  KMatch *k;
  kmatch_new (NULL, &k);
  kmatch_set_template (k, rgb, 8, 8, FW * 3, 3);
  const KConvImage im = { rgb, FW, FH, FW * 3, 3, 3, {0, 1, 2} };
  const KMatchRegion out = { FW - 4, 0, 8, 8 };
  KMatchPosition p;
  int n;
  CHECK (kmatch_search_many (&k, 1, &im, 0, 0, &out, 1, &p, &n) ==
      KCONV_ERROR_INVALID_ARGUMENT, "a region past the frame's edge");
  kmatch_free (k);
  free (rgb);
  return check_summary ();
}
