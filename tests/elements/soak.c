/* kconv: a long run through an element, its properties and caps changing
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   soak [--element kconvfilter|kpatternmatch] [--frames N]
 *        [--backend auto|cpu|cuda] [--pipelines K] [--rss-bound MB]
 *        [--property-every N] [--caps-every N] [--exact]
 *
 * appsrc ! queue ! ELEMENT ! appsink, K such pipelines in one process, each
 * fed the same frames from its own thread.  Every 250 frames (by default)
 * the element's properties change (kernel, size, border, matrix, frames in
 * flight, backend; template, regions, matches, drawing, what is matched),
 * and every 2500 the caps (size and format).  The changes are made by a probe on the
 * element's sink pad when the frame with that number arrives, so every
 * pipeline applies them to the same frame and all must give the same output.
 * Checked: every frame comes out once, in order, with its timestamp;
 * kpatternmatch posts one message a frame; no error on the bus; the
 * pipelines' outputs (and messages) hash the same; the resident memory grows
 * by at most --rss-bound MB (default 16) from the first tenth of the run to
 * its end.  Exit status 0 when all hold.  --exact makes every kernel exact
 * (gaussians become boxes), for comparing outputs across backends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#define FRAME_NS 33333333

/* AddressSanitizer keeps freed memory in quarantine: resident memory says
 * nothing about leaks there (its leak check does) */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif

typedef struct
{
  const char *format;
  int width, height;
} Shape;

static const Shape filter_shapes[] = {
  {"RGBA", 320, 240}, {"I420", 256, 144}, {"YUY2", 320, 240},
  {"GRAY8", 199, 151}, {"NV12", 160, 120},
};

static const Shape match_shapes[] = {
  {"GRAY8", 320, 240}, {"RGBA", 256, 144}, {"I420", 320, 240},
  {"NV12", 199, 151}, {"YUY2", 240, 180},
};

/* property changes, as gst_util_set_object_arg name=value pairs */
static const char *filter_steps[] = {
  "kernel=edge", "kernel=gaussian kernel-size=5", "border=reflect",
  "matrix=1 2 1;2 4 2;1 2 1 divisor=16", "frames-in-flight=3",
  "kernel=box kernel-size=9 border=wrap", "backend=cpu",
  "kernel=sharpen frames-in-flight=1", "kernel=gaussian kernel-size=15 "
      "sigma=2.5", "backend=@", "border=replicate planes=all",
  "kernel=emboss frames-in-flight=2", "kernel=identity planes=luma",
};

static const char *match_steps[] = {
  "template-region=40,30,32,24", "search-region=0,0,160,120",
  "search-radius=24 frames-in-flight=4", "max-matches=3 draw=true",
  "backend=cpu frames-in-flight=1",
  "template-region=10,10,24,24 search-region=", "match-on=color",
  "threshold=0.2 search-radius=0", "backend=@ draw=false max-matches=1",
  "match-on=luma threshold=1.0 frames-in-flight=3",
};

typedef struct
{
  GstElement *pipeline, *src, *element;
  int index;
  guint64 in, out, messages;
  guint64 hash;                 /* of the output, in order */
  guint64 msg_hash;             /* of kpatternmatch's messages, in order */
  guint8 *reported;             /* frames kpatternmatch posted a message for */
  guint64 *frame_hash;          /* each frame's output and message */
  int bad_ts, errors, warnings;
  GThread *feeder;
} Run;

static const char *element_name = "kconvfilter";
static const char *backend = "auto";
static int n_frames = 20000;
static int n_pipelines = 1;
/* --exact: gaussians replaced by boxes of their size, so that every kernel
 * is exact and runs on different backends compare bit for bit (inexact
 * kernels agree only within 1) */
static gboolean exact_only;
static guint64 property_every = 250, caps_every = 2500;
static int is_match;
static long rss_tenth, rss_half;

