/* kconv: a template image on which GStreamer's decoder never finishes
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A damaged JPEG, found by fuzzing, on which Debian 12's jpegdec spins
 * without end.  Loading it must come back, within the decode's time limit,
 * with an error that names the file.  The stuck decoding thread stays
 * behind until the process ends, so this is a program of its own: GstCheck
 * waits for every streaming thread between tests.  Where no JPEG decoder is
 * installed the file is refused at once, which passes as well.
 */
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

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  gchar *path = g_strdup_printf ("%s/kconv-stalls-%d.jpg", g_get_tmp_dir (),
      (int) getpid ());
  if (!g_file_set_contents (path, (const gchar *) stalls, sizeof stalls,
          NULL))
    return 1;
  GError *err = NULL;
  const gint64 t0 = g_get_monotonic_time ();
  GstSample *s = kmatch_template_load_file (path, &err);
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  g_unlink (path);
  int ok = !s && err && strstr (err->message, path) && secs < 16;
  printf ("%s after %.1f s: %s\n", ok ? "refused" : "FAILED", secs,
      s ? "decoded an image" : err ? err->message : "no error");
  g_free (path);
  fflush (stdout);
  /* not exit (): a decoder thread may still be spinning */
  _exit (ok ? 0 : 1);
}
