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
 * planes are filtered too, at their own resolution, unless planes=luma.
 *
 * ## Frames in flight
 *
 * The element keeps up to #GstKConvFilter:frames-in-flight frames in
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

#include "gstkconvfilter.h"
#include "kconv-backend-enum.h"
#include "kconv-cuda-memory.h"
#include "kconv-formats.h"
#include "kconv-inflight.h"
#include "kconv-pinned-allocator.h"
#include "kconv-preset.h"
#include "kconv-refusal.h"
#include "kconv.h"
#include "kconv-matrix.h"

GST_DEBUG_CATEGORY_STATIC (gst_kconv_filter_debug);
#define GST_CAT_DEFAULT gst_kconv_filter_debug

typedef enum
{
  GST_KCONV_KERNEL_IDENTITY = KCONV_NAMED_IDENTITY,
  GST_KCONV_KERNEL_EDGE = KCONV_NAMED_EDGE,
  GST_KCONV_KERNEL_LAPLACIAN = KCONV_NAMED_LAPLACIAN,
  GST_KCONV_KERNEL_SHARPEN = KCONV_NAMED_SHARPEN,
  GST_KCONV_KERNEL_BOX = KCONV_NAMED_BOX,
  GST_KCONV_KERNEL_GAUSSIAN = KCONV_NAMED_GAUSSIAN,
  GST_KCONV_KERNEL_SOBEL_X = KCONV_NAMED_SOBEL_X,
  GST_KCONV_KERNEL_SOBEL_Y = KCONV_NAMED_SOBEL_Y,
  GST_KCONV_KERNEL_EMBOSS = KCONV_NAMED_EMBOSS,
  GST_KCONV_KERNEL_CUSTOM,
} GstKConvKernel;

typedef enum
{
  GST_KCONV_ABSOLUTE_AUTO,
  GST_KCONV_ABSOLUTE_FALSE,
  GST_KCONV_ABSOLUTE_TRUE,
} GstKConvAbsolute;

typedef enum
{
  GST_KCONV_PLANES_ALL,
  GST_KCONV_PLANES_LUMA,
} GstKConvPlanes;

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
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_N_THREADS,
  PROP_FRAMES_IN_FLIGHT,
  N_PROPERTIES
};

#define DEFAULT_KERNEL GST_KCONV_KERNEL_IDENTITY
#define DEFAULT_KERNEL_SIZE 3
#define DEFAULT_SIGMA 0.0
#define DEFAULT_DIVISOR 0.0
#define DEFAULT_OFFSET 0.0
#define DEFAULT_ABSOLUTE GST_KCONV_ABSOLUTE_AUTO
#define DEFAULT_BORDER KCONV_BORDER_REFLECT
#define DEFAULT_PLANES GST_KCONV_PLANES_ALL
#define DEFAULT_BACKEND KCONV_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_N_THREADS 0
#define DEFAULT_FRAMES_IN_FLIGHT 3

#define MAX_SIGMA 1000.0
#define MAX_N_THREADS 1024
#define MAX_FRAMES_IN_FLIGHT 16

static GParamSpec *properties[N_PROPERTIES];

/* Everything a property sets; read and written under the object lock. */
typedef struct
{
  GstKConvKernel kernel;
  gint kernel_size;
  gdouble sigma;
  gfloat *custom;               /* custom_rows * custom_cols */
  gint custom_rows, custom_cols;
  gdouble divisor;
  gdouble offset;
  GstKConvAbsolute absolute;
  KConvBorder border;
  GstKConvPlanes planes;
  KConvBackend backend;
  gint device_id;
  guint n_threads;
} Settings;

struct _GstKConvFilter
{
  GstVideoFilter parent;

  Settings settings;
  guint settings_cookie;        /* bumped by every change */
  guint frames_in_flight;       /* under the object lock too */

  /* streaming thread only */
  KConvFilter *core;
  guint core_cookie;
  gboolean luma_only;
  KConvInflight inflight;
  gboolean drain_all;           /* a passthrough frame waits: let all out */
  GstFlowReturn drain_flow;     /* what pushing frames out before an event
                                 * returned, for the next buffer */
  GstClockTime last_duration;

