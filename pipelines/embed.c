/* Embedding kconv in a C program: edges of a moving ball, and where
 * kpatternmatch finds the ball in every frame, read from the bus messages
 * and from the region-of-interest metas on the buffers.
 *   build/pipelines/embed [FRAMES]
 * Needs the plugin where GStreamer finds it (installed, or GST_PLUGIN_PATH
 * pointing at build/gst).  Exits 0 when every frame found the ball.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

int
main (int argc, char **argv)
{
  int frames = argc > 1 ? atoi (argv[1]) : 30;
  gst_init (&argc, &argv);

  /* the template is cut from the first frame, where the ball is */
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%d "
      "! video/x-raw,format=RGBA,width=320,height=240 "
      "! kpatternmatch template-region=140,100,40,40 search-radius=24 "
      "! kconvfilter kernel=edge ! appsink name=out sync=false", frames);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("embed: %s (is the plugin on GST_PLUGIN_PATH?)\n",
        err->message);
    return 1;
  }
  GstAppSink *out = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (pipeline),
          "out"));
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  int found = 0, seen = 0, messages = 0;
  GstSample *sample;
  while ((sample = gst_app_sink_pull_sample (out))) {
    /* each match rides on its frame as a GstVideoRegionOfInterestMeta */
    GstBuffer *buf = gst_sample_get_buffer (sample);
    gpointer state = NULL;
    GstVideoRegionOfInterestMeta *roi;
    while ((roi = (GstVideoRegionOfInterestMeta *)
            gst_buffer_iterate_meta_filtered (buf, &state,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstStructure *p = gst_video_region_of_interest_meta_get_param (roi,
          "kpatternmatch");
      gdouble score = 1;
      if (p)
        gst_structure_get_double (p, "score", &score);
      g_print ("frame %d: ball at %u,%u (%ux%u), score %.4f\n", seen,
          roi->x, roi->y, roi->w, roi->h, score);
      found++;
    }
    seen++;
    gst_sample_unref (sample);
  }

  /* and as element messages on the bus, one a frame */
  GstMessage *m;
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      g_printerr ("embed: %s\n", err->message);
      return 1;
    }
    const GstStructure *s = gst_message_get_structure (m);
    if (s && gst_structure_has_name (s, "kpatternmatch"))
      messages++;
    gst_message_unref (m);
  }
  g_print ("%d frames, %d with the ball found, %d kpatternmatch messages\n",
      seen, found, messages);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (out);
  gst_object_unref (pipeline);
  return seen == frames && found == frames && messages == frames ? 0 : 1;
}
