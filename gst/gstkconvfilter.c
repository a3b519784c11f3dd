/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-kconvfilter
 * @title: kconvfilter
 *
 * Convolves every video frame with a k×k kernel: a named one (edge,
 * laplacian, sharpen, box, gaussian, sobel-x, sobel-y, emboss) or any matrix
 * up to 121×121.  The matrix is laid over the image as written (correlation,
 * as OpenCV's filter2D), centred on the output pixel.
 *
 * Each output sample is clamp (floor (sum / divisor (or its absolute value)
 * + offset + 0.5), 0, 255).  Kernels with integer weights, divisor and
 * offset are computed exactly, with the same bits on every backend; others
 * in single precision, within 1 of the exact value.
 *
 * Alpha and padding bytes pass through untouched.  For YUV the chroma
 * planes are filtered too, at their own resolution, unless planes=luma;
 * at the default planes=auto a kernel whose weights sum to 0 (edge,
 * laplacian, sobel) filters the luma and sets the chroma to neutral, so
 * that a camera's YUY2 gives a grey edge picture, not a green one.
 *
 * ## Frames in flight
 *
 * The element keeps up to #GstKConvBase:frames-in-flight frames in
 * flight: on CUDA, the upload of one frame, the convolution of the next
 * and the download of another run at the same time, so a stream of
 * system-memory video moves at the speed of the bus rather than of
 * upload + compute + download.  Output keeps the input's order,
 * timestamps, flags and metas; EOS, serialized events and caps changes
 * push the frames in flight first, a flush drops them.  The element adds
 * (frames-in-flight - 1) frame durations to the latency it reports; set
 * frames-in-flight=1 for the lowest latency (and on the cpu backend, which
 * gains nothing from more).
 *
 * With CUDA the element offers upstream a buffer pool of page-locked
 * memory, and takes its output buffers from one when downstream offers no
 * pool, so frames cross the bus by DMA without a copy; frames in other
 * memory are staged through page-locked buffers.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! kconvfilter kernel=edge ! videoconvert ! autovideosink
 * ]| Edges of the test pattern.
 * |[
 * gst-launch-1.0 videotestsrc ! kconvfilter matrix="1 2 1; 2 4 2; 1 2 1" ! videoconvert ! autovideosink
 * ]| A custom 3×3 blur (the divisor defaults to the sum of the weights).
 * |[
 * gst-launch-1.0 videotestsrc ! kconvfilter @preset=blur-strong ! videoconvert ! autovideosink
 * ]| A named preset from GstKConvFilter.prs.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkconvfilter-private.h"
#include "kconv-formats.h"
#include "kconv-preset.h"
#include "kconv-frame-images.h"
#include "kconv-refusal.h"
#include "kconv.h"
#include "kconv-matrix.h"

GST_DEBUG_CATEGORY (gst_kconv_filter_debug);

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_KERNEL_SIZE,
  PROP_SIGMA,
  PROP_MATRIX,
  PROP_DIVISOR,
  PROP_OFFSET,
  PROP_ABSOLUTE,
  PROP_BORDER,
  PROP_PLANES,
  PROP_COPY_STREAMS,
  N_PROPERTIES,
  /* gstkconvfilter-regions.c's, installed there */
  PROP_REGIONS = N_PROPERTIES,
  PROP_REGION_LIST = PROP_REGIONS + 3,
};

#define DEFAULT_KERNEL KCONV_NAMED_IDENTITY
#define DEFAULT_SIGMA 0.0
#define DEFAULT_DIVISOR 0.0
#define DEFAULT_OFFSET 0.0
#define DEFAULT_ABSOLUTE GST_KCONV_ABSOLUTE_AUTO
#define DEFAULT_BORDER KCONV_BORDER_REFLECT
#define DEFAULT_PLANES GST_KCONV_PLANES_AUTO

#define MAX_SIGMA 1000.0

static GParamSpec *properties[N_PROPERTIES];

#define gst_kconv_filter_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstKConvFilter, gst_kconv_filter,
    GST_TYPE_KCONV_BASE, G_IMPLEMENT_INTERFACE (GST_TYPE_PRESET,
        gst_kconv_filter_preset_init));
GST_ELEMENT_REGISTER_DEFINE (kconvfilter, "kconvfilter", GST_RANK_NONE,
    GST_TYPE_KCONV_FILTER);

