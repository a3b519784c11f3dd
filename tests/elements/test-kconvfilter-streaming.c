/* kconvfilter with frames in flight: order, timestamps, flags and metas;
 * EOS, caps changes and flushes; latency; every output frame checked
 * against the core run one frame at a time on the CPU.
 *
 * Each test runs on the cpu backend, and again on cuda where a GPU is
 * usable (KCONV_TEST_BACKEND picks one: check-backends.h).
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "check-backends.h"
#include "kconv-testing.h"

#define MATRIX "1 2 1; 2 4 2; 1 2 1"
static const float matrix_weights[] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };

#define FPS 30
#define FRAME_NS (GST_SECOND / FPS)

/* The backends to run each test on. */
static const gchar *
backend_name (gint i)
{
  const gchar *name = i == 0 ? "cpu" : "cuda";
  return check_backend_wanted (name) ? name : NULL;
}

#define FOR_EACH_BACKEND(name) \
  for (gint b_ = 0; b_ < 2; b_++) \
    for (const gchar *name = backend_name (b_); name; name = NULL)

static GstHarness *
harness_new (const gchar * backend, guint in_flight, gint width, gint height)
{
  GstHarness *h = gst_harness_new ("kconvfilter");
  gst_util_set_object_arg (G_OBJECT (h->element), "matrix", MATRIX);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  g_object_set (h->element, "frames-in-flight", in_flight, NULL);
  gchar *caps = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=%d/1", width, height, FPS);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

static GstBuffer *
random_frame (gint width, gint height, guint32 seed)
{
  gsize size = (gsize) width * height * 4;
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *data = g_malloc (size);
  guint32 *words = (guint32 *) data;
  for (gsize i = 0; i < size / 4; i++)
    words[i] = g_rand_int (rand);
  g_rand_free (rand);
  return gst_buffer_new_wrapped (data, size);
}

/* Frame i of a stream: its own pixels, timestamps, offsets and flags. */
static GstBuffer *
stream_frame (gint width, gint height, guint i)
{
  GstBuffer *buf = random_frame (width, height, 1000 + i);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  GST_BUFFER_OFFSET (buf) = i;
  GST_BUFFER_OFFSET_END (buf) = i + 1;
  if (i == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  if (i % 2)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  static GstCaps *ref_caps;
  if (!ref_caps)
    ref_caps = gst_caps_new_empty_simple ("timestamp/x-kconv-test");
  gst_buffer_add_reference_timestamp_meta (buf, ref_caps, 5000 + i,
      GST_CLOCK_TIME_NONE);
  return buf;
}

/* What the element must make of `in`: the core, on the CPU, alone. */
static void
assert_convolved (GstBuffer * in, GstBuffer * out, gint width, gint height)
{
  KConvKernel kernel = { 3, 3, matrix_weights, 0, 0, 0 };
  KConvOptions options = { KCONV_BACKEND_CPU, 0, -1 };
  KConvFilter *f = NULL;
  fail_unless_equals_int (kconv_filter_new (&kernel, KCONV_BORDER_REFLECT,
          &options, &f), KCONV_OK);
  GstMapInfo mi, mo;
  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
  fail_unless_equals_int (mo.size, mi.size);
  guint8 *want = g_malloc (mi.size);
  KConvImage src = { mi.data, width, height, width * 4, 4, 3, {0, 1, 2} };
  KConvImage dst = src;
  dst.data = want;
  fail_unless_equals_int (kconv_filter_run (f, &src, &dst), KCONV_OK);
  fail_unless (memcmp (want, mo.data, mi.size) == 0,
      "output frame differs from the CPU result");
  g_free (want);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unmap (in, &mi);
  kconv_filter_free (f);
}

static void
assert_same_metadata (GstBuffer * in, GstBuffer * out)
{
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in));
  fail_unless_equals_uint64 (GST_BUFFER_DTS (out), GST_BUFFER_DTS (in));
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
      GST_BUFFER_DURATION (in));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), GST_BUFFER_OFFSET (in));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (out),
      GST_BUFFER_OFFSET_END (in));
  fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (out,
          GST_BUFFER_FLAG_DELTA_UNIT), GST_BUFFER_FLAG_IS_SET (in,
          GST_BUFFER_FLAG_DELTA_UNIT));
  GstReferenceTimestampMeta *mi =
      gst_buffer_get_reference_timestamp_meta (in, NULL);
  GstReferenceTimestampMeta *mo =
      gst_buffer_get_reference_timestamp_meta (out, NULL);
  fail_unless (mo != NULL, "meta lost");
  fail_unless_equals_uint64 (mo->timestamp, mi->timestamp);
}

