/* kconv-template-decoder: decodes a template image for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Run by the plugin, one process per file, so that a decoder that spins,
 * crashes or eats memory on a damaged file takes only this process with
 * it.  Writes "KCONV-RGBA <width> <height>\n" and the rows of RGBA pixels,
 * tightly packed, to standard output and exits 0; or a sentence saying why
 * not to standard error and exits 2.
 *   kconv-template-decoder FILE MAX_WIDTH MAX_HEIGHT
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <gst/video/video.h>
#include "kmatch-template-decode.h"

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc != 4 || atoi (argv[2]) < 1 || atoi (argv[3]) < 1) {
    fprintf (stderr, "usage: %s FILE MAX_WIDTH MAX_HEIGHT\n", argv[0]);
    return 2;
  }
  GError *err = NULL;
  GstSample *sample = gst_kmatch_template_decode (argv[1], atoi (argv[2]),
      atoi (argv[3]), &err);
  GstVideoInfo info;
  GstVideoFrame f;
  if (sample && (!gst_video_info_from_caps (&info, gst_sample_get_caps
              (sample)) || !gst_video_frame_map (&f, &info,
              gst_sample_get_buffer (sample), GST_MAP_READ))) {
    g_set_error (&err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\": the decoder's output could not be read",
        argv[1]);
    g_clear_pointer (&sample, gst_sample_unref);
  }
  if (!sample) {
    fprintf (stderr, "%s", err ? err->message : "no image");
    fflush (stderr);
    _exit (2);                  /* a stuck decoder thread may still run */
  }
  const gint w = GST_VIDEO_INFO_WIDTH (&info), h =
      GST_VIDEO_INFO_HEIGHT (&info);
  gboolean ok = printf ("KCONV-RGBA %d %d\n", w, h) > 0;
  for (gint y = 0; y < h && ok; y++)
    ok = fwrite ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0), 4, w, stdout) ==
        (size_t) w;
  ok = ok && fflush (stdout) == 0;
  _exit (ok ? 0 : 3);
}