#define GST_TYPE_KCONV_KERNEL (gst_kconv_kernel_get_type ())
static GType
gst_kconv_kernel_get_type (void)
{
  static GType type = 0;
  /* from the core's table, then custom */
  static GEnumValue values[KCONV_NAMED_COUNT + 2];
  if (g_once_init_enter (&type)) {
    for (gint i = 0; i < KCONV_NAMED_COUNT; i++) {
      const KConvNamedKernelInfo *k = kconv_named_kernel_info (i);
      values[i].value = k->id;
      values[i].value_name = k->description;
      values[i].value_nick = k->nick;
    }
    values[KCONV_NAMED_COUNT].value = GST_KCONV_KERNEL_CUSTOM;
    values[KCONV_NAMED_COUNT].value_name = "Custom, from the matrix property";
    values[KCONV_NAMED_COUNT].value_nick = "custom";
    g_once_init_leave (&type, g_enum_register_static ("GstKConvKernel",
            values));
  }
  return type;
}

#define GST_TYPE_KCONV_ABSOLUTE (gst_kconv_absolute_get_type ())
static GType
gst_kconv_absolute_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KCONV_ABSOLUTE_AUTO, "Auto: absolute for edge, laplacian, sobel",
        "auto"},
    {GST_KCONV_ABSOLUTE_FALSE, "Signed: negative results clamp to 0", "false"},
    {GST_KCONV_ABSOLUTE_TRUE, "Absolute value of the result", "true"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvAbsolute",
            values));
  return type;
}

#define GST_TYPE_KCONV_BORDER (gst_kconv_border_get_type ())
static GType
gst_kconv_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_BORDER_ZERO, "Zero: pixels outside the frame are black", "zero"},
    {KCONV_BORDER_REPLICATE, "Replicate the edge pixel (aaa|abcd|ddd)",
        "replicate"},
    {KCONV_BORDER_REFLECT, "Mirror, edge not repeated (cb|abcd|cb)",
        "reflect"},
    {KCONV_BORDER_WRAP, "Wrap around (cd|abcd|ab)", "wrap"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvBorder",
            values));
  return type;
}

#define GST_TYPE_KCONV_PLANES (gst_kconv_planes_get_type ())
static GType
gst_kconv_planes_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KCONV_PLANES_AUTO, "Auto: a kernel whose weights sum to 0 (edge, "
          "laplacian, sobel) filters luma and makes chroma neutral (grey); "
          "any other filters every plane", "auto"},
    {GST_KCONV_PLANES_ALL, "Filter every plane", "all"},
    {GST_KCONV_PLANES_LUMA, "Filter luma only, copy chroma (YUV formats)",
        "luma"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvPlanes",
            values));
  return type;
}

/* The weights the settings stand for; g_free them. */
gfloat *
gst_kconv_filter_settings_weights (const Settings * s, gint * rows, gint * cols)
{
  if (s->kernel == GST_KCONV_KERNEL_CUSTOM) {
    *rows = s->custom_rows;
    *cols = s->custom_cols;
    return g_memdup2 (s->custom, sizeof (gfloat) * s->custom_rows *
        s->custom_cols);
  }
  float *w = kconv_named_kernel ((KConvNamedKernel) s->kernel, s->kernel_size,
      s->sigma, rows, cols);
  gfloat *copy = w ? g_memdup2 (w, sizeof (gfloat) * *rows * *cols) : NULL;
  free (w);
  return copy;
}

gboolean
gst_kconv_filter_settings_absolute (const Settings * s)
{
  if (s->absolute == GST_KCONV_ABSOLUTE_AUTO)
    return s->kernel != GST_KCONV_KERNEL_CUSTOM &&
        kconv_named_kernel_is_signed ((KConvNamedKernel) s->kernel);
  return s->absolute == GST_KCONV_ABSOLUTE_TRUE;
}

/* out = in for every sample: a 1x1 kernel w with divisor w (or auto) */
static gboolean
settings_are_identity (const Settings * s)
{
  gint rows, cols;
  gboolean identity = FALSE;
  gfloat *w = gst_kconv_filter_settings_weights (s, &rows, &cols);
  if (w && rows == 1 && cols == 1 && w[0] != 0.f && s->offset == 0.0)
    identity = s->divisor == 0.0 || s->divisor == w[0];
  g_free (w);
  return identity;
}

void
gst_kconv_filter_settings_copy (Settings * dst, const Settings * src)
{
  *dst = *src;
  dst->custom = g_memdup2 (src->custom, sizeof (gfloat) * src->custom_rows *
      src->custom_cols);
}

/* A value a property refuses, with a message (the settings stay as they
 * were); a matrix is parsed here, outside the lock. */
