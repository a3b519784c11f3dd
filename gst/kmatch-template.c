/* GStreamer kconv plugin: templates for kpatternmatch
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Template images are decoded by GStreamer itself, in a process of its own
 * (kconv-template-decoder), so that a decoder that spins, crashes or eats
 * memory on a damaged file is stopped without harm to the application,
 * and turned into the samples the matcher compares: luma made the way the
 * frames' luma is, or RGB.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "kmatch-template.h"
#include "kmatch-template-decode.h"
#include "kmatch.h"

/* Where the decoder program is looked for first (the plugin's own
 * folder, in a build tree); then KCONV_LIBEXECDIR, where it is installed. */
static gchar *decoder_dir;

void
gst_kmatch_template_set_decoder_dir (const gchar * dir)
{
  gchar *old = decoder_dir;
  decoder_dir = g_strdup (dir);
  g_free (old);
}

static gchar *
find_decoder (GError ** error)
{
  const gchar *dirs[] = { decoder_dir, KCONV_LIBEXECDIR };
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++) {
    if (!dirs[i])
      continue;
    gchar *path = g_build_filename (dirs[i], "kconv-template-decoder", NULL);
    if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE))
      return path;
    g_free (path);
  }
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
      "kconv-template-decoder, which decodes template images, is not in %s%s%s:"
      " the kconv installation is incomplete", decoder_dir ? decoder_dir : "",
      decoder_dir ? " or " : "", KCONV_LIBEXECDIR);
  return NULL;
}

/* Whether an RGBA sample has a pixel that counts (alpha 128 and up). */
static gboolean
has_opaque_pixel (GstSample * rgba)
{
  GstVideoInfo info;
  GstVideoFrame f;
  gboolean any = FALSE;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba))
      || !gst_video_frame_map (&f, &info, gst_sample_get_buffer (rgba),
          GST_MAP_READ))
    return FALSE;
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info) && !any; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH (&info) && !any; x++)
      any = row[4 * x + 3] >= 128;
  }
  gst_video_frame_unmap (&f);
  return any;
}

/* What the decoder process said, read until it closes both pipes or the
 * deadline passes: its standard output (at most out_max bytes; more is
 * a lie, and stops the reading) and the start of its standard error. */
static gboolean
read_decoder (gint out_fd, gint err_fd, gsize out_max, gint64 deadline,
    GByteArray * out, GString * err_text)
{
  struct pollfd fds[2] = { {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0} };
  guint8 chunk[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0)
      return FALSE;
    gint n = poll (fds, 2, (gint) MIN (left / 1000 + 1, G_MAXINT));
    if (n < 0 && errno != EINTR)
      return FALSE;
    for (gint i = 0; i < 2 && n > 0; i++) {
      if (fds[i].fd < 0 || !fds[i].revents)
        continue;
      gssize got = read (fds[i].fd, chunk, sizeof chunk);
      if (got < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (got <= 0) {
        fds[i].fd = -1;         /* closed: poll skips negative fds */
      } else if (i == 0) {
        if (out->len + (gsize) got > out_max)
          return FALSE;
        g_byte_array_append (out, chunk, got);
      } else if (err_text->len < 4096) {
        g_string_append_len (err_text, (const gchar *) chunk, got);
      }
    }
  }
  return TRUE;
}

/* The decoder's output as an RGBA sample: "KCONV-RGBA W H\n" and the
 * rows; NULL when it is not that. */
static GstSample *
parse_decoded (GByteArray * out, gint max_width, gint max_height)
{
  gint w = 0, h = 0;
  gchar head[64] = { 0 };
  memcpy (head, out->data, MIN (out->len, sizeof head - 1));
  const gchar *eol = strchr (head, '\n');       /* pixels follow it */
  const gsize header = eol ? (gsize) (eol - head) + 1 : 0;
  gchar extra;
  if (!eol || sscanf (head, "KCONV-RGBA %d %d%c", &w, &h, &extra) != 3
      || extra != '\n' || w < 1 || h < 1 || w > max_width || h > max_height
      || out->len != header + (gsize) w * h * 4)
    return NULL;
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, w, h);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, (gsize) w * h * 4, NULL);
  gst_buffer_fill (buf, 0, out->data + header, (gsize) w * h * 4);
  GstCaps *caps = gst_video_info_to_caps (&info);       /* rows of w * 4 */
  GstSample *sample = gst_sample_new (buf, caps, NULL, NULL);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
  return sample;
}

