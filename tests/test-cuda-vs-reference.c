/* kconv: the CUDA backends against the scalar references
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Convolution and template matching.  Skips (exit 77) where no CUDA
 * device can be used.
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
  match_table_run (KCONV_BACKEND_CUDA, seed);
  return check_summary ();
}
