/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-kpatternmatch
 * @title: kpatternmatch
 *
 * Finds a template, or several, in every frame, exhaustively, and reports
 * where each is: an element message named "kpatternmatch" per frame and
 * template (template, its index, template-name, found, x, y, x-subpixel,
 * y-subpixel, width, height, method, score, the method's own value: sad,
 * ssd or correlation, the list of matches when max-matches > 1,
 * timestamp, stream-time, running-time, duration) and a
 * GstVideoRegionOfInterestMeta per match ("kpatternmatch", with the same
 * values as a parameter).  template-location takes a list of files
 * separated by commas; add-template adds one from memory.  The video
 * passes through unchanged unless draw is set.
 *
 * method: sad (the sum of absolute differences, the default), ssd (of
 * squared differences), ncc (normalized cross-correlation) or zncc
 * (zero-mean normalized cross-correlation, blind to brightness and
 * contrast), by OpenCV's matchTemplate formulas (kmatch.h).  The score is
 * a distance for every method: 0 is a perfect match, 1 the worst (sad /
 * (255 * width * height * channels), ssd / (255^2 * ...), 1 - ncc,
 * (1 - zncc) / 2); threshold compares it.  Among equal scores the
 * topmost, then leftmost position wins.
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
 * |[
 * gst-launch-1.0 -m filesrc location=in.mp4 ! decodebin ! videoconvert ! kpatternmatch template-location=play.png,pause.png method=zncc ! fakesink
 * ]| Looks for two icons in each frame, a message for each.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkpatternmatch-private.h"
#include "kconv-formats.h"
#include "kconv-refusal.h"
#include "kmatch-template.h"

GST_DEBUG_CATEGORY (gst_kpattern_match_debug);

enum
{
  SIGNAL_SET_TEMPLATE,
  SIGNAL_ADD_TEMPLATE,
  N_SIGNALS
};

#define DEFAULT_SEARCH_RADIUS 0
/* under it: a template under noise of sigma 8 with the brightness moved
 * by 10 scores about 0.042; tests/bench/kmatch-threshold.c measured it against
 * other photographs and snow (README) */
#define DEFAULT_THRESHOLD 0.045
#define DEFAULT_MAX_MATCHES 1
#define DEFAULT_DRAW FALSE
#define DEFAULT_MATCH_ON GST_KMATCH_ON_LUMA
#define DEFAULT_USE_ALPHA TRUE
#define DEFAULT_METHOD KMATCH_METHOD_SAD
#define DEFAULT_TEMPLATE_BUDGET 0
#define DEFAULT_SCALES "1"

static GParamSpec *properties[N_PROPERTIES];
static guint signals[N_SIGNALS];

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

#define GST_TYPE_KMATCH_METHOD (gst_kmatch_method_get_type ())
static GType
gst_kmatch_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KMATCH_METHOD_SAD, "Sum of absolute differences, exact", "sad"},
    {KMATCH_METHOD_SSD, "Sum of squared differences, exact (TM_SQDIFF)",
        "ssd"},
    {KMATCH_METHOD_NCC, "Normalized cross-correlation (TM_CCORR_NORMED)",
        "ncc"},
    {KMATCH_METHOD_ZNCC, "Zero-mean normalized cross-correlation, blind to "
          "brightness and contrast (TM_CCOEFF_NORMED)", "zncc"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKMatchMethod",
            values));
  return type;
}

static gchar *
format_region (const KMatchRegion * r)
{
  return g_strdup_printf ("%d,%d,%d,%d", r->x, r->y, r->width, r->height);
}

static void
gst_kpattern_match_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (object);
  Settings *s = &self->settings;
  KMatchRegion region = { 0 };
  GstKMatchLocation loaded = { 0 };
  gdouble scales[KMATCH_MAX_SCALES];
  gint n_scales = 0;
  gboolean latency_changed = FALSE;

  if (gst_kpattern_match_refuses (self, prop_id, value, &region, scales,
          &n_scales, &loaded))
    return;
  gst_kconv_refusal_accepted (GST_ELEMENT (self), pspec->name);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TEMPLATE_LOCATION:
      g_free (s->template_location);
      s->template_location = g_value_dup_string (value);
      if (loaded.decoded.first || loaded.files) {
        gst_kpattern_match_set_templates (self, loaded.decoded.first,
            loaded.decoded.first_name, loaded.decoded.extras);
        s->pending_files = loaded.files;
        s->cut_pending = FALSE;
      }
      break;
    case PROP_TEMPLATE_REGION:
      /* the cut one becomes the only template: files and samples set
       * before are let go (also at the next start) */
      gst_kpattern_match_set_templates (self, NULL, g_strdup ("region"), NULL);
      g_clear_pointer (&s->template_location, g_free);
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
    case PROP_METHOD:
      s->method = g_value_get_enum (value);
      break;
    case PROP_TEMPLATE_BUDGET:
      s->template_budget = g_value_get_uint64 (value);
      break;
    case PROP_SCALES:
      g_free (s->scales_text);
      s->scales_text = g_value_dup_string (value);
      memcpy (s->scales, scales, sizeof scales[0] * n_scales);
      s->n_scales = n_scales;
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
    case PROP_METHOD:
      g_value_set_enum (value, s->method);
      break;
    case PROP_TEMPLATE_BUDGET:
      g_value_set_uint64 (value, s->template_budget);
      break;
    case PROP_SCALES:
      g_value_set_string (value, s->scales_text ? s->scales_text :
          DEFAULT_SCALES);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
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
    /* probed now (a file that cannot be read fails the start), decoded
     * when the caps say how large the frames are; as set in READY */
    GError *err = NULL;
    GST_OBJECT_LOCK (self);
    gboolean probed = self->settings.pending_files != NULL;
    GST_OBJECT_UNLOCK (self);
    GPtrArray *files = probed ? NULL :
        gst_kmatch_template_files_probe (location, &err);
    if (!probed && !files) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Could not load the template \"%s\"", location), ("%s",
              err->message));
      g_clear_error (&err);
      g_free (location);
      return FALSE;
    }
    GST_OBJECT_LOCK (self);
    if (files) {
      gst_kpattern_match_set_templates (self, NULL, NULL, NULL);
      self->settings.pending_files = files;
    }
    GST_OBJECT_UNLOCK (self);
  }
  g_free (location);
  self->first.have_last = FALSE;
  self->first.warned_size = self->warned_color = self->warned_region = FALSE;
  gst_kpattern_match_free_extras (self);
  return TRUE;
}

static void
gst_kpattern_match_free_core (GstKConvBase * base)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);

  kmatch_free (self->first.matcher);
  self->first.matcher = NULL;
  self->first.template.in_matcher = FALSE;
  gst_kpattern_match_free_sizes (&self->first);
  gst_kpattern_match_free_extras (self);
}

/* The frames' size is known: the files of template-location waiting for
 * it are decoded (each that cannot be kept refused with a warning). */
static gboolean
gst_kpattern_match_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (trans);
  if (!GST_KPATTERN_MATCH_PARENT->set_caps (trans, incaps, outcaps))
    return FALSE;
  const GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  gst_kpattern_match_decode_pending (self, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info));
  return TRUE;
}

static gboolean
gst_kpattern_match_stop (GstBaseTransform * trans)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (trans);

  /* the matcher goes first, through free_core */
  GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  self->first.template.built = 0;
  GST_OBJECT_LOCK (self);
  self->frame_width = self->frame_height = 0;
  g_clear_pointer (&self->settings.pending_files, g_ptr_array_unref);
  GST_OBJECT_UNLOCK (self);
  gst_kmatch_template_state_clear (&self->first.template);
  return TRUE;
}

