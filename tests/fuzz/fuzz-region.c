/* kconv: libFuzzer target for "x,y,width,height" regions
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Any bytes: accepted regions are within the documented bounds (so the
 * element's sums of them cannot overflow), refusals say why.
 */
#include <stdlib.h>
#include <string.h>
#include "kmatch.h"

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  char *text = malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  KMatchRegion r;
  char err[128] = "";
  if (kmatch_region_parse (text, &r, err, sizeof err) == 0) {
    if (r.x < 0 || r.y < 0 || r.width < 1 || r.height < 1
        || r.x > KMATCH_MAX_COORD || r.y > KMATCH_MAX_COORD
        || r.width > KMATCH_MAX_COORD || r.height > KMATCH_MAX_COORD)
      abort ();
  } else if (err[0] == '\0') {
    abort ();
  }
  free (text);
  return 0;
}