  /* frames in GStreamer's CUDA memory: the core then runs in its context */
  KConvCudaMemory cuda;
  gboolean on_cuda_memory;      /* the negotiated caps */
  gboolean core_on_cuda_memory; /* what the core was made for */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

#define gst_kconv_filter_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstKConvFilter, gst_kconv_filter,
    GST_TYPE_VIDEO_FILTER, G_IMPLEMENT_INTERFACE (GST_TYPE_PRESET,
        kconv_filter_preset_init));
GST_ELEMENT_REGISTER_DEFINE (kconvfilter, "kconvfilter", GST_RANK_NONE,
    GST_TYPE_KCONV_FILTER);

#define GST_TYPE_KCONV_KERNEL (gst_kconv_kernel_get_type ())
static GType
gst_kconv_kernel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KCONV_KERNEL_IDENTITY, "Identity (passthrough)", "identity"},
    {GST_KCONV_KERNEL_EDGE, "Edges, 8-neighbour Laplacian", "edge"},
    {GST_KCONV_KERNEL_LAPLACIAN, "Laplacian, 4-neighbour", "laplacian"},
    {GST_KCONV_KERNEL_SHARPEN, "Sharpen", "sharpen"},
    {GST_KCONV_KERNEL_BOX, "Box blur of kernel-size", "box"},
    {GST_KCONV_KERNEL_GAUSSIAN, "Gaussian blur of kernel-size and sigma",
        "gaussian"},
    {GST_KCONV_KERNEL_SOBEL_X, "Sobel, horizontal gradient", "sobel-x"},
    {GST_KCONV_KERNEL_SOBEL_Y, "Sobel, vertical gradient", "sobel-y"},
    {GST_KCONV_KERNEL_EMBOSS, "Emboss", "emboss"},
    {GST_KCONV_KERNEL_CUSTOM, "Custom, from the matrix property", "custom"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvKernel",
            values));
  return type;
}

#define GST_TYPE_KCONV_ABSOLUTE (gst_kconv_absolute_get_type ())
static GType
gst_kconv_absolute_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_KCONV_ABSOLUTE_AUTO,
        "Auto: absolute value for edge, laplacian and sobel, else signed", "auto"},
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
static gfloat *
settings_weights (const Settings * s, gint * rows, gint * cols)
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

static gboolean
settings_absolute (const Settings * s)
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
  gfloat *w = settings_weights (s, &rows, &cols);
  if (w && rows == 1 && cols == 1 && w[0] != 0.f && s->offset == 0.0)
    identity = s->divisor == 0.0 || s->divisor == w[0];
  g_free (w);
  return identity;
}

static void
settings_copy (Settings * dst, const Settings * src)
{
  *dst = *src;
  dst->custom = g_memdup2 (src->custom, sizeof (gfloat) * src->custom_rows *
      src->custom_cols);
}

static const gchar *
backend_unavailable_reason (void)
{
#ifdef KCONV_HAVE_CUDA
  return "no usable CUDA device was found";
#else
  return "this build of kconv has no CUDA support";
#endif
}

/* Bumps the cookie and updates passthrough; call without the object lock. */
static void
settings_changed (GstKConvFilter * self)
{
  GST_OBJECT_LOCK (self);
  self->settings_cookie++;
  gboolean identity = settings_are_identity (&self->settings);
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), identity);
}

