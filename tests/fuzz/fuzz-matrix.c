/* kconv: libFuzzer target for the matrix text
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Any bytes: the parser accepts or refuses with a message, never crashes
 * or reads out of bounds; what it accepts is a rows x cols kernel of
 * finite values whose canonical text parses back to the same values (-0
 * is written as 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "kconv.h"
#include "kconv-matrix.h"

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  char *text = malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  float *w, *back;
  int rows, cols, r2, c2;
  char err[160];
  if (kconv_matrix_parse (text, &w, &rows, &cols, err, sizeof err) != 0) {
    if (err[0] == '\0')
      abort ();                 /* a refusal must say why */
  } else {
    if (rows < 1 || cols < 1 || rows > KCONV_MAX_KERNEL_SIZE
        || cols > KCONV_MAX_KERNEL_SIZE)
      abort ();
    for (int i = 0; i < rows * cols; i++)
      if (!isfinite (w[i]))
        abort ();
    char *canon = kconv_matrix_format (w, rows, cols);
    if (kconv_matrix_parse (canon, &back, &r2, &c2, err, sizeof err) != 0
        || r2 != rows || c2 != cols)
      abort ();
    for (int i = 0; i < rows * cols; i++)
      if (back[i] != w[i])
        abort ();
    free (back);
    free (canon);
    free (w);
  }
  free (text);
  return 0;
}
