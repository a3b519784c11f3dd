/* kconv: kernels and search regions as text
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kconv.h"
#include "kconv-matrix.h"
#include "kmatch.h"

static void
expect_region (const char *text, int ok, int x, int y, int w, int h,
    const char *needle)
{
  KMatchRegion r = { -1, -1, -1, -1 };
  char err[128] = "";
  int ret = kmatch_region_parse (text, &r, err, sizeof err);
  if (ok)
    CHECK (ret == 0 && r.x == x && r.y == y && r.width == w && r.height == h,
        "region \"%s\": %s (%d,%d,%d,%d)", text, err, r.x, r.y, r.width,
        r.height);
  else
    CHECK (ret == -1 && strstr (err, needle) != NULL && r.x == -1,
        "region \"%s\" gave \"%s\", not \"%s\"", text, err, needle);
}

static void
expect_ok (const char *text, int rows, int cols, const char *canonical)
{
  float *w = NULL;
  int r = 0, c = 0;
  char err[160] = "";
  int ret = kconv_matrix_parse (text, &w, &r, &c, err, sizeof err);
  CHECK (ret == 0 && r == rows && c == cols, "\"%s\": %s (%dx%d)", text, err,
      c, r);
  if (ret == 0) {
    char *back = kconv_matrix_format (w, r, c);
    CHECK (strcmp (back, canonical) == 0, "\"%s\" formats as \"%s\"", text,
        back);
    free (back);
  }
  free (w);
}

static void
expect_error (const char *text, const char *needle)
{
  float *w = (float *) 1;
  int r, c;
  char err[160] = "";
  int ret = kconv_matrix_parse (text, &w, &r, &c, err, sizeof err);
  CHECK (ret == -1 && w == NULL, "\"%.40s\" accepted", text);
  CHECK (strstr (err, needle) != NULL, "\"%.40s\": error \"%s\" lacks \"%s\"",
      text, err, needle);
}

int
main (void)
{
  /* a locale with a decimal comma must not change the meaning */
  setlocale (LC_ALL, "de_DE.UTF-8");

  expect_ok ("1 2 1; 2 4 2; 1 2 1", 3, 3, "1 2 1; 2 4 2; 1 2 1");
  expect_ok ("  1,2,1 ;2, 4,2;1 2 1  ", 3, 3, "1 2 1; 2 4 2; 1 2 1");
  expect_ok ("1 ,2 , 3\n;\t4,\n5 6", 2, 3, "1 2 3; 4 5 6");
  expect_ok ("0.5 -0.25 1e-3", 1, 3, "0.5 -0.25 0.001");
  expect_ok ("0.1", 1, 1, "0.1");
  expect_ok ("-0", 1, 1, "0");
  expect_ok ("1; 2; 3; 4", 4, 1, "1; 2; 3; 4");

  expect_error ("", "empty");
  expect_error ("   ", "empty");
  expect_error ("1 2; 3", "row 2 has 1 values but row 1 has 2");
  expect_error ("1 2;; 3 4", "row 2 is empty");
  /* the grammar is strict: nothing empty anywhere */
  expect_error ("1 2;", "the matrix ends with ';'");
  expect_error ("1 2; 3 4 ; ", "row 3 is empty (the matrix ends with ';')");
  expect_error (";1", "row 1 is empty");
  expect_error ("1,,2", "row 1: a value is missing after ','");
  expect_error ("1, ,2", "row 1: a value is missing after ','");
  expect_error ("1 2,", "row 1: a value is missing after ','");
  expect_error (",1 2", "row 1: a value is missing before ','");
  expect_error ("1 2; ,3 4", "row 2: a value is missing before ','");
  expect_error ("1 x 2", "'x' in row 1 is not a number");
  expect_error ("1 2abc", "'2abc' in row 1 is not a number");
  expect_error ("1; nan", "not a finite number");
  /* a long value is quoted by its first 32 characters, none cut in two
   * (40 euro signs, 3 bytes each) */
  char euros[40 * 3 + 3] = "1 ";
  for (int i = 0; i < 40; i++)
    strcat (euros, "\xe2\x82\xac");
  char want[32 * 3 + 2] = "'";
  memcpy (want + 1, euros + 2, 32 * 3);
  want[32 * 3 + 1] = '\0';
  expect_error (euros, want);
  {
    char err[400] = "";
    float *w = NULL;
    int r, c;
    kconv_matrix_parse (euros, &w, &r, &c, err, sizeof err);
    CHECK (strncmp (err + 1 + 32 * 3, "' in row", 8) == 0, "the excerpt "
        "is not 32 whole characters: \"%s\"", err);
  }
  expect_error ("inf", "not a finite number");
  expect_error ("1e39", "beyond a weight's range");
  expect_error ("1 -1e300", "'-1e300' in row 1 is beyond a weight's range");

  /* 121 columns are fine, 122 are not */
  char wide[122 * 2 + 1];
  for (int i = 0; i < 122; i++)
    memcpy (wide + 2 * i, "1 ", 2);
  wide[121 * 2 - 1] = '\0';
  expect_ok (wide, 1, 121, wide);
  wide[121 * 2 - 1] = ' ';
  wide[122 * 2 - 1] = '\0';
  expect_error (wide, "larger than 121x121");

  /* every float survives a trip through text */
  float odd[4] = { 0.1f, 1.0f / 3.0f, -123456.789f, 1e-20f };
  char *text = kconv_matrix_format (odd, 2, 2);
  float *back;
  int r, c;
  char err[160];
  CHECK (kconv_matrix_parse (text, &back, &r, &c, err, sizeof err) == 0
      && memcmp (back, odd, sizeof odd) == 0, "round trip of \"%s\"", text);
  free (back);
  free (text);

  expect_region ("1,2,3,4", 1, 1, 2, 3, 4, NULL);
  expect_region (" 0 , 0 ,1,\t16 ", 1, 0, 0, 1, 16, NULL);
  expect_region ("1,2,3", 0, 0, 0, 0, 0, "a ',' must follow width");
  expect_region ("", 0, 0, 0, 0, 0, "x is missing");
  expect_region (NULL, 0, 0, 0, 0, 0, "x is missing");
  expect_region ("-1,2,3,4", 0, 0, 0, 0, 0, "x is missing or not a whole");
  expect_region ("1,2,0,4", 0, 0, 0, 0, 0, "width must be at least 1");
  expect_region ("1,2,3,4,5", 0, 0, 0, 0, 0, "unexpected text after");
  expect_region ("1,2,3,4x", 0, 0, 0, 0, 0, "unexpected text after");
  expect_region ("99999999999999999999,2,3,4", 0, 0, 0, 0, 0, "larger than");
  expect_region ("1,2,16777217,4", 0, 0, 0, 0, 0, "width is larger than");
  expect_region ("1;2;3;4", 0, 0, 0, 0, 0, "a ',' must follow x");

  CHECK (kconv_named_kernel (KCONV_NAMED_BOX, 4, 0, &r, &c) == NULL,
      "even box refused");
  CHECK (kconv_named_kernel (KCONV_NAMED_GAUSSIAN, 123, 0, &r, &c) == NULL,
      "gaussian 123 refused");
  return check_summary ();
}