static void
gst_kconv_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);
  Settings *s = &self->settings;
  gboolean kernel_became_custom = FALSE;

  switch (prop_id) {
    case PROP_KERNEL:
      GST_OBJECT_LOCK (self);
      s->kernel = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_KERNEL_SIZE:{
      gint size = g_value_get_int (value);
      if (size % 2 == 0) {
        kconv_refusal_post (GST_ELEMENT (self), "kernel-size must be odd; %d "
            "refused, keeping %d", size, s->kernel_size);
        return;
      }
      GST_OBJECT_LOCK (self);
      s->kernel_size = size;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_SIGMA:
    case PROP_DIVISOR:
    case PROP_OFFSET:{
      gdouble v = g_value_get_double (value);
      if (!isfinite (v)) {
        kconv_refusal_post (GST_ELEMENT (self), "%s must be a finite number; "
            "%g refused", pspec->name, v);
        return;
      }
      GST_OBJECT_LOCK (self);
      if (prop_id == PROP_SIGMA)
        s->sigma = v;
      else if (prop_id == PROP_DIVISOR)
        s->divisor = v;
      else
        s->offset = v;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_MATRIX:{
      const gchar *text = g_value_get_string (value);
      float *w;
      int rows, cols;
      char err[160];
      if (kconv_matrix_parse (text, &w, &rows, &cols, err, sizeof err) != 0) {
        kconv_refusal_post (GST_ELEMENT (self), "invalid matrix \"%.60s%s\": "
            "%s; the kernel stays as it was", text ? text : "",
            text && strlen (text) > 60 ? "..." : "", err);
        return;
      }
      GST_OBJECT_LOCK (self);
      g_free (s->custom);
      s->custom = g_memdup2 (w, sizeof (gfloat) * rows * cols);
      s->custom_rows = rows;
      s->custom_cols = cols;
      kernel_became_custom = s->kernel != GST_KCONV_KERNEL_CUSTOM;
      s->kernel = GST_KCONV_KERNEL_CUSTOM;
      GST_OBJECT_UNLOCK (self);
      free (w);
      break;
    }
    case PROP_ABSOLUTE:
      GST_OBJECT_LOCK (self);
      s->absolute = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_BORDER:
      GST_OBJECT_LOCK (self);
      s->border = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_PLANES:
      GST_OBJECT_LOCK (self);
      s->planes = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_BACKEND:
      GST_OBJECT_LOCK (self);
      s->backend = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      s->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_N_THREADS:
      GST_OBJECT_LOCK (self);
      s->n_threads = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_FRAMES_IN_FLIGHT:{
      guint n = g_value_get_uint (value);
      GST_OBJECT_LOCK (self);
      gboolean changed = n != self->frames_in_flight;
      self->frames_in_flight = n;
      GST_OBJECT_UNLOCK (self);
      /* the latency we add changes with it */
      if (changed)
        gst_element_post_message (GST_ELEMENT (self),
            gst_message_new_latency (GST_OBJECT (self)));
      return;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  settings_changed (self);
  if (kernel_became_custom)
    g_object_notify_by_pspec (object, properties[PROP_KERNEL]);
}

static void
gst_kconv_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);
  Settings *s = &self->settings;

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
      gfloat *w = settings_weights (s, &rows, &cols);
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
    case PROP_BACKEND:
      g_value_set_enum (value, s->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, s->device_id);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, s->n_threads);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Rebuilds the core filter when a property changed since the last frame.
 * The settings are copied under the lock and the work is done outside it. */
static gboolean
gst_kconv_filter_ensure_core (GstKConvFilter * self)
{
  Settings snap;

  GST_OBJECT_LOCK (self);
  if (self->core && self->core_cookie == self->settings_cookie) {
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  settings_copy (&snap, &self->settings);
  guint cookie = self->settings_cookie;
  GST_OBJECT_UNLOCK (self);

  KConvKernel kernel = { 0 };
  KConvOptions options = { snap.backend, (int) snap.n_threads,
    snap.device_id
  };
  if (self->on_cuda_memory) {
    /* the GPU the frames are on */
    options.backend = KCONV_BACKEND_CUDA;
    options.device_id = kconv_cuda_memory_device (&self->cuda);
  }
  KConvFilter *core = NULL;
  KConvStatus st = KCONV_ERROR_INVALID_KERNEL;
  gfloat *w = settings_weights (&snap, &kernel.rows, &kernel.cols);

  if (w) {
    kernel.weights = w;
    kernel.divisor = snap.divisor;
    kernel.offset = snap.offset;
    kernel.absolute = settings_absolute (&snap);
    st = kconv_filter_new (&kernel, snap.border, &options, &core);
  }
  g_free (w);
  g_free (snap.custom);

  if (st == KCONV_ERROR_BACKEND_UNAVAILABLE) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("backend=%s requested but it is not available",
            kconv_backend_name (snap.backend)), ("%s", kconv_last_error ()));
    return FALSE;
  }
  if (st != KCONV_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Could not set up the convolution"), ("%s: %s",
            kconv_status_string (st), kconv_last_error ()));
    return FALSE;
  }

  GST_DEBUG_OBJECT (self, "kernel %dx%d on %s: %s, %s arithmetic",
      kernel.cols, kernel.rows,
      kconv_backend_name (kconv_filter_backend (core)),
      kconv_filter_strategy (core),
      kconv_filter_is_exact (core) ? "exact integer" : "single-precision");
  if (snap.backend == KCONV_BACKEND_AUTO)
    GST_INFO_OBJECT (self, "backend=auto: %s",
        kconv_filter_backend (core) == KCONV_BACKEND_CUDA ?
        "using CUDA" : "no usable CUDA device, using the CPU");

  /* frames in flight were submitted to the old filter */
  if (kconv_inflight_wait_all (&self->inflight) != KCONV_OK)
    GST_WARNING_OBJECT (self, "a frame in flight failed: %s",
        kconv_last_error ());
  kconv_filter_free (self->core);
  self->core = core;
  self->core_cookie = cookie;
  self->luma_only = snap.planes == GST_KCONV_PLANES_LUMA;
  return TRUE;
}