static long
rss_kib (void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");
  if (f) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static guint64
fnv (guint64 h, const void *data, gsize n)
{
  const guint8 *p = data;
  for (gsize i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static const Shape *
shape_of (guint64 frame)
{
  const Shape *shapes = is_match ? match_shapes : filter_shapes;
  const size_t n = is_match ? G_N_ELEMENTS (match_shapes) :
      G_N_ELEMENTS (filter_shapes);
  return &shapes[(frame / caps_every) % n];
}

/* The step's properties, applied to the frame that starts it. */
static GstPadProbeReturn
apply_schedule (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run *r = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const guint64 i = GST_BUFFER_OFFSET (buf);
  if (i == 0 || i % property_every)
    return GST_PAD_PROBE_OK;
  const char **steps = is_match ? match_steps : filter_steps;
  const size_t n = is_match ? G_N_ELEMENTS (match_steps) :
      G_N_ELEMENTS (filter_steps);
  const char *step = steps[(i / property_every - 1) % n];
  /* name=value pairs; a value runs to the next " name=" */
  gchar **words = g_strsplit (step, " ", -1);
  GString *value = g_string_new (NULL);
  const char *name = NULL;
  for (int w = 0;; w++) {
    const char *eq = words[w] ? strchr (words[w], '=') : NULL;
    if (!words[w] || eq) {
      if (name) {
        gchar *v = g_strcmp0 (value->str, "@") ? g_strdup (value->str) :
            g_strdup (backend);
        if (exact_only && !strcmp (name, "kernel") && !strcmp (v, "gaussian")) {
          g_free (v);
          v = g_strdup ("box");
        }
        gst_util_set_object_arg (G_OBJECT (r->element), name, v);
        g_free (v);
      }
      if (!words[w])
        break;
      g_free ((gchar *) name);
      name = g_strndup (words[w], eq - words[w]);
      g_string_assign (value, eq + 1);
    } else {
      g_string_append_printf (value, " %s", words[w]);
    }
  }
  g_free ((gchar *) name);
  g_string_free (value, TRUE);
  g_strfreev (words);
  return GST_PAD_PROBE_OK;
}

static GstFlowReturn
new_sample (GstAppSink * sink, gpointer data)
{
  Run *r = data;
  GstSample *s = gst_app_sink_pull_sample (sink);
  GstBuffer *buf = gst_sample_get_buffer (s);
  if (GST_BUFFER_PTS (buf) != r->out * FRAME_NS
      || GST_BUFFER_DURATION (buf) != FRAME_NS) {
    if (r->bad_ts++ < 5)
      g_printerr ("pipeline %d: frame %" G_GUINT64_FORMAT " came out with "
          "timestamp %" GST_TIME_FORMAT " (expected %" GST_TIME_FORMAT ")\n",
          r->index, r->out, GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
          GST_TIME_ARGS (r->out * FRAME_NS));
  }
  /* the visible pixels only: row padding is not the element's to write */
  GstVideoInfo info;
  GstVideoFrame f;
  guint64 h = 1469598103934665603ull;
  if (gst_video_info_from_caps (&info, gst_sample_get_caps (s))
      && gst_video_frame_map (&f, &info, buf, GST_MAP_READ)) {
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
      const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
      const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
      const guint comp = p == 0 ? 0 : MIN (p,
          GST_VIDEO_FRAME_N_COMPONENTS (&f) - 1);
      const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp);
      const gint bytes = p == 0 || GST_VIDEO_FRAME_N_PLANES (&f) > 1 ?
          GST_VIDEO_FRAME_COMP_WIDTH (&f, comp) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp) : stride;
      for (gint y = 0; y < rows; y++)
        h = fnv (h, d + (gsize) y * stride, bytes);
    }
    gst_video_frame_unmap (&f);
  }
  r->hash = fnv (r->hash, &h, sizeof h);
  if (r->out < (guint64) n_frames)
    r->frame_hash[r->out] ^= h;
  __atomic_add_fetch (&r->out, 1, __ATOMIC_RELAXED);    /* read by finish */
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * m, gpointer data)
{
  Run *r = data;
  const GstStructure *st = gst_message_get_structure (m);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT && st
      && gst_structure_has_name (st, "kpatternmatch")) {
    gint xy[2] = { 0, 0 };
    guint64 ts = 0;
    gst_structure_get (st, "x", G_TYPE_INT, &xy[0], "y", G_TYPE_INT, &xy[1],
        "timestamp", G_TYPE_UINT64, &ts, NULL);
    r->msg_hash = fnv (fnv (r->msg_hash, xy, sizeof xy), &ts, sizeof ts);
    if (ts / FRAME_NS < (guint64) n_frames)
      r->frame_hash[ts / FRAME_NS] += (guint64) (xy[0] + 1) * 65599 + xy[1];
    r->messages++;
    if (ts / FRAME_NS < (guint64) n_frames)
      r->reported[ts / FRAME_NS] = 1;
    gst_message_unref (m);      /* dropped: ours to release */
    return GST_BUS_DROP;
  }
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING && r->warnings++ < 5) {
    GError *e;
    gst_message_parse_warning (m, &e, NULL);
    g_printerr ("pipeline %d: warning: %s\n", r->index, e->message);
    g_error_free (e);
  }
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e;
    gchar *dbg;
    gst_message_parse_error (m, &e, &dbg);
    g_printerr ("pipeline %d: error: %s (%s)\n", r->index, e->message,
        dbg ? dbg : "");
    g_error_free (e);
    g_free (dbg);
    r->errors++;
  }
  return GST_BUS_PASS;
}

