/* kconv: the bus's rate for 1080p RGBA frames copied both ways, arranged as
 * one filter copies them and as sixteen filters in one process do
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kconv-bus-bench [--frames N] [--pipelines N] [--csv FILE] [--only TEXT]
 *
 * Every arrangement moves the same frames, each up to the device and a
 * result of the same size down, all queued before any is waited for, so
 * that only the copy engines, the bus and the host's memory set the rate.
 * The first arrangement is the bus limit that kconv-stream-bench and
 * tests/gpu/bench-pipelines.sh divide by: one stream each way, one buffer
 * each way.  The others add, one at a time, what sixteen kconvfilters do:
 * a pinned buffer a frame in flight (three a filter), a pair of streams a
 * filter, a frame in bands of at least 2 MB (4 at 1080p RGBA), and each
 * download waiting for its own frame's upload.  Frames/s are of frames
 * each way; the share is of the first arrangement in the same round. */
#include <stdint.h>
#include <cuda_runtime.h>

#include "bench-harness.h"

#define FRAME_BYTES ((size_t) 1920 * 1080 * 4)
#define IN_FLIGHT 3             /* buffers a filter, kconvfilter's default */
#define ROUNDS 3

typedef struct
{
  const char *name;
  int pairs;                    /* stream pairs (up, down) */
  int buffers;                  /* host and device buffers a pair, each way */
  int bands;                    /* copies a frame, each way */
  int ordered;                  /* a frame's download waits for its upload */
} Arrangement;

typedef struct
{
  int pairs, buffers;
  uint8_t **host_up, **host_down, **dev_in, **dev_out;
  cudaStream_t *up, *down;
  cudaEvent_t *uploaded;
} Buffers;

static int
check (cudaError_t err, const char *what)
{
  if (err != cudaSuccess)
    fprintf (stderr, "kconv-bus-bench: %s: %s\n", what,
        cudaGetErrorString (err));
  return err == cudaSuccess;
}

static void
buffers_free (Buffers * b)
{
  const int n = b->pairs * b->buffers;
  for (int i = 0; i < n; i++) {
    if (b->host_up)
      cudaFreeHost (b->host_up[i]);
    if (b->host_down)
      cudaFreeHost (b->host_down[i]);
    if (b->dev_in)
      cudaFree (b->dev_in[i]);
    if (b->dev_out)
      cudaFree (b->dev_out[i]);
    if (b->uploaded && b->uploaded[i])
      cudaEventDestroy (b->uploaded[i]);
  }
  for (int p = 0; p < b->pairs; p++) {
    if (b->up && b->up[p])
      cudaStreamDestroy (b->up[p]);
    if (b->down && b->down[p])
      cudaStreamDestroy (b->down[p]);
  }
  free (b->host_up);
  free (b->host_down);
  free (b->dev_in);
  free (b->dev_out);
  free (b->uploaded);
  free (b->up);
  free (b->down);
  memset (b, 0, sizeof *b);
}

static int
buffers_alloc (Buffers * b, int pairs, int buffers)
{
  const int n = pairs * buffers;
  b->pairs = pairs;
  b->buffers = buffers;
  b->host_up = calloc (n, sizeof *b->host_up);
  b->host_down = calloc (n, sizeof *b->host_down);
  b->dev_in = calloc (n, sizeof *b->dev_in);
  b->dev_out = calloc (n, sizeof *b->dev_out);
  b->uploaded = calloc (n, sizeof *b->uploaded);
  b->up = calloc (pairs, sizeof *b->up);
  b->down = calloc (pairs, sizeof *b->down);
  if (!b->host_up || !b->host_down || !b->dev_in || !b->dev_out
      || !b->uploaded || !b->up || !b->down)
    return 0;
  for (int i = 0; i < n; i++) {
    if (!check (cudaHostAlloc ((void **) &b->host_up[i], FRAME_BYTES, 0),
            "cudaHostAlloc")
        || !check (cudaHostAlloc ((void **) &b->host_down[i], FRAME_BYTES, 0),
            "cudaHostAlloc")
        || !check (cudaMalloc ((void **) &b->dev_in[i], FRAME_BYTES),
            "cudaMalloc")
        || !check (cudaMalloc ((void **) &b->dev_out[i], FRAME_BYTES),
            "cudaMalloc")
        || !check (cudaEventCreateWithFlags (&b->uploaded[i],
                cudaEventDisableTiming), "cudaEventCreate"))
      return 0;
    /* touched, so that no page is first faulted in while timed */
    memset (b->host_up[i], 1, FRAME_BYTES);
    memset (b->host_down[i], 1, FRAME_BYTES);
  }
  for (int p = 0; p < pairs; p++)
    if (!check (cudaStreamCreateWithFlags (&b->up[p], cudaStreamNonBlocking),
            "cudaStreamCreate")
        || !check (cudaStreamCreateWithFlags (&b->down[p],
                cudaStreamNonBlocking), "cudaStreamCreate"))
      return 0;
  return 1;
}

/* Frames each way a second: `frames` frames queued, filter after filter
 * (frame f on pair f % pairs, its buffer the next of that pair's), then
 * waited for. */
