/* kconv: the knobs that force a path, read once
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv-tuning.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int have;
static KConvTuning current;

static void
from_environment (KConvTuning * t)
{
  const char *v;
  memset (t, 0, sizeof *t);
  if ((v = getenv ("KCONV_CPU_STRATEGY")))
    snprintf (t->cpu_strategy, sizeof t->cpu_strategy, "%s", v);
  v = getenv ("KCONV_CPU_FIXED");
  t->cpu_fixed = !v || strcmp (v, "0") != 0;
  v = getenv ("KCONV_CPU_ISA");
  t->cpu_isa = !v ? KCONV_ISA_AVX512 : !strcmp (v, "avx2") ?
      KCONV_ISA_AVX2 : !strcmp (v, "baseline") ? KCONV_ISA_BASELINE :
      KCONV_ISA_AVX512;
  if ((v = getenv ("KCONV_CUDA_STRATEGY")))
    snprintf (t->cuda_strategy, sizeof t->cuda_strategy, "%s", v);
  v = getenv ("KCONV_CUDA_PACKED");
  t->cuda_packed = !v ? 1 : !strcmp (v, "0") ? 0 :
      !strcmp (v, "tiles") ? 2 : 1;
  if ((v = getenv ("KCONV_CUDA_BANDS")))
    t->cuda_bands = atoi (v);
  v = getenv ("KCONV_CUDA_MATCH_PRUNE");
  t->cuda_match_prune = v ? atoi (v) != 0 : -1;
  v = getenv ("KCONV_CUDA_WAIT");
  t->cuda_wait = !v ? KCONV_WAIT_SPIN :
      !strcmp (v, "sleep") ? KCONV_WAIT_SLEEP :
      !strcmp (v, "block") ? KCONV_WAIT_BLOCK : KCONV_WAIT_SPIN;
  v = getenv ("KCONV_CUDA_COPIES");
  t->cuda_copies = !v ? KCONV_COPIES_OWN :
      !strcmp (v, "shared") ? KCONV_COPIES_SHARED :
      !strcmp (v, "shared-up") ? KCONV_COPIES_SHARED_UP : KCONV_COPIES_OWN;
}

KConvTuning
kconv_tuning (void)
{
  pthread_mutex_lock (&lock);
  if (!have) {
    from_environment (&current);
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
    from_environment (&current);
  have = 1;
  pthread_mutex_unlock (&lock);
}
