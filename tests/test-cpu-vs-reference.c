/* kconv: the threaded CPU backend against the scalar reference
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
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
  return check_summary ();
}