/* Frame i: a gradient that drifts and a textured patch that moves. */
static GstBuffer *
make_frame (guint64 i, GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstVideoFrame f;
  gst_video_frame_map (&f, info, buf, GST_MAP_WRITE);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
    const int rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f, p == 0 ? 0 :
        MIN (p, GST_VIDEO_FRAME_N_COMPONENTS (&f) - 1));
    for (int y = 0; y < rows; y++)
      for (int x = 0; x < stride; x++)
        d[y * stride + x] = (guint8) (x + 2 * y + i);
  }
  /* the patch, in the first plane's bytes */
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  const int pw = 48 * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0), ph = 36;
  const int w = GST_VIDEO_FRAME_WIDTH (&f) * GST_VIDEO_FRAME_COMP_PSTRIDE (&f,
      0), h = GST_VIDEO_FRAME_HEIGHT (&f);
  const int px = (int) ((i * 3) % (guint64) (w - pw)), py =
      (int) ((i * 2) % (guint64) (h - ph));
  for (int y = 0; y < ph; y++)
    for (int x = 0; x < pw; x++)
      d[(py + y) * stride + px + x] = (guint8) ((x * 37) ^ (y * 91));
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  GST_BUFFER_OFFSET (buf) = i;
  return buf;
}

static gpointer
feed (gpointer data)
{
  Run *r = data;
  GstVideoInfo info;
  const Shape *current = NULL;
  for (guint64 i = 0; i < (guint64) n_frames; i++) {
    const Shape *s = shape_of (i);
    if (s != current) {
      GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
          G_TYPE_STRING, s->format, "width", G_TYPE_INT, s->width,
          "height", G_TYPE_INT, s->height, "framerate", GST_TYPE_FRACTION,
          30, 1, NULL);
      gst_video_info_from_caps (&info, caps);
      gst_app_src_set_caps (GST_APP_SRC (r->src), caps);
      gst_caps_unref (caps);
      current = s;
    }
    if (gst_app_src_push_buffer (GST_APP_SRC (r->src),
            make_frame (i, &info)) != GST_FLOW_OK)
      break;
    r->in++;
    if (r->index == 0 && i == (guint64) n_frames / 10)
      rss_tenth = rss_kib ();
    if (r->index == 0 && i == (guint64) n_frames / 2)
      rss_half = rss_kib ();
  }
  gst_app_src_end_of_stream (GST_APP_SRC (r->src));
  return NULL;
}

