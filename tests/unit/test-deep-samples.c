/* kconv: what 16-bit samples mean, on every backend this build runs
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rules of kconv.h for deeper samples, checked against numbers worked
 * out here rather than against the reference: a value is read from its
 * word by depth, shift and byte order; written back with the bits below it
 * 0; outputs clamp to 2^depth - 1; an offset is in 8-bit steps.  And the
 * images that break those rules are refused.
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "test-rng.h"
#include "kconv.h"

static KConvStatus
run_kernel (KConvBackend backend, const float *w, int n, double offset,
    const KConvImage * src, const KConvImage * dst)
{
  KConvKernel k = { n, n, w, 1.0, offset, 0 };
  KConvOptions opt = { backend, 2, -1 };
  KConvFilter *f = NULL;
  KConvStatus st = kconv_filter_new (&k, KCONV_BORDER_REPLICATE, &opt, &f);
  if (st == KCONV_OK)
    st = kconv_filter_run (f, src, dst);
  kconv_filter_free (f);
  return st;
}

static unsigned
word (const uint8_t * p, int big_endian)
{
  return big_endian ? (unsigned) p[0] << 8 | p[1] : (unsigned) p[1] << 8 | p[0];
}

/* identity: each value comes back as read, stray bits dropped */
static void
check_identity (KConvBackend backend, int depth, int shift, int big_endian)
{
  enum
  { W = 29, H = 7 };
  uint8_t src[W * H * 2], dst[W * H * 2];
  for (size_t i = 0; i < sizeof src; i++)
    src[i] = (uint8_t) rnd ();
  memset (dst, 0xa5, sizeof dst);
  const float one = 1.f;
  KConvImage s = { src, W, H, W * 2, 2, 1, {0}, 0, depth, shift, big_endian };
  KConvImage d = s;
  d.data = dst;
  KConvStatus st = run_kernel (backend, &one, 1, 0, &s, &d);
  int ok = st == KCONV_OK;
  const unsigned mask = (1u << depth) - 1;
  for (int i = 0; ok && i < W * H; i++) {
    unsigned v = (word (src + 2 * i, big_endian) >> shift) & mask;
    ok = word (dst + 2 * i, big_endian) == v << shift;
  }
  CHECK (ok, "%s: identity on %d-bit samples, shift %d%s", kconv_backend_name
      (backend), depth, shift, big_endian ? ", big-endian" : "");
}

/* offset 128 on a black frame is mid-grey at every depth; 2x white clamps
 * to white */
static void
check_offset_and_clamp (KConvBackend backend, int depth, int shift)
{
  uint16_t src[16], dst[16];
  const float one = 1.f, two = 2.f;
  KConvImage s = { (uint8_t *) src, 4, 4, 8, 2, 1, {0}, 0, depth, shift };
  KConvImage d = s;
  d.data = (uint8_t *) dst;
  const unsigned mid = 128u << (depth - 8), top = (1u << depth) - 1;
  memset (src, 0, sizeof src);
  int ok = run_kernel (backend, &one, 1, 128.0, &s, &d) == KCONV_OK;
  for (int i = 0; ok && i < 16; i++)
    ok = dst[i] == (uint16_t) (mid << shift);
  CHECK (ok, "%s: offset 128 at %d bits is %u", kconv_backend_name (backend),
      depth, mid);
  for (int i = 0; i < 16; i++)
    src[i] = (uint16_t) (top << shift);
  ok = run_kernel (backend, &two, 1, 0.0, &s, &d) == KCONV_OK;
  for (int i = 0; ok && i < 16; i++)
    ok = dst[i] == (uint16_t) (top << shift);
  CHECK (ok, "%s: twice white clamps to %u at %d bits",
      kconv_backend_name (backend), top, depth);
}

