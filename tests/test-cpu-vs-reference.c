/* kconv: the threaded CPU backend against the scalar reference
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The table runs on kconv's own choice of path, then forced onto the
 * direct path everywhere it can go (large kernels go through the FFT on
 * their own).  The FFT is not forced onto the small kernels: FFTW measures
 * a plan for each new frame size, seconds each.
 */
#include <stdlib.h>
#include "check.h"
#include "conv-table.h"

int
main (int argc, char **argv)
{
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261122u;
  printf ("seed %u\n", seed);
  conv_table_run (KCONV_BACKEND_CPU, seed, KCONV_MAX_KERNEL_SIZE);

  printf ("forced: direct\n");
  CHECK (kconv_force_strategy (KCONV_BACKEND_CPU, "direct") == KCONV_OK,
      "force direct");
  conv_table_run (KCONV_BACKEND_CPU, seed + 1, KCONV_MAX_KERNEL_SIZE);
  kconv_force_strategy (KCONV_BACKEND_CPU, NULL);

  /* names another backend's, or none */
  CHECK (kconv_force_strategy (KCONV_BACKEND_CPU, "mma") ==
      KCONV_ERROR_INVALID_ARGUMENT && *kconv_last_error (),
      "a CUDA path refused on the CPU, with a reason");
  CHECK (kconv_force_strategy (KCONV_BACKEND_REFERENCE, "direct") ==
      KCONV_ERROR_INVALID_ARGUMENT, "the reference has one path");
  return check_summary ();
}