static void
gst_kpattern_match_finalize (GObject * object)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (object);

  /* the matcher goes in the base's finalize, through free_core */
  gst_kmatch_template_state_clear (&self->first.template);
  g_free (self->settings.template_location);
  g_free (self->settings.template_name);
  g_free (self->settings.scales_text);
  g_clear_pointer (&self->settings.template_rgb, gst_sample_unref);
  g_clear_pointer (&self->settings.extra_templates, g_ptr_array_unref);
  g_clear_pointer (&self->settings.pending_files, g_ptr_array_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (KCONV_MATCH_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (KCONV_MATCH_VIDEO_CAPS));

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
  /* the base's pads, with the deeper formats that have luma (replaced by
   * name) */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  base_class->debug = gst_kpattern_match_debug;

  gobject_class->set_property = gst_kpattern_match_set_property;
  gobject_class->get_property = gst_kpattern_match_get_property;
  gobject_class->finalize = gst_kpattern_match_finalize;

  properties[PROP_TEMPLATE_LOCATION] = g_param_spec_string
      ("template-location", "Template location",
      "Image file to look for (any format GStreamer decodes: PNG, JPEG, "
      "...), or several separated by commas, each reported on its own (\\, "
      "is a comma in a name, \\\\ a backslash)", NULL, flags);
  properties[PROP_TEMPLATE_REGION] = g_param_spec_string ("template-region",
      "Template region", "\"x,y,width,height\": cut the template from the "
      "next frame (again from a new stream's first frame, and when the "
      "frames' depth or what is matched changes)", NULL, flags);
  properties[PROP_SEARCH_REGION] = g_param_spec_string ("search-region",
      "Search region", "\"x,y,width,height\": the template must lie inside "
      "it (empty: the whole frame)", NULL, flags);
  properties[PROP_SEARCH_RADIUS] = g_param_spec_int ("search-radius",
      "Search radius", "Track: search only this many pixels around the last "
      "match (0 = everywhere; a frame without a match searches everywhere)",
      0, G_MAXINT, DEFAULT_SEARCH_RADIUS, flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_THRESHOLD] = g_param_spec_double ("threshold", "Threshold",
      "Largest score that counts as found: a distance, 0 = identical, 1 = "
      "the worst (sad: sad / (255 * width * height * channels); zncc: "
      "(1 - correlation) / 2; see method)", 0.0, 1.0, DEFAULT_THRESHOLD,
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
  properties[PROP_METHOD] = g_param_spec_enum ("method", "Method",
      "How a position is compared with the template (OpenCV's matchTemplate "
      "formulas), at every depth",
      GST_TYPE_KMATCH_METHOD, DEFAULT_METHOD, flags);
  properties[PROP_TEMPLATE_BUDGET] = g_param_spec_uint64 ("template-budget",
      "Template budget", "The most pixels all templates together may have "
      "(0 = auto: 4 times the frames' pixels, at least 4 Mpixels); files "
      "beyond it are refused from their headers, before decoding",
      0, G_MAXUINT64, DEFAULT_TEMPLATE_BUDGET, flags);
  properties[PROP_SCALES] = g_param_spec_string ("scales", "Scales",
      "The sizes each template is tried at, as factors of its own: "
      "\"min:max:step\" (0.5:2:1.1: 0.5, 0.55, 0.605 ... up to 2) or a list "
      "(0.5,0.75,1,1.5,2); the best size is reported (scale, width, height). "
      "Resized copies: area average when shrinking, bilinear when growing; "
      "each costs about a search", DEFAULT_SCALES, flags);
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
  /**
   * GstKPatternMatch::add-template:
   * @sample: a raw video sample, any format
   * @name: (nullable): what the messages and metas call it
   *
   * Adds @sample to the templates searched for (the first, when there is
   * none); set-template, template-location and template-region replace
   * them all.
   * Returns: %TRUE when it could be converted and added (at most 64)
   */
  signals[SIGNAL_ADD_TEMPLATE] = g_signal_new_class_handler ("add-template",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_kpattern_match_add_template), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 2, GST_TYPE_SAMPLE, G_TYPE_STRING);

  gst_element_class_set_static_metadata (element_class,
      "Template matching", "Filter/Analyzer/Video",
      "Finds a template in each frame, exhaustively, by the sum of absolute "
      "or squared differences or normalized cross-correlation; reports it "
      "by message and region-of-interest meta", "kconv contributors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_kpattern_match_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_kpattern_match_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_kpattern_match_set_caps);
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
  gst_type_mark_as_plugin_api (GST_TYPE_KMATCH_METHOD, 0);
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
  s->method = DEFAULT_METHOD;
  s->template_budget = DEFAULT_TEMPLATE_BUDGET;
  s->scales[0] = 1.0;
  s->n_scales = 1;
  self->template_cookie = 1;
  /* the buffer carries metas and maybe drawings: in place, never passthrough */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}
