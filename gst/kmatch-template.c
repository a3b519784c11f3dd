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

GST_DEBUG_CATEGORY_STATIC (kmatch_template_debug);

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

/* The GStreamer settings of the application's environment that the
 * decoder needs to find the same decoders (and the registry that lists
 * them); every other GST_ variable (debug output, tracers, dumps, feature
 * ranks) stays with the application. */
static const gchar *const decoder_gst_env[] = {
  "GST_PLUGIN_PATH", "GST_PLUGIN_PATH_1_0", "GST_PLUGIN_SYSTEM_PATH",
  "GST_PLUGIN_SYSTEM_PATH_1_0", "GST_PLUGIN_SCANNER",
  "GST_PLUGIN_SCANNER_1_0", "GST_REGISTRY", "GST_REGISTRY_1_0",
  "GST_REGISTRY_UPDATE", NULL
};

static gchar **
decoder_environment (void)
{
  gchar **env = g_get_environ ();
  guint kept = 0;
  for (guint i = 0; env[i]; i++) {
    gchar *eq = strchr (env[i], '=');
    gboolean keep = !g_str_has_prefix (env[i], "GST_");
    for (guint k = 0; !keep && eq && decoder_gst_env[k]; k++)
      keep = strlen (decoder_gst_env[k]) == (gsize) (eq - env[i])
          && strncmp (env[i], decoder_gst_env[k], eq - env[i]) == 0;
    if (keep)
      env[kept++] = env[i];
    else
      g_free (env[i]);
  }
  env[kept] = NULL;
  return env;
}

static void
debug_init (void)
{
  static gsize done;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (kmatch_template_debug, "kpatternmatch-template",
        0, "kpatternmatch's template files and their decoder");
    g_once_init_leave (&done, 1);
  }
}

/* Room for the decoder's sentence when it refuses a file */
#define DECODER_SENTENCE_MAX 8192

/* How a decoder's run ended, as read_decoder saw it */
typedef enum
{
  DECODER_DONE,                 /* it closed its output */
  DECODER_STALLED,              /* the deadline passed */
  DECODER_TOO_MUCH,             /* it wrote more than it may */
} DecoderEnd;

/* What the decoder process said, read until it closes both pipes or the
 * deadline passes: its standard output (at most out_max bytes; more is
 * a lie, and stops the reading) and the start of its standard error (its
 * log). */
static DecoderEnd
read_decoder (gint out_fd, gint err_fd, gsize out_max, gint64 deadline,
    GByteArray * out, GString * err_text)
{
  struct pollfd fds[2] = { {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0} };
  guint8 chunk[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const gint64 left = deadline - g_get_monotonic_time ();
    if (left <= 0)
      return DECODER_STALLED;
    gint n = poll (fds, 2, (gint) MIN (left / 1000 + 1, G_MAXINT));
    if (n < 0 && errno != EINTR)
      return DECODER_STALLED;
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
          return DECODER_TOO_MUCH;
        g_byte_array_append (out, chunk, got);
      } else if (err_text->len < 4096) {
        g_string_append_len (err_text, (const gchar *) chunk, got);
      }
    }
  }
  return DECODER_DONE;
}

/* The first line of the decoder's output, when it starts with `tag` and a
 * space: the rest of the line (NUL-terminated, in the output's memory);
 * the bytes after the line in *after. */
static const gchar *
decoder_line (GByteArray * out, const gchar * tag, gsize * after)
{
  const gsize n = strlen (tag);
  if (out->len == 0)
    return NULL;
  const guint8 *eol = memchr (out->data, '\n', out->len);
  if (!eol || (gsize) (eol - out->data) < n + 1
      || memcmp (out->data, tag, n) != 0 || out->data[n] != ' ')
    return NULL;
  out->data[eol - out->data] = '\0';
  *after = (gsize) (eol - out->data) + 1;
  return (const gchar *) out->data + n + 1;
}

/* "W H" with nothing after, each 1 .. limit */
static gboolean
parse_size (const gchar * text, gint limit, gint * w, gint * h)
{
  gchar extra;
  return text && sscanf (text, "%d %d%c", w, h, &extra) == 2 && *w >= 1
      && *h >= 1 && *w <= limit && *h <= limit;
}

/* Runs the decoder on a file: `mode` "image" or "size", its standard
 * output in *out (up to out_max bytes).  FALSE and error set when it did
 * not end well, saying how: stalled, wrote too much, crashed, or the
 * sentence it gave (its standard error, a log, goes to the debug log). */
