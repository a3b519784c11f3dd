/* GStreamer kconv plugin: kpatternmatch's search of each frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A frame's search starts as it comes in (start_frame): the settings it
 * came with, the matcher and template brought up to date, the frame mapped
 * and its search submitted; it reports (a message, ROI metas, a box drawn)
 * as it leaves, in order (finish_frame).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkpatternmatch-private.h"
#include "kconv-frame-images.h"
#include "kmatch-report.h"
#include "kmatch-template.h"

/* One frame's search, from its start to its report: what was asked and
 * where, so that a frame in flight reports what held when it came in. */
typedef struct
{
  gboolean report;              /* FALSE: no template yet, nothing to say */
  gboolean search;              /* FALSE: the template does not fit */
  /* with other templates: the first is searched with them, in one pass
   * over the frame, as the frame is reported (not on a slot) */
  gboolean together;
  KConvImage im;                /* the samples searched */
  gboolean rgb_luma;
  guint8 *gathered;             /* planar RGB packed, owned */
  KMatchRegion region;
  gint channels, tw, th;
  /* without the first template or its location; with its name and the
   * other templates (refs) */
  Settings snap;
  guint template_cookie;
} MatchJob;

static void
match_job_free (gpointer data)
{
  MatchJob *job = data;
  g_free (job->gathered);
  g_free (job->snap.template_name);
  g_clear_pointer (&job->snap.extra_templates, g_ptr_array_unref);
  g_free (job);
}

/* Where a template is searched: the search region, narrowed around its
 * last match (with scales: each size's, the target's sizes brought up to
 * date first); FALSE (warned once) when the template, at no size, fits
 * there. */
static gboolean
target_area (GstKPatternMatch * self, GstKMatchTarget * t,
    const Settings * snap, const KConvImage * im, KMatchRegion * region)
{
  const KMatchRegion *search = snap->has_search_region ?
      &snap->search_region : NULL;
  const gint tw = t->template.width, th = t->template.height;
  *region = kmatch_search_area (search, t->have_last ? &t->last : NULL,
      snap->search_radius, tw, th, im->width, im->height);
  if (SETTINGS_SCALED (snap)) {
    if (gst_kpattern_match_ensure_sizes (self, t, snap, im->width, im->height)
        && gst_kpattern_match_sizes_area (t, snap, im->width, im->height))
      return TRUE;
  } else {
    gst_kpattern_match_free_sizes (t);
    if (tw <= region->width && th <= region->height)
      return TRUE;
  }
  if (!t->warned_size) {
    KMatchRegion wide = kmatch_search_area (search, NULL, 0, tw, th,
        im->width, im->height);
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The %dx%d template does not fit the %dx%d search area%s", tw, th,
            wide.width, wide.height, t->sizes ? " at any of its scales" : ""),
        (NULL));
    t->warned_size = TRUE;
  }
  return FALSE;
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
  snap->scales_text = NULL;
  snap->template_name = g_strdup (snap->template_name);
  if (snap->extra_templates)
    g_ptr_array_ref (snap->extra_templates);
  job->template_cookie = self->template_cookie;
  GST_OBJECT_UNLOCK (self);

  gint channels = gst_kpattern_match_channels (snap->match_on, &frame->info);
  if (snap->match_on == GST_KMATCH_ON_COLOR && channels == 1
      && !self->warned_color) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("match-on=color needs RGB video; matching on luma"), (NULL));
    self->warned_color = TRUE;
  }
  gst_kpattern_match_image (frame, channels, &job->im, &job->rgb_luma,
      &job->gathered);
  GST_OBJECT_LOCK (self);
  self->frame_width = job->im.width;
  self->frame_height = job->im.height;
  GST_OBJECT_UNLOCK (self);
  gboolean ok;
  ok = gst_kpattern_match_ensure_matcher (self, frame, snap,
      job->template_cookie, channels, &job->im);
  g_clear_pointer (&snap->template_rgb, gst_sample_unref);
  snap->cut_pending = FALSE;    /* done once, by gst_kpattern_match_ensure_matcher */
  if (!ok) {
    match_job_free (job);
    return NULL;
  }
  job->channels = channels;
  job->tw = self->first.template.width;
  job->th = self->first.template.height;
  if (!self->first.template.in_matcher
      || self->first.template.channels != channels)
    return job;                 /* no template yet: nothing to report */
  job->report = TRUE;
  job->search = target_area (self, &self->first, snap, &job->im, &job->region);
  /* (sizes are searched beside each other, in one pass, as templates are) */
  job->together = (snap->extra_templates && snap->extra_templates->len > 0)
      || SETTINGS_SCALED (snap);
  return job;
}

