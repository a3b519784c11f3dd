/* kconv-template-decoder: decodes a template image for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Run by the plugin, one process per file, so that a decoder that spins,
 * crashes or eats memory on a damaged file takes only this process with
 * it.
 *   kconv-template-decoder image MAX_WIDTH MAX_HEIGHT FILE
 *     writes "KCONV-RGBA <width> <height>\n" and the rows of RGBA pixels,
 *     tightly packed, to standard output and exits 0;
 *   kconv-template-decoder size 1 1 FILE
 *     writes "KCONV-SIZE <width> <height>\n" (as the decoder reports it,
 *     before it makes a frame) and exits 0;
 * or writes "KCONV-ERROR <a sentence saying why not>\n" and exits 2.
 * Standard error is a log.  No argument is an option: GStreamer is
 * started without them, and FILE is a name whatever it begins with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/video/video.h>
#include "kmatch-template-decode.h"

static int
refuse (const gchar * why)
{
  /* one line: a newline in a file's name must not end it */
  gchar *line = g_strdelimit (g_strdup (why), "\n\r", ' ');
  printf ("KCONV-ERROR %s\n", line);
  g_free (line);
  fflush (stdout);
  _exit (2);                    /* a stuck decoder thread may still run */
}

static int
write_image (GstSample * sample, const gchar * path)
{
  GstVideoInfo info;
  GstVideoFrame f;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    gchar *why = g_strdup_printf ("template image \"%s\": the decoder's "
        "output could not be read", path);
    return refuse (why);
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

/* size: the answer is known before any frame is made; the process ends
 * there, decoding nothing */
static void
say_size (gint width, gint height)
{
  printf ("KCONV-SIZE %d %d\n", width, height);
  fflush (stdout);
  _exit (0);
}

int
main (int argc, char **argv)
{
  gst_init (NULL, NULL);
  const gboolean size_only = argc == 5 && strcmp (argv[1], "size") == 0;
  if (argc != 5 || (!size_only && strcmp (argv[1], "image") != 0)
      || atoi (argv[2]) < 1 || atoi (argv[3]) < 1)
    return refuse ("usage: kconv-template-decoder image|size MAX_WIDTH "
        "MAX_HEIGHT FILE");
  const gchar *path = argv[4];
  GError *err = NULL;
  GstSample *sample = gst_kmatch_template_decode (path, atoi (argv[2]),
      atoi (argv[3]), size_only ? say_size : NULL, &err);
  if (!sample)
    return refuse (err ? err->message : "no image");
  return write_image (sample, path);
}
