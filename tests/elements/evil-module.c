/* kconv: a library that must never be loaded by the template decoder
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loading it (dlopen, as --gst-plugin-load would) writes the file named by
 * KCONV_EVIL_MARKER: test-template-names checks that none appears.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor))
     static void loaded (void)
{
  const char *marker = getenv ("KCONV_EVIL_MARKER");
  FILE *f = marker ? fopen (marker, "w") : NULL;
  if (f)
    fclose (f);
}
