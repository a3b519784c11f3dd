/* GStreamer kconv plugin: kpatternmatch's matcher and the frames it reads
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame's samples as the core matches them (luma, or R, G, B), and the
 * first template's matcher brought up to date before a frame's search: a
 * template cut from the frame, a template given packed for its caps, a
 * template larger than the frames, or a region outside them, let go.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstkpatternmatch-private.h"
#include "kconv-frame-images.h"
#include "kmatch-template.h"

void
gst_kpattern_match_image (GstVideoFrame * frame, gint channels, KConvImage * im,
    gboolean * rgb_luma, guint8 ** gathered)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  memset (im, 0, sizeof *im);
  im->width = GST_VIDEO_FRAME_WIDTH (frame);
  im->height = GST_VIDEO_FRAME_HEIGHT (frame);
  const gint rgb[3] = { GST_VIDEO_COMP_R, GST_VIDEO_COMP_G, GST_VIDEO_COMP_B };

  *gathered = NULL;
  *rgb_luma = channels == 1 && GST_VIDEO_FORMAT_INFO_IS_RGB (finfo);
  if (*rgb_luma)
    channels = 3;
  if (channels == 3 && GST_VIDEO_FRAME_N_PLANES (frame) == 1) {
    im->data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
    im->stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
    im->pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
    im->n_channels = 3;
    for (int c = 0; c < 3; c++)
      im->channel_offset[c] = GST_VIDEO_FRAME_COMP_POFFSET (frame, rgb[c]);
    return;
  }
  im->n_channels = channels;
  im->pixel_stride = channels;
  for (int c = 0; c < channels; c++)
    im->channel_offset[c] = c;
  if (channels == 1 && (GST_VIDEO_FORMAT_INFO_IS_GRAY (finfo)
          || GST_VIDEO_FORMAT_INFO_IS_YUV (finfo))) {
    /* (with its depth: 10-, 12- and 16-bit luma is matched as it is) */
    *im = gst_kconv_frame_comp_image (frame, GST_VIDEO_COMP_Y);
    return;
  }
  /* planar RGB (GBR), gathered */
  KConvImage planes[3];
  for (gint c = 0; c < 3; c++)
    planes[c] = gst_kconv_frame_comp_image (frame, rgb[c]);
  *gathered = g_malloc ((gsize) im->width * im->height * 3);
  im->data = *gathered;
  im->stride = (ptrdiff_t) im->width * 3;
  kmatch_interleave (planes, 3, im->data, im->stride);
}

gint
gst_kpattern_match_channels (GstKMatchOn match_on, const GstVideoInfo * info)
{
  return match_on == GST_KMATCH_ON_COLOR && GST_VIDEO_INFO_IS_RGB (info) ?
      3 : 1;
}

gint
gst_kpattern_match_depth (gint channels, const GstVideoInfo * info)
{
  /* (as gst_kpattern_match_image reads them: luma with its depth, RGB as
   * bytes) */
  return channels == 1 && !GST_VIDEO_INFO_IS_RGB (info) ?
      MAX (GST_VIDEO_INFO_COMP_DEPTH (info, 0), 8) : 8;
}

gboolean
gst_kpattern_match_cut_due (GstKPatternMatch * self, const Settings * snap,
    gint channels, gint depth)
{
  const GstKMatchTemplateState *t = &self->first.template;
  return snap->template_region.width > 0 && (snap->cut_pending
      || !t->from_region || !t->in_matcher || t->channels != channels
      || t->depth != depth);
}

/* Whether a new template fits the frames; one that does not is let go
 * (with a warning), so that no copy of it is kept: it could never be
 * found, and a file can ask for a large one. */
static gboolean
template_fits_frames (GstKPatternMatch * self, GstSample * rgba,
    guint template_cookie, const KConvImage * im)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (rgba)))
    return FALSE;
  const gint w = GST_VIDEO_INFO_WIDTH (&info), h =
      GST_VIDEO_INFO_HEIGHT (&info);
  if (w <= im->width && h <= im->height)
    return TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("The %dx%d template is larger than the %dx%d frames: it is let go, "
          "and nothing is matched until a template that fits is set", w, h,
          im->width, im->height), (NULL));
  GST_OBJECT_LOCK (self);
  if (self->template_cookie == template_cookie)
    g_clear_pointer (&self->settings.template_rgb, gst_sample_unref);
  GST_OBJECT_UNLOCK (self);
  gst_kmatch_template_state_clear (&self->first.template);
  return FALSE;
}

gboolean
gst_kpattern_match_ensure_matcher (GstKPatternMatch * self,
    GstVideoFrame * frame, const Settings * snap, guint template_cookie,
    gint channels, const KConvImage * im)
{
  if (!gst_kpattern_match_target_renew (self, &self->first))
    return FALSE;
  kmatch_set_method (self->first.matcher, snap->method);

  GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT (frame);
  if (gst_kpattern_match_cut_due (self, snap, channels, MAX (im->depth, 8))) {
    /* template-region: cut from this frame, in the samples matched */
    const KMatchRegion r = snap->template_region;
    GstKMatchTemplateState *t = &self->first.template;
    gboolean changed = TRUE;
    if (gst_kmatch_template_state_cut (t, self->first.matcher, im, &r,
            channels, fmt)) {
      self->first.have_last = FALSE;
      self->first.warned_size = self->warned_region = FALSE;
      GST_INFO_OBJECT (self, "template %dx%d cut at %d,%d", r.width, r.height,
          r.x, r.y);
    } else {
      /* a template of other frames is let go: it could be of another
       * depth, and these frames do not hold the region; the next frame
       * that holds it is cut */
      if (!self->warned_region)
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
            ("template-region %d,%d,%d,%d lies outside the %dx%d frame: "
                "nothing is matched until a frame holds it", r.x, r.y,
                r.width, r.height, im->width, im->height), (NULL));
      self->warned_region = TRUE;
      changed = t->samples != NULL;
      gst_kmatch_template_state_clear (t);
    }
    GST_OBJECT_LOCK (self);
    if (self->template_cookie == template_cookie)
      self->settings.cut_pending = FALSE;
    if (changed)
      self->template_cookie++;  /* the cut template is the one now */
    self->first.template.built = self->template_cookie;
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }

  if (snap->template_rgb && self->first.template.built != template_cookie
      && !template_fits_frames (self, snap->template_rgb, template_cookie,
          im)) {
    self->first.template.built = template_cookie;
    return TRUE;
  }
  if (snap->template_rgb && (self->first.template.built != template_cookie
          || gst_kmatch_template_state_stale (&self->first.template,
              &frame->info, channels))) {
    if (gst_kmatch_template_state_pack (&self->first.template,
            self->first.matcher, snap->template_rgb, &frame->info, channels)) {
      self->first.have_last = FALSE;
      self->first.warned_size = FALSE;
    }
    self->first.template.built = template_cookie;
  }
  gst_kmatch_template_state_use_mask (&self->first.template,
      self->first.matcher, snap->use_alpha);
  return TRUE;
}
