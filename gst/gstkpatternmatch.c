/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-kpatternmatch
 * @title: kpatternmatch
 *
 * Finds a template in every frame by the Sum of Absolute Differences,
 * exhaustively and exactly, and reports where it is: an element message
 * named "kpatternmatch" per frame (found, x, y, width, height, sad, score,
 * the list of matches when max-matches > 1, timestamp, stream-time,
 * running-time, duration) and a GstVideoRegionOfInterestMeta per match
 * ("kpatternmatch", with the score as a parameter).  The video passes
 * through unchanged unless draw is set.
 *
 * score = sad / (255 * width * height * channels): 0 is a perfect match.
 * Among equal sums the topmost, then leftmost position wins.
 *
 * On CUDA up to #GstKConvBase:frames-in-flight frames are searched at
 * once (the upload of one overlaps the search of the one before); each
 * reports as it leaves, in order, with the settings it came in with.  With
 * search-radius, and on the CPU, each frame leaves as soon as it is
 * searched.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc ! kpatternmatch template-region="100,80,40,30" draw=true ! videoconvert ! autovideosink
 * ]| Cuts a template from the first frame and follows it, drawing a box.
 * |[
 * gst-launch-1.0 -m filesrc location=in.mp4 ! decodebin ! videoconvert ! kpatternmatch template-location=logo.png threshold=0.1 ! fakesink
 * ]| Looks for a logo, reporting it only where it is a close match.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkpatternmatch.h"
#include "kconv-frame-images.h"
#include "kconv-refusal.h"
#include "kmatch-report.h"
#include "kmatch-template.h"
#include "kmatch.h"

GST_DEBUG_CATEGORY_STATIC (gst_kpattern_match_debug);
#define GST_CAT_DEFAULT gst_kpattern_match_debug

typedef enum
{
  GST_KMATCH_ON_LUMA,
  GST_KMATCH_ON_COLOR,
} GstKMatchOn;

enum
{
  PROP_0,
  PROP_TEMPLATE_LOCATION,
  PROP_TEMPLATE_REGION,
  PROP_SEARCH_REGION,
  PROP_SEARCH_RADIUS,
  PROP_THRESHOLD,
  PROP_MAX_MATCHES,
  PROP_DRAW,
  PROP_MATCH_ON,
  PROP_USE_ALPHA,
  N_PROPERTIES
};

enum
{
  SIGNAL_SET_TEMPLATE,
  N_SIGNALS
};

#define DEFAULT_SEARCH_RADIUS 0
/* under it: a template under noise of sigma 8 with the brightness moved
 * by 10 scores about 0.042; tests/kmatch-threshold.c measured it against
 * other photographs and snow (README) */
#define DEFAULT_THRESHOLD 0.045
#define DEFAULT_MAX_MATCHES 1
#define DEFAULT_DRAW FALSE
#define DEFAULT_MATCH_ON GST_KMATCH_ON_LUMA
#define DEFAULT_USE_ALPHA TRUE
#define MAX_MATCHES 64

static GParamSpec *properties[N_PROPERTIES];
static guint signals[N_SIGNALS];

/* Set by properties and the action signal; under the object lock. */
typedef struct
{
  gchar *template_location;
  GstSample *template_rgb;      /* RGBA, from the file or the signal */
  gboolean use_alpha;
  gboolean cut_pending;         /* template-region: cut from the next frame */
  KMatchRegion template_region;
  gboolean has_search_region;
  KMatchRegion search_region;
  gint search_radius;
  gdouble threshold;
  gint max_matches;
  gboolean draw;
  GstKMatchOn match_on;
} Settings;

struct _GstKPatternMatch
{
  GstKConvBase parent;

  Settings settings;
  guint template_cookie;        /* bumped when the template source changes */
  gint frame_width, frame_height;       /* of the last frame; 0: none yet */

  /* streaming thread only */
  KMatch *matcher;
  guint matcher_built;
  guint template_built;
  gboolean have_template;
  guint8 *tmpl;                 /* the packed template, kept for new matchers */
  guint8 *tmask;                /* its pixels that count (alpha >= 128), or
                                 * NULL: all */
  gboolean mask_applied;        /* tmask given to the matcher (use-alpha) */
  GstVideoFormat template_format;
  gint template_channels;
  gboolean template_from_region;        /* cut from a frame (template-region) */
  gint tw, th;
  gboolean have_last;
  KMatchPosition last;
  gboolean warned_size, warned_color;
};

