/* kconv: the photographs tests/photos.sh writes, read back
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_PHOTO_H
#define KCONV_PHOTO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* DIR/NAME-WxH.pgm (channels 1) or .ppm (3): malloc'd packed samples, or
 * NULL when the file is missing or not the size asked for. */
static inline uint8_t *
photo_load (const char *dir, const char *name, int w, int h, int channels)
{
  char path[512], magic[3] = { 0 };
  snprintf (path, sizeof path, "%s/%s-%dx%d.%s", dir, name, w, h,
      channels == 1 ? "pgm" : "ppm");
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  int fw = 0, fh = 0, maxval = 0;
  size_t n = (size_t) w * h * channels;
  uint8_t *px = NULL;
  if (fscanf (f, "%2s %d %d %d", magic, &fw, &fh, &maxval) == 4
      && magic[0] == 'P' && magic[1] == (channels == 1 ? '5' : '6')
      && fw == w && fh == h && maxval == 255 && fgetc (f) == '\n'
      && (px = malloc (n)) && fread (px, 1, n, f) != n) {
    free (px);
    px = NULL;
  }
  fclose (f);
  return px;
}

#endif /* KCONV_PHOTO_H */