/* Describes plane `plane` of a mapped frame for the core: one image for
 * each sampling of the components it holds (packed 4:2:2 such as YUY2 has
 * luma at every pixel and chroma at every other).  The image covering the
 * most bytes comes first and copies what it does not filter; the others
 * keep what it wrote.  Returns how many (0: nothing to convolve). */
static guint
plane_images (GstVideoFrame * frame, guint plane, gboolean luma_only,
    KConvImage im[GST_VIDEO_MAX_COMPONENTS])
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  guint n = 0;

  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane
        || c == GST_VIDEO_COMP_A || (yuv && luma_only && c != GST_VIDEO_COMP_Y))
      continue;
    gint width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
    guint i = 0;
    while (i < n && !(im[i].width == width && im[i].pixel_stride == pstride))
      i++;
    if (i == n) {
      memset (&im[n], 0, sizeof im[n]);
      im[n].data = GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
      im[n].stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
      im[n].width = width;
      im[n].height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
      im[n].pixel_stride = pstride;
      n++;
    }
    im[i].channel_offset[im[i].n_channels++] =
        GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  }
  /* widest first (odd-width YUY2: the chroma reaches the last padding
   * byte), then keep_other_bytes for the rest */
  for (guint i = 1; i < n; i++)
    if ((gsize) im[i].width * im[i].pixel_stride >
        (gsize) im[0].width * im[0].pixel_stride) {
      KConvImage t = im[0];
      im[0] = im[i];
      im[i] = t;
    }
  for (guint i = 1; i < n; i++)
    im[i].keep_other_bytes = TRUE;
  return n;
}

/* Bytes a row of `plane` spans, padding between samples included (odd-width
 * YUY2: the last chroma pair reaches past the last luma sample). */
static gsize
plane_row_bytes (const GstVideoFrame * frame, guint plane)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gsize bytes = 0;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == plane)
      bytes = MAX (bytes, (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, c) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c));
  return bytes;
}

/* Copies what lies past `from` in each row of `plane`: the part of the row
 * no submitted image covers. */
static void
copy_row_tails (GstVideoFrame * out, GstVideoFrame * in, guint plane,
    gsize from, gsize to, gint rows)
{
  for (gint y = 0; y < rows; y++)
    memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, plane) + from +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (out, plane),
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, plane) + from +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (in, plane), to - from);
}

static void
gst_kconv_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime ts = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_TIMESTAMP (buffer));
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (trans), ts);
}

/* Waits for the frames in flight and frees the core, in the CUDA context it
 * runs in. */
static void
gst_kconv_filter_free_core (GstKConvFilter * self)
{
  if (!self->core)
    return;
  if (kconv_inflight_wait_all (&self->inflight) != KCONV_OK)
    GST_WARNING_OBJECT (self, "a frame in flight failed: %s",
        kconv_last_error ());
  gboolean pushed = self->on_cuda_memory
      && kconv_cuda_memory_push (&self->cuda);
  kconv_filter_free (self->core);
  self->core = NULL;
  if (pushed)
    kconv_cuda_memory_pop (&self->cuda);
}

/* GstVideoFilter makes a filter without transform_frame work in place;
 * ours never does: every frame goes to a new output buffer. */
static gboolean
gst_kconv_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;
  gst_base_transform_set_in_place (trans, FALSE);

  gboolean cuda = kconv_cuda_memory_caps (incaps);
  if (cuda != self->on_cuda_memory) {
    /* the core belongs to the memory it was made for (its CUDA context) */
    gst_kconv_filter_free_core (self);
    self->on_cuda_memory = cuda;
  }
  if (!cuda)
    return TRUE;

  GST_OBJECT_LOCK (self);
  KConvBackend backend = self->settings.backend;
  gint device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  if (!kconv_cuda_memory_open (&self->cuda, GST_ELEMENT (self), backend,
          device_id))
    return FALSE;
  GST_DEBUG_OBJECT (self, "frames in CUDA memory on device %d",
      kconv_cuda_memory_device (&self->cuda));
  return TRUE;
}

