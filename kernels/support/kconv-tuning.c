/* kconv: the knobs that force a path, set by tests and benchmarks
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <pthread.h>
#include <string.h>
#include "kconv-tuning.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int have;
static KConvTuning current;

/* What the core does unless a test or benchmark says otherwise */
static void
defaults (KConvTuning * t)
{
  memset (t, 0, sizeof *t);
  t->cpu_fixed = 1;
  t->cpu_isa = KCONV_ISA_AVX512;
  t->cuda_match_prune = -1;
  t->cuda_match_fft = -1;
  t->cuda_match_left = -1;
}

KConvTuning
kconv_tuning (void)
{
  pthread_mutex_lock (&lock);
  if (!have) {
    defaults (&current);
    have = 1;
  }
  KConvTuning t = current;
  pthread_mutex_unlock (&lock);
  return t;
}

void
kconv_tuning_set (const KConvTuning * tuning)
{
  pthread_mutex_lock (&lock);
  if (tuning)
    current = *tuning;
  else
    defaults (&current);
  have = 1;
  pthread_mutex_unlock (&lock);
}