/* The matcher again, after a GPU failure made the options say CPU. */
static gboolean
rebuild_matcher (GstKPatternMatch * self, GstVideoFrame * frame, MatchJob * job)
{
  return gst_kpattern_match_ensure_matcher (self, frame, &job->snap,
      job->template_cookie, job->channels, &job->im);
}

/* The templates after the first, into ts[*count...] with room for
 * max_matches each in matches, to be searched where they fit */
static void
add_extras (GstKPatternMatch * self, const MatchJob * job,
    GstKMatchTargetSearch * ts, guint * count, KMatchPosition * matches)
{
  GPtrArray *extras = job->snap.extra_templates;
  const gint max = job->snap.max_matches;

  for (guint i = 0; extras && i < extras->len; i++) {
    GstKMatchTarget *t = &self->extras[i];
    const GstKMatchExtraTemplate *e = g_ptr_array_index (extras, i);
    if (!t->template.in_matcher || t->template.channels != job->channels)
      continue;
    GstKMatchTargetSearch *x = &ts[(*count)++];
    memset (x, 0, sizeof *x);
    x->t = t;
    x->index = i + 1;
    x->name = e->name;
    x->matches = matches + (gsize) i *max;
    x->searched = x->pending = target_area (self, t, &job->snap, &job->im,
        &x->region);
  }
}

/* Reports a frame: the first template's matches (first, n_first; n_first
 * -1: not searched yet, searched here with the others into first, which
 * has room for max_matches) and the others', searched here, each settled
 * before any box is drawn (a box must not be searched), then per template
 * ROI metas on the buffer, boxes drawn and a bus message. */
static GstFlowReturn
report_frame (GstKPatternMatch * self, GstVideoFrame * frame,
    const MatchJob * job, KMatchPosition * first, gint n_first,
    gboolean on_device)
{
  GPtrArray *extras = job->snap.extra_templates;
  const gint max = job->snap.max_matches;
  GstKMatchTargetSearch *ts = g_new0 (GstKMatchTargetSearch, MAX_TEMPLATES);
  GstKMatchBox *boxes = g_new (GstKMatchBox, (gsize) MAX_TEMPLATES * max);
  gint *sizes = g_new (gint, (gsize) MAX_TEMPLATES * max);
  guint count = 0;
  KMatchPosition *extra_matches = NULL;
  const gchar *failed = NULL;
  KConvStatus st = KCONV_OK;

  if (job->report) {
    GstKMatchTargetSearch *x = &ts[count++];
    x->t = &self->first;
    x->region = job->region;
    x->name = job->snap.template_name;
    x->matches = first;
    x->n = MAX (n_first, 0);
    x->searched = x->pending = n_first < 0 && job->search;
  }
  if (!gst_kpattern_match_ensure_extras (self, extras, frame, job->channels,
          job->snap.method, job->snap.use_alpha)) {
    st = KCONV_ERROR_BACKEND_UNAVAILABLE;       /* (posted) */
    goto done;
  }
  if (extras) {
    extra_matches = g_new (KMatchPosition, (gsize) extras->len * max);
    add_extras (self, job, ts, &count, extra_matches);
  }
  for (guint i = 0; i < count; i++)
    gst_kmatch_target_search_room (&ts[i], boxes, sizes, i, max);
  failed = "Template search failed";
  st = gst_kmatch_targets_search (ts, count, &job->im, job->rgb_luma, max,
      on_device);
  for (guint i = 0; i < count && st == KCONV_OK; i++) {
    failed = "Refining the match failed";
    st = gst_kmatch_target_settle (&ts[i], &job->im, job->rgb_luma,
        job->snap.threshold, on_device);
  }
  for (guint i = 0; i < count && st == KCONV_OK; i++) {
    const GstKMatchTargetSearch *x = &ts[i];
    gst_kmatch_report_metas (frame->buffer, x->matches, x->boxes, x->n,
        job->snap.method, x->index, x->name);
    failed = "Drawing the match failed";
    for (gint k = 0; job->snap.draw && k < x->n && st == KCONV_OK; k++)
      st = gst_kconv_frame_draw_box (frame, x->matches[k].x, x->matches[k].y,
          x->boxes[k].width, x->boxes[k].height, on_device);
  }
  if (st == KCONV_OK && on_device && job->snap.draw)
    st = kconv_device_sync (NULL);
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED, ("%s", failed), st);
    goto done;
  }
  /* (the messages list the matches: extra_matches is let go after them) */
  for (guint i = 0; i < count; i++) {
    const GstKMatchTargetSearch *x = &ts[i];
    gst_element_post_message (GST_ELEMENT (self),
        gst_kmatch_report_message (GST_OBJECT (self),
            &GST_BASE_TRANSFORM (self)->segment, frame->buffer,
            x->searched ? &x->best : NULL, &x->best_box, x->matches,
            x->boxes, x->n, job->snap.method, max, x->index, x->name));
  }
