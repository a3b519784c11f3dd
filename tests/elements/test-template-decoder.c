/* kconv: what the plugin says when the template decoder misbehaves
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The loader runs stand-in decoders (shell scripts in a folder of their
 * own) that do what a broken or hostile decoder might, and the real one
 * on a damaged file:
 *  - writes far more than the image it may give: stopped at once, and
 *    the refusal says so (not "no image after 12 s");
 *  - logs GLib CRITICAL lines and refuses: the refusal is its sentence,
 *    the log is not in it;
 *  - exits without a sentence: "gave no image", not its log;
 *  - the real decoder on tests/fuzz/corpus-template/t6-huge.png (GStreamer
 *    logs CRITICALs on it): a sentence of ours naming the file.
 *   test-template-decoder REAL_DECODER_DIR CORPUS_DIR
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include "kmatch-template.h"
#include "unit/check.h"


/* Loads path with the decoder in dir; the refusal's text (or "") */
static gchar *
load (const gchar * dir, const gchar * path, gdouble * secs)
{
  gst_kmatch_template_set_decoder_dir (dir);
  GError *err = NULL;
  const gint64 t0 = g_get_monotonic_time ();
  GstSample *s = gst_kmatch_template_load_file (path, 64, 64, &err);
  *secs = (g_get_monotonic_time () - t0) / 1e6;
  if (s)
    gst_sample_unref (s);
  gchar *text = g_strdup (err ? err->message : "");
  g_clear_error (&err);
  return text;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc != 3)
    g_error ("usage: test-template-decoder REAL_DECODER_DIR CORPUS_DIR");
  gchar *dir = g_dir_make_tmp ("kconv-decoder-XXXXXX", NULL);
  gchar *script = g_build_filename (dir, "kconv-template-decoder", NULL);
  gchar *image = g_build_filename (dir, "t.png", NULL);
  g_file_set_contents (image, "any", -1, NULL);
  const gchar *critical = "(kconv-template-decoder:1): GStreamer-CRITICAL "
      "**: gst_caps_is_equal: assertion 'GST_IS_CAPS (caps1)' failed";
  struct
  {
    const gchar *what, *body, *want, *not_want;
  } cases[] = {
    {"writes too much", "printf 'KCONV-RGBA 1 1\\n'; head -c 50000000 "
          "/dev/zero", "wrote more than", "after 1"},
    {"logs CRITICALs, then refuses", "echo \"$C\" >&2; echo 'KCONV-ERROR "
          "the file is odd'; exit 2", "the file is odd", "CRITICAL"},
    {"exits without a sentence", "echo \"$C\" >&2; exit 2",
        "gave no image (exit status 2)", "CRITICAL"},
  };
  g_setenv ("C", critical, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *text = g_strdup_printf ("#!/bin/sh\n%s\n", cases[i].body);
    g_file_set_contents (script, text, -1, NULL);
    g_chmod (script, 0700);
    g_free (text);
    gdouble secs;
    gchar *said = load (dir, image, &secs);
    REPORT (strstr (said, cases[i].want) && !strstr (said, cases[i].not_want)
        && secs < 5, "%s (%.2f s): %s", cases[i].what, secs, said);
    g_free (said);
  }
  gchar *huge = g_build_filename (argv[2], "t6-huge.png", NULL);
  gdouble secs;
  gchar *said = load (argv[1], huge, &secs);
  REPORT (g_str_has_prefix (said, "could not decode template image")
      && strstr (said, huge) && !strstr (said, "CRITICAL"),
      "t6-huge.png (%.2f s): %s", secs, said);
  g_free (said);
  g_free (huge);
  g_unlink (script);
  g_unlink (image);
  g_rmdir (dir);
  return check_summary ();
}
