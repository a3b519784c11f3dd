/* kconv: the threads of the CPU backend's parallel regions (OpenMP)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <sched.h>
#include <unistd.h>
#include "kconv-team.h"
#include "kconv-omp-defaults.h"

/* threads that kconv's regions run now, process-wide */
static int busy;

int
kconv_team_reserve (int want)
{
#ifdef _OPENMP
  if (want <= 1 || omp_in_parallel ())
    return 1;
  const int cores = kconv_cpu_count ();
  int held = __atomic_load_n (&busy, __ATOMIC_RELAXED);
  for (;;) {
    const int n = cores - held < want ? cores - held : want;
    if (n <= 1)
      return 1;                 /* the caller's own thread, not counted */
    if (__atomic_compare_exchange_n (&busy, &held, held + n, 1,
            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return n;
  }
#else
  (void) want;
  return 1;
#endif
}

void
kconv_team_release (int n)
{
#ifdef _OPENMP
  if (n > 1)
    __atomic_sub_fetch (&busy, n, __ATOMIC_RELAXED);
#else
  (void) n;
#endif
}

int
kconv_cpu_count (void)
{
#ifdef _OPENMP
  /* the cores this process may run on (taskset, cgroups' cpusets) */
  const int n = omp_get_num_procs ();
  return n > 0 ? n : 1;
#else
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
#endif
}

int
kconv_default_threads (void)
{
#ifdef _OPENMP
  const int n = omp_get_max_threads (), cores = kconv_cpu_count ();
  return n < 1 ? 1 : n < cores ? n : cores;
#else
  return 1;
#endif
}

int
kconv_team_threads (int n)
{
  if (n == 0)
    return kconv_default_threads ();
  const int cores = kconv_cpu_count ();
  return n < cores ? n : cores;
}

#ifdef _OPENMP
/* The runtime has read its settings by now (libgomp at load, libomp at
 * the first call, made here): the variables that only served to give it
 * kconv's defaults go. */
__attribute__((constructor))
     static void settle_runtime (void)
{
  (void) omp_get_max_threads ();
  kconv_omp_defaults_restore ();
}
#endif
