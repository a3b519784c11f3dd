/* kconv: the ssd, ncc and zncc searches against the formulas, over a table
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_MATCH_METHODS_TABLE_H
#define KCONV_MATCH_METHODS_TABLE_H

#include "kmatch.h"

/* Adds crops of a w x h RGB photograph (kept, not copied) to the table. */
void match_methods_table_set_photo (const uint8_t * rgb, int w, int h);

/* Where the backend searches frames in device memory: copies bytes of
 * host memory to a new device buffer (NULL when it cannot), and frees
 * one.  Set, the table searches each frame there too (kmatch_search_device)
 * and expects what the search in host memory found. */
typedef void *(*MatchTableUpload) (const void *host, size_t bytes);
typedef void (*MatchTableFree) (void *device);
void match_methods_table_set_device (MatchTableUpload upload,
    MatchTableFree free_device);

void match_methods_table_run (KConvBackend backend, unsigned seed);

#endif
