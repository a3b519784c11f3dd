/* kconv: the table of backends holds together
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include "check.h"
#include "kconv.h"

int
main (void)
{
  CHECK (kconv_backend_info (KCONV_BACKEND_COUNT) == NULL
      && kconv_backend_info ((KConvBackend) - 1) == NULL,
      "a backend past the table");
  CHECK (strcmp (kconv_backend_name (KCONV_BACKEND_COUNT), "unknown") == 0,
      "the name of a backend past the table");
  int offered = 0;
  for (int i = 0; i < KCONV_BACKEND_COUNT; i++) {
    const KConvBackendInfo *b = kconv_backend_info (i);
    CHECK (b && (int) b->id == i && b->name && b->name[0] && b->label
        && b->label[0] && b->description && b->description[0],
        "row %d of the backends", i);
    if (!b)
      continue;
    CHECK (strcmp (kconv_backend_name (i), b->name) == 0,
        "%s: kconv_backend_name", b->name);
    for (int j = 0; j < i; j++)
      CHECK (strcmp (kconv_backend_info (j)->name, b->name) != 0,
          "two backends called %s", b->name);
    offered += b->for_elements;
    /* a backend this build lacks says so by name */
    if (!kconv_backend_available (i)) {
      const char *why = kconv_last_error ();
      CHECK (why && why[0], "%s: unavailable without a reason", b->name);
    }
  }
  /* the CPU and auto run everywhere */
  CHECK (kconv_backend_available (KCONV_BACKEND_AUTO)
      && kconv_backend_available (KCONV_BACKEND_CPU)
      && kconv_backend_available (KCONV_BACKEND_REFERENCE),
      "auto, the CPU and the reference run here");
  CHECK (offered >= 2 && kconv_backend_info (KCONV_BACKEND_AUTO)->for_elements
      && !kconv_backend_info (KCONV_BACKEND_REFERENCE)->for_elements,
      "the elements offer auto, not the reference");
  return check_summary ();
}
