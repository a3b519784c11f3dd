/* kconv: which backends an element test runs on
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * KCONV_TEST_BACKEND=cpu or cuda picks one (meson registers the cuda run
 * apart, in the gpu suite, where it skips with 77 on a machine without a
 * usable GPU rather than passing without having run); unset, every usable
 * backend.
 */
#ifndef KCONV_CHECK_BACKENDS_H
#define KCONV_CHECK_BACKENDS_H

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gst/check/gstcheck.h>
#include "kconv.h"

static inline gboolean
check_backend_wanted (const gchar * name)
{
  const gchar *only = g_getenv ("KCONV_TEST_BACKEND");
  if (only && strcmp (only, name) != 0)
    return FALSE;
  return strcmp (name, "cuda") != 0
      || kconv_backend_available (KCONV_BACKEND_CUDA);
}

/* Whether CUDA can be used, asked in a child process: check forks a
 * process per test, and CUDA set up in the parent does not work in its
 * children. */
static inline gboolean
check_cuda_usable_without_init (void)
{
  pid_t pid = fork ();
  if (pid == 0)
    _exit (kconv_backend_available (KCONV_BACKEND_CUDA) ? 0 : 1);
  int status = 0;
  return pid > 0 && waitpid (pid, &status, 0) == pid && WIFEXITED (status)
      && WEXITSTATUS (status) == 0;
}

/* GST_CHECK_MAIN, skipping (77) a cuda-only run without a GPU */
#define KCONV_CHECK_MAIN(name) \
int \
main (int argc, char **argv) \
{ \
  const gchar *only = g_getenv ("KCONV_TEST_BACKEND"); \
  if (only && strcmp (only, "cuda") == 0 \
      && !check_cuda_usable_without_init ()) { \
    g_print ("SKIP: no usable CUDA device\n"); \
    return 77; \
  } \
  gst_check_init (&argc, &argv); \
  return gst_check_run_suite (name##_suite (), #name, __FILE__); \
}

#endif /* KCONV_CHECK_BACKENDS_H */