/* Frames in flight.  submit_input_buffer starts a frame and queues it;
 * generate_output lets the oldest out once frames-in-flight are queued. */

static guint
gst_kconv_filter_frames_in_flight (GstKConvFilter * self)
{
  GST_OBJECT_LOCK (self);
  guint n = self->frames_in_flight;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* Rows of `plane`: those of the components it holds. */
static gint
plane_height (const GstVideoFrame * frame, guint plane)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == plane)
      return GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
  return 0;
}

/* Every plane of a frame in CUDA memory, convolved where it lies on the
 * filter's stream; the same planes, images and copies as in system memory.
 * Returns once the GPU is done: GStreamer 1.22's CUDA memory carries no
 * stream to order the next element's work after ours. */
static KConvStatus
convolve_on_device (GstKConvFilter * self, GstVideoFrame * in,
    GstVideoFrame * out)
{
  void *stream = kconv_filter_stream (self->core);
  KConvStatus st = KCONV_OK;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in) && st == KCONV_OK; p++) {
    KConvImage src[GST_VIDEO_MAX_COMPONENTS], dst[GST_VIDEO_MAX_COMPONENTS];
    guint n = plane_images (in, p, self->luma_only, src);
    gsize row = plane_row_bytes (in, p);
    gsize covered = 0;
    if (n > 0) {
      plane_images (out, p, self->luma_only, dst);
      covered = (gsize) src[0].width * src[0].pixel_stride;
    }
    /* what no image covers: a whole plane, or the tails of its rows */
    if (covered < row)
      st = kconv_device_copy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out,
              p) + covered, GST_VIDEO_FRAME_PLANE_STRIDE (out, p),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, p) + covered,
          GST_VIDEO_FRAME_PLANE_STRIDE (in, p), row - covered,
          plane_height (in, p), stream);
    for (guint i = 0; i < n && st == KCONV_OK; i++)
      st = kconv_filter_run_device (self->core, &src[i], &dst[i], stream);
  }
  KConvStatus synced = kconv_device_sync (stream);
  return st != KCONV_OK ? st : synced;
}

/* The frame of inbuf in CUDA memory into a new buffer of CUDA memory; it
 * is done when this returns, and queued to keep its place.  Takes inbuf
 * and outbuf. */
static GstFlowReturn
gst_kconv_filter_start_frame_on_device (GstKConvFilter * self,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  GstVideoFrame in, out;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!kconv_cuda_memory_map (&self->cuda, &in, &vfilter->in_info, inbuf,
          GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame of "
            "CUDA memory"), ("the input buffer holds %u bytes, not CUDA "
            "memory of the element's CUDA context, or less than the %"
            G_GSIZE_FORMAT " the caps need", (guint) gst_buffer_get_size (inbuf),
            vfilter->in_info.size));
    ret = GST_FLOW_ERROR;
  } else if (!kconv_cuda_memory_map (&self->cuda, &out, &vfilter->out_info,
          outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map an output "
            "buffer of CUDA memory"), (NULL));
    ret = GST_FLOW_ERROR;
  } else {
    KConvStatus st = convolve_on_device (self, &in, &out);
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&in);
    if (st != KCONV_OK) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Convolution failed on the "
              "GPU"), ("%s: %s", kconv_status_string (st),
              kconv_last_error ()));
      ret = GST_FLOW_ERROR;
    }
  }
  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (outbuf);
    return ret;
  }
  kconv_inflight_push (&self->inflight,
      kconv_inflight_frame_new_passthrough (outbuf));
  self->drain_all = TRUE;       /* nothing to overlap: out at once */
  return GST_FLOW_OK;
}

/* Starts the convolution of every plane of inbuf into a new output buffer
 * and queues the frame.  Takes inbuf. */
