/* kconv: template file names that are not what they seem
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A template file's name is a name, whatever it holds:
 *  - "--gst-plugin-load=/…/evil.so", with a file at that relative path:
 *    the decoder loads nothing (the library, loaded, would leave a marker
 *    file) and the file is refused as no image; without the file, as a
 *    missing one;
 *  - files really named "-x.png", "new\nline.png" and "a,b.png" (written
 *    "a\,b.png" in the list) load and are found.
 *   test-template-names EVIL_MODULE
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gst/video/video.h>
#include "unit/check.h"


/* Runs 2 frames of the ball through kpatternmatch with template-location
 * set to location; the error's text (debug part), or NULL, and how many
 * reports said found */
static gchar *
run (const gchar * location, guint * found)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=2 "
      "pattern=ball ! video/x-raw,format=GRAY8,width=64,height=48 ! "
      "kpatternmatch name=m backend=cpu ! fakesink", NULL);
  GstElement *m = gst_bin_get_by_name (GST_BIN (p), "m");
  g_object_set (m, "template-location", location, NULL);
  gst_object_unref (m);
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gchar *error = NULL;
  *found = 0;
  for (GstMessage * msg; (msg = gst_bus_timed_pop_filtered (bus,
              30 * GST_SECOND, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR |
              GST_MESSAGE_EOS));) {
    const GstMessageType t = GST_MESSAGE_TYPE (msg);
    gboolean f = FALSE;
    if (t == GST_MESSAGE_ERROR) {
      GError *err;
      gst_message_parse_error (msg, &err, &error);
      g_error_free (err);
    } else if (t == GST_MESSAGE_ELEMENT
        && gst_structure_get_boolean (gst_message_get_structure (msg),
            "found", &f)) {
      *found += f;
    }
    gst_message_unref (msg);
    if (t != GST_MESSAGE_ELEMENT)
      break;
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return error;
}

/* The ball's first frame, 16x16 at its top-left corner, as a PNG */
static void
write_template (const gchar * path)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=1 pattern=ball "
      "! video/x-raw,format=GRAY8,width=64,height=48 ! videocrop right=48 "
      "bottom=32 ! pngenc ! filesink name=out", NULL);
  GstElement *out = gst_bin_get_by_name (GST_BIN (p), "out");
  g_object_set (out, "location", path, NULL);
  gst_object_unref (out);
  GstBus *bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (!m || GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS)
    g_error ("could not write %s", path);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
}

/* Removes path and, if it is a folder (not a link to one), everything
 * under it */
static void
remove_tree (const gchar * path)
{
  GDir *d = g_file_test (path, G_FILE_TEST_IS_SYMLINK) ? NULL
      : g_dir_open (path, 0, NULL);
  if (d) {
    for (const gchar * name; (name = g_dir_read_name (d));) {
      gchar *child = g_build_filename (path, name, NULL);
      remove_tree (child);
      g_free (child);
    }
    g_dir_close (d);
  }
  g_remove (path);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc != 2)
    g_error ("usage: test-template-names EVIL_MODULE");
  gchar *module = g_canonicalize_filename (argv[1], NULL);
  gchar *dir = g_dir_make_tmp ("kconv-names-XXXXXX", NULL);
  if (!dir || chdir (dir) != 0)
    g_error ("no temporary folder");
  gchar *marker = g_build_filename (dir, "loaded", NULL);
  g_setenv ("KCONV_EVIL_MARKER", marker, TRUE);

  /* the library at an absolute path, and a file at the relative path the
   * option spells */
  gchar *evil = g_build_filename (dir, "evil.so", NULL);
  gchar *bytes;
  gsize len;
  if (!g_file_get_contents (module, &bytes, &len, NULL)
      || !g_file_set_contents (evil, bytes, len, NULL))
    g_error ("could not copy %s", module);
  gchar *option = g_strconcat ("--gst-plugin-load=", evil, NULL);
  guint found;
  gchar *error = run (option, &found);
  REPORT (!g_file_test (marker, G_FILE_TEST_EXISTS) && error
      && strstr (error, "does not exist"), "%s, no such file: %s", option,
      error ? error : "no error");
  g_free (error);
  gchar *folder = g_path_get_dirname (option);
  g_mkdir_with_parents (folder, 0700);
  g_file_set_contents (option, bytes, len, NULL);
  error = run (option, &found);
  REPORT (!g_file_test (marker, G_FILE_TEST_EXISTS) && error
      && strstr (error, option), "%s, a file there: nothing loaded, %s",
      option, error ? error : "no error");
  g_free (error);
  g_free (folder);
  g_free (bytes);

  const gchar *names[] = { "-x.png", "new\nline.png", "a,b.png" };
  const gchar *listed[] = { "-x.png", "new\nline.png", "a\\,b.png" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    write_template (names[i]);
    error = run (listed[i], &found);
    gchar *shown = g_strescape (listed[i], NULL);
    REPORT (!error && found == 2, "\"%s\": %s, found in %u of 2 frames",
        shown, error ? error : "loaded", found);
    g_free (shown);
    g_free (error);
    g_unlink (names[i]);
  }
  if (chdir ("/") != 0)
    g_error ("could not leave %s", dir);
  remove_tree (dir);
  return check_summary ();
}
