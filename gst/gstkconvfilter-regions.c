/* GStreamer kconv plugin: kconvfilter's regions
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * regions=roi filters only inside the buffer's region-of-interest metas
 * (of the types roi-types names), outside-roi everything but them, fixed
 * the rectangles of region-list; region-margin grows each.  The frame is
 * filtered in place (into a copy where another element holds it too, as a
 * tee's branches do): inside the regions the samples the whole frame's
 * filter gives (kconv_filter_run_rects), every other byte as it came, and
 * nothing copied where nothing changes.  Chroma is filtered at its own
 * resolution, its rectangles rounded outward.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkconvfilter-private.h"
#include "kconv-refusal.h"

/* the most rectangles a frame is filtered in (metas past them are left) */
#define MAX_REGIONS 4096

#define GST_TYPE_KCONV_REGIONS (gst_kconv_regions_get_type ())
static GType
gst_kconv_regions_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KCONV_REGIONS_ALL, "The whole frame", "all"},
    {GST_KCONV_REGIONS_ROI, "Only inside the buffer's region-of-interest "
          "metas (of roi-types)", "roi"},
    {GST_KCONV_REGIONS_OUTSIDE_ROI, "Everything but the buffer's "
          "region-of-interest metas (of roi-types)", "outside-roi"},
    {GST_KCONV_REGIONS_FIXED, "Only inside the rectangles of region-list",
        "fixed"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvRegions",
            values));
  return type;
}

