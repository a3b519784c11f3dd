/* kconv: a template image on which GStreamer's decoder never finishes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A damaged JPEG, found by fuzzing, on which Debian 12's jpegdec spins
 * without end.  Loading it must come back, within the decode's time limit,
 * with an error that names the file, and leave no thread behind: the
 * decoder runs in a process of its own, which ends.  Where no JPEG decoder
 * is installed the file is refused at once, which passes as well.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include "kmatch-template.h"

static const guint8 stalls[] = {
  0xff, 0xd8, 0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x32, 0x46,
  0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xdb,
  0xff, 0xe0, 0x00, 0x10, 0x00, 0x43, 0x00, 0x05, 0x03, 0x04, 0x04, 0x04,
  0x03, 0x05, 0x04, 0x04, 0x4a, 0x46,
};

static int
count_threads (void)
{
  int n = 0;
  DIR *d = opendir ("/proc/self/task");
  for (struct dirent * e; d && (e = readdir (d));)
    n += e->d_name[0] != '.';
  if (d)
    closedir (d);
  return n;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  gst_kmatch_template_set_decoder_dir (KCONV_TEST_DECODER_DIR);
  gchar *path = g_strdup_printf ("%s/kconv-stalls-%d.jpg", g_get_tmp_dir (),
      (int) getpid ());
  if (!g_file_set_contents (path, (const gchar *) stalls, sizeof stalls, NULL))
    return 1;
  GError *err = NULL;
  const int threads = count_threads ();
  const gint64 t0 = g_get_monotonic_time ();
  GstSample *s = gst_kmatch_template_load_file (path, KMATCH_TEMPLATE_MAX_SIDE,
      KMATCH_TEMPLATE_MAX_SIDE, &err);
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  const int left = count_threads () - threads;
  g_unlink (path);
  int ok = !s && err && strstr (err->message, path) && secs < 16 && left == 0;
  printf ("%s after %.1f s, %d thread(s) left behind: %s\n",
      ok ? "refused" : "FAILED", secs, left,
      s ? "decoded an image" : err ? err->message : "no error");
  g_free (path);
  fflush (stdout);
  _exit (ok ? 0 : 1);
}
