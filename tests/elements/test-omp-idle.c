/* kconv: between frames the CPU backend's threads leave the cores alone
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ten 1080p frames through kconvfilter on the CPU with two threads, each
 * followed by 30 ms of nothing, as a 30 frames/s pipeline has them: the
 * process's CPU time in those pauses is what idle OpenMP threads spin.
 * Loaded as GStreamer loads plugins, kconv has the runtime spin 3000
 * rounds (libkconv-omp-defaults), so the pauses cost under 15 ms in all
 * (under 1 ms on the 2-core build machine, 5-9 ms on a 16-core virtual
 * machine whose pause instruction is slower); libgomp's own default
 * (300 000 rounds) cost 22-30 ms and 62-74 ms there.
 * `spinning` runs under OMP_WAIT_POLICY=active and expects the opposite:
 * the user's setting wins over kconv's.
 *   test-omp-idle idle|spinning
 */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#define FRAMES 10

static double
cpu_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main (int argc, char **argv)
{
  const int spinning = argc > 1 && !strcmp (argv[1], "spinning");
  cpu_set_t cores;
  if (sched_getaffinity (0, sizeof cores, &cores) == 0
      && CPU_COUNT (&cores) < 2) {
    printf ("one core: no second thread to watch\n");
    return 77;
  }
  const int user_set = g_getenv ("GOMP_SPINCOUNT")
      || g_getenv ("KMP_BLOCKTIME");
  gst_init (&argc, &argv);
  GstHarness *h = gst_harness_new_parse ("kconvfilter kernel=gaussian "
      "backend=cpu n-threads=2 frames-in-flight=1");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=1920,"
      "height=1080,framerate=30/1");
  double paused = 0;
  int frames = 0;
  for (int i = 0; i < FRAMES; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        gst_buffer_new_allocate (NULL, 1920 * 1080 * 4, NULL));
    frames += out != NULL;
    if (out)
      gst_buffer_unref (out);
    const double c0 = cpu_ms ();
    g_usleep (30000);
    paused += cpu_ms () - c0;
  }
  gst_harness_teardown (h);
  /* the variables that handed kconv's settings to the runtime are gone */
  const int env_left = !user_set && (g_getenv ("GOMP_SPINCOUNT")
      || g_getenv ("KMP_BLOCKTIME"));
  printf
      ("%d frames; CPU time in %d pauses of 30 ms after a frame: %.1f ms%s\n",
      frames, FRAMES, paused,
      env_left ? "; GOMP_SPINCOUNT or KMP_BLOCKTIME " "left in the environment"
      : "");
  if (frames != FRAMES || env_left)
    return 1;
  if (spinning && paused <= 50) {
    printf ("OMP_WAIT_POLICY=active did not keep the threads spinning: "
        "kconv overrode the user's setting\n");
    return 1;
  }
  if (!spinning && paused >= 15) {
    printf ("idle threads used CPU between frames\n");
    return 1;
  }
  return 0;
}
