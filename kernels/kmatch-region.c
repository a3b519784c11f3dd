/* kconv: search regions as text
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
  *region = (KMatchRegion) { (int) v[0], (int) v[1], (int) v[2], (int) v[3] };
  return 0;
}
