/* kconv: a matching backend against the scalar reference, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_MATCH_TABLE_H
#define KCONV_MATCH_TABLE_H

#include "kmatch.h"

/* Adds crops of DIR/NAME-1920x1080.pgm and .ppm (tests/photos.sh) to the
 * table; 0, or -1 when they cannot be read. */
int match_table_load_photos (const char *dir, const char *name);

void match_table_run (KConvBackend backend, unsigned seed);

#endif