#define gst_kpattern_match_parent_class parent_class
G_DEFINE_TYPE (GstKPatternMatch, gst_kpattern_match, GST_TYPE_KCONV_BASE);
GST_ELEMENT_REGISTER_DEFINE (kpatternmatch, "kpatternmatch", GST_RANK_NONE,
    GST_TYPE_KPATTERN_MATCH);

#define GST_TYPE_KMATCH_ON (gst_kmatch_on_get_type ())
static GType
gst_kmatch_on_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KMATCH_ON_LUMA, "Luma (grey) samples", "luma"},
    {GST_KMATCH_ON_COLOR, "R, G and B, summed (RGB formats)", "color"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKMatchOn", values));
  return type;
}

static gchar *
format_region (const KMatchRegion * r)
{
  return g_strdup_printf ("%d,%d,%d,%d", r->x, r->y, r->width, r->height);
}

/* The largest template worth keeping: the frames' size once there are
 * frames (a larger one can never be found), else the documented maximum. */
static void
template_size_limit (GstKPatternMatch * self, gint * max_w, gint * max_h)
{
  GST_OBJECT_LOCK (self);
  *max_w = self->frame_width ? self->frame_width : KMATCH_TEMPLATE_MAX_SIDE;
  *max_h = self->frame_height ? self->frame_height : KMATCH_TEMPLATE_MAX_SIDE;
  GST_OBJECT_UNLOCK (self);
}

/* A value a property refuses, with a message (the settings stay as they
 * were); regions are parsed and a template file is loaded here, outside
 * the lock. */
static gboolean
gst_kpattern_match_refuses (GstKPatternMatch * self, guint prop_id,
    const GValue * value, KMatchRegion * region, GstSample ** loaded)
{
  GstElement *element = GST_ELEMENT (self);
  char why[128];

  switch (prop_id) {
    case PROP_TEMPLATE_LOCATION:{
      /* loaded (and checked) at start, or right away while running; a
       * file that does not load leaves the template as it was */
      const gchar *location = g_value_get_string (value);
      GError *err = NULL;
      gint max_w, max_h;
      template_size_limit (self, &max_w, &max_h);
      if (location && GST_STATE (self) >= GST_STATE_READY
          && !(*loaded = gst_kmatch_template_load_file (location, max_w, max_h,
                  &err))) {
        gst_kconv_refusal_post (element, "template-location",
            "template-location \"%s\" refused: %s", location, err->message);
        g_clear_error (&err);
        return TRUE;
      }
      return FALSE;
    }
    case PROP_TEMPLATE_REGION:{
      const gchar *text = g_value_get_string (value);
      if (kmatch_region_parse (text, region, why, sizeof why) == 0)
        return FALSE;
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 40);
      gst_kconv_refusal_post (element, "template-region",
          "template-region \"%s\" refused: %s", excerpt, why);
      g_free (excerpt);
      return TRUE;
    }
    case PROP_SEARCH_REGION:{
      const gchar *text = g_value_get_string (value);
      if (!text || !*text
          || kmatch_region_parse (text, region, why, sizeof why) == 0)
        return FALSE;
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 40);
      gst_kconv_refusal_post (element, "search-region",
          "search-region \"%s\" refused: %s (empty: the whole frame)",
          excerpt, why);
      g_free (excerpt);
      return TRUE;
    }
    case PROP_THRESHOLD:{
      gdouble t = g_value_get_double (value);
      if (t >= 0.0 && t <= 1.0)
        return FALSE;
      gst_kconv_refusal_post (element, "threshold",
          "threshold must be between 0 and 1; %g refused", t);
      return TRUE;
    }
    default:
      return FALSE;
  }
}

