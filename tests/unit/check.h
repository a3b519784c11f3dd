/* kconv: a minimal test harness for the plain C tests
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each CHECK counts as one assertion; main() ends with check_summary (),
 * which prints "N passed, N failed" and returns the exit code.
 */
#ifndef KCONV_CHECK_H
#define KCONV_CHECK_H

#include <stdio.h>

/* weak: one pair of counters however many files include this */
__attribute__((weak))
     int check_passed;
__attribute__((weak))
     int check_failed;

#define CHECK(cond, ...) do { \
    if (cond) { \
      check_passed++; \
    } else { \
      check_failed++; \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr); \
    } \
  } while (0)

/* A check whose line is printed whether it holds or not (what it
 * measured) */
#define REPORT(cond, ...) do { \
    const int _ok = (cond); \
    printf ("%s: ", _ok ? "ok" : "FAILED"); \
    printf (__VA_ARGS__); \
    printf ("\n"); \
    CHECK (_ok, __VA_ARGS__); \
  } while (0)

     static inline int check_summary (void)
{
  printf ("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif
