/* kconv: matching 16-bit samples on a backend against the scalar
 * reference, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_MATCH_DEEP_TABLE_H
#define KCONV_MATCH_DEEP_TABLE_H

#include "kmatch.h"

void match_deep_table_run (KConvBackend backend, unsigned seed);

/* ssd, ncc and zncc on 16-bit samples against the formulas */
void match_deep_methods_table_run (KConvBackend backend, unsigned seed);

#endif