static void
gst_kpattern_match_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (object);
  Settings *s = &self->settings;
  KMatchRegion region = { 0 };
  GstSample *loaded = NULL;
  gboolean latency_changed = FALSE;

  if (gst_kpattern_match_refuses (self, prop_id, value, &region, &loaded))
    return;
  gst_kconv_refusal_accepted (GST_ELEMENT (self), pspec->name);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TEMPLATE_LOCATION:
      g_free (s->template_location);
      s->template_location = g_value_dup_string (value);
      if (loaded) {
        g_clear_pointer (&s->template_rgb, gst_sample_unref);
        s->template_rgb = loaded;
        s->cut_pending = FALSE;
        self->template_cookie++;
      }
      break;
    case PROP_TEMPLATE_REGION:
      s->template_region = region;
      s->cut_pending = TRUE;
      break;
    case PROP_SEARCH_REGION:
      s->has_search_region = region.width > 0;
      s->search_region = region;
      break;
    case PROP_SEARCH_RADIUS:
      /* tracking holds no frames: the latency changes */
      latency_changed = (s->search_radius > 0) != (g_value_get_int (value) > 0);
      s->search_radius = g_value_get_int (value);
      break;
    case PROP_THRESHOLD:
      s->threshold = g_value_get_double (value);
      break;
    case PROP_MAX_MATCHES:
      s->max_matches = g_value_get_int (value);
      break;
    case PROP_DRAW:
      s->draw = g_value_get_boolean (value);
      break;
    case PROP_MATCH_ON:
      s->match_on = g_value_get_enum (value);
      break;
    case PROP_USE_ALPHA:
      s->use_alpha = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (latency_changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_kpattern_match_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (object);
  Settings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TEMPLATE_LOCATION:
      g_value_set_string (value, s->template_location);
      break;
    case PROP_TEMPLATE_REGION:
      g_value_take_string (value, s->template_region.width ?
          format_region (&s->template_region) : NULL);
      break;
    case PROP_SEARCH_REGION:
      g_value_take_string (value, s->has_search_region ?
          format_region (&s->search_region) : NULL);
      break;
    case PROP_SEARCH_RADIUS:
      g_value_set_int (value, s->search_radius);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, s->threshold);
      break;
    case PROP_MAX_MATCHES:
      g_value_set_int (value, s->max_matches);
      break;
    case PROP_DRAW:
      g_value_set_boolean (value, s->draw);
      break;
    case PROP_MATCH_ON:
      g_value_set_enum (value, s->match_on);
      break;
    case PROP_USE_ALPHA:
      g_value_set_boolean (value, s->use_alpha);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The action signal: any raw video sample becomes the template. */
static gboolean
gst_kpattern_match_set_template (GstKPatternMatch * self, GstSample * sample)
{
  GError *err = NULL;
  GstSample *rgb;

  if (!sample || !gst_sample_get_buffer (sample) || !gst_sample_get_caps
      (sample)) {
    GST_WARNING_OBJECT (self, "set-template needs a sample with caps");
    return FALSE;
  }
  gint max_w, max_h;
  template_size_limit (self, &max_w, &max_h);
  if (!(rgb = gst_kmatch_template_to_rgba (sample, max_w, max_h, &err))) {
    GST_WARNING_OBJECT (self, "set-template: %s", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->settings.template_rgb, gst_sample_unref);
  self->settings.template_rgb = rgb;
  self->settings.cut_pending = FALSE;
  self->template_cookie++;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_kpattern_match_start (GstBaseTransform * trans)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  GST_OBJECT_LOCK (self);
  gchar *location = g_strdup (self->settings.template_location);
  GST_OBJECT_UNLOCK (self);

  if (location) {
    GError *err = NULL;
    GstSample *rgb = gst_kmatch_template_load_file (location,
        KMATCH_TEMPLATE_MAX_SIDE, KMATCH_TEMPLATE_MAX_SIDE, &err);
    if (!rgb) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Could not load the template \"%s\"", location), ("%s",
              err->message));
      g_clear_error (&err);
      g_free (location);
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    g_clear_pointer (&self->settings.template_rgb, gst_sample_unref);
    self->settings.template_rgb = rgb;
    self->template_cookie++;
    GST_OBJECT_UNLOCK (self);
  }
  g_free (location);
  self->have_last = FALSE;
  self->warned_size = self->warned_color = FALSE;
  return TRUE;
}

static void
gst_kpattern_match_free_core (GstKConvBase * base)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);

  kmatch_free (self->matcher);
  self->matcher = NULL;
  self->have_template = FALSE;
}

static gboolean
gst_kpattern_match_stop (GstBaseTransform * trans)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (trans);

  /* the matcher goes first, through free_core */
  GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  self->template_built = 0;
  GST_OBJECT_LOCK (self);
  self->frame_width = self->frame_height = 0;
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->tmpl, g_free);
  g_clear_pointer (&self->tmask, g_free);
  return TRUE;
}

/* The frame's samples to match, as an image for the core: the luma the
 * frame has (grey, any YUV layout), or R, G, B (packed in place, planar
 * gathered into *gathered, which the caller frees), whose luma the core
 * makes when matching on luma (*rgb_luma). */
