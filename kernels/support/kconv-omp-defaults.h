/* kconv: the OpenMP runtime's settings, as kconv would have them
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenMP runtimes keep idle threads spinning after a parallel region:
 * libgomp for about 300 000 rounds (milliseconds), libomp for 200 ms.  A
 * video pipeline runs a few short regions per frame and then waits for the
 * next frame; the spinning took a core from the rest of the pipeline (the
 * decoder, another filter) between frames.  The runtime reads its settings
 * from the environment when it starts, before any code of kconv runs, so
 * they are set by a small library of their own, linked with -z initfirst:
 * when the plugin is loaded (dlopen, as GStreamer loads plugins) its
 * constructor runs before the runtime's.  It sets only what the user has
 * not set (OMP_WAIT_POLICY, GOMP_SPINCOUNT, KMP_BLOCKTIME); where an
 * OpenMP runtime was loaded before kconv, that runtime keeps its settings.
 * A program linked with kconv's core at start-up (its benchmarks) gets
 * the runtime's own defaults: an initfirst constructor then runs before
 * the C library has its environment, and what it sets is lost.
 */
#ifndef KCONV_OMP_DEFAULTS_H
#define KCONV_OMP_DEFAULTS_H

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* libgomp's spin before a thread sleeps, in rounds of its wait loop (about
 * 23 ns each on the 2-core Xeon measured, some 70 microseconds in all;
 * rounds are slower on virtual CPUs whose pause instruction exits to the
 * hypervisor: under 1 ms on the GPU host), short enough that between
 * frames the cores are free.  On that machine, busy
 * with a second pipeline, 3000 rounds kept kconvfilter's rate where the
 * hand-written pool had it; 10 000 lost 4%, libgomp's own 300 000 lost
 * 40% (kernels/PERFORMANCE.md). */
#define KCONV_GOMP_SPINCOUNT "3000"
/* libomp's, in milliseconds (its smallest step) */
#define KCONV_KMP_BLOCKTIME "0"

/* Removes the variables the library set (the runtime has read them), so
 * that programs this process starts do not inherit them; 1 if kconv's
 * defaults were set, 0 if the user's own settings were left as they are. */
int kconv_omp_defaults_restore (void);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_OMP_DEFAULTS_H */
