/* kconv: the detail of the last failure, per thread
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv-error.h"

static _Thread_local char last_error[256];

KConvStatus
kconv_fail (KConvStatus status, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  vsnprintf (last_error, sizeof last_error, format, args);
  va_end (args);
  return status;
}

void
kconv_clear_error (void)
{
  last_error[0] = '\0';
}

const char *
kconv_last_error (void)
{
  return last_error;
}

#ifdef KCONV_FAULT_INJECTION
/* KCONV_FAULT=KIND:N, read once: the words in a call's text that make it
 * of each kind (launches are checked through kconv_cuda_launch_* or
 * cudaGetLastError) */
static const struct
{
  const char *kind, *words[2];
} fault_kinds[] = {
  {"alloc", {"Malloc"}}, {"copy", {"Memcpy"}},
  {"launch", {"GetLastError", "launch"}}, {"sync", {"Synchronize"}},
};

static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static const char *const *fault_words;  /* NULL: no fault to inject */
static long fault_at;
static long fault_seen;         /* atomic */

static void
fault_read (void)
{
  const char *v = getenv ("KCONV_FAULT");
  const char *colon = v ? strchr (v, ':') : NULL;
  if (!colon || atol (colon + 1) < 1)
    return;
  for (size_t k = 0; k < sizeof fault_kinds / sizeof fault_kinds[0]; k++)
    if (strlen (fault_kinds[k].kind) == (size_t) (colon - v)
        && !strncmp (v, fault_kinds[k].kind, colon - v)) {
      fault_words = fault_kinds[k].words;
      fault_at = atol (colon + 1);
    }
}

int
kconv_fault_due (const char *call)
{
  pthread_once (&fault_once, fault_read);
  if (!fault_words || !(strstr (call, fault_words[0]) || (fault_words[1]
              && strstr (call, fault_words[1]))))
    return 0;
  return __atomic_add_fetch (&fault_seen, 1, __ATOMIC_RELAXED) == fault_at;
}
#endif /* KCONV_FAULT_INJECTION */
