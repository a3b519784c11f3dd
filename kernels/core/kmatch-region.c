/* kconv: search regions: as text, clipped to the frame, narrowed to track
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "kmatch.h"

int
kmatch_region_parse (const char *text, KMatchRegion * region, char *err,
    size_t err_size)
{
  static const char *names[4] = { "x", "y", "width", "height" };
  long v[4];
  const char *p = text ? text : "";
  for (int i = 0; i < 4; i++) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p < '0' || *p > '9') {
      snprintf (err, err_size, "%s is missing or not a whole number "
          "(\"x,y,width,height\")", names[i]);
      return -1;
    }
    char *end;
    errno = 0;
    v[i] = strtol (p, &end, 10);
    if (errno == ERANGE || v[i] > KMATCH_MAX_COORD) {
      snprintf (err, err_size, "%s is larger than %d", names[i],
          KMATCH_MAX_COORD);
      return -1;
    }
    if (i >= 2 && v[i] < 1) {
      snprintf (err, err_size, "%s must be at least 1", names[i]);
      return -1;
    }
    p = end;
    while (*p == ' ' || *p == '\t')
      p++;
    if (i < 3 && *p++ != ',') {
      snprintf (err, err_size, "a ',' must follow %s (\"x,y,width,height\")",
          names[i]);
      return -1;
    }
  }
  if (*p != '\0') {
    snprintf (err, err_size, "unexpected text after the height");
    return -1;
  }
  const KMatchRegion parsed = { (int) v[0], (int) v[1], (int) v[2],
    (int) v[3]
  };
  *region = parsed;
  return 0;
}

KMatchRegion
kmatch_region_clip (KMatchRegion r, int width, int height)
{
  const int x1 = r.x + r.width < width ? r.x + r.width : width;
  const int y1 = r.y + r.height < height ? r.y + r.height : height;
  r.x = r.x < 0 ? 0 : r.x > width ? width : r.x;
  r.y = r.y < 0 ? 0 : r.y > height ? height : r.y;
  r.width = x1 > r.x ? x1 - r.x : 0;
  r.height = y1 > r.y ? y1 - r.y : 0;
  return r;
}

KMatchRegion
kmatch_search_area (const KMatchRegion * region, const KMatchPosition * last,
    int radius, int tw, int th, int width, int height)
{
  KMatchRegion whole = { 0, 0, width, height };
  KMatchRegion area = region ? kmatch_region_clip (*region, width, height) :
      whole;
  if (radius <= 0 || !last)
    return area;
  /* the template's place, grown by the radius (in 64 bits: radius may be
   * as large as an int) */
  long long x0 = (long long) last->x - radius, y0 = (long long) last->y -
      radius;
  long long x1 = (long long) last->x + tw + radius;
  long long y1 = (long long) last->y + th + radius;
  x0 = x0 > area.x ? x0 : area.x;
  y0 = y0 > area.y ? y0 : area.y;
  x1 = x1 < area.x + area.width ? x1 : area.x + area.width;
  y1 = y1 < area.y + area.height ? y1 : area.y + area.height;
  if (x1 - x0 < tw || y1 - y0 < th)
    return area;                /* too small to hold it: everywhere */
  return (KMatchRegion) {
  (int) x0, (int) y0, (int) (x1 - x0), (int) (y1 - y0)};
}