void
gst_kconv_filter_regions_install (GObjectClass * klass, guint first_id,
    GParamFlags flags)
{
  g_object_class_install_property (klass, first_id,
      g_param_spec_enum ("regions", "Regions", "Where the frame is filtered: "
          "everywhere, inside the region-of-interest metas, outside them, "
          "or inside region-list; elsewhere every sample passes unchanged",
          GST_TYPE_KCONV_REGIONS, GST_KCONV_REGIONS_ALL, flags));
  g_object_class_install_property (klass, first_id + 1,
      g_param_spec_string ("roi-types", "ROI types", "regions=roi and "
          "outside-roi: the metas' types that count, separated by commas "
          "(e.g. face,kpatternmatch); empty = every type", NULL, flags));
  g_object_class_install_property (klass, first_id + 2,
      g_param_spec_int ("region-margin", "Region margin", "Pixels each "
          "region grows by on every side", 0, G_MAXINT, 0,
          flags | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (klass, first_id + 3,
      g_param_spec_string ("region-list", "Region list", "regions=fixed: "
          "\"x,y,width,height;x,y,width,height...\" in the frame's pixels",
          NULL, flags));
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_REGIONS, 0);
}

gboolean
gst_kconv_filter_regions_set (GstKConvFilter * self, guint which,
    const GValue * value, const gchar * name)
{
  GstKConvRegionSettings *r = &self->regions;
  KConvRect rects[MAX_REGIONS / 16];
  gint n = 0;
  if (which == 3) {
    char why[160];
    const gchar *text = g_value_get_string (value);
    n = kconv_rects_parse (text, rects, G_N_ELEMENTS (rects), why, sizeof why);
    if (n < 0) {
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 60);
      gst_kconv_refusal_post (GST_ELEMENT (self), name, "region-list \"%s\" "
          "refused: %s (\"x,y,width,height;...\")", excerpt, why);
      g_free (excerpt);
      return FALSE;
    }
  }
  gst_kconv_refusal_accepted (GST_ELEMENT (self), name);
  GST_OBJECT_LOCK (self);
  switch (which) {
    case 0:
      r->mode = g_value_get_enum (value);
      break;
    case 1:{
      g_free (r->types);
      r->types = g_value_dup_string (value);
      /* split once here, not for every meta of every frame */
      gchar **names = g_strsplit (r->types ? r->types : "", ",", -1);
      g_free (r->type_quarks);
      r->type_quarks = g_new (GQuark, g_strv_length (names) + 1);
      r->n_types = 0;
      for (gint i = 0; names[i]; i++)
        if (*g_strstrip (names[i]))
          r->type_quarks[r->n_types++] = g_quark_from_string (names[i]);
      g_strfreev (names);
      break;
    }
    case 2:
      r->margin = g_value_get_int (value);
      break;
    default:
      g_free (r->list_text);
      r->list_text = g_value_dup_string (value);
      g_free (r->list);
      r->list = g_memdup2 (rects, sizeof rects[0] * n);
      r->n_list = n;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

void
gst_kconv_filter_regions_get (GstKConvFilter * self, guint which,
    GValue * value)
{
  GstKConvRegionSettings *r = &self->regions;
  GST_OBJECT_LOCK (self);
  switch (which) {
    case 0:
      g_value_set_enum (value, r->mode);
      break;
    case 1:
      g_value_set_string (value, r->types);
      break;
    case 2:
      g_value_set_int (value, r->margin);
      break;
    default:
      g_value_set_string (value, r->list_text);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_kconv_filter_regions_clear (GstKConvFilter * self)
{
  g_clear_pointer (&self->regions.types, g_free);
  g_clear_pointer (&self->regions.type_quarks, g_free);
  g_clear_pointer (&self->regions.list_text, g_free);
  g_clear_pointer (&self->regions.list, g_free);
}

/* Whether a meta of this type counts (every_type: roi-types is empty) */
static gboolean
type_counts (const GQuark * types, gint n, gboolean every_type, GQuark type)
{
  for (gint i = 0; i < n; i++)
    if (types[i] == type)
      return TRUE;
  return every_type;
}

/* The frame's regions (grown, clipped, made disjoint): *out malloc'd;
 * their number */
static gint
frame_regions (GstKConvFilter * self, GstBuffer * buf, gint width,
    gint height, KConvRect ** out)
{
  GstKConvRegionSettings *r = &self->regions;
  GST_OBJECT_LOCK (self);
  const GstKConvRegionsMode mode = r->mode;
  const gint margin = r->margin;
  const gint n_types = r->n_types;
  const gboolean every_type = !r->types || !*r->types;
  GQuark *types = g_memdup2 (r->type_quarks, sizeof (GQuark) * n_types);
  GArray *rects = g_array_new (FALSE, FALSE, sizeof (KConvRect));
  if (mode == GST_KCONV_REGIONS_FIXED)
    g_array_append_vals (rects, r->list, r->n_list);
  GST_OBJECT_UNLOCK (self);

  gpointer state = NULL;
  GstMeta *meta;
  while (mode != GST_KCONV_REGIONS_FIXED && rects->len < MAX_REGIONS
      && (meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const GstVideoRegionOfInterestMeta *roi =
        (const GstVideoRegionOfInterestMeta *) meta;
    if (!type_counts (types, n_types, every_type, roi->roi_type))
      continue;
    /* (a meta's unsigned values past the frame are clipped by the cover) */
    const KConvRect one = { (gint) MIN (roi->x, (guint) G_MAXINT / 2),
      (gint) MIN (roi->y, (guint) G_MAXINT / 2),
      (gint) MIN (roi->w, (guint) G_MAXINT / 2),
      (gint) MIN (roi->h, (guint) G_MAXINT / 2)
    };
    g_array_append_val (rects, one);
  }
  g_free (types);
  gint n = kconv_rects_cover ((KConvRect *) rects->data, rects->len, margin,
      width, height, mode == GST_KCONV_REGIONS_OUTSIDE_ROI, out);
  g_array_free (rects, TRUE);
  return n;
}

/* The frame's rectangles at the resolution of an image of it (rounded
 * outward), disjoint; *out malloc'd; their number */
static gint
image_rects (const KConvRect * cover, gint n, gint fw, gint fh,
    const KConvImage * im, KConvRect ** out)
{
  const gint sx = (fw + im->width - 1) / im->width;
  const gint sy = (fh + im->height - 1) / im->height;
  KConvRect *r = g_new (KConvRect, MAX (n, 1));
  for (gint i = 0; i < n; i++) {
    const gint x0 = cover[i].x / sx, y0 = cover[i].y / sy;
    const gint x1 = MIN ((cover[i].x + cover[i].width + sx - 1) / sx,
        im->width);
    const gint y1 = MIN ((cover[i].y + cover[i].height + sy - 1) / sy,
        im->height);
    r[i] = (KConvRect) {
    x0, y0, x1 - x0, y1 - y0};
  }
  gint m = kconv_rects_cover (r, n, 0, im->width, im->height, FALSE, out);
  g_free (r);
  return m;
}

/* Every image of the mapped frame filtered in place inside the regions
 * (on_device: in CUDA memory, on the filter's stream, waited for) */
static KConvStatus
filter_regions (GstKConvFilter * self, GstVideoFrame * frame,
    const KConvRect * cover, gint n, gboolean on_device)
{
  const gint fw = GST_VIDEO_FRAME_WIDTH (frame);
  const gint fh = GST_VIDEO_FRAME_HEIGHT (frame);
  void *stream = kconv_filter_stream (self->core);
  KConvStatus st = KCONV_OK;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame) && st == KCONV_OK; p++) {
    KConvImage im[GST_VIDEO_MAX_COMPONENTS];
    gboolean chroma[GST_VIDEO_MAX_COMPONENTS];
    guint k = gst_kconv_frame_plane_images (frame, p, self->components, im,
        chroma);
    for (guint i = 0; i < k && st == KCONV_OK; i++) {
      KConvRect *r = NULL;
      const gint m = image_rects (cover, n, fw, fh, &im[i], &r);
      KConvFilter *f = chroma[i] && self->neutral_chroma ?
          self->neutral_chroma : self->core;
      st = m < 0 ? KCONV_ERROR_OUT_OF_MEMORY : on_device ?
          kconv_filter_run_rects_device (f, &im[i], &im[i], r, m, stream) :
          kconv_filter_run_rects (f, &im[i], &im[i], r, m);
      g_free (r);
    }
  }
  if (on_device) {
    KConvStatus synced = kconv_device_sync (stream);
    st = st != KCONV_OK ? st : synced;
  }
  return st;
}

/* A copy of the frame of inbuf in a new output buffer (its metas too),
 * where another holds inbuf or its memory: GStreamer's copy-on-write of
 * CUDA memory cannot be relied on.  Takes inbuf; NULL (an error posted)
 * when it fails. */
static GstBuffer *
output_copy (GstKConvFilter * self, GstBuffer * inbuf)
{
  GstKConvBase *base = GST_KCONV_BASE (self);
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstBuffer *out = NULL;
  GstVideoFrame in, to;
  gboolean ok = FALSE;
  if (GST_KCONV_FILTER_PARENT->prepare_output_buffer (GST_BASE_TRANSFORM
          (self), inbuf, &out) != GST_FLOW_OK || !out) {
    gst_buffer_unref (inbuf);
    return NULL;
  }
  if (out == inbuf)
    return out;
  if (!base->on_cuda_memory) {
    ok = gst_video_frame_map (&in, info, inbuf, GST_MAP_READ);
    if (ok && !(ok = gst_video_frame_map (&to, info, out, GST_MAP_WRITE)))
      gst_video_frame_unmap (&in);
    if (ok) {
      ok = gst_video_frame_copy (&to, &in);
      gst_video_frame_unmap (&to);
      gst_video_frame_unmap (&in);
    }
  } else if (gst_kconv_base_map_cuda (base, &in, info, inbuf, GST_MAP_READ)) {
    if (gst_kconv_base_map_cuda (base, &to, info, out, GST_MAP_WRITE)) {
      void *stream = kconv_filter_stream (self->core);
      KConvStatus st = KCONV_OK;
      for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&in) && st == KCONV_OK;
          p++)
        st = kconv_device_copy (GST_VIDEO_FRAME_PLANE_DATA (&to, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&to, p),
            GST_VIDEO_FRAME_PLANE_DATA (&in, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&in, p),
            gst_kconv_frame_plane_row_bytes (&in, p),
            gst_kconv_frame_plane_height (&in, p), stream);
      ok = st == KCONV_OK && kconv_device_sync (stream) == KCONV_OK;
      gst_video_frame_unmap (&to);
    }
    gst_video_frame_unmap (&in);
  }
  gst_buffer_unref (inbuf);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not copy a frame to "
            "filter its regions"), (NULL));
    gst_buffer_unref (out);
    return NULL;
  }
  return out;
}

