/* kconv: libFuzzer target for template image files (template-location)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Any bytes as a file: either an RGBA sample of a sane size that packs
 * into grey and RGB templates, or NULL with an error that says what was
 * wrong.  The decode that kconv-template-decoder runs is run here
 * in-process, for speed (GStreamer's decoders are not instrumented: what
 * is checked is kconv's handling of what they give or refuse).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include "kmatch-template.h"
#include "kmatch-template-decode.h"

static gchar *path;

static void
remove_input_file (void)
{
  unlink (path);
}

int
LLVMFuzzerTestOneInput (const unsigned char *data, size_t size)
{
  if (!path) {
    gst_init (NULL, NULL);
    path = g_strdup_printf ("%s/kconv-fuzz-template-%d", g_get_tmp_dir (),
        (int) getpid ());
    atexit (remove_input_file);
  }
  if (!g_file_set_contents (path, (const gchar *) data, (gssize) size, NULL))
    abort ();
  GError *err = NULL;
  GstSample *s = gst_kmatch_template_decode (path, KMATCH_TEMPLATE_MAX_SIDE,
      KMATCH_TEMPLATE_MAX_SIDE, NULL, &err);
  if (!s) {
    if (!err || !err->message || !*err->message)
      abort ();
    g_error_free (err);
    return 0;
  }
  if (err)
    abort ();
  GstVideoInfo grey;
  gst_video_info_set_format (&grey, GST_VIDEO_FORMAT_GRAY8, 64, 64);
  for (gint channels = 1; channels <= 3; channels += 2) {
    gint w = 0, h = 0;
    guint8 *mask = NULL;
    guint8 *t = gst_kmatch_template_pack (s, &grey, channels, &w, &h, &mask);
    if (!t || w < 1 || h < 1)
      abort ();
    /* touch every byte: a short buffer shows as a read past the end */
    guint sum = 0;
    for (gsize i = 0; i < (gsize) w * h * channels; i++)
      sum += t[i];
    for (gsize i = 0; mask && i < (gsize) w * h; i++)
      sum += mask[i];
    (void) sum;
    g_free (t);
    g_free (mask);
  }
  gst_sample_unref (s);
  return 0;
}