static void
match_image (GstVideoFrame * frame, gint channels, KConvImage * im,
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
    im->data = GST_VIDEO_FRAME_COMP_DATA (frame, GST_VIDEO_COMP_Y);
    im->stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, GST_VIDEO_COMP_Y);
    im->pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, GST_VIDEO_COMP_Y);
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

/* The samples matched a pixel: R, G, B for match-on=color on RGB video,
 * else its luma. */
static gint
matched_channels (GstKMatchOn match_on, const GstVideoInfo * info)
{
  return match_on == GST_KMATCH_ON_COLOR && GST_VIDEO_INFO_IS_RGB (info) ?
      3 : 1;
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
  g_clear_pointer (&self->tmpl, g_free);
  g_clear_pointer (&self->tmask, g_free);
  self->have_template = FALSE;
  self->mask_applied = FALSE;
  return FALSE;
}

/* Builds the matcher and its template when something they depend on
 * changed; FALSE (and an element error) when the backend cannot run. */
static gboolean
ensure_matcher (GstKPatternMatch * self, GstVideoFrame * frame,
    const Settings * snap, guint template_cookie, gint channels,
    const KConvImage * im)
{
  KConvOptions opt;
  guint matcher_cookie = gst_kconv_base_options (GST_KCONV_BASE (self), &opt);

  if (!self->matcher || self->matcher_built != matcher_cookie) {
    kmatch_free (self->matcher);
    self->matcher = NULL;
    KConvStatus st = kmatch_new (&opt, &self->matcher);
    if (st != KCONV_OK) {
      GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
          ("Could not set up template matching"), st);
      return FALSE;
    }
    GST_DEBUG_OBJECT (self, "matching on %s",
        kconv_backend_name (kmatch_backend (self->matcher)));
    gst_kconv_base_check_auto_start (GST_KCONV_BASE (self), &opt,
        kmatch_backend (self->matcher));
    self->matcher_built = matcher_cookie;
    self->have_template = self->tmpl && kmatch_set_template (self->matcher,
        self->tmpl, self->tw, self->th, (ptrdiff_t) self->tw *
        self->template_channels, self->template_channels) == KCONV_OK;
    self->mask_applied = FALSE;
  }

  GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT (frame);
  /* a template cut from a frame is cut again from this one when what is
   * matched changed (match-on, or caps between RGB and YUV) */
  if (snap->cut_pending || (self->template_from_region && self->have_template
          && self->template_channels != channels)) {
    /* template-region: cut from this frame, in the samples matched */
    KMatchRegion r = snap->template_region;
    guint8 *t = kmatch_cut_template (im, &r, channels);
    if (!t) {
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("template-region %d,%d,%d,%d lies outside the %dx%d frame", r.x,
              r.y, r.width, r.height, im->width, im->height), (NULL));
    } else {
      kmatch_set_template (self->matcher, t, r.width, r.height,
          (ptrdiff_t) r.width * channels, channels);
      g_free (self->tmpl);
      g_clear_pointer (&self->tmask, g_free);
      self->tmpl = t;
      self->tw = r.width;
      self->th = r.height;
      self->template_channels = channels;
      self->template_format = fmt;
      self->template_from_region = TRUE;
      self->have_template = TRUE;
      self->have_last = FALSE;
      self->warned_size = FALSE;
      GST_INFO_OBJECT (self, "template %dx%d cut at %d,%d", r.width, r.height,
          r.x, r.y);
    }
    GST_OBJECT_LOCK (self);
    if (self->template_cookie == template_cookie)
      self->settings.cut_pending = FALSE;
    self->template_cookie++;    /* the cut template is the one now */
    self->template_built = self->template_cookie;
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }

  if (snap->template_rgb && self->template_built != template_cookie
      && !template_fits_frames (self, snap->template_rgb, template_cookie,
          im)) {
    self->template_built = template_cookie;
    return TRUE;
  }
  if (snap->template_rgb && (self->template_built != template_cookie
          || self->template_format != fmt
          || self->template_channels != channels)) {
    gint w, h;
    guint8 *mask;
    guint8 *t = gst_kmatch_template_pack (snap->template_rgb, frame->info.finfo,
        channels, &w, &h, &mask);
    if (t) {
      kmatch_set_template (self->matcher, t, w, h, (ptrdiff_t) w * channels,
          channels);
      g_free (self->tmpl);
      g_free (self->tmask);
      self->tmpl = t;
      self->tmask = mask;
      self->mask_applied = FALSE;
      self->tw = w;
      self->th = h;
      self->template_channels = channels;
      self->template_format = fmt;
      self->template_from_region = FALSE;
      self->have_template = TRUE;
      self->have_last = FALSE;
      self->warned_size = FALSE;
    }
    self->template_built = template_cookie;
  }
  /* transparency: on for a template with some, unless use-alpha=false */
  gboolean want_mask = snap->use_alpha && self->tmask;
  if (self->have_template && want_mask != self->mask_applied) {
    kmatch_set_template_mask (self->matcher, want_mask ? self->tmask : NULL,
        self->tw);
    self->mask_applied = want_mask;
  }
  return TRUE;
}