static double
run (const Arrangement * a, Buffers * b, int frames)
{
  const size_t band = FRAME_BYTES / a->bands;
  const double t0 = bench_now_ms ();
  for (int f = 0; f < frames; f++) {
    const int p = f % a->pairs;
    const int i = p * a->buffers + (f / a->pairs) % a->buffers;
    for (int k = 0; k < a->bands; k++) {
      const size_t at = k * band;
      const size_t bytes = k + 1 < a->bands ? band : FRAME_BYTES - at;
      cudaMemcpyAsync (b->dev_in[i] + at, b->host_up[i] + at, bytes,
          cudaMemcpyHostToDevice, b->up[p]);
      if (a->ordered) {
        cudaEventRecord (b->uploaded[i], b->up[p]);
        cudaStreamWaitEvent (b->down[p], b->uploaded[i], 0);
      }
      cudaMemcpyAsync (b->host_down[i] + at, b->dev_out[i] + at, bytes,
          cudaMemcpyDeviceToHost, b->down[p]);
    }
  }
  for (int p = 0; p < a->pairs; p++)
    if (!check (cudaStreamSynchronize (b->up[p]), "copies")
        || !check (cudaStreamSynchronize (b->down[p]), "copies"))
      return -1;
  return frames / ((bench_now_ms () - t0) / 1e3);
}

int
main (int argc, char **argv)
{
  BenchArgs args;
  if (bench_args_parse (argc, argv,
          BENCH_FRAMES | BENCH_PIPELINES | BENCH_CSV | BENCH_ONLY,
          "arrangement,round,fps,share", &args))
    return 2;
  const int frames = args.frames > 0 ? args.frames : 2000;
  const int n = args.pipelines > 0 ? args.pipelines : 16;
  int dev_count = 0;
  if (cudaGetDeviceCount (&dev_count) != cudaSuccess || dev_count == 0) {
    fprintf (stderr, "kconv-bus-bench: no CUDA device\n");
    return 77;
  }
  const int bands = 4;          /* kconvfilter's bands of >= 2 MB at 1080p */
  char names[5][96];
  snprintf (names[0], sizeof names[0], "one pair of streams, one buffer");
  snprintf (names[1], sizeof names[1], "one pair, %d buffers", n * IN_FLIGHT);
  snprintf (names[2], sizeof names[2], "%d pairs, %d buffers each", n,
      IN_FLIGHT);
  snprintf (names[3], sizeof names[3], "%d pairs, %d buffers, %d bands", n,
      IN_FLIGHT, bands);
  snprintf (names[4], sizeof names[4],
      "%d pairs, %d buffers, %d bands, ordered", n, IN_FLIGHT, bands);
  const Arrangement arrangements[] = {
    {names[0], 1, 1, 1, 0},
    {names[1], 1, n * IN_FLIGHT, 1, 0},
    {names[2], n, IN_FLIGHT, 1, 0},
    {names[3], n, IN_FLIGHT, bands, 0},
    {names[4], n, IN_FLIGHT, bands, 1},
  };
  const int count = sizeof arrangements / sizeof arrangements[0];
  Buffers bufs[3] = { 0 };      /* one buffer; one pair's n x 3; n pairs' */
  if (!buffers_alloc (&bufs[0], 1, 1)
      || !buffers_alloc (&bufs[1], 1, n * IN_FLIGHT)
      || !buffers_alloc (&bufs[2], n, IN_FLIGHT)) {
    for (int i = 0; i < 3; i++)
      buffers_free (&bufs[i]);
    return 1;
  }

  double fps[ROUNDS][8], share[ROUNDS][8];
  int status = 0;
  for (int r = 0; r < ROUNDS && !status; r++)
    for (int c = 0; c < count && !status; c++) {
      const Arrangement *a = &arrangements[c];
      Buffers *b = a->pairs > 1 ? &bufs[2] : a->buffers > 1 ? &bufs[1]
          : &bufs[0];
      if (c > 0 && !bench_selected (&args, a->name)) {
        fps[r][c] = share[r][c] = 0;
        continue;
      }
      run (a, b, frames / 10);  /* warm-up */
      fps[r][c] = run (a, b, frames);
      status = fps[r][c] < 0;
      share[r][c] = fps[r][c] / fps[r][0];
      bench_csv_row (&args, "%s,%d,%.0f,%.3f", a->name, r + 1, fps[r][c],
          share[r][c]);
    }

  if (!status) {
    printf ("1920x1080 RGBA frames, each way at once, %d a run, %d rounds "
        "(frames/s, median; share of the first row in the same round)\n",
        frames, ROUNDS);
    for (int c = 0; c < count; c++) {
      if (c > 0 && !bench_selected (&args, arrangements[c].name))
        continue;
      double f[ROUNDS], s[ROUNDS];
      for (int r = 0; r < ROUNDS; r++)
        f[r] = fps[r][c], s[r] = share[r][c];
      double lo = f[0], hi = f[0];
      for (int r = 1; r < ROUNDS; r++) {
        lo = f[r] < lo ? f[r] : lo;
        hi = f[r] > hi ? f[r] : hi;
      }
      printf ("  %-44s %6.0f  %5.1f%%  (rounds %.0f-%.0f)\n",
          arrangements[c].name, bench_median (f, ROUNDS),
          100 * bench_median (s, ROUNDS), lo, hi);
    }
  }
  for (int i = 0; i < 3; i++)
    buffers_free (&bufs[i]);
  bench_args_clear (&args);
  return status;
}