static GstFlowReturn
gst_kconv_filter_start_frame (GstKConvFilter * self, GstBuffer * inbuf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  GstBuffer *outbuf = NULL;

  gchar *why = NULL;
  if (!kconv_buffer_fits (inbuf, &vfilter->in_info, &why)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Input buffer too small for "
            "its caps"), ("%s", why));
    g_free (why);
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  if (!gst_kconv_filter_ensure_core (self)) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (parent_class)->
      prepare_output_buffer (trans, inbuf, &outbuf);
  if (ret != GST_FLOW_OK || !outbuf) {
    gst_buffer_unref (inbuf);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
  }

  if (outbuf == inbuf) {
    /* became passthrough since the caller looked: outbuf is inbuf's ref */
    kconv_inflight_push (&self->inflight,
        kconv_inflight_frame_new_passthrough (outbuf));
    self->drain_all = TRUE;
    return GST_FLOW_OK;
  }
  if (self->on_cuda_memory)
    return gst_kconv_filter_start_frame_on_device (self, inbuf, outbuf);
  KConvInflightFrame *f = kconv_inflight_frame_new (&self->inflight, inbuf,
      &vfilter->in_info, outbuf, &vfilter->out_info);
  if (!f) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f->in); p++) {
    KConvImage src[GST_VIDEO_MAX_COMPONENTS], dst[GST_VIDEO_MAX_COMPONENTS];
    guint n = plane_images (&f->in, p, self->luma_only, src);
    if (n == 0) {
      gst_video_frame_copy_plane (&f->out, &f->in, p);
      continue;
    }
    plane_images (&f->out, p, self->luma_only, dst);
    gsize covered = (gsize) src[0].width * src[0].pixel_stride;
    gsize row = plane_row_bytes (&f->in, p);
    if (covered < row)
      copy_row_tails (&f->out, &f->in, p, covered, row, src[0].height);
    KConvStatus st = KCONV_OK;
    for (guint i = 0; i < n && st == KCONV_OK; i++)
      st = kconv_filter_submit (self->core, f->slot, &src[i], &dst[i]);
    if (st != KCONV_OK) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("Convolution failed on plane %u", p), ("%s: %s",
              kconv_status_string (st), kconv_last_error ()));
      kconv_inflight_frame_discard (&self->inflight, f);
      return GST_FLOW_ERROR;
    }
  }
  kconv_inflight_push (&self->inflight, f);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_kconv_filter_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  /* the default keeps renegotiation and QoS; it leaves the buffer to us in
   * queued_buf (or drops it, late) */
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (parent_class)->
      submit_input_buffer (trans, is_discont, input);
  GstBuffer *inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  if (ret != GST_FLOW_OK || !inbuf) {
    gst_clear_buffer (&inbuf);
    return ret;
  }
  if (self->drain_flow != GST_FLOW_OK) {
    ret = self->drain_flow;
    self->drain_flow = GST_FLOW_OK;
    gst_buffer_unref (inbuf);
    return ret;
  }

  if (GST_BUFFER_DURATION_IS_VALID (inbuf))
    self->last_duration = GST_BUFFER_DURATION (inbuf);
  gst_kconv_filter_before_transform (trans, inbuf);

  if (gst_base_transform_is_passthrough (trans)) {
    /* in order behind the frames in flight, which all go out with it */
    kconv_inflight_push (&self->inflight,
        kconv_inflight_frame_new_passthrough (inbuf));
    self->drain_all = TRUE;
    return GST_FLOW_OK;
  }
  /* on CUDA memory the core runs in the memory's context */
  if (!self->on_cuda_memory)
    return gst_kconv_filter_start_frame (self, inbuf);
  if (!kconv_cuda_memory_push (&self->cuda)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not make the CUDA "
            "context current"), (NULL));
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  ret = gst_kconv_filter_start_frame (self, inbuf);
  kconv_cuda_memory_pop (&self->cuda);
  return ret;
}

/* Finishes the oldest frame in flight. */
static GstFlowReturn
gst_kconv_filter_finish_oldest (GstKConvFilter * self, GstBuffer ** outbuf)
{
  KConvStatus st = kconv_inflight_pop (&self->inflight, outbuf);
  if (kconv_inflight_length (&self->inflight) == 0)
    self->drain_all = FALSE;
  if (st != KCONV_OK) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Convolution failed while the frame was in flight"), ("%s: %s",
            kconv_status_string (st), kconv_last_error ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_kconv_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);
  guint queued = kconv_inflight_length (&self->inflight);
  guint allowed = gst_kconv_filter_frames_in_flight (self);

  *outbuf = NULL;
  GST_LOG_OBJECT (self, "%u queued, %u in flight allowed, drain %d", queued,
      allowed, self->drain_all);
  if (queued == 0 || (queued < allowed && !self->drain_all))
    return GST_FLOW_OK;
  return gst_kconv_filter_finish_oldest (self, outbuf);
}

