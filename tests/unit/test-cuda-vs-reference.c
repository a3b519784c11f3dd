/* kconv: the CUDA backends against the scalar references
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Convolution and template matching.  The convolution table runs on
 * kconv's own choice of path, then forced onto every path in turn
 * (kconv_force_strategy; each where it can take the kernel).  Frames go
 * through the frames-in-flight path (submit, then wait).  Skips (exit 77)
 * where no CUDA device can be used.
 *
 *   test-cuda-vs-reference [SEED [PART...] [max=N]]
 *                         PART: auto, a path name, deep, match or deepmatch
 *                         (16-bit matching alone); all by default.
 *                         max=N: kernels up to N a side (default 121).  A
 *                         few parts and smaller kernels keep slow checkers
 *                         such as compute-sanitizer racecheck within time.
 *   test-cuda-vs-reference --list
 *                         the paths' names, a line each (the strategy table)
 *   test-cuda-vs-reference --bench [--threads N] [--quick] [--csv FILE]
 *       [--only TEXT]     times the table's named cases at full size, host
 *                         frames in and out (upload, convolve, download)
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "conv-table.h"
#include "conv-deep-table.h"
#include "match-table.h"
#include "match-deep-table.h"
#include "match-methods-table.h"
#ifdef KCONV_TEST_CUDA
#include <cuda_runtime_api.h>
#include "device-copy.h"

/* frames for the searches in device memory (device-copy.h puts them
 * there) */
static void
free_on_device (void *d)
{
  cudaFree (d);
}
#endif
#include "tuning-env.h"

/* The CUDA paths, from the strategy table */
#define FORCED(i) kconv_strategy_name (KCONV_BACKEND_CUDA, (i))

/* PART named after the seed, or no parts named */
static int
wanted (int argc, char **argv, const char *part)
{
  int parts = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp (argv[i], part))
      return 1;
    parts += strncmp (argv[i], "max=", 4) != 0;
  }
  return parts == 0;
}

/* Every word after the seed a part or max=N: a misspelt part would
 * otherwise run nothing and pass. */
static int
parts_known (int argc, char **argv)
{
  for (int i = 2; i < argc; i++) {
    int known = !strcmp (argv[i], "auto") || !strcmp (argv[i], "match")
        || !strcmp (argv[i], "deep") || !strcmp (argv[i], "deepmatch")
        || !strcmp (argv[i], "methods") || !strcmp (argv[i], "deepmethods")
        || (!strncmp (argv[i], "max=", 4) && atoi (argv[i] + 4) > 0);
    for (int k = 0; FORCED (k); k++)
      known |= !strcmp (argv[i], FORCED (k));
    if (!known) {
      fprintf (stderr,
          "%s: unknown part \"%s\" (auto, deep, match, deepmatch, methods, "
          "deepmethods, max=N or a path --list prints)\n", argv[0], argv[i]);
      return 0;
    }
  }
  return 1;
}

/* Forcing a row of the small kernels takes that row: a 3x3 binomial blur
 * (exact, byte weights, every sum in 16-bit lanes) fits all four. */
static void
small_rows_forced (void)
{
  static const float w[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
  static const struct
  {
    const char *path, *says, *never;
  } rows[] = {
    {"strips", "streamed down columns", NULL},
    {"packed", "16-bit lanes", "DP4A"},
    {"dp4a", "four taps an instruction (DP4A)", "16-bit"},
    {"small", "constant memory", "pixels"},
  };
  KConvKernel k = { 3, 3, w, 16, 0, 0 };
  KConvOptions opt = { KCONV_BACKEND_CUDA, 1, -1 };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    KConvFilter *f = NULL;
    CHECK (kconv_force_strategy (KCONV_BACKEND_CUDA, rows[i].path) == KCONV_OK
        && kconv_filter_new (&k, KCONV_BORDER_REPLICATE, &opt, &f) == KCONV_OK,
        "a 3x3 blur forced to %s", rows[i].path);
    const char *d = f ? kconv_filter_strategy (f) : "";
    CHECK (strstr (d, rows[i].says) && !(rows[i].never
            && strstr (d, rows[i].never)), "forced %s, it says: %s",
        rows[i].path, d);
    kconv_filter_free (f);
  }
  kconv_force_strategy (KCONV_BACKEND_CUDA, NULL);
}

