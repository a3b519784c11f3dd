/* kconv: the OpenMP runtime's settings, as kconv would have them
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A library of its own, linked with -z initfirst (see the header).
 */
#include <stdlib.h>
#include "kconv-omp-defaults.h"

static int set_spincount, set_blocktime;

__attribute__((constructor))
     static void set_defaults (void)
{
  /* the user's wait policy, or the runtime's own knob, wins */
  if (getenv ("OMP_WAIT_POLICY"))
    return;
  if (!getenv ("GOMP_SPINCOUNT"))
    set_spincount = setenv ("GOMP_SPINCOUNT", KCONV_GOMP_SPINCOUNT, 0) == 0;
  if (!getenv ("KMP_BLOCKTIME"))
    set_blocktime = setenv ("KMP_BLOCKTIME", KCONV_KMP_BLOCKTIME, 0) == 0;
}

int
kconv_omp_defaults_restore (void)
{
  const int set = set_spincount || set_blocktime;
  if (set_spincount)
    unsetenv ("GOMP_SPINCOUNT");
  if (set_blocktime)
    unsetenv ("KMP_BLOCKTIME");
  set_spincount = set_blocktime = 0;
  return set;
}