GstSample *
gst_kmatch_template_load_file (const gchar * path, gint max_width,
    gint max_height, GError ** error)
{
  /* a FIFO or a device would hold the decoder until the deadline */
  GStatBuf st;
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "template image \"%s\" %s", path, g_file_test (path,
            G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
    return NULL;
  }
  max_width = CLAMP (max_width, 1, KMATCH_TEMPLATE_MAX_SIDE);
  max_height = CLAMP (max_height, 1, KMATCH_TEMPLATE_MAX_SIDE);
  gchar *decoder = find_decoder (error);
  if (!decoder)
    return NULL;
  gchar *mw = g_strdup_printf ("%d", max_width);
  gchar *mh = g_strdup_printf ("%d", max_height);
  gchar *argv[] = { decoder, (gchar *) path, mw, mh, NULL };
  GPid pid;
  gint out_fd, err_fd;
  gboolean spawned = g_spawn_async_with_pipes (NULL, argv, NULL,
      G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, &err_fd,
      error);
  g_free (mw);
  g_free (mh);
  g_free (decoder);
  if (!spawned)
    return NULL;

  /* the decode has its own limit; this one also covers a decoder that
   * does not even start */
  GByteArray *out = g_byte_array_new ();
  GString *err_text = g_string_new (NULL);
  const gint64 deadline = g_get_monotonic_time () +
      (KMATCH_TEMPLATE_DECODE_TIMEOUT + 2 * GST_SECOND) / GST_USECOND;
  gboolean finished = read_decoder (out_fd, err_fd, 32 +
      (gsize) max_width * max_height * 4, deadline, out, err_text);
  close (out_fd);
  close (err_fd);
  if (!finished)
    kill (pid, SIGKILL);        /* stuck, or saying more than it should */
  gint status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR);
  g_spawn_close_pid (pid);

  GstSample *sample = NULL;
  if (finished && WIFEXITED (status) && WEXITSTATUS (status) == 0)
    sample = parse_decoded (out, max_width, max_height);
  if (sample && !has_opaque_pixel (sample)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\" is transparent everywhere (no pixel with "
        "alpha of 128 or more): it would match nothing", path);
    g_clear_pointer (&sample, gst_sample_unref);
  } else if (!sample) {
    g_strstrip (err_text->str);
    if (!finished)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "could not decode template image \"%s\": no image after %d s of "
          "decoding (a damaged file?); the decoder was stopped", path,
          (gint) ((KMATCH_TEMPLATE_DECODE_TIMEOUT + 2 * GST_SECOND) /
              GST_SECOND));
    else if (WIFSIGNALED (status))
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "could not decode template image \"%s\": the decoder crashed on "
          "it (%s)", path, g_strsignal (WTERMSIG (status)));
    else if (WIFEXITED (status) && WEXITSTATUS (status) == 2 && *err_text->str)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "%s", err_text->str);
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "could not decode template image \"%s\": the decoder gave no "
          "image", path);
  }
  g_byte_array_unref (out);
  g_string_free (err_text, TRUE);
  return sample;
}

GstSample *
gst_kmatch_template_to_rgba (GstSample * sample, gint max_width,
    gint max_height, GError ** error)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample's caps are not raw video");
    return NULL;
  }
  max_width = CLAMP (max_width, 1, KMATCH_TEMPLATE_MAX_SIDE);
  max_height = CLAMP (max_height, 1, KMATCH_TEMPLATE_MAX_SIDE);
  if (GST_VIDEO_INFO_WIDTH (&info) > max_width
      || GST_VIDEO_INFO_HEIGHT (&info) > max_height) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample is %dx%d pixels: the largest template taken "
        "here is %dx%d (no larger than the frames, and at most %d a side)",
        GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info),
        max_width, max_height, KMATCH_TEMPLATE_MAX_SIDE);
    return NULL;
  }
  GstCaps *rgb = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      "RGBA", NULL);
  GstSample *out = gst_video_convert_sample (sample, rgb,
      KMATCH_TEMPLATE_DECODE_TIMEOUT, error);
  gst_caps_unref (rgb);
  if (out && !has_opaque_pixel (out)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample is transparent everywhere (no pixel with alpha "
        "of 128 or more): it would match nothing");
    g_clear_pointer (&out, gst_sample_unref);
  }
  return out;
}

guint8
gst_kmatch_luma (const GstVideoFormatInfo * frame_format, guint8 r, guint8 g,
    guint8 b)
{
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (frame_format))
    return (guint8) (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
  return kmatch_rgb_luma (r, g, b);
}

guint8 *
gst_kmatch_template_pack (GstSample * rgba, const GstVideoFormatInfo *
    frame_format, gint channels, gint * width, gint * height, guint8 ** mask)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  *mask = NULL;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba))
      || !gst_video_frame_map (&frame, &info, gst_sample_get_buffer (rgba),
          GST_MAP_READ))
    return NULL;
  const gint w = GST_VIDEO_INFO_WIDTH (&info), h =
      GST_VIDEO_INFO_HEIGHT (&info);
  guint8 *out = g_malloc ((gsize) w * h * channels);
  guint8 *m = g_malloc ((gsize) w * h);
  gboolean transparent = FALSE;
  for (gint y = 0; y < h; y++) {
    const guint8 *s = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    guint8 *d = out + (gsize) y * w * channels;
    for (gint x = 0; x < w; x++, s += 4) {
      if (channels == 3) {
        d[3 * x] = s[0];
        d[3 * x + 1] = s[1];
        d[3 * x + 2] = s[2];
      } else {
        d[x] = gst_kmatch_luma (frame_format, s[0], s[1], s[2]);
      }
      m[(gsize) y * w + x] = s[3] >= 128;
      transparent |= s[3] < 128;
    }
  }
  gst_video_frame_unmap (&frame);
  if (transparent)
    *mask = m;
  else
    g_free (m);
  *width = w;
  *height = h;
  return out;
}