/* One frame's search, from its start to its report: what was asked and
 * where, so that a frame in flight reports what held when it came in. */
typedef struct
{
  gboolean report;              /* FALSE: no template yet, nothing to say */
  gboolean search;              /* FALSE: the template does not fit */
  KConvImage im;                /* the samples searched */
  gboolean rgb_luma;
  guint8 *gathered;             /* planar RGB packed, owned */
  KMatchRegion region;
  gint channels, tw, th;
  gdouble norm;                 /* over the template's pixels that count */
  Settings snap;                /* without the template or its location */
  guint template_cookie;
} MatchJob;

static void
match_job_free (gpointer data)
{
  MatchJob *job = data;
  g_free (job->gathered);
  g_free (job);
}

/* Everything before the search: the settings, the matcher and its
 * template, the samples and the area to search.  NULL (an element error
 * posted) when the matcher cannot be made. */
static MatchJob *
match_job_new (GstKPatternMatch * self, GstVideoFrame * frame)
{
  MatchJob *job = g_new0 (MatchJob, 1);
  Settings *snap = &job->snap;

  GST_OBJECT_LOCK (self);
  *snap = self->settings;
  if (snap->template_rgb)
    gst_sample_ref (snap->template_rgb);
  snap->template_location = NULL;
  job->template_cookie = self->template_cookie;
  GST_OBJECT_UNLOCK (self);

  gint channels = matched_channels (snap->match_on, &frame->info);
  if (snap->match_on == GST_KMATCH_ON_COLOR && channels == 1
      && !self->warned_color) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("match-on=color needs RGB video; matching on luma"), (NULL));
    self->warned_color = TRUE;
  }
  match_image (frame, channels, &job->im, &job->rgb_luma, &job->gathered);
  GST_OBJECT_LOCK (self);
  self->frame_width = job->im.width;
  self->frame_height = job->im.height;
  GST_OBJECT_UNLOCK (self);
  gboolean ok = ensure_matcher (self, frame, snap, job->template_cookie,
      channels, &job->im);
  g_clear_pointer (&snap->template_rgb, gst_sample_unref);
  snap->cut_pending = FALSE;    /* done once, by ensure_matcher */
  if (!ok) {
    match_job_free (job);
    return NULL;
  }
  job->channels = channels;
  job->tw = self->tw;
  job->th = self->th;
  if (!self->have_template || self->template_channels != channels)
    return job;                 /* no template yet: nothing to report */

  /* where to look: the search region, narrowed around the last match */
  const KMatchRegion *search = snap->has_search_region ?
      &snap->search_region : NULL;
  KMatchRegion wide = kmatch_search_area (search, NULL, 0, self->tw, self->th,
      job->im.width, job->im.height);
  job->region = kmatch_search_area (search,
      self->have_last ? &self->last : NULL, snap->search_radius, self->tw,
      self->th, job->im.width, job->im.height);
  job->norm = 255.0 * kmatch_template_pixels (self->matcher) * channels;
  job->report = TRUE;
  job->search = self->tw <= job->region.width && self->th <= job->region.height;
  if (!job->search && !self->warned_size) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The %dx%d template does not fit the %dx%d search area",
            self->tw, self->th, wide.width, wide.height), (NULL));
    self->warned_size = TRUE;
  }
  return job;
}

/* The matcher again, after a GPU failure made the options say CPU. */
static gboolean
rebuild_matcher (GstKPatternMatch * self, GstVideoFrame * frame, MatchJob * job)
{
  return ensure_matcher (self, frame, &job->snap, job->template_cookie,
      job->channels, &job->im);
}

/* Reports a searched frame: the matches under the threshold become the
 * last match, metas on its buffer, boxes drawn and the bus message. */