static gboolean
run_decoder (const gchar * mode, const gchar * path, gint max_width,
    gint max_height, gsize out_max, GByteArray * out, GError ** error)
{
  gchar *decoder = find_decoder (error);
  if (!decoder)
    return FALSE;
  debug_init ();
  gchar *mw = g_strdup_printf ("%d", max_width);
  gchar *mh = g_strdup_printf ("%d", max_height);
  /* the path last, taken as it is: the decoder parses no options */
  gchar *argv[] = { decoder, (gchar *) mode, mw, mh, (gchar *) path, NULL };
  gchar **env = decoder_environment ();
  GPid pid;
  gint out_fd, err_fd;
  gboolean spawned = g_spawn_async_with_pipes (NULL, argv, env,
      G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, &err_fd,
      error);
  g_strfreev (env);
  g_free (mw);
  g_free (mh);
  g_free (decoder);
  if (!spawned)
    return FALSE;

  /* the decode has its own limit; this one also covers a decoder that
   * does not even start */
  GString *err_text = g_string_new (NULL);
  const gint64 limit_s = (KMATCH_TEMPLATE_DECODE_TIMEOUT + 2 * GST_SECOND) /
      GST_SECOND;
  const gint64 t0 = g_get_monotonic_time ();
  DecoderEnd end = read_decoder (out_fd, err_fd, out_max,
      t0 + limit_s * G_USEC_PER_SEC, out, err_text);
  close (out_fd);
  close (err_fd);
  if (end != DECODER_DONE)
    kill (pid, SIGKILL);        /* stuck, or saying more than it should */
  gint status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR);
  g_spawn_close_pid (pid);
  const gdouble secs = (g_get_monotonic_time () - t0) / 1e6;
  if (err_text->len)
    GST_CAT_DEBUG (kmatch_template_debug, "the decoder's log for \"%s\":\n%s",
        path, err_text->str);
  g_string_free (err_text, TRUE);

  gsize after;
  const gchar *said;
  if (end == DECODER_STALLED)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": no image after %.0f s of "
        "decoding (a damaged file?); the decoder was stopped", path, secs);
  else if (end == DECODER_TOO_MUCH)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": the decoder wrote more than "
        "%" G_GSIZE_FORMAT " bytes, more than the image it may give (at most "
        "%dx%d); it was stopped after %.2f s", path, out_max, max_width,
        max_height, secs);
  else if (WIFSIGNALED (status))
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": the decoder crashed on "
        "it (%s)", path, g_strsignal (WTERMSIG (status)));
  else if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return TRUE;
  else if ((said = decoder_line (out, "KCONV-ERROR", &after)) && *said)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "%s", said);
  else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": the decoder gave no "
        "image (exit status %d)", path, WIFEXITED (status) ?
        WEXITSTATUS (status) : -1);
  return FALSE;
}

/* A file the decoder may be given: a regular file (a FIFO or a device
 * would hold it until the deadline). */
static gboolean
check_regular_file (const gchar * path, GError ** error)
{
  GStatBuf st;
  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode))
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "template image \"%s\" %s", path, g_file_test (path,
          G_FILE_TEST_EXISTS) ? "is not a regular file" : "does not exist");
  return FALSE;
}

gboolean
gst_kmatch_template_probe_file (const gchar * path, gint * width,
    gint * height, GError ** error)
{
  if (!check_regular_file (path, error))
    return FALSE;
  GByteArray *out = g_byte_array_new ();
  gboolean ok = run_decoder ("size", path, 1, 1, DECODER_SENTENCE_MAX, out,
      error);
  gsize after;
  if (ok && !parse_size (decoder_line (out, "KCONV-SIZE", &after), G_MAXINT,
          width, height)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not read the size of template image \"%s\": the decoder's "
        "answer was not a size", path);
    ok = FALSE;
  }
  g_byte_array_unref (out);
  if (ok && (*width > KMATCH_TEMPLATE_MAX_SIDE
          || *height > KMATCH_TEMPLATE_MAX_SIDE)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\" is %dx%d pixels: the largest template taken "
        "is %d a side", path, *width, *height, KMATCH_TEMPLATE_MAX_SIDE);
    ok = FALSE;
  }
  return ok;
}

/* The decoder's output as an RGBA sample: "KCONV-RGBA W H\n" and the
 * rows; NULL when it is not that. */
static GstSample *
parse_decoded (GByteArray * out, gint max_width, gint max_height)
{
  gint w = 0, h = 0;
  gsize header = 0;
  const gchar *size = decoder_line (out, "KCONV-RGBA", &header);
  if (!parse_size (size, MAX (max_width, max_height), &w, &h)
      || w > max_width || h > max_height
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
  if (!check_regular_file (path, error))
    return NULL;
  max_width = CLAMP (max_width, 1, KMATCH_TEMPLATE_MAX_SIDE);
  max_height = CLAMP (max_height, 1, KMATCH_TEMPLATE_MAX_SIDE);
  GByteArray *out = g_byte_array_new ();
  GstSample *sample = NULL;
  if (run_decoder ("image", path, max_width, max_height,
          MAX (DECODER_SENTENCE_MAX, 32 + (gsize) max_width * max_height * 4),
          out, error)
      && !(sample = parse_decoded (out, max_width, max_height)))
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not decode template image \"%s\": the decoder's answer was "
        "not an image of at most %dx%d", path, max_width, max_height);
  g_byte_array_unref (out);
  if (sample && !has_opaque_pixel (sample)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "template image \"%s\" is transparent everywhere (no pixel with "
        "alpha of 128 or more): it would match nothing", path);
    g_clear_pointer (&sample, gst_sample_unref);
  }
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
  GstSample *converted = gst_video_convert_sample (sample, rgb,
      KMATCH_TEMPLATE_DECODE_TIMEOUT, error);
  gst_caps_unref (rgb);
  GstSample *out = NULL;
  if (converted) {
    /* the sample as it was given rides along (gst_kmatch_template_given) */
    GstStructure *given = gst_structure_new ("kconv-template", "given",
        GST_TYPE_SAMPLE, sample, NULL);
    out = gst_sample_new (gst_sample_get_buffer (converted),
        gst_sample_get_caps (converted), NULL, given);
    gst_sample_unref (converted);
  }
  if (out && !has_opaque_pixel (out)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the template sample is transparent everywhere (no pixel with alpha "
        "of 128 or more): it would match nothing");
    g_clear_pointer (&out, gst_sample_unref);
  }
  return out;
}

GstSample *
gst_kmatch_template_given (GstSample * rgba)
{
  const GstStructure *info = gst_sample_get_info (rgba);
  const GValue *v = info ? gst_structure_get_value (info, "given") : NULL;
  return v && G_VALUE_HOLDS (v, GST_TYPE_SAMPLE) ? gst_value_get_sample (v) :
      NULL;
}
