/* kconv: threaded row copies (the CUDA backend's staging of pageable
 * frames) against memcpy, every byte, on sizes around the split points;
 * and the process-wide count of threads the OpenMP teams take
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kconv-team.h"
#include "test-rng.h"

static void
check_copy (size_t row_bytes, int rows, ptrdiff_t src_pad, ptrdiff_t dst_pad,
    int threads)
{
  const ptrdiff_t ss = (ptrdiff_t) row_bytes + src_pad;
  const ptrdiff_t ds = (ptrdiff_t) row_bytes + dst_pad;
  uint8_t *src = malloc ((size_t) ss * rows), *dst = malloc ((size_t) ds *
      rows);
  for (ptrdiff_t i = 0; i < ss * rows; i++)
    src[i] = (uint8_t) rnd ();
  memset (dst, 0xa5, (size_t) ds * rows);
  kconv_copy_rows (dst, ds, src, ss, row_bytes, rows, threads);
  int wrong = 0, padding = 0;
  for (int y = 0; y < rows; y++)
    for (ptrdiff_t x = 0; x < ds; x++) {
      const uint8_t got = dst[y * ds + x];
      if (x < (ptrdiff_t) row_bytes)
        wrong += got != src[y * ss + x];
      else
        padding += got != 0xa5;
    }
  CHECK (!wrong && !padding, "%zu bytes x %d rows (pads %td/%td), %d "
      "threads: %d bytes wrong, %d padding bytes written", row_bytes, rows,
      src_pad, dst_pad, threads, wrong, padding);
  free (src);
  free (dst);
}

int
main (void)
{
  test_rng_seed (20261123u);
  /* contiguous blocks cut in parts: 1023 x 1023 bytes on 2 threads lost
   * its last byte once */
  check_copy (1023, 1023, 0, 0, 2);
  for (int threads = 1; threads <= 7; threads++)
    for (int i = 0; i < 12; i++) {
      const size_t row = (size_t) rnd_range (1, 4096);
      const int rows = rnd_range (1, 700);
      check_copy (row, rows, 0, 0, threads);
      check_copy (row, rows, rnd_range (1, 64), rnd_range (0, 64), threads);
    }
  /* every total from 256 KiB (threads start there) to 64 bytes on */
  for (size_t extra = 0; extra < 64; extra++)
    check_copy (256 * 1024 + extra, 1, 0, 0, 3);

  /* teams share the cores: a second region while the first holds them
   * all runs on its caller alone, and gets them again once they are free */
  const int cores = kconv_cpu_count ();
#ifdef _OPENMP
  const int first = kconv_team_reserve (cores + 5);
  CHECK (first == cores, "a region asking for %d threads got %d of %d cores",
      cores + 5, first, cores);
  const int second = kconv_team_reserve (4);
  CHECK (second == 1, "a region beside one holding every core got %d "
      "threads", second);
  kconv_team_release (second);
  kconv_team_release (first);
  const int third = kconv_team_reserve (2);
  CHECK (third == (cores < 2 ? 1 : 2), "after both: %d threads of 2", third);
  kconv_team_release (third);
#else
  CHECK (kconv_team_reserve (cores) == 1, "one thread without OpenMP");
#endif
  return check_summary ();
}