static GstFlowReturn
match_job_report (GstKPatternMatch * self, GstVideoFrame * frame,
    const MatchJob * job, KMatchPosition * matches, gint n, gboolean on_device)
{
  /* only matches at or under the threshold count; the message still says
   * where the best position was and how it scored */
  const gboolean searched = n > 0;
  KMatchPosition best = { 0 };
  if (searched)
    best = matches[0];
  gint kept = 0;
  for (gint i = 0; i < n; i++)
    if (matches[i].sad / job->norm <= job->snap.threshold)
      matches[kept++] = matches[i];
  n = kept;

  self->have_last = n > 0;
  if (n > 0)
    self->last = matches[0];

  gst_kmatch_report_metas (frame->buffer, matches, n, job->tw, job->th,
      job->norm);
  KConvStatus st = KCONV_OK;
  for (gint i = 0; job->snap.draw && i < n && st == KCONV_OK; i++)
    st = gst_kconv_frame_draw_box (frame, matches[i].x, matches[i].y, job->tw,
        job->th, on_device);
  if (st == KCONV_OK && on_device && job->snap.draw && n > 0)
    st = kconv_device_sync (NULL);
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Drawing the match failed"), st);
    return GST_FLOW_ERROR;
  }
  gst_element_post_message (GST_ELEMENT (self),
      gst_kmatch_report_message (GST_OBJECT (self),
          &GST_BASE_TRANSFORM (self)->segment, frame->buffer,
          searched ? &best : NULL, matches, n, job->tw, job->th, job->norm,
          job->snap.max_matches));
  return GST_FLOW_OK;
}

/* Searches a mapped frame of a stream in CUDA memory and reports at once:
 * on_device when its planes are device pointers (the matcher in their
 * context), else the frame read on the host for a cut. */
static GstFlowReturn
match_frame_now (GstKPatternMatch * self, GstVideoFrame * frame,
    gboolean on_device)
{
  if (on_device && GST_VIDEO_INFO_IS_RGB (&frame->info)
      && GST_VIDEO_FRAME_N_PLANES (frame) > 1) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Planar RGB in CUDA memory is "
            "not matched yet"), ("put cudadownload before the element"));
    return GST_FLOW_ERROR;
  }
  MatchJob *job = match_job_new (self, frame);
  if (!job)
    return GST_FLOW_ERROR;
  KMatchPosition matches[MAX_MATCHES];
  gint n = 0;
  KConvStatus st = KCONV_OK;
  /* (frames in CUDA memory never fall back to the CPU; one read on the host
   * for a cut is searched there too) */
  if (job->search && on_device)
    st = kmatch_search_device (self->matcher, &job->im, job->rgb_luma,
        &job->region, job->snap.max_matches, matches, &n);
  else if (job->search)
    st = (job->rgb_luma ? kmatch_search_luma : kmatch_search) (self->matcher,
        &job->im, &job->region, job->snap.max_matches, matches, &n, NULL);
  GstFlowReturn ret = GST_FLOW_OK;
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Template search failed"), st);
    ret = GST_FLOW_ERROR;
  } else if (job->report) {
    ret = match_job_report (self, frame, job, matches, n, on_device);
  }
  match_job_free (job);
  return ret;
}

/* A frame in CUDA memory, matched where it lies and reported at once.  A
 * frame a template is cut from (template-region) is read once in system
 * memory.  Takes buf. */
static GstFlowReturn
start_frame_on_device (GstKPatternMatch * self, GstBuffer * buf)
{
  GstKConvBase *base = GST_KCONV_BASE (self);
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstVideoFrame frame;

  GST_OBJECT_LOCK (self);
  /* a cut (ensure_matcher) reads the frame on the host */
  gboolean cut = self->settings.cut_pending || (self->template_from_region
      && self->have_template && self->template_channels !=
      matched_channels (self->settings.match_on, info));
  GstMapFlags flags = self->settings.draw ? GST_MAP_READWRITE : GST_MAP_READ;
  GST_OBJECT_UNLOCK (self);

  /* no extra ref, so metas can still be added */
  flags |= GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  GstFlowReturn ret = GST_FLOW_ERROR;
  if (cut && !gst_video_frame_map (&frame, info, buf, flags))
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame"), (NULL));
  else if (cut || gst_kconv_base_map_cuda (base, &frame, info, buf, flags)) {
    ret = match_frame_now (self, &frame, !cut);
    gst_video_frame_unmap (&frame);
  }
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  gst_kconv_base_queue_done (base, buf);
  return GST_FLOW_OK;
}

/* Starts the search of a frame and queues it; it reports when it leaves
 * (finish_frame).  Takes inbuf. */
static GstFlowReturn
gst_kpattern_match_start_frame (GstKConvBase * base, GstBuffer * inbuf)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstBuffer *buf = NULL;

  if (!gst_kconv_base_check_size (base, inbuf, info)) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  /* in place: inbuf itself when writable (metas go on it), else a copy */
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer (trans,
      inbuf, &buf);
  if (buf != inbuf)
    gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK || !buf) {
    gst_clear_buffer (&buf);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
  }
  if (base->on_cuda_memory)
    return start_frame_on_device (self, buf);

  GST_OBJECT_LOCK (self);
  GstMapFlags flags = self->settings.draw ? GST_MAP_READWRITE : GST_MAP_READ;
  gboolean tracking = self->settings.search_radius > 0;
  GST_OBJECT_UNLOCK (self);
  /* tracking searches around the last match: the frames before this one
   * report first (as on the CPU, whatever is in flight) */
  if (tracking && gst_kconv_inflight_length (&base->inflight) > 0
      && (ret = gst_kconv_base_push_queued (base)) != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  GstKConvInflightFrame *f =
      gst_kconv_inflight_frame_new_in_place (&base->inflight,
      buf, info, flags);
  if (!f) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  MatchJob *job = match_job_new (self, &f->in);
  if (!job) {
    gst_kconv_inflight_frame_discard (&base->inflight, f);
    return GST_FLOW_ERROR;
  }
  f->job = job;
  f->job_free = match_job_free;
  if (!gst_kconv_base_submit (base, f)) {
    gst_kconv_inflight_frame_discard (&base->inflight, f);
    return GST_FLOW_ERROR;
  }
  gst_kconv_base_queue (base, f);
  /* tracking: the next frame's area depends on this one's answer; on the
   * CPU the answer is there already */
  if (tracking || kmatch_backend (self->matcher) != KCONV_BACKEND_CUDA)
    gst_kconv_base_let_out (base);
  return GST_FLOW_OK;
}

/* Frames are held only on CUDA without tracking: elsewhere each leaves as
 * soon as it is searched (start_frame). */
static guint
gst_kpattern_match_frames_held (GstKConvBase * base)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  KConvOptions opt;

  gst_kconv_base_options (base, &opt);
  GST_OBJECT_LOCK (self);
  gboolean tracking = self->settings.search_radius > 0;
  GST_OBJECT_UNLOCK (self);
  if (tracking || kconv_backend_resolve (opt.backend) != KCONV_BACKEND_CUDA)
    return 1;
  return gst_kconv_base_get_frames_in_flight (base);
}

/* A frame in flight whose search is done: its report, as it leaves. */
static GstFlowReturn
gst_kpattern_match_finish_frame (GstKConvBase * base, GstKConvInflightFrame * f)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  MatchJob *job = f->job;
  KMatchPosition matches[MAX_MATCHES];
  gint n = 0;

  if (!job->report)
    return GST_FLOW_OK;
  KConvStatus st = job->search ? kmatch_slot_matches (f->slot, matches, &n) :
      KCONV_OK;
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Template search failed"), st);
    return GST_FLOW_ERROR;
  }
  return match_job_report (self, &f->in, job, matches, n, FALSE);
}

/* Starts the frame's search on its slot (a frame with nothing to search
 * has nothing to start). */
static KConvStatus
gst_kpattern_match_submit_frame (GstKConvBase * base, GstKConvInflightFrame * f)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  MatchJob *job = f->job;
  if (!job->search)
    return KCONV_OK;
  return kmatch_submit (self->matcher, f->slot, &job->im, job->rgb_luma,
      &job->region, job->snap.max_matches);
}

static gboolean
gst_kpattern_match_rebuild_core (GstKConvBase * base, GstKConvInflightFrame * f)
{
  return rebuild_matcher (GST_KPATTERN_MATCH (base), &f->in, f->job);
}