/* Pulls n frames and checks each against its input (metadata and
 * pixels), releasing both. */
static void
expect_outputs (GstHarness * h, GstBuffer ** in, gint n, gint width,
    gint height)
{
  for (gint i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_pull (h);
    assert_same_metadata (in[i], out);
    assert_convolved (in[i], out, width, height);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
}

/* What reaches the harness's sink pad, in order: "B" per buffer, and the
 * event's name otherwise. */
static GstPadProbeReturn
record_order (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GString *order = user_data;
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    g_string_append (order, "B ");
  else if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)
    g_string_append_printf (order, "%s ",
        GST_EVENT_TYPE_NAME (GST_PAD_PROBE_INFO_EVENT (info)));
  return GST_PAD_PROBE_OK;
}

static GString *
watch_order (GstHarness * h)
{
  GString *order = g_string_new ("");
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record_order, order, NULL);
  return order;
}

/* Most tests here count frames in flight, so they hold frames at a fixed
 * depth (the hook of kconv-testing.h, set for the suite);
 * test_done_frames_leave runs without it, the way the element runs. */
static void
hold_frames (gboolean hold)
{
  static const gchar *const elements[] = { "kconvfilter", "kpatternmatch" };
  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *found = gst_element_factory_find (elements[i]);
    /* (called from the suite's setup too, outside any test) */
    if (!found)
      g_error ("no %s", elements[i]);
    GstPluginFeature *f = gst_plugin_feature_load (GST_PLUGIN_FEATURE (found));
    if (!f)
      g_error ("%s does not load", elements[i]);
    g_type_set_qdata (gst_element_factory_get_element_type
        (GST_ELEMENT_FACTORY (f)),
        g_quark_from_static_string (KCONV_TESTING_HOLD_FRAMES),
        GINT_TO_POINTER (hold));
    gst_object_unref (f);
    gst_object_unref (found);
  }
}

/* Runs "SOURCE ! ELEMENT ! fakesink" to EOS (num-buffers frames of 30 fps
 * RGBA) and returns the pipeline's latency (its minimum, as the bin
 * configures it);
 * *lag (when not NULL) gets the most frames that entered the element
 * before one left. */
typedef struct
{
  gint in, out, lag;
} LagCount;

static GstPadProbeReturn
count_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((LagCount *) data)->in);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LagCount *c = data;
  c->out++;
  c->lag = MAX (c->lag, g_atomic_int_get (&c->in) - c->out);
  return GST_PAD_PROBE_OK;
}

static GstClockTime
run_and_query_latency (const gchar * source, const gchar * element, gint * lag)
{
  gchar *desc = g_strdup_printf ("%s num-buffers=8 ! video/x-raw,format=RGBA,"
      "width=64,height=48,framerate=30/1 ! %s name=el ! fakesink name=sink "
      "sync=true", source, element);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  fail_unless (p && !err, "%s", desc);
  GstElement *el = gst_bin_get_by_name (GST_BIN (p), "el");
  LagCount c = { 0 };
  GstPad *sink = gst_element_get_static_pad (el, "sink");
  GstPad *src = gst_element_get_static_pad (el, "src");
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, count_in, &c, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_out, &c, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s: no EOS",
      desc);
  gst_message_unref (m);
  /* what the bin configures: the largest minimum latency of its sinks */
  GstQuery *q = gst_query_new_latency ();
  GstClockTime latency = GST_CLOCK_TIME_NONE;
  fail_unless (gst_element_query (p, q));
  gst_query_parse_latency (q, NULL, &latency, NULL);
  gst_query_unref (q);
  fail_unless_equals_int (c.out, 8);
  if (lag)
    *lag = c.lag;
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (el);
  gst_object_unref (p);
  g_free (desc);
  return latency;
}

/* Behind a live source (a camera), frames-in-flight at its default (auto)
 * holds no frame and the element adds no latency: the pipeline's is that
 * of identity in its place, on every backend. */
