/* kconv: the CUDA backends against the scalar references
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Convolution and template matching.  The convolution table runs on
 * kconv's own choice of path, then forced onto every path in turn
 * (kconv_force_strategy; each where it can take the kernel).  Frames go
 * through the frames-in-flight path (submit, then wait).  Skips (exit 77)
 * where no CUDA device can be used.
 */
#include <stdlib.h>
#include "check.h"
#include "conv-table.h"
#include "match-table.h"

int
main (int argc, char **argv)
{
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261122u;
  if (!kconv_backend_available (KCONV_BACKEND_CUDA)) {
    printf ("SKIP: no usable CUDA device (%s)\n",
        kconv_backend_available (KCONV_BACKEND_CPU) ? "CPU only" : "");
    return 77;
  }
  printf ("seed %u\n", seed);
  conv_table_run (KCONV_BACKEND_CUDA, seed, KCONV_MAX_KERNEL_SIZE);
  static const char *const forced[] = { "small", "direct", "separable", "fft",
    "mma", "sepmma"
  };
  for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++) {
    int before = check_failed;
    CHECK (kconv_force_strategy (KCONV_BACKEND_CUDA, forced[i]) == KCONV_OK,
        "force %s", forced[i]);
    conv_table_run (KCONV_BACKEND_CUDA, seed + 1 + i, KCONV_MAX_KERNEL_SIZE);
    printf ("forced %s: %d failed\n", forced[i], check_failed - before);
  }
  kconv_force_strategy (KCONV_BACKEND_CUDA, NULL);
  match_table_run (KCONV_BACKEND_CUDA, seed);
  return check_summary ();
}
