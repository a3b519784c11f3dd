/* kconv: libFuzzer target for buffers that lie, through both elements
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input picks the element and its kernel, caps (any format both take,
 * 1 to 80 pixels a side), the buffer's size (short, long or exact) and a
 * GstVideoMeta with its own size, offsets and strides, and the samples.
 * The element (the plugin from KCONV_FUZZ_PLUGIN_DIR, built with the
 * sanitizers) must take or refuse each buffer without reading or writing
 * outside it: a report from AddressSanitizer or UBSan is a failure, and so
 * is a buffer refused without an error message.
 */
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "check-formats.h"

/* every format the elements take */
static GPtrArray *formats;


static const char *const elements[] = {
  "kconvfilter kernel=edge frames-in-flight=1",
  "kconvfilter kernel=gaussian kernel-size=7 frames-in-flight=1",
  "kconvfilter matrix=\"1 2 3; 4 5 6\" planes=all frames-in-flight=1",
  "kpatternmatch template-region=0,0,2,2 frames-in-flight=1",
  "kpatternmatch template-region=1,1,3,2 match-on=color draw=true",
};

/* reads the next byte (0 past the end) */
static guint8
next (const guint8 ** data, size_t *size)
{
  if (*size == 0)
    return 0;
  (*size)--;
  return *(*data)++;
}

int
LLVMFuzzerTestOneInput (const guint8 * data, size_t size)
{
  static gboolean ready;
  if (!ready) {
    const gchar *dir = g_getenv ("KCONV_FUZZ_PLUGIN_DIR");
    if (!dir)
      abort ();
    g_setenv ("GST_PLUGIN_PATH_1_0", dir, TRUE);
    g_setenv ("GST_REGISTRY_FORK", "no", TRUE);
    gst_init (NULL, NULL);
    formats = check_formats_of ("kconvfilter");
    if (formats->len == 0)
      abort ();
    ready = TRUE;
  }
  const gchar *element = elements[next (&data, &size) % G_N_ELEMENTS
      (elements)];
  const gchar *format = g_ptr_array_index (formats, next (&data, &size) %
      formats->len);
  gint w = 1 + next (&data, &size) % 80, h = 1 + next (&data, &size) % 80;
  guint8 flags = next (&data, &size);
  gint8 size_delta = (gint8) next (&data, &size);

  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format), w,
      h);
  gsize bytes = GST_VIDEO_INFO_SIZE (&info);
  if (flags & 1)                /* short or long by up to 127 rows' worth */
    bytes = MAX (1, (gssize) bytes + size_delta * (gssize) (flags >> 4));
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gint8 doff = (gint8) next (&data, &size), dstride = (gint8) next (&data,
        &size);
    offset[p] = MAX (0, (gssize) GST_VIDEO_INFO_PLANE_OFFSET (&info, p) +
        (flags & 2 ? doff * 7 : 0));
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p) +
        (flags & 4 ? dstride : 0);
  }
  guint meta_w = flags & 8 ? 1 + next (&data, &size) % 120 : (guint) w;
  guint meta_h = flags & 8 ? 1 + next (&data, &size) % 120 : (guint) h;

  GstHarness *hh = gst_harness_new_parse (element);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hh->element, bus);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=25/1", format, w, h);
  gst_harness_set_src_caps_str (hh, caps);
  g_free (caps);
  for (int frame = 0; frame < 2; frame++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, bytes, NULL);
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gsize i = 0; i < map.size; i++)
      map.data[i] = size ? data[i % size] : (guint8) i;
    gst_buffer_unmap (buf, &map);
    if (flags & 0x0e || frame == 1)
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&info), meta_w, meta_h,
          GST_VIDEO_INFO_N_PLANES (&info), offset, stride);
    GstFlowReturn ret = gst_harness_push (hh, buf);
    if (ret == GST_FLOW_ERROR) {
      /* a refusal says why */
      GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (!m)
        abort ();
      gst_message_unref (m);
      break;
    }
    GstBuffer *out;
    while ((out = gst_harness_try_pull (hh))) {
      /* touch every byte out: a short output shows as a read past it */
      gst_buffer_map (out, &map, GST_MAP_READ);
      guint sum = 0;
      for (gsize i = 0; i < map.size; i++)
        sum += map.data[i];
      (void) sum;
      gst_buffer_unmap (out, &map);
      gst_buffer_unref (out);
    }
  }
  gst_element_set_bus (hh->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hh);
  return 0;
}