static gboolean
gst_kconv_filter_refuses (GstKConvFilter * self, guint prop_id,
    const GValue * value, GParamSpec * pspec, float **matrix, int *rows,
    int *cols)
{
  GstElement *element = GST_ELEMENT (self);

  switch (prop_id) {
    case PROP_KERNEL_SIZE:{
      gint size = g_value_get_int (value);
      /* a controller's ramp passes the even sizes: they round up to odd
       * (set_property), every frame, without a warning */
      if (size % 2 == 0
          && !gst_kconv_base_set_by_controller (GST_KCONV_BASE (self))) {
        gst_kconv_refusal_post (element, pspec->name,
            "kernel-size must be odd; %d refused", size);
        return TRUE;
      }
      return FALSE;
    }
    case PROP_SIGMA:
    case PROP_DIVISOR:
    case PROP_OFFSET:{
      gdouble v = g_value_get_double (value);
      if (!isfinite (v)) {
        gst_kconv_refusal_post (element, pspec->name,
            "%s must be a finite number; %g refused", pspec->name, v);
        return TRUE;
      }
      return FALSE;
    }
    case PROP_MATRIX:{
      const gchar *text = g_value_get_string (value);
      char err[160];
      if (kconv_matrix_parse (text, matrix, rows, cols, err, sizeof err) != 0) {
        gchar *excerpt = gst_kconv_refusal_excerpt (text, 60);
        gst_kconv_refusal_post (element, pspec->name,
            "invalid matrix \"%s\": %s", excerpt, err);
        g_free (excerpt);
        return TRUE;
      }
      return FALSE;
    }
    default:
      return FALSE;
  }
}

static void
gst_kconv_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);
  Settings *s = &self->settings;
  float *matrix = NULL;
  int rows = 0, cols = 0;
  gboolean became_custom = FALSE;

  if (prop_id >= PROP_REGIONS && prop_id <= PROP_REGION_LIST) {
    gst_kconv_filter_regions_set (self, prop_id - PROP_REGIONS, value,
        pspec->name);
    return;
  }
  if (gst_kconv_filter_refuses (self, prop_id, value, pspec, &matrix, &rows,
          &cols))
    return;
  gst_kconv_refusal_accepted (GST_ELEMENT (self), pspec->name);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      s->kernel = g_value_get_enum (value);
      break;
    case PROP_KERNEL_SIZE:
      s->kernel_size = g_value_get_int (value) | 1;
      s->kernel_size_set = TRUE;
      break;
    case PROP_SIGMA:
      s->sigma = g_value_get_double (value);
      break;
    case PROP_DIVISOR:
      s->divisor = g_value_get_double (value);
      break;
    case PROP_OFFSET:
      s->offset = g_value_get_double (value);
      break;
    case PROP_MATRIX:
      g_free (s->custom);
      s->custom = g_memdup2 (matrix, sizeof (gfloat) * rows * cols);
      s->custom_rows = rows;
      s->custom_cols = cols;
      became_custom = s->kernel != GST_KCONV_KERNEL_CUSTOM;
      s->kernel = GST_KCONV_KERNEL_CUSTOM;
      break;
    case PROP_ABSOLUTE:
      s->absolute = g_value_get_enum (value);
      break;
    case PROP_BORDER:
      s->border = g_value_get_enum (value);
      break;
    case PROP_PLANES:
      s->planes = g_value_get_enum (value);
      break;
    case PROP_COPY_STREAMS:    /* the base's option, for kconvfilter alone */
      GST_KCONV_BASE (self)->copy_streams = g_value_get_enum (value);
      GST_KCONV_BASE (self)->options_cookie++;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->settings_cookie++;
  gboolean identity = settings_are_identity (s);
  GST_OBJECT_UNLOCK (self);

  free (matrix);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), identity);
  if (became_custom)
    g_object_notify_by_pspec (object, properties[PROP_KERNEL]);
}

static void
gst_kconv_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);
  Settings *s = &self->settings;

  if (prop_id >= PROP_REGIONS && prop_id <= PROP_REGION_LIST) {
    gst_kconv_filter_regions_get (self, prop_id - PROP_REGIONS, value);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_enum (value, s->kernel);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_int (value, s->kernel_size);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, s->sigma);
      break;
    case PROP_MATRIX:{
      gint rows, cols;
      gfloat *w = gst_kconv_filter_settings_weights (s, &rows, &cols);
      char *text = w ? kconv_matrix_format (w, rows, cols) : NULL;
      g_value_set_string (value, text);
      free (text);
      g_free (w);
      break;
    }
    case PROP_DIVISOR:
      g_value_set_double (value, s->divisor);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, s->offset);
      break;
    case PROP_ABSOLUTE:
      g_value_set_enum (value, s->absolute);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, s->border);
      break;
    case PROP_PLANES:
      g_value_set_enum (value, s->planes);
      break;
    case PROP_COPY_STREAMS:
      g_value_set_enum (value, GST_KCONV_BASE (self)->copy_streams);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_kconv_filter_finalize (GObject * object)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);

  /* the core goes in the base's finalize, through free_core */
  g_free (self->settings.custom);
  gst_kconv_filter_regions_clear (self);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (KCONV_FILTER_VIDEO_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (KCONV_FILTER_VIDEO_CAPS));