/* max=N after the seed, or the largest kernel there is */
static int
max_kernel (int argc, char **argv)
{
  int n = KCONV_MAX_KERNEL_SIZE;
  for (int i = 2; i < argc; i++)
    if (!strncmp (argv[i], "max=", 4) && atoi (argv[i] + 4) > 0)
      n = atoi (argv[i] + 4);
  return n < KCONV_MAX_KERNEL_SIZE ? n : KCONV_MAX_KERNEL_SIZE;
}

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  /* the paths, a name a line, for scripts that run them one by one */
  if (argc > 1 && !strcmp (argv[1], "--list")) {
    for (int k = 0; FORCED (k); k++)
      printf ("%s\n", FORCED (k));
    return FORCED (0) ? 0 : 77;
  }
  const int bench = argc > 1 && !strcmp (argv[1], "--bench");
  BenchArgs args;
  if (bench) {
    argv[1] = argv[0];
    if (bench_args_parse (argc - 1, argv + 1, BENCH_THREADS | BENCH_QUICK |
            BENCH_CSV | BENCH_ONLY, "case,backend,forced,ms,mpix_s,path",
            &args))
      return 2;
  }
  if (!bench && !parts_known (argc, argv))
    return 2;
  if (!kconv_backend_available (KCONV_BACKEND_CUDA)) {
    printf ("SKIP: no usable CUDA device (%s)\n",
        kconv_backend_available (KCONV_BACKEND_CPU) ? "CPU only" : "");
    if (bench)
      bench_args_clear (&args);
    return 77;
  }
  if (bench) {
    const char *forced[32];
    int n = 0;
    while (n < 32 && FORCED (n)) {
      forced[n] = FORCED (n);
      n++;
    }
    conv_table_bench (KCONV_BACKEND_CUDA, &args, forced, n);
    bench_args_clear (&args);
    return 0;
  }
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261122u;
  printf ("seed %u\n", seed);
  small_rows_forced ();
  if (wanted (argc, argv, "auto"))
    conv_table_run (KCONV_BACKEND_CUDA, seed, max_kernel (argc, argv));
  for (int i = 0; FORCED (i); i++) {
    const char *path = FORCED (i);
    if (!wanted (argc, argv, path))
      continue;
    int before = check_failed;
    CHECK (kconv_force_strategy (KCONV_BACKEND_CUDA, path) == KCONV_OK,
        "force %s", path);
    conv_table_run (KCONV_BACKEND_CUDA, seed + 1 + i, max_kernel (argc, argv));
    printf ("forced %s: %d failed\n", path, check_failed - before);
  }
  kconv_force_strategy (KCONV_BACKEND_CUDA, NULL);
  if (wanted (argc, argv, "deep")) {
    int before = check_failed;
    conv_deep_table_run (KCONV_BACKEND_CUDA, seed + 100);
    printf ("16-bit samples: %d failed\n", check_failed - before);
  }
  if (wanted (argc, argv, "match"))
    match_table_run (KCONV_BACKEND_CUDA, seed);
  if (wanted (argc, argv, "match") || wanted (argc, argv, "deepmatch"))
    match_deep_table_run (KCONV_BACKEND_CUDA, seed);
  /* ssd, ncc and zncc: on the GPU for templates without a mask (a score
   * map is made on the host), in host and device memory */
#ifdef KCONV_TEST_CUDA
  match_methods_table_set_device (device_copy_of, free_on_device);
#endif
  if (wanted (argc, argv, "match") || wanted (argc, argv, "methods"))
    match_methods_table_run (KCONV_BACKEND_CUDA, seed);
  if (wanted (argc, argv, "match") || wanted (argc, argv, "deepmethods")) {
    int before = check_failed;
    match_deep_methods_table_run (KCONV_BACKEND_CUDA, seed);
    printf ("ssd, ncc and zncc on 16-bit samples: %d failed\n",
        check_failed - before);
  }
  return check_summary ();
}
