/* kconv: convolution inside rectangles only (kconv_rects_cover,
 * kconv_filter_run_rects)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The cover of a set of rectangles against a pixel mask drawn the long way
 * (every pixel once, the complement for outside); then a table of region
 * layouts (at the edges and corners, overlapping, odd sizes, none, outside
 * the image, larger than it) x pixel layouts (grey, RGBA's colours, the
 * two images of packed 4:2:2 with chroma at its own resolution, 10-bit
 * words) x kernels (exact and float, small to 121x121) x borders: inside
 * the regions every sample is what kconv_filter_run gives for the whole
 * image (to the bit for exact kernels, within 1 for float ones), outside
 * every byte is the input's; in place, on the CPU and, where there is one,
 * on CUDA (host images, and images in device memory).  The picture is a
 * photograph (KCONV_PHOTOS) where there is one, else noise.
 *   test-filter-rects [cuda]     cuda: the CUDA backend's cases alone (what
 *                                compute-sanitizer needs to run)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kconv.h"
#include "photo.h"
#include "test-rng.h"
#include "tuning-env.h"
#ifdef KCONV_TEST_CUDA
#include "device-copy.h"
#endif

#define W 97
#define H 61

/* ---- the cover ---- */

static void
check_cover (const KConvRect * r, int n, int margin, int outside,
    const char *what)
{
  unsigned char want[W * H], got[W * H];
  memset (want, outside, sizeof want);
  for (int i = 0; i < n; i++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        if (x >= (long long) r[i].x - margin && y >= (long long) r[i].y -
            margin && x < (long long) r[i].x + r[i].width + margin
            && y < (long long) r[i].y + r[i].height + margin)
          want[y * W + x] = !outside;
  memset (got, 0, sizeof got);
  KConvRect *c = NULL;
  const int m = kconv_rects_cover (r, n, margin, W, H, outside, &c);
  int twice = 0;
  for (int i = 0; i < m; i++)
    for (int y = c[i].y; y < c[i].y + c[i].height; y++)
      for (int x = c[i].x; x < c[i].x + c[i].width; x++)
        twice += got[y * W + x]++ > 0;
  CHECK (m >= 0 && twice == 0 && memcmp (want, got, sizeof got) == 0,
      "cover of %s (margin %d%s): %d rectangles, %d pixels twice, %s", what,
      margin, outside ? ", outside" : "", m, twice,
      memcmp (want, got, sizeof got) ? "not the union" : "the union");
  free (c);
}

static void
test_cover (void)
{
  const KConvRect corners[] = { {0, 0, 5, 5}, {92, 56, 5, 5}, {0, 56, 9, 5},
  {90, 0, 7, 3}
  };
  const KConvRect overlapping[] = { {10, 10, 30, 20}, {20, 15, 30, 20},
  {15, 5, 5, 40}, {10, 10, 30, 20}
  };
  const KConvRect outside[] = { {200, 10, 5, 5}, {10, 100, 5, 5} };
  const KConvRect larger[] = { {0, 0, 500, 500} };
  const KConvRect big_margin[] = { {40, 30, 1, 1} };
  for (int o = 0; o <= 1; o++) {
    check_cover (corners, 4, 0, o, "the corners");
    check_cover (overlapping, 4, 0, o, "overlapping rectangles");
    check_cover (overlapping, 4, 3, o, "overlapping rectangles");
    check_cover (outside, 2, 0, o, "rectangles outside the image");
    check_cover (larger, 1, 0, o, "a rectangle larger than the image");
    check_cover (big_margin, 1, 1 << 30, o, "a huge margin");
    check_cover (NULL, 0, 0, o, "none");
  }
  test_rng_seed (7);
  for (int t = 0; t < 200; t++) {
    KConvRect r[12];
    const int n = 1 + rnd () % 12;
    for (int i = 0; i < n; i++)
      r[i] = (KConvRect) {
      rnd () % (W + 10), rnd () % (H + 10), 1 + rnd () % 40, 1 + rnd () % 30};
    check_cover (r, n, rnd () % 4, rnd () % 2, "random rectangles");
  }
}

static void
test_parse (void)
{
  KConvRect r[4];
  char err[160] = "";
  CHECK (kconv_rects_parse ("1,2,3,4; 5 ,6,7,8", r, 4, err, sizeof err) == 2
      && r[1].x == 5 && r[1].height == 8, "two rectangles: %s", err);
  CHECK (kconv_rects_parse ("", r, 4, err, sizeof err) == 0, "empty");
  const char *bad[] = { "1,2,3", "1,2,3,4;", "1,2,-3,4", "-1,2,3,4",
    "1,2,3,0", "1,2,3,4;;5,6,7,8", "1,2,3,4,5", "a", "1,2,3,4;1,2,3,4;"
        "1,2,3,4;1,2,3,4;1,2,3,4"
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    CHECK (kconv_rects_parse (bad[i], r, 4, err, sizeof err) == -1
        && err[0], "\"%s\" taken", bad[i]);
  }
}

/* ---- the filter ---- */

typedef struct
{
  const char *name;
  int cols, rows, absolute, exact;
  float w[121 * 121];
} Kernel;

static Kernel kernels[5];
static int n_kernels;

static void
make_kernels (void)
{
  Kernel *k = &kernels[n_kernels++];
  *k = (Kernel) {
  "box 3x3", 3, 3, 0, 1};
  for (int i = 0; i < 9; i++)
    k->w[i] = 1;
  k = &kernels[n_kernels++];
  *k = (Kernel) {
  "edge 3x3", 3, 3, 1, 1};
  for (int i = 0; i < 9; i++)
    k->w[i] = i == 4 ? 8 : -1;
  k = &kernels[n_kernels++];
  *k = (Kernel) {
  "7x4 integers", 7, 4, 0, 1};
  for (int i = 0; i < 28; i++)
    k->w[i] = (float) (rnd () % 7) - 2;
  k = &kernels[n_kernels++];
  *k = (Kernel) {
  "gaussian 31x31 (float)", 31, 31, 0, 0};
  for (int y = 0; y < 31; y++)
    for (int x = 0; x < 31; x++)
      k->w[y * 31 + x] = expf (-((x - 15) * (x - 15) + (y - 15) * (y - 15))
          / 50.f);
  k = &kernels[n_kernels++];
  *k = (Kernel) {
  "box 121x121", 121, 121, 0, 1};
  for (int i = 0; i < 121 * 121; i++)
    k->w[i] = 1;
}

/* A pixel layout: an image or the two over one plane (packed 4:2:2) */
typedef struct
{
  const char *name;
  int ps, n_images;
  KConvImage im[2];             /* data, stride set per frame */
  int sub[2];                   /* horizontal subsampling of each */
} Layout;

static const Layout layouts[] = {
  {"GRAY8", 1, 1, {{NULL, W, H, 0, 1, 1, {0}}}, {1}},
  {"RGBA's colours", 4, 1, {{NULL, W, H, 0, 4, 3, {0, 1, 2}}}, {1}},
  {"YUY2's two images", 2, 2, {{NULL, W, H, 0, 2, 1, {0}},
          {NULL, W / 2, H, 0, 4, 2, {1, 3}, 1}}, {1, 2}},
  {"10-bit words", 2, 1, {{NULL, W, H, 0, 2, 1, {0}, 0, 10, 6}}, {1}},
};

/* The rectangles of image i of a layout: frame rectangles at its
 * resolution, rounded outward, made disjoint again */
static int
image_rects (const KConvRect * cover, int n, int sub, int width,
    KConvRect ** out)
{
  KConvRect *r = malloc (sizeof *r * (n ? n : 1));
  for (int i = 0; i < n; i++) {
    const int x0 = cover[i].x / sub;
    const int x1 = (cover[i].x + cover[i].width + sub - 1) / sub;
    r[i] = (KConvRect) {
    x0, cover[i].y, (x1 < width ? x1 : width) - x0, cover[i].height};
  }
  const int m = kconv_rects_cover (r, n, 0, width, H, 0, out);
  free (r);
  return m;
}

typedef struct
{
  const char *name;
  int n, outside;
  KConvRect r[6];
} Regions;

static const Regions regions[] = {
  {"one in the middle", 1, 0, {{30, 20, 17, 11}}},
  {"the corners", 4, 0, {{0, 0, 5, 4}, {90, 55, 7, 6}, {0, 55, 3, 6},
          {93, 0, 4, 9}}},
  {"overlapping, odd", 3, 0, {{11, 7, 23, 19}, {25, 13, 31, 27},
          {3, 30, 1, 1}}},
  {"none", 0, 0, {{0}}},
  {"outside the image", 2, 0, {{120, 10, 5, 5}, {10, 80, 5, 5}}},
  {"larger than the image", 1, 0, {{0, 0, 300, 300}}},
  {"outside the middle one", 1, 1, {{30, 20, 17, 11}}},
  /* more windows than CUDA's side streams (kconv-cuda-sides.cu) */
  {"six apart", 6, 0, {{2, 2, 9, 7}, {40, 3, 5, 5}, {80, 4, 12, 8},
          {5, 40, 6, 13}, {45, 44, 10, 10}, {85, 50, 11, 10}}},
};

/* Runs image i of lay through f: whole (rects NULL), or its rectangles in
 * place; on_device copies the plane there and back */
static KConvStatus
run (KConvFilter * f, const Layout * lay, int i, uint8_t * in, uint8_t * out,
    const KConvRect * rects, int n, int on_device)
{
  KConvImage src = lay->im[i], dst = lay->im[i];
  const size_t bytes = (size_t) W * lay->ps * H;
  src.stride = dst.stride = (ptrdiff_t) W *lay->ps;
  src.data = in;
  dst.data = rects ? in : out;
  if (!on_device)
    return rects ? kconv_filter_run_rects (f, &src, &dst, rects, n) :
        kconv_filter_run (f, &src, &dst);
#ifdef KCONV_TEST_CUDA
  uint8_t *d_in = device_copy_of (in, bytes), *d_out = device_copy_of (out,
      bytes);
  src.data = d_in;
  dst.data = rects ? d_in : d_out;
  KConvStatus st = rects ? kconv_filter_run_rects_device (f, &src, &dst,
      rects, n, NULL) : kconv_filter_run_device (f, &src, &dst, NULL);
  if (st == KCONV_OK)
    st = kconv_device_sync (NULL);
  cudaMemcpy (rects ? in : out, rects ? d_in : d_out, bytes,
      cudaMemcpyDeviceToHost);
  cudaFree (d_in);
  cudaFree (d_out);
  return st;
#else
  (void) bytes;
  return KCONV_ERROR_BACKEND_UNAVAILABLE;
#endif
}

/* Whether byte b of a pixel belongs to image i of the layout */
static int
byte_of_image (const Layout * lay, int i, int b)
{
  const KConvImage *im = &lay->im[i];
  const int bytes = im->depth > 8 ? 2 : 1;
  for (int c = 0; c < im->n_channels; c++)
    if (b >= im->channel_offset[c] && b < im->channel_offset[c] + bytes)
      return 1;
  return 0;
}

static void
check_case (KConvBackend backend, int on_device, const Layout * lay,
    const Kernel * k, KConvBorder border, const Regions * reg,
    const uint8_t * picture)
{
  const size_t bytes = (size_t) W * lay->ps * H;
  const KConvKernel kk = { k->cols, k->rows, k->w, 0, 0, k->absolute };
  const KConvOptions opt = { backend, 0, -1 };
  KConvFilter *f = NULL;
  if (kconv_filter_new (&kk, border, &opt, &f) != KCONV_OK) {
    CHECK (0, "%s: %s", k->name, kconv_last_error ());
    return;
  }
  uint8_t *full = malloc (bytes), *got = malloc (bytes);
  uint8_t *in = malloc (bytes);
  memcpy (in, picture, bytes);
  if (lay->im[0].depth > 8)     /* valid P010: the low 6 bits are 0 */
    for (size_t j = 0; j < bytes; j += 2)
      in[j] &= 0xc0;
  memcpy (got, in, bytes);
  memcpy (full, in, bytes);
  KConvRect *cover = NULL;
  const int n = kconv_rects_cover (reg->r, reg->n, 0, W, H, reg->outside,
      &cover);
  KConvStatus st = KCONV_OK;
  int inside_bad = 0, outside_bad = 0, worst = 0;
  for (int i = 0; i < lay->n_images && st == KCONV_OK; i++) {
    KConvRect *r = NULL;
    const int m = image_rects (cover, n, lay->sub[i], lay->im[i].width, &r);
    uint8_t *tmp = malloc (bytes);
    memcpy (tmp, in, bytes);
    st = run (f, lay, i, in, full, NULL, 0, on_device);
    if (st == KCONV_OK)
      st = run (f, lay, i, got, tmp, r, m, on_device);
    /* sample by sample: inside image i's rectangles the whole image's
     * result, every other byte the input's */
    const int sub = lay->sub[i], pps = lay->im[i].pixel_stride;
    for (int y = 0; y < H && st == KCONV_OK; y++)
      for (int x = 0; x < lay->im[i].width; x++) {
        int inside = 0;
        for (int j = 0; j < m && !inside; j++)
          inside = x >= r[j].x && x < r[j].x + r[j].width && y >= r[j].y
              && y < r[j].y + r[j].height;
        for (int b = 0; b < pps; b++) {
          if (!byte_of_image (lay, i, b))
            continue;
          const size_t at = (size_t) y * W * lay->ps + (size_t) x * pps + b;
          const int want = inside ? full[at] : in[at];
          const int d = abs (got[at] - want);
          if (d > (inside && !k->exact ? 1 : 0))
            *(inside ? &inside_bad : &outside_bad) += 1;
          if (inside && d > worst)
            worst = d;
        }
      }
    (void) sub;
    free (tmp);
    free (r);
  }
  /* bytes no image holds (RGBA's alpha) are the input's */
  for (size_t j = 0; j < bytes && st == KCONV_OK; j++) {
    int held = 0;
    for (int i = 0; i < lay->n_images; i++)
      held |= byte_of_image (lay, i, (int) (j % lay->ps));
    if (lay->ps == 4 && lay->n_images == 1 && !held && got[j] != in[j])
      outside_bad++;
  }
  CHECK (st == KCONV_OK && inside_bad == 0 && outside_bad == 0,
      "%s%s, %s, %s, border %d, %s: %s; %d samples inside differ from the "
      "whole image's (by up to %d), %d outside from the input",
      kconv_backend_name (backend), on_device ? " (device memory)" : "",
      lay->name, k->name, border, reg->name, st == KCONV_OK ? "ran" :
      kconv_last_error (), inside_bad, worst, outside_bad);
  free (cover);
  free (full);
  free (got);
  free (in);
  kconv_filter_free (f);
}

/* Into another image: inside the rectangles the image's samples are the
 * whole image's result, every other byte of the destination stays as it
 * was (single-image layouts) */
static void
check_into_another (KConvBackend backend, const Layout * lay,
    const Kernel * k, const uint8_t * picture)
{
  const size_t bytes = (size_t) W * lay->ps * H;
  const KConvKernel kk = { k->cols, k->rows, k->w, 0, 0, k->absolute };
  const KConvOptions opt = { backend, 0, -1 };
  KConvFilter *f = NULL;
  if (kconv_filter_new (&kk, KCONV_BORDER_REFLECT, &opt, &f) != KCONV_OK)
    return;
  uint8_t *in = malloc (bytes), *full = malloc (bytes), *to = malloc (bytes);
  memcpy (in, picture, bytes);
  if (lay->im[0].depth > 8)
    for (size_t j = 0; j < bytes; j += 2)
      in[j] &= 0xc0;
  const KConvRect r[2] = { {3, 4, 20, 11}, {60, 30, 37, 31} };
  KConvImage src = lay->im[0], dst = lay->im[0];
  src.stride = dst.stride = (ptrdiff_t) W *lay->ps;
  src.data = in;
  dst.data = full;
  KConvStatus st = kconv_filter_run (f, &src, &dst);
  for (size_t j = 0; j < bytes; j++)
    to[j] = (uint8_t) ~ in[j];
  dst.data = to;
  if (st == KCONV_OK)
    st = kconv_filter_run_rects (f, &src, &dst, r, 2);
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int b = 0; b < lay->ps; b++) {
        const size_t at = ((size_t) y * W + x) * lay->ps + b;
        const int in_rect = (x >= 3 && x < 23 && y >= 4 && y < 15)
            || (x >= 60 && y >= 30);
        const int want = in_rect && byte_of_image (lay, 0, b) ? full[at] :
            (uint8_t) ~ in[at];
        bad += abs (to[at] - want) > (in_rect && !k->exact ? 1 : 0);
      }
  CHECK (st == KCONV_OK && bad == 0, "%s, %s, %s, into another image: %s, "
      "%d bytes differ", kconv_backend_name (backend), lay->name, k->name,
      st == KCONV_OK ? "ran" : kconv_last_error (), bad);
  free (in);
  free (full);
  free (to);
  kconv_filter_free (f);
}