GstFlowReturn
gst_kconv_filter_regions_frame (GstKConvFilter * self, GstBuffer * inbuf)
{
  GstKConvBase *base = GST_KCONV_BASE (self);
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  KConvRect *cover = NULL;
  const gint n = frame_regions (self, inbuf, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), &cover);
  if (n <= 0) {
    /* nothing to filter: the frame as it came, no copy */
    gst_kconv_base_queue_done (base, inbuf);
    return GST_FLOW_OK;
  }
  /* the filter runs one frame at a time: those in flight on it first */
  gst_kconv_base_wait_all (base);
  /* in place where nobody else holds the frame; else into a copy */
  GstBuffer *buf = gst_buffer_is_writable (inbuf)
      && gst_buffer_is_all_memory_writable (inbuf) ? inbuf :
      output_copy (self, inbuf);
  if (!buf) {
    free (cover);
    return GST_FLOW_ERROR;
  }
  GstVideoFrame frame;
  const gboolean on_device = base->on_cuda_memory;
  gboolean mapped = on_device ? gst_kconv_base_map_cuda (base, &frame, info,
      buf, GST_MAP_READWRITE) : gst_video_frame_map (&frame, info, buf,
      GST_MAP_READWRITE);
  if (!mapped) {
    if (!on_device)
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video "
              "frame"), (NULL));
    free (cover);
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  KConvStatus st = filter_regions (self, &frame, cover, n, on_device);
  gst_video_frame_unmap (&frame);
  free (cover);
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Filtering the regions failed"), st);
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  gst_kconv_base_queue_done (base, buf);
  return GST_FLOW_OK;
}
