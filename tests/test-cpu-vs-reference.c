/* kconv: the threaded CPU backend against the scalar reference
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The table runs on kconv's own choice of path, then forced onto the
 * direct path everywhere it can go (large kernels go through the FFT on
 * their own).  The FFT is not forced onto the small kernels: FFTW measures
 * a plan for each new frame size, seconds each.
 *
 *   test-cpu-vs-reference [SEED]
 *   test-cpu-vs-reference --bench [--threads N] [--quick] [--csv FILE]
 *       [--only TEXT]     times the table's named cases at full size
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "conv-table.h"

static const char *const cpu_paths[] = { "direct", "fft" };

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "--bench")) {
    BenchArgs args;
    argv[1] = argv[0];
    if (bench_args_parse (argc - 1, argv + 1, BENCH_THREADS | BENCH_QUICK |
            BENCH_CSV | BENCH_ONLY, "case,backend,forced,ms,mpix_s,path",
            &args))
      return 2;
    conv_table_bench (KCONV_BACKEND_CPU, &args, cpu_paths, 2);
    bench_args_clear (&args);
    return 0;
  }
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
