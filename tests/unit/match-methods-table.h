/* kconv: the ssd, ncc and zncc searches against the formulas, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_MATCH_METHODS_TABLE_H
#define KCONV_MATCH_METHODS_TABLE_H

#include "kmatch.h"

/* Adds crops of a w x h RGB photograph (kept, not copied) to the table. */
void match_methods_table_set_photo (const uint8_t * rgb, int w, int h);

void match_methods_table_run (KConvBackend backend, unsigned seed);

#endif