GST_START_TEST (test_live_source_adds_no_latency)
{
  hold_frames (FALSE);
  const gchar *live = "videotestsrc is-live=true";
  GstClockTime base = run_and_query_latency (live, "identity", NULL);
  fail_unless (base > 0);
  FOR_EACH_BACKEND (backend) {
    gchar *el = g_strdup_printf ("kconvfilter kernel=edge backend=%s",
        backend);
    gint lag = -1;
    GstClockTime ours = run_and_query_latency (live, el, &lag);
    fail_unless_equals_uint64 (ours, base);
    fail_unless_equals_int (lag, 0);
    g_free (el);
  }
  hold_frames (TRUE);
}

GST_END_TEST;

/* frames-in-flight=auto: one frame at a time behind a live source, three
 * behind a source that is not live (a file); an explicit value is kept
 * either way.  Frames are held at their depth here (the testing hook), so
 * the lag shows the depth on every backend. */
GST_START_TEST (test_auto_frames_in_flight)
{
  static const struct
  {
    const gchar *source, *in_flight;
    gint lag;
  } cases[] = {
    {"videotestsrc is-live=true", "0", 0},
    {"videotestsrc is-live=false", "0", 2},
    {"videotestsrc is-live=true", "3", 2},
    {"videotestsrc is-live=false", "1", 0},
  };
  FOR_EACH_BACKEND (backend) {
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
      gchar *el = g_strdup_printf ("kconvfilter kernel=edge backend=%s "
          "frames-in-flight=%s", backend, cases[i].in_flight);
      gint lag = -1;
      run_and_query_latency (cases[i].source, el, &lag);
      fail_unless (lag == cases[i].lag, "%s ! %s: %d frames held, want %d",
          cases[i].source, el, lag, cases[i].lag);
      g_free (el);
    }
  }
}

GST_END_TEST;

/* A frame whose work is done leaves with the next push or before: at
 * once on the CPU, on CUDA once the next frame comes well after it. */
GST_START_TEST (test_done_frames_leave)
{
  const gint w = 64, hgt = 48, n = 4;
  hold_frames (FALSE);
  FOR_EACH_BACKEND (backend) {
    GstHarness *h = harness_new (backend, 4, w, hgt);
    gboolean cpu = strcmp (backend, "cpu") == 0;
    GstBuffer *in[4];
    for (gint i = 0; i < n; i++) {
      in[i] = stream_frame (w, hgt, i);
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
          GST_FLOW_OK);
      if (cpu) {
        fail_unless_equals_int (gst_harness_buffers_received (h), i + 1);
      } else {
        fail_unless (gst_harness_buffers_received (h) >= (guint) i,
            "%u out after %d frames 50 ms apart",
            gst_harness_buffers_received (h), i + 1);
      }
      g_usleep (50 * 1000);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), n);
    expect_outputs (h, in, n, w, hgt);
    gst_harness_teardown (h);
  }
  hold_frames (TRUE);
}

GST_END_TEST;

/* At a fixed depth, frames come out N-1 frames late, in order, each with
 * its own timestamps, flags, metas and pixels; EOS lets the rest out
 * before it. */
