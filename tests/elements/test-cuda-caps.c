/* kconv: both elements negotiate GStreamer's CUDA memory (no GPU needed)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built where the plugin has GStreamer's CUDA library.  The frames
 * themselves are checked on the GPU machine (tests/gpu/cuda-memory.sh).
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "kconv.h"

#define CUDA_CAPS "video/x-raw(memory:CUDAMemory),format=RGBA,width=64," \
    "height=48,framerate=25/1"
#define SYSTEM_CAPS "video/x-raw,format=RGBA,width=64,height=48," \
    "framerate=25/1"

static const gchar *elements[] = { "kconvfilter", "kpatternmatch" };

static gboolean
has_cuda_feature (GstCaps * caps)
{
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    if (gst_caps_features_contains (gst_caps_get_features (caps, i),
            "memory:CUDAMemory"))
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_templates_carry_cuda_memory)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElementFactory *f = gst_element_factory_find (elements[e]);
    fail_unless (f != NULL, "%s", elements[e]);
    for (const GList * l = gst_element_factory_get_static_pad_templates (f);
        l; l = l->next) {
      GstCaps *caps = gst_static_pad_template_get_caps (l->data);
      fail_unless (has_cuda_feature (caps), "%s %s", elements[e],
          ((GstStaticPadTemplate *) l->data)->name_template);
      gst_caps_unref (caps);
    }
    gst_object_unref (f);
  }
}

GST_END_TEST;

/* CUDA caps in give CUDA caps out, system memory gives system memory */
GST_START_TEST (test_caps_keep_their_memory)
{
  const gchar *in[] = { CUDA_CAPS, SYSTEM_CAPS };
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstHarness *h = gst_harness_new (elements[e]);
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");
    GstPad *src = gst_element_get_static_pad (h->element, "src");
    for (guint i = 0; i < G_N_ELEMENTS (in); i++) {
      GstCaps *caps = gst_caps_from_string (in[i]);
      fail_unless (gst_pad_query_accept_caps (sink, caps), "%s: %s",
          elements[e], in[i]);
      GstCaps *out = gst_pad_query_caps (src, caps);
      fail_if (gst_caps_is_empty (out), "%s: %s", elements[e], in[i]);
      fail_unless (has_cuda_feature (out) == (i == 0), "%s: %s", elements[e],
          in[i]);
      gst_caps_unref (out);
      gst_caps_unref (caps);
    }
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The error a user gets when CUDA memory cannot be worked on: its text. */
static gchar *
negotiation_error (const gchar * element, const gchar * backend)
{
  GstHarness *h = gst_harness_new (element);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gst_harness_play (h);
  gst_harness_set_src_caps_str (h, CUDA_CAPS);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 48 * 4, NULL);
  GstFlowReturn ret = gst_harness_push (h, buf);
  fail_if (ret == GST_FLOW_OK, "%s took CUDA caps it cannot serve", element);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error message", element);
  GError *err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  gchar *text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return text;
}

GST_START_TEST (test_cpu_backend_refuses_cuda_memory)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    gchar *text = negotiation_error (elements[e], "cpu");
    fail_unless (strstr (text, "backend=cpu") && strstr (text, "CUDA memory"),
        "%s: %s", elements[e], text);
    g_free (text);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_gpu_says_so)
{
  if (kconv_backend_available (KCONV_BACKEND_CUDA))
    return;                     /* the GPU machine runs the real frames */
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    gchar *text = negotiation_error (elements[e], "auto");
    fail_unless (strstr (text, "CUDA memory") != NULL, "%s: %s", elements[e],
        text);
    g_free (text);
  }
}

GST_END_TEST;

static Suite *
cuda_caps_suite (void)
{
  Suite *s = suite_create ("cuda-caps");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_templates_carry_cuda_memory);
  tcase_add_test (tc, test_caps_keep_their_memory);
  tcase_add_test (tc, test_cpu_backend_refuses_cuda_memory);
  tcase_add_test (tc, test_no_gpu_says_so);
  return s;
}

GST_CHECK_MAIN (cuda_caps);