/* Pushes every frame in flight downstream, in order.  After a failed push
 * the rest are dropped: downstream is flushing or gone. */
static GstFlowReturn
gst_kconv_filter_drain (GstKConvFilter * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  GST_DEBUG_OBJECT (self, "pushing %u frames in flight",
      kconv_inflight_length (&self->inflight));
  while (kconv_inflight_length (&self->inflight) > 0) {
    GstBuffer *outbuf = NULL;
    GstFlowReturn fr = gst_kconv_filter_finish_oldest (self, &outbuf);
    if (ret == GST_FLOW_OK)
      ret = fr;
    if (outbuf && ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), outbuf);
    else
      gst_clear_buffer (&outbuf);
  }
  return ret;
}

static gboolean
gst_kconv_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    kconv_inflight_drop_all (&self->inflight);
    self->drain_all = FALSE;
    self->drain_flow = GST_FLOW_OK;
  } else if (GST_EVENT_IS_SERIALIZED (event)
      && kconv_inflight_length (&self->inflight) > 0) {
    /* EOS, caps, segments... keep their place after the frames before */
    GstFlowReturn ret = gst_kconv_filter_drain (self);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "pushing frames before %s: %s",
          GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
      self->drain_flow = ret;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The frames held back: (frames-in-flight - 1) frame durations. */
static GstClockTime
gst_kconv_filter_held_latency (GstKConvFilter * self)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstClockTime frame = GST_CLOCK_TIME_NONE;
  guint n = gst_kconv_filter_frames_in_flight (self);

  if (self->on_cuda_memory)
    return 0;                   /* frames leave as they are done */
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  else
    frame = self->last_duration;        /* variable rate: the last we saw */
  return GST_CLOCK_TIME_IS_VALID (frame) ? (n - 1) * frame : 0;
}

static gboolean
gst_kconv_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  if (kconv_cuda_memory_query (&self->cuda, GST_ELEMENT (self), query))
    return TRUE;
  gboolean res = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans,
      direction, query);

  if (res && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    GstClockTime ours = gst_kconv_filter_held_latency (self);
    gst_query_parse_latency (query, &live, &min, &max);
    GST_DEBUG_OBJECT (self, "adding %" GST_TIME_FORMAT " of frames in flight",
        GST_TIME_ARGS (ours));
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
  }
  return res;
}

/* Pinned pools pay off only where frames cross to a GPU. */
static gboolean
gst_kconv_filter_wants_pinned (GstKConvFilter * self)
{
  GST_OBJECT_LOCK (self);
  KConvBackend backend = self->settings.backend;
  GST_OBJECT_UNLOCK (self);
  return kconv_backend_resolve (backend) == KCONV_BACKEND_CUDA;
}

static gboolean
gst_kconv_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  if (self->on_cuda_memory && !gst_base_transform_is_passthrough (trans))
    return kconv_cuda_memory_propose_allocation (&self->cuda, query,
        gst_kconv_filter_frames_in_flight (self));
  if (gst_base_transform_is_passthrough (trans)
      || !gst_kconv_filter_wants_pinned (self))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);
  /* we hold this many of upstream's buffers while they are in flight */
  if (!kconv_pinned_propose (query, gst_kconv_filter_frames_in_flight (self)))
    return FALSE;
  GST_DEBUG_OBJECT (self, "offered a pool of pinned memory");
  return TRUE;
}

static gboolean
gst_kconv_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  if (self->on_cuda_memory) {
    if (!kconv_cuda_memory_decide_allocation (&self->cuda, query, 2))
      return FALSE;
    GST_DEBUG_OBJECT (self, "output buffers from a pool of CUDA memory");
    return TRUE;
  }
  /* downstream's own pool wins (a sink may need its memory); else ours */
  if (gst_kconv_filter_wants_pinned (self)
      && gst_query_get_n_allocation_pools (query) == 0
      && kconv_pinned_offer (query, gst_kconv_filter_frames_in_flight (self) +
          1))
    GST_DEBUG_OBJECT (self, "output buffers from a pool of pinned memory");
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static gboolean
gst_kconv_filter_start (GstBaseTransform * trans)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  kconv_refusal_flush (GST_ELEMENT (self));
  GST_OBJECT_LOCK (self);
  KConvBackend backend = self->settings.backend;
  GST_OBJECT_UNLOCK (self);

  if (!kconv_backend_available (backend)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("backend=%s requested but it is not available",
            kconv_backend_name (backend)), ("%s",
            backend_unavailable_reason ()));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_kconv_filter_stop (GstBaseTransform * trans)
{
  GstKConvFilter *self = GST_KCONV_FILTER (trans);

  kconv_inflight_clear (&self->inflight);
  self->drain_all = FALSE;
  self->drain_flow = GST_FLOW_OK;
  gst_kconv_filter_free_core (self);
  self->on_cuda_memory = FALSE;
  kconv_cuda_memory_close (&self->cuda);
  guint64 up, down;
  kconv_transfer_bytes (&up, &down);
  GST_INFO_OBJECT (trans, "frame bytes the core moved over the bus in this "
      "process: %" G_GUINT64_FORMAT " to the GPU, %" G_GUINT64_FORMAT
      " back", up, down);
  return TRUE;
}