/* images that break the rules, and pairs that disagree */
static void
check_refusals (void)
{
  uint8_t a[64], b[64];
  const float one = 1.f;
  static const struct
  {
    const char *what;
    int pixel_stride, offset, depth, shift, big_endian;
  } bad[] = {
    {"depth 7", 1, 0, 7, 0, 0},
    {"depth 17", 2, 0, 17, 0, 0},
    {"an odd pixel stride", 3, 0, 10, 0, 0},
    {"a word at an odd offset", 4, 1, 10, 0, 0},
    {"a word past the pixel", 2, 2, 10, 0, 0},
    {"shift + depth past 16", 2, 0, 10, 7, 0},
    {"a negative shift", 2, 0, 10, -1, 0},
    {"8-bit samples with a shift", 1, 0, 8, 2, 0},
    {"8-bit samples big-endian", 1, 0, 0, 0, 1},
    {"8-bit pixels of 8 bytes", 8, 0, 8, 0, 0},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    KConvImage s = { a, 2, 2, 16, bad[i].pixel_stride, 1, {bad[i].offset},
    0, bad[i].depth, bad[i].shift, bad[i].big_endian
    };
    KConvImage d = s;
    d.data = b;
    CHECK (run_kernel (KCONV_BACKEND_REFERENCE, &one, 1, 0, &s, &d) ==
        KCONV_ERROR_INVALID_ARGUMENT, "refused: %s", bad[i].what);
  }
  KConvImage s = { a, 2, 2, 16, 2, 1, {0}, 0, 10 };
  KConvImage d = s;
  d.data = b;
  d.depth = 12;
  CHECK (run_kernel (KCONV_BACKEND_REFERENCE, &one, 1, 0, &s, &d) ==
      KCONV_ERROR_INVALID_ARGUMENT, "refused: 10-bit source, 12-bit "
      "destination");
  d.depth = 10;
  d.big_endian = 1;
  CHECK (run_kernel (KCONV_BACKEND_REFERENCE, &one, 1, 0, &s, &d) ==
      KCONV_ERROR_INVALID_ARGUMENT, "refused: byte orders that differ");
  d.big_endian = 0;
  KConvKernel k = { 1, 1, &one, 1.0, 0.0, 0 };
  KConvFilter *f = NULL;
  KConvOptions opt = { KCONV_BACKEND_REFERENCE, 1, -1 };
  kconv_filter_new (&k, KCONV_BORDER_ZERO, &opt, &f);
  CHECK (kconv_filter_run_device (f, &s, &d, NULL) != KCONV_OK
      && *kconv_last_error (), "device images of 16-bit samples refused, "
      "with a reason");
  kconv_filter_free (f);
}

int
main (void)
{
  static const KConvBackend backends[] = { KCONV_BACKEND_REFERENCE,
    KCONV_BACKEND_CPU, KCONV_BACKEND_CUDA
  };
  static const int depth_shift[][2] = { {10, 0}, {10, 6}, {12, 0}, {12, 4},
  {16, 0}, {9, 3}
  };
  test_rng_seed (20261126u);
  for (size_t b = 0; b < sizeof backends / sizeof backends[0]; b++) {
    if (!kconv_backend_available (backends[b]))
      continue;
    if (!kconv_backend_takes_depth (backends[b], 10)) {
      /* a backend without a path for them says so */
      uint16_t a[4] = { 0 }, o[4];
      const float one = 1.f;
      KConvImage s = { (uint8_t *) a, 2, 2, 4, 2, 1, {0}, 0, 10 };
      KConvImage d = s;
      d.data = (uint8_t *) o;
      CHECK (run_kernel (backends[b], &one, 1, 0, &s, &d) ==
          KCONV_ERROR_BACKEND_UNAVAILABLE && *kconv_last_error (),
          "%s: 10-bit samples refused, with a reason",
          kconv_backend_name (backends[b]));
      continue;
    }
    for (size_t i = 0; i < sizeof depth_shift / sizeof depth_shift[0]; i++) {
      for (int be = 0; be < 2; be++)
        check_identity (backends[b], depth_shift[i][0], depth_shift[i][1], be);
      check_offset_and_clamp (backends[b], depth_shift[i][0],
          depth_shift[i][1]);
    }
  }
  CHECK (kconv_backend_takes_depth (KCONV_BACKEND_REFERENCE, 16)
      && kconv_backend_takes_depth (KCONV_BACKEND_CPU, 16)
      && kconv_backend_takes_depth (KCONV_BACKEND_CPU, 8)
      && !kconv_backend_takes_depth (KCONV_BACKEND_CPU, 17),
      "the depths the host backends take");
  check_refusals ();
  return check_summary ();
}