GST_START_TEST (test_order_timestamps_and_eos)
{
  /* large enough for the GPU to cut frames in bands, odd height */
  const gint w = 1920, hgt = 1081, n = 10;
  FOR_EACH_BACKEND (backend) {
    for (guint in_flight = 1; in_flight <= 4; in_flight += 2) {
      GstHarness *h = harness_new (backend, in_flight, w, hgt);
      GString *order = watch_order (h);
      GstBuffer *in[10];
      for (gint i = 0; i < n; i++) {
        in[i] = stream_frame (w, hgt, i);
        fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
            GST_FLOW_OK);
        gint expect = i + 1 - ((gint) in_flight - 1);
        fail_unless_equals_int (gst_harness_buffers_received (h),
            MAX (expect, 0));
      }
      fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
      fail_unless_equals_int (gst_harness_buffers_received (h), n);
      expect_outputs (h, in, n, w, hgt);
      /* the harness's own stream-start, caps and segment come first */
      fail_unless (g_str_has_suffix (order->str,
              "B B B B B B B B B B eos "), "%s: order %s", backend, order->str);
      g_string_free (order, TRUE);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* GAP buffers, buffers of zero duration and without timestamps go
 * through frames in flight like any other: one out per one in, in order,
 * convolved, their timestamps kept.  The output of a GAP buffer is
 * convolved data, so it is not marked GAP (GstBaseTransform's rule for
 * elements that are not gap-aware). */
GST_START_TEST (test_gap_and_zero_duration)
{
  const gint w = 64, hgt = 48, n = 6;
  FOR_EACH_BACKEND (backend) {
    GstHarness *h = harness_new (backend, 3, w, hgt);
    GstBuffer *in[6];
    for (gint i = 0; i < n; i++) {
      in[i] = stream_frame (w, hgt, i);
      if (i % 3 == 1)
        GST_BUFFER_FLAG_SET (in[i], GST_BUFFER_FLAG_GAP);
      if (i % 3 == 2)
        GST_BUFFER_DURATION (in[i]) = 0;
      if (i == n - 1)
        GST_BUFFER_PTS (in[i]) = GST_BUFFER_DURATION (in[i]) =
            GST_CLOCK_TIME_NONE;
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
          GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    fail_unless_equals_int (gst_harness_buffers_received (h), n);
    for (gint i = 0; i < n; i++) {
      GstBuffer *out = gst_harness_pull (h);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
          GST_BUFFER_DURATION (in[i]));
      fail_if (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_GAP));
      assert_convolved (in[i], out, w, hgt);
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* A flush drops the frames in flight; the stream goes on after it. */
GST_START_TEST (test_flush_drops_frames_in_flight)
{
  const gint w = 64, hgt = 48;
  FOR_EACH_BACKEND (backend) {
    GstHarness *h = harness_new (backend, 3, w, hgt);
    for (gint i = 0; i < 2; i++)
      gst_harness_push (h, stream_frame (w, hgt, i));
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    GstSegment segment;
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
    GstBuffer *in[3];
    for (gint i = 0; i < 3; i++) {
      in[i] = stream_frame (w, hgt, 10 + i);
      gst_harness_push (h, gst_buffer_ref (in[i]));
    }
    gst_harness_push_event (h, gst_event_new_eos ());
    fail_unless_equals_int (gst_harness_buffers_received (h), 3);
    for (gint i = 0; i < 3; i++) {
      GstBuffer *out = gst_harness_pull (h);
      assert_same_metadata (in[i], out);
      assert_convolved (in[i], out, w, hgt);
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* New caps: the frames in flight go out first, with the old size. */
GST_START_TEST (test_caps_change_drains_first)
{
  FOR_EACH_BACKEND (backend) {
    GstHarness *h = harness_new (backend, 3, 64, 48);
    GString *order = watch_order (h);
    GstBuffer *in[2];
    for (gint i = 0; i < 2; i++) {
      in[i] = stream_frame (64, 48, i);
      gst_harness_push (h, gst_buffer_ref (in[i]));
    }
    g_string_truncate (order, 0);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=32,"
        "height=24,framerate=30/1");
    fail_unless (g_str_has_prefix (order->str, "B B caps "), "order %s",
        order->str);
    for (gint i = 0; i < 2; i++) {
      GstBuffer *out = gst_harness_pull (h);
      assert_convolved (in[i], out, 64, 48);
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
    GstBuffer *small = stream_frame (32, 24, 7);
    gst_harness_push (h, gst_buffer_ref (small));
    gst_harness_push_event (h, gst_event_new_eos ());
    GstBuffer *out = gst_harness_pull (h);
    assert_convolved (small, out, 32, 24);
    gst_buffer_unref (out);
    gst_buffer_unref (small);
    g_string_free (order, TRUE);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Latency: upstream's plus (frames-in-flight - 1) frames; changing the
 * property posts a latency message. */
GST_START_TEST (test_latency)
{
  GstHarness *h = harness_new ("cpu", 3, 64, 48);
  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  fail_unless_equals_uint64 (gst_harness_query_latency (h),
      5 * GST_MSECOND + 2 * gst_util_uint64_scale_int (GST_SECOND, 1, FPS));

  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "frames-in-flight", 1, NULL);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY);
  fail_unless (msg != NULL, "no latency message");
  gst_message_unref (msg);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), 5 * GST_MSECOND);
  g_object_set (h->element, "frames-in-flight", 1, NULL);
  fail_if (gst_bus_have_pending (bus), "a message for no change");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Lowering frames-in-flight lets the held frames out with the next one;
 * turning into passthrough keeps the order. */
GST_START_TEST (test_property_changes_keep_order)
{
  const gint w = 64, hgt = 48;
  FOR_EACH_BACKEND (backend) {
    GstHarness *h = harness_new (backend, 4, w, hgt);
    GstBuffer *in[6];
    for (gint i = 0; i < 6; i++)
      in[i] = stream_frame (w, hgt, i);
    for (gint i = 0; i < 3; i++)
      gst_harness_push (h, gst_buffer_ref (in[i]));
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    g_object_set (h->element, "frames-in-flight", 1, NULL);
    gst_harness_push (h, gst_buffer_ref (in[3]));
    fail_unless_equals_int (gst_harness_buffers_received (h), 4);

    g_object_set (h->element, "frames-in-flight", 3, NULL);
    gst_harness_push (h, gst_buffer_ref (in[4]));
    fail_unless_equals_int (gst_harness_buffers_received (h), 4);
    gst_util_set_object_arg (G_OBJECT (h->element), "kernel", "identity");
    gst_harness_push (h, gst_buffer_ref (in[5]));
    fail_unless_equals_int (gst_harness_buffers_received (h), 6);
    for (gint i = 0; i < 6; i++) {
      GstBuffer *out = gst_harness_pull (h);
      assert_same_metadata (in[i], out);
      if (i < 5)
        assert_convolved (in[i], out, w, hgt);
      else
        fail_unless (out == in[5], "passthrough frame is the input");
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static void
count_freed (gpointer data, GstMiniObject * obj)
{
  (*(gint *) data)++;
}

/* Stopping with frames in flight releases every buffer. */
GST_START_TEST (test_stop_releases_frames_in_flight)
{
  FOR_EACH_BACKEND (backend) {
    gint freed = 0;
    GstHarness *h = harness_new (backend, 4, 64, 48);
    for (gint i = 0; i < 3; i++) {
      GstBuffer *buf = stream_frame (64, 48, i);
      gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), count_freed, &freed);
      gst_harness_push (h, buf);
    }
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    fail_unless_equals_int (freed, 0);
    gst_element_set_state (h->element, GST_STATE_NULL);
    fail_unless_equals_int (freed, 3);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Remembers each input frame by timestamp. */
static GstPadProbeReturn
keep_input (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GHashTable *inputs = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  g_hash_table_insert (inputs, GUINT_TO_POINTER ((guint) (GST_BUFFER_PTS (buf)
              / GST_MSECOND)), gst_buffer_copy_deep (buf));
  return GST_PAD_PROBE_OK;
}

/* A real pipeline with a flushing seek while frames are in flight: no
 * error, every frame after the seek from the new position, each the
 * convolution of its own input. */
GST_START_TEST (test_flushing_seek_in_pipeline)
{
  const gint w = 320, hgt = 240;
  FOR_EACH_BACKEND (backend) {
    gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=60 "
        "! video/x-raw,format=RGBA,width=%d,height=%d,framerate=%d/1 ! "
        "kconvfilter name=f matrix=\"" MATRIX "\" backend=%s "
        "frames-in-flight=3 ! appsink name=sink sync=false max-buffers=2", w,
        hgt, FPS,
        backend);
    GstElement *pipe = gst_parse_launch (desc, NULL);
    g_free (desc);
    fail_unless (pipe != NULL);
    GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    GstPad *fsink = gst_element_get_static_pad (f, "sink");
    GHashTable *inputs = g_hash_table_new_full (NULL, NULL, NULL,
        (GDestroyNotify) gst_buffer_unref);
    gst_pad_add_probe (fsink, GST_PAD_PROBE_TYPE_BUFFER, keep_input, inputs,
        NULL);

    gst_element_set_state (pipe, GST_STATE_PAUSED);
    fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
            5 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
    /* pull a few, then seek to 1 s while frames are in flight */
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    for (gint i = 0; i < 5; i++) {
      GstSample *s = gst_app_sink_pull_sample (GST_APP_SINK (sink));
      fail_unless (s != NULL);
      gst_sample_unref (s);
    }
    fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SECOND));
    gint after = 0;
    GstSample *s;
    while ((s = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
      GstBuffer *out = gst_sample_get_buffer (s);
      GstClockTime pts = GST_BUFFER_PTS (out);
      if (pts >= GST_SECOND) {
        /* from the seek position on, each frame once, in order */
        fail_unless_equals_uint64 (pts, gst_util_uint64_scale_int
            (GST_SECOND, FPS + after, FPS));
        after++;
        GstBuffer *in = g_hash_table_lookup (inputs,
            GUINT_TO_POINTER ((guint) (pts / GST_MSECOND)));
        fail_unless (in != NULL);
        assert_convolved (in, out, w, hgt);
      }
      gst_sample_unref (s);
    }
    fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
    /* the source's num-buffers counts on across the seek */
    fail_unless (after > 10, "%d frames after the seek", after);
    GstBus *bus = gst_element_get_bus (pipe);
    fail_if (gst_bus_have_pending (bus) && gst_bus_pop_filtered (bus,
            GST_MESSAGE_ERROR), "error in the pipeline");
    gst_object_unref (bus);
    gst_element_set_state (pipe, GST_STATE_NULL);
    g_hash_table_unref (inputs);
    gst_object_unref (fsink);
    gst_object_unref (sink);
    gst_object_unref (f);
    gst_object_unref (pipe);
  }
}

GST_END_TEST;

/* One filter's stream, run on a thread of its own beside others. */
typedef struct
{
  const gchar *backend;
  gint n, width, height;
  GstBuffer *in[8], *out[8];
} SideBySide;

static gpointer
run_side_by_side (gpointer data)
{
  SideBySide *t = data;
  GstHarness *h = harness_new (t->backend, 3, t->width, t->height);
  for (gint i = 0; i < t->n; i++)
    gst_harness_push (h, gst_buffer_ref (t->in[i]));
  gst_harness_push_event (h, gst_event_new_eos ());
  for (gint i = 0; i < t->n; i++)
    t->out[i] = gst_harness_try_pull (h);
  gst_harness_teardown (h);
  return NULL;
}

/* Filters side by side, each on its own thread with frames in flight
 * (on CUDA they may share copy streams: KCONV_CUDA_COPIES): each frame
 * comes out of its own filter, in order, convolved. */
GST_START_TEST (test_filters_side_by_side)
{
  enum
  { FILTERS = 4 };
  FOR_EACH_BACKEND (backend) {
    SideBySide t[FILTERS];
    GThread *thread[FILTERS];
    for (gint f = 0; f < FILTERS; f++) {
      /* large enough to be cut in bands, sizes of their own */
      t[f].backend = backend;
      t[f].n = G_N_ELEMENTS (t[f].in);
      t[f].width = 1920 - 16 * f;
      t[f].height = 1081 + f;
      /* made here: stream_frame is not for threads */
      for (gint i = 0; i < t[f].n; i++)
        t[f].in[i] = stream_frame (t[f].width, t[f].height, 100 * f + i);
      thread[f] = g_thread_new ("filter", run_side_by_side, &t[f]);
    }
    for (gint f = 0; f < FILTERS; f++)
      g_thread_join (thread[f]);
    for (gint f = 0; f < FILTERS; f++) {
      for (gint i = 0; i < t[f].n; i++) {
        fail_unless (t[f].out[i] != NULL, "%s: filter %d lost frame %d",
            backend, f, i);
        assert_same_metadata (t[f].in[i], t[f].out[i]);
        assert_convolved (t[f].in[i], t[f].out[i], t[f].width, t[f].height);
        gst_buffer_unref (t[f].out[i]);
        gst_buffer_unref (t[f].in[i]);
      }
    }
  }
}

GST_END_TEST;

static Suite *
kconvfilter_streaming_suite (void)
{
  Suite *s = suite_create ("kconvfilter-streaming");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_order_timestamps_and_eos);
  tcase_add_test (tc, test_flush_drops_frames_in_flight);
  tcase_add_test (tc, test_gap_and_zero_duration);
  tcase_add_test (tc, test_caps_change_drains_first);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_live_source_adds_no_latency);
  tcase_add_test (tc, test_auto_frames_in_flight);
  tcase_add_test (tc, test_property_changes_keep_order);
  tcase_add_test (tc, test_stop_releases_frames_in_flight);
  tcase_add_test (tc, test_flushing_seek_in_pipeline);
  tcase_add_test (tc, test_done_frames_leave);
  tcase_add_test (tc, test_filters_side_by_side);
  hold_frames (TRUE);
  return s;
}

KCONV_CHECK_MAIN (kconvfilter_streaming);
