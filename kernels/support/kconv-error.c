/* kconv: the detail of the last failure, per thread
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdarg.h>
#include <stdio.h>
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

const char *
kconv_last_error (void)
{
  return last_error;
}