static void
gst_kconv_filter_finalize (GObject * object)
{
  GstKConvFilter *self = GST_KCONV_FILTER (object);

  kconv_inflight_clear (&self->inflight);
  gst_kconv_filter_free_core (self);
  kconv_cuda_memory_close (&self->cuda);
  g_free (self->settings.custom);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_kconv_filter_set_context (GstElement * element, GstContext * context)
{
  GstKConvFilter *self = GST_KCONV_FILTER (element);

  GST_OBJECT_LOCK (self);
  gint device_id = self->settings.device_id;
  GST_OBJECT_UNLOCK (self);
  kconv_cuda_memory_set_context (&self->cuda, element, context, device_id);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_kconv_filter_class_init (GstKConvFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_kconv_filter_debug, "kconvfilter", 0,
      "kconv convolution filter");

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
      "results around grey)", -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_OFFSET,
      flags | GST_PARAM_CONTROLLABLE);
  properties[PROP_ABSOLUTE] = g_param_spec_enum ("absolute", "Absolute",
      "Use the absolute value of sum / divisor", GST_TYPE_KCONV_ABSOLUTE,
      DEFAULT_ABSOLUTE, flags);
  properties[PROP_BORDER] = g_param_spec_enum ("border", "Border",
      "How pixels beyond the frame edge are made up", GST_TYPE_KCONV_BORDER,
      DEFAULT_BORDER, flags);
  properties[PROP_PLANES] = g_param_spec_enum ("planes", "Planes",
      "Which planes of YUV video to filter", GST_TYPE_KCONV_PLANES,
      DEFAULT_PLANES, flags);
  properties[PROP_BACKEND] = g_param_spec_enum ("backend", "Backend",
      "Where the convolution runs", GST_TYPE_KCONV_BACKEND, DEFAULT_BACKEND,
      flags);
  properties[PROP_DEVICE_ID] = g_param_spec_int ("device-id", "Device ID",
      "CUDA device to run on (-1 = the default device)", -1, 1023,
      DEFAULT_DEVICE_ID, flags);
  properties[PROP_N_THREADS] = g_param_spec_uint ("n-threads", "Threads",
      "CPU threads for the cpu backend (0 = one per core)", 0, MAX_N_THREADS,
      DEFAULT_N_THREADS, flags);
  properties[PROP_FRAMES_IN_FLIGHT] = g_param_spec_uint ("frames-in-flight",
      "Frames in flight", "Frames processed at once: on CUDA the upload, "
      "convolution and download of different frames overlap.  Adds "
      "(frames-in-flight - 1) frames of latency; 1 = one frame at a time",
      1, MAX_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT, flags);
  g_object_class_install_properties (gobject_class, N_PROPERTIES, properties);

  gst_element_class_set_static_metadata (element_class,
      "Convolution filter", "Filter/Effect/Video",
      "Convolves video with a named or custom kernel up to 121x121, "
      "on CUDA or the CPU", "kconv contributors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_kconv_filter_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_kconv_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_kconv_filter_stop);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_kconv_filter_before_transform);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_kconv_filter_set_caps);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_kconv_filter_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_kconv_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_kconv_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_kconv_filter_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_kconv_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_kconv_filter_decide_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_KERNEL, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_ABSOLUTE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_PLANES, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_BACKEND, 0);
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
  s->backend = DEFAULT_BACKEND;
  s->device_id = DEFAULT_DEVICE_ID;
  s->n_threads = DEFAULT_N_THREADS;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  kconv_inflight_init (&self->inflight);
  self->drain_flow = GST_FLOW_OK;
  self->last_duration = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