static int
start (Run * r, int index)
{
  memset (r, 0, sizeof *r);
  r->index = index;
  r->hash = r->msg_hash = 1469598103934665603ull;
  r->reported = g_malloc0 (n_frames);
  r->frame_hash = g_new0 (guint64, n_frames);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-bytes=2000000 ! queue max-size-buffers=4 ! %s name=el backend=%s%s"
      " ! appsink name=sink sync=false max-buffers=4", element_name, backend,
      is_match ? " template-region=40,30,32,24" : " kernel=edge");
  GError *err = NULL;
  r->pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!r->pipeline) {
    g_printerr ("cannot build the pipeline: %s\n", err->message);
    g_error_free (err);
    return -1;
  }
  r->src = gst_bin_get_by_name (GST_BIN (r->pipeline), "src");
  r->element = gst_bin_get_by_name (GST_BIN (r->pipeline), "el");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "sink");
  GstAppSinkCallbacks cb = { NULL, NULL, new_sample };
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, r, NULL);
  gst_object_unref (sink);
  GstPad *pad = gst_element_get_static_pad (r->element, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, apply_schedule, r, NULL);
  gst_object_unref (pad);
  GstBus *bus = gst_element_get_bus (r->pipeline);
  gst_bus_set_sync_handler (bus, on_message, r, NULL);
  gst_object_unref (bus);
  if (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("pipeline %d does not start\n", index);
    return -1;
  }
  r->feeder = g_thread_new ("feed", feed, r);
  return 0;
}

/* Waits for EOS (or an error) and stops the pipeline.  The bus is watched
 * before the feeder is joined: after an error nothing drains appsrc, whose
 * push blocks until the pipeline is stopped.  Two minutes without a frame
 * coming out is a stall. */