static void
gst_kpattern_match_finalize (GObject * object)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (object);

  /* the matcher goes in the base's finalize, through free_core */
  g_free (self->tmpl);
  g_free (self->tmask);
  g_free (self->settings.template_location);
  g_clear_pointer (&self->settings.template_rgb, gst_sample_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_kpattern_match_class_init (GstKPatternMatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstKConvBaseClass *base_class = GST_KCONV_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_kpattern_match_debug, "kpatternmatch", 0,
      "kconv template matching");
  base_class->debug = gst_kpattern_match_debug;

  gobject_class->set_property = gst_kpattern_match_set_property;
  gobject_class->get_property = gst_kpattern_match_get_property;
  gobject_class->finalize = gst_kpattern_match_finalize;

  properties[PROP_TEMPLATE_LOCATION] = g_param_spec_string
      ("template-location", "Template location",
      "Image file to look for (any format GStreamer decodes: PNG, JPEG, ...)",
      NULL, flags);
  properties[PROP_TEMPLATE_REGION] = g_param_spec_string ("template-region",
      "Template region", "\"x,y,width,height\": cut the template from the "
      "next frame", NULL, flags);
  properties[PROP_SEARCH_REGION] = g_param_spec_string ("search-region",
      "Search region", "\"x,y,width,height\": the template must lie inside "
      "it (empty: the whole frame)", NULL, flags);
  properties[PROP_SEARCH_RADIUS] = g_param_spec_int ("search-radius",
      "Search radius", "Track: search only this many pixels around the last "
      "match (0 = everywhere; a frame without a match searches everywhere)",
      0, G_MAXINT, DEFAULT_SEARCH_RADIUS, flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_THRESHOLD] = g_param_spec_double ("threshold", "Threshold",
      "Largest score that counts as found: sad / (255 * width * height * "
      "channels), 0 = identical", 0.0, 1.0, DEFAULT_THRESHOLD,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_MAX_MATCHES] = g_param_spec_int ("max-matches",
      "Max matches", "Report this many best non-overlapping matches", 1,
      MAX_MATCHES, DEFAULT_MAX_MATCHES, flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_DRAW] = g_param_spec_boolean ("draw", "Draw",
      "Draw a box around each match", DEFAULT_DRAW, flags);
  properties[PROP_MATCH_ON] = g_param_spec_enum ("match-on", "Match on",
      "Which samples are compared", GST_TYPE_KMATCH_ON, DEFAULT_MATCH_ON,
      flags);
  properties[PROP_USE_ALPHA] = g_param_spec_boolean ("use-alpha",
      "Use alpha", "A template with transparency (from a PNG or set-template "
      "with alpha): only its pixels with alpha >= 128 count, so it matches "
      "over any background", DEFAULT_USE_ALPHA, flags);
  g_object_class_install_properties (gobject_class, N_PROPERTIES, properties);

  /**
   * GstKPatternMatch::set-template:
   * @sample: a raw video sample, any format
   *
   * Makes @sample the template (from memory, as an application has it).
   * Returns: %TRUE when it could be converted
   */
  signals[SIGNAL_SET_TEMPLATE] = g_signal_new_class_handler ("set-template",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_kpattern_match_set_template), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, GST_TYPE_SAMPLE);

  gst_element_class_set_static_metadata (element_class,
      "Template matching (SAD)", "Filter/Analyzer/Video",
      "Finds a template in each frame by the sum of absolute differences, "
      "exactly; reports it by message and region-of-interest meta",
      "kconv contributors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_kpattern_match_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_kpattern_match_stop);
  base_class->free_core = GST_DEBUG_FUNCPTR (gst_kpattern_match_free_core);
  base_class->start_frame = GST_DEBUG_FUNCPTR (gst_kpattern_match_start_frame);
  base_class->finish_frame =
      GST_DEBUG_FUNCPTR (gst_kpattern_match_finish_frame);
  base_class->submit_frame =
      GST_DEBUG_FUNCPTR (gst_kpattern_match_submit_frame);
  base_class->rebuild_core =
      GST_DEBUG_FUNCPTR (gst_kpattern_match_rebuild_core);
  base_class->frames_held = GST_DEBUG_FUNCPTR (gst_kpattern_match_frames_held);

  gst_type_mark_as_plugin_api (GST_TYPE_KMATCH_ON, 0);
}

static void
gst_kpattern_match_init (GstKPatternMatch * self)
{
  Settings *s = &self->settings;

  s->search_radius = DEFAULT_SEARCH_RADIUS;
  s->threshold = DEFAULT_THRESHOLD;
  s->max_matches = DEFAULT_MAX_MATCHES;
  s->draw = DEFAULT_DRAW;
  s->match_on = DEFAULT_MATCH_ON;
  s->use_alpha = DEFAULT_USE_ALPHA;
  self->template_cookie = 1;
  /* the buffer carries metas and maybe drawings: in place, never passthrough */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