int
main (int argc, char **argv)
{
  const int cuda_only = argc > 1 && !strcmp (argv[1], "cuda");
  tuning_from_environment ();
  if (cuda_only && !kconv_backend_available (KCONV_BACKEND_CUDA)) {
    printf ("SKIP: no usable CUDA device\n");
    return 77;
  }
  test_parse ();
  test_cover ();
  test_rng_seed (11);
  make_kernels ();
  /* the picture: a photograph's bytes where there is one */
  uint8_t *picture = malloc ((size_t) W * 4 * H);
  const char *dir = getenv ("KCONV_PHOTOS");
  uint8_t *photo = dir ? photo_load (dir, "astronaut", 1920, 1080, 3) : NULL;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W * 4; x++)
      picture[(size_t) y * W * 4 + x] = photo ?
          photo[(size_t) (300 + y) * 1920 * 3 + 900 * 3 + x] : rnd ();
  printf ("picture: %s\n", photo ? "astronaut" : "noise");
  free (photo);
  const KConvBackend backends[] = { KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA };
  for (int b = 0; b < 2; b++) {
    if (!kconv_backend_available (backends[b])
        || (cuda_only && backends[b] != KCONV_BACKEND_CUDA))
      continue;
    for (int dev = 0; dev <= (backends[b] == KCONV_BACKEND_CUDA); dev++)
      for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (int k = 0; k < n_kernels; k++)
          for (int border = 0; border < 4; border++)
            for (size_t r = 0; r < sizeof regions / sizeof regions[0]; r++)
              check_case (backends[b], dev, &layouts[l], &kernels[k],
                  (KConvBorder) border, &regions[r], picture);
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
      for (int k = 0; k < n_kernels && layouts[l].n_images == 1; k++)
        check_into_another (backends[b], &layouts[l], &kernels[k], picture);
  }
  free (picture);
  return check_summary ();
}