done:
  g_free (extra_matches);
  g_free (ts);
  g_free (boxes);
  g_free (sizes);
  return st == KCONV_OK ? GST_FLOW_OK : GST_FLOW_ERROR;
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
  KMatch *m = self->first.matcher;
  if (job->together)
    n = -1;                     /* (searched with the others) */
  else if (job->search && on_device)
    st = kmatch_search_device (m, &job->im, job->rgb_luma, &job->region,
        job->snap.max_matches, matches, &n);
  else if (job->search)
    st = (job->rgb_luma ? kmatch_search_luma : kmatch_search) (m, &job->im,
        &job->region, job->snap.max_matches, matches, &n, NULL);
  GstFlowReturn ret = GST_FLOW_OK;
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Template search failed"), st);
    ret = GST_FLOW_ERROR;
  } else {
    ret = report_frame (self, frame, job, matches, n, on_device);
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
  /* a cut (gst_kpattern_match_ensure_matcher) reads the frame on the host
   * (only a frame that holds the region: one that does not is not cut) */
  const gint channels = gst_kpattern_match_channels (self->settings.match_on,
      info);
  gboolean cut = gst_kpattern_match_cut_due (self, &self->settings, channels,
      gst_kpattern_match_depth (channels, info))
      && gst_kpattern_match_region_in (&self->settings.template_region,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
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
GstFlowReturn
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
  GstFlowReturn ret = GST_KPATTERN_MATCH_PARENT->prepare_output_buffer (trans,
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
  if (tracking || job->together
      || kmatch_backend (self->first.matcher) != KCONV_BACKEND_CUDA)
    gst_kconv_base_let_out (base);
  return GST_FLOW_OK;
}

/* Frames are held only on CUDA without tracking: elsewhere each leaves as
 * soon as it is searched (start_frame). */
guint
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
GstFlowReturn
gst_kpattern_match_finish_frame (GstKConvBase * base, GstKConvInflightFrame * f)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  MatchJob *job = f->job;
  KMatchPosition matches[MAX_MATCHES];
  gint n = 0;

  KConvStatus st = KCONV_OK;
  if (job->together)
    n = -1;                     /* (searched with the others) */
  else if (job->report && job->search)
    st = kmatch_slot_matches (f->slot, matches, &n);
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
        ("Template search failed"), st);
    return GST_FLOW_ERROR;
  }
  return report_frame (self, &f->in, job, matches, n, FALSE);
}

/* Starts the frame's search on its slot (a frame with nothing to search
 * has nothing to start). */
KConvStatus
gst_kpattern_match_submit_frame (GstKConvBase * base, GstKConvInflightFrame * f)
{
  GstKPatternMatch *self = GST_KPATTERN_MATCH (base);
  MatchJob *job = f->job;
  if (!job->search || job->together)
    return KCONV_OK;
  return kmatch_submit (self->first.matcher, f->slot, &job->im, job->rgb_luma,
      &job->region, job->snap.max_matches);
}

gboolean
gst_kpattern_match_rebuild_core (GstKConvBase * base, GstKConvInflightFrame * f)
{
  return rebuild_matcher (GST_KPATTERN_MATCH (base), &f->in, f->job);
}
