/* kconv: the threaded CPU matcher against the scalar reference
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With KCONV_PHOTOS set to the folder tests/photos.sh wrote, crops of a
 * photograph join the table (where the search prunes most).
 */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "match-table.h"
#include "match-deep-table.h"
#include "match-methods-table.h"
#include "photo.h"
#include "tuning-env.h"

int
main (int argc, char **argv)
{
  unsigned seed = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 0) : 20261122u;
  printf ("seed %u\n", seed);
  tuning_from_environment ();
  const char *photos = getenv ("KCONV_PHOTOS");
  if (photos && *photos) {
    CHECK (match_table_load_photos (photos, "astronaut") == 0,
        "no astronaut-1920x1080.pgm/.ppm in KCONV_PHOTOS=%s", photos);
  } else {
    printf ("KCONV_PHOTOS not set: no photographs in the table\n");
  }
  /* "methods": the ssd, ncc and zncc table alone (the runs held to a
   * path, whose choice the SAD tables do not see) */
  const int methods_only = argc > 2 && !strcmp (argv[2], "methods");
  if (!methods_only) {
    match_table_run (KCONV_BACKEND_CPU, seed);
    match_deep_table_run (KCONV_BACKEND_CPU, seed);
  }
  uint8_t *rgb = photos && *photos ?
      photo_load (photos, "astronaut", 1920, 1080, 3) : NULL;
  if (rgb)
    match_methods_table_set_photo (rgb, 1920, 1080);
  match_methods_table_run (KCONV_BACKEND_CPU, seed);
  match_deep_methods_table_run (KCONV_BACKEND_CPU, seed);
  free (rgb);
  if (methods_only)
    return check_summary ();

  /* errors: a template larger than the region, mismatched channels */
  KMatch *m;
  uint8_t px[16] = { 0 };
  KMatchPosition p;
  int n;
  KConvImage im = { px, 2, 2, 2, 1, 1, {0} };
  CHECK (kmatch_new (NULL, &m) == KCONV_OK, "create");
  CHECK (kmatch_set_template (m, px, 3, 1, 3, 1) == KCONV_OK, "template");
  CHECK (kmatch_search (m, &im, NULL, 1, &p, &n, NULL) ==
      KCONV_ERROR_INVALID_ARGUMENT, "template wider than the frame refused");
  CHECK (kmatch_set_template (m, px, 1, 1, 3, 3) == KCONV_OK, "template");
  CHECK (kmatch_search (m, &im, NULL, 1, &p, &n, NULL) ==
      KCONV_ERROR_INVALID_ARGUMENT, "3-channel template on grey refused");
  kmatch_free (m);
  return check_summary ();
}