static void
finish (Run * r)
{
  GstBus *bus = gst_element_get_bus (r->pipeline);
  GstMessage *m = NULL;
  guint64 seen = G_MAXUINT64;
  gint64 last_progress = g_get_monotonic_time ();
  while (!m) {
    m = gst_bus_timed_pop_filtered (bus, GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    const guint64 out = __atomic_load_n (&r->out, __ATOMIC_RELAXED);
    if (out != seen) {
      seen = out;
      last_progress = g_get_monotonic_time ();
    } else if (!m && g_get_monotonic_time () - last_progress >
        120 * G_TIME_SPAN_SECOND) {
      break;
    }
  }
  if (!m) {
    g_printerr ("pipeline %d: no frame out and no EOS for 120 s\n", r->index);
    r->errors++;
  } else {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      r->errors++;              /* (printed by the sync handler) */
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  g_thread_join (r->feeder);
  gst_object_unref (r->src);
  gst_object_unref (r->element);
  gst_object_unref (r->pipeline);
}

int
main (int argc, char **argv)
{
  double rss_bound_mb = 16;
  gst_init (&argc, &argv);
  for (int i = 1; i < argc; i += 2) {
    if (!strcmp (argv[i], "--exact")) {
      exact_only = TRUE;
      i--;
    } else if (i + 1 == argc)
      goto usage;               /* an option without its value */
    else if (!strcmp (argv[i], "--element"))
      element_name = argv[i + 1];
    else if (!strcmp (argv[i], "--frames"))
      n_frames = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--backend"))
      backend = argv[i + 1];
    else if (!strcmp (argv[i], "--pipelines"))
      n_pipelines = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--rss-bound"))
      rss_bound_mb = atof (argv[i + 1]);
    else if (!strcmp (argv[i], "--property-every"))
      property_every = strtoull (argv[i + 1], NULL, 10);
    else if (!strcmp (argv[i], "--caps-every"))
      caps_every = strtoull (argv[i + 1], NULL, 10);
    else {
    usage:
      g_printerr ("usage: %s [--element kconvfilter|kpatternmatch] "
          "[--frames N] [--backend auto|cpu|cuda] [--pipelines K] "
          "[--rss-bound MB] [--property-every N] [--caps-every N] "
          "[--exact]\n", argv[0]);
      return 2;
    }
  }
  if (n_frames < 10 || n_pipelines < 1 || n_pipelines > 64
      || property_every < 1 || caps_every < 1)
    return 2;
  is_match = !strcmp (element_name, "kpatternmatch");

  Run *runs = g_new0 (Run, n_pipelines);
  const long rss_start = rss_kib ();
  const gint64 t0 = g_get_monotonic_time ();
  int failed = 0;
  for (int k = 0; k < n_pipelines; k++)
    if (start (&runs[k], k) < 0)
      return 1;
  for (int k = 0; k < n_pipelines; k++)
    finish (&runs[k]);
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  const long rss_end = rss_kib ();

  printf ("%s backend=%s: %d pipelines x %d frames in %.1f s (%.0f frames/s "
      "in all); properties every %d frames, caps every %d\n", element_name,
      backend, n_pipelines, n_frames, secs, n_pipelines * n_frames / secs,
      (int) property_every, (int) caps_every);
  for (int k = 0; k < n_pipelines; k++) {
    Run *r = &runs[k];
    const int lost = r->out != r->in || r->in != (guint64) n_frames;
    const int msgs = is_match && r->messages != r->in;
    const int differs = r->hash != runs[0].hash
        || r->msg_hash != runs[0].msg_hash;
    printf ("  pipeline %d: in %" G_GUINT64_FORMAT ", out %" G_GUINT64_FORMAT
        ", messages %" G_GUINT64_FORMAT ", timestamps wrong %d, errors %d, "
        "output hash %016" G_GINT64_MODIFIER "x, message hash %016"
        G_GINT64_MODIFIER "x%s\n", k, r->in, r->out, r->messages, r->bad_ts,
        r->errors, r->hash, r->msg_hash,
        differs ? " (differs from pipeline 0)" : "");
    failed |= lost || msgs || differs || r->bad_ts || r->errors;
    /* the first few runs of frames without a message */
    for (int i = 0, shown = 0; is_match && i < n_frames && shown < 4; i++)
      if (!r->reported[i]) {
        int j = i;
        while (j + 1 < n_frames && !r->reported[j + 1])
          j++;
        printf ("    no message for frames %d to %d (%s)\n", i, j,
            shape_of (i)->format);
        shown++;
        i = j;
      }
    for (int i = 0; differs && i < n_frames; i++)
      if (r->frame_hash[i] != runs[0].frame_hash[i]) {
        printf ("    first frame that differs: %d (%s %dx%d)\n", i,
            shape_of (i)->format, shape_of (i)->width, shape_of (i)->height);
        break;
      }
    g_free (r->reported);
  }
  for (int k = 0; k < n_pipelines; k++)
    g_free (runs[k].frame_hash);
  const double growth = (rss_end - rss_tenth) / 1024.0;
  printf ("  resident memory: start %.1f MB, 10%% %.1f MB, 50%% %.1f MB, end "
      "%.1f MB: grew %.1f MB after the first tenth (bound %.0f MB)\n",
      rss_start / 1024.0, rss_tenth / 1024.0, rss_half / 1024.0,
      rss_end / 1024.0, growth, rss_bound_mb);
  if (RSS_MEANINGFUL)
    failed |= growth > rss_bound_mb;
  else
    printf ("  (not checked: built with AddressSanitizer)\n");
  printf ("%s\n", failed ? "FAILED" : "passed");
  g_free (runs);
  return failed;
}
