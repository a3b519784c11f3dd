/* kconv: a backend against the scalar reference, over a table of cases
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CONV_TABLE_H
#define KCONV_CONV_TABLE_H

#include "kconv.h"

/* Runs every case of the table on `backend` and on the reference, with
 * random data and poisoned outputs; counts through CHECK.  max_kernel caps
 * the kernel sizes (the reference is slow). */
void conv_table_run (KConvBackend backend, unsigned seed, int max_kernel);

#endif