static void
gst_kconv_filter_class_init (GstKConvFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstKConvBaseClass *base_class = GST_KCONV_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_kconv_filter_debug, "kconvfilter", 0,
      "kconv convolution filter");
  /* the base's pads, with the deeper formats too (replaced by name) */
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  base_class->debug = gst_kconv_filter_debug;

  gobject_class->set_property = gst_kconv_filter_set_property;
  gobject_class->get_property = gst_kconv_filter_get_property;
  gobject_class->finalize = gst_kconv_filter_finalize;

  properties[PROP_KERNEL] = g_param_spec_enum ("kernel", "Kernel",
      "Named kernel, or custom to use the matrix property",
      GST_TYPE_KCONV_KERNEL, DEFAULT_KERNEL, flags);
  properties[PROP_KERNEL_SIZE] = g_param_spec_int ("kernel-size",
      "Kernel size", "Width and height of the box and gaussian kernels (odd)",
      1, KCONV_MAX_KERNEL_SIZE, DEFAULT_KERNEL_SIZE,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_SIGMA] = g_param_spec_double ("sigma", "Sigma",
      "Standard deviation of the gaussian kernel in pixels "
      "(0 = derived from kernel-size)", 0.0, MAX_SIGMA, DEFAULT_SIGMA,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_MATRIX] = g_param_spec_string ("matrix", "Matrix",
      "Custom kernel: rows separated by ';', values by spaces or commas, "
      "e.g. \"1 2 1; 2 4 2; 1 2 1\", up to 121x121.  Setting it selects "
      "kernel=custom; reading it gives the kernel in use (\"1\": the "
      "identity)", "1", flags);
  properties[PROP_DIVISOR] = g_param_spec_double ("divisor", "Divisor",
      "The weighted sum is divided by this (0 = the sum of the weights, "
      "or 1 if that is 0)", -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_DIVISOR,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_OFFSET] = g_param_spec_double ("offset", "Offset",
      "Added to each result after dividing (e.g. 128 to show signed "
      "results around grey), in 8-bit steps: 128 is mid-grey at every depth "
      "(512 on 10-bit video)", -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_OFFSET,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_ABSOLUTE] = g_param_spec_enum ("absolute", "Absolute",
      "Use the absolute value of sum / divisor", GST_TYPE_KCONV_ABSOLUTE,
      DEFAULT_ABSOLUTE, flags);
  properties[PROP_BORDER] = g_param_spec_enum ("border", "Border",
      "How pixels beyond the frame edge are made up", GST_TYPE_KCONV_BORDER,
      DEFAULT_BORDER, flags);
  properties[PROP_PLANES] = g_param_spec_enum ("planes", "Planes",
      "Which planes of YUV video to filter (auto: a kernel whose weights sum "
      "to 0 filters luma and makes chroma neutral grey, any other every "
      "plane)", GST_TYPE_KCONV_PLANES, DEFAULT_PLANES, flags);
  properties[PROP_COPY_STREAMS] =
      gst_kconv_param_placement (g_param_spec_enum ("copy-streams",
          "Copy streams",
          "Whose CUDA streams the frames' uploads and downloads "
          "run on: shared streams serialise the copies of many filters on one "
          "CUDA context", GST_TYPE_KCONV_COPY_STREAMS, KCONV_COPY_STREAMS_OWN,
          flags));
  g_object_class_install_properties (gobject_class, N_PROPERTIES, properties);
  gst_kconv_filter_regions_install (gobject_class, PROP_REGIONS, flags);

  gst_element_class_set_static_metadata (element_class,
      "Convolution filter", "Filter/Effect/Video",
      "Convolves video with a named or custom kernel up to 121x121, "
      "on CUDA or the CPU", "kconv contributors");
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_kconv_filter_set_caps);
  base_class->free_core = GST_DEBUG_FUNCPTR (gst_kconv_filter_free_core);
  base_class->start_frame = GST_DEBUG_FUNCPTR (gst_kconv_filter_start_frame);
  base_class->submit_frame = GST_DEBUG_FUNCPTR (gst_kconv_filter_submit_frame);
  base_class->rebuild_core = GST_DEBUG_FUNCPTR (gst_kconv_filter_rebuild_core);

  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_ABSOLUTE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_PLANES, 0);
}

static void
gst_kconv_filter_init (GstKConvFilter * self)
{
  Settings *s = &self->settings;

  s->kernel = DEFAULT_KERNEL;
  s->kernel_size = DEFAULT_KERNEL_SIZE;
  s->sigma = DEFAULT_SIGMA;
  s->custom = g_new (gfloat, 1);
  s->custom[0] = 1.f;
  s->custom_rows = s->custom_cols = 1;
  s->divisor = DEFAULT_DIVISOR;
  s->offset = DEFAULT_OFFSET;
  s->absolute = DEFAULT_ABSOLUTE;
  s->border = DEFAULT_BORDER;
  s->planes = DEFAULT_PLANES;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
