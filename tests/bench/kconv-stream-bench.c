/* kconv-stream-bench: kconvfilter in a real pipeline, frames in flight
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   appsrc ! kconvfilter backend=cuda frames-in-flight=N ! fakesink
 *   appsrc ! kpatternmatch backend=cuda frames-in-flight=N ! fakesink
 *
 * The source does not touch the frames: the buffers of a pool are filled
 * once and pushed again and again as the pool recycles them, as a source
 * writing into its pool would (minus the writing).  The pool is the pinned
 * one the element proposes, or an ordinary (pageable) video pool for the
 * case where upstream ignores it.  Frames are timed where they
 * enter kconvfilter and where they reach the sink; the throughput is taken
 * over the frames reaching the sink.  Beside it: the bus's limit for a
 * frame each way at once, and the naive path (pageable upload, kernel,
 * pageable download, one after another), measured in the same run.
 *
 *   kconv-stream-bench [--frames N] [--csv FILE] [--only TEXT]
 *                      [--pipelines N] [--gpu-wait spin|sleep|block]
 * (--only: the cases whose name contains TEXT; --pipelines: N copies of
 * each kconvfilter pipeline at once, one process, frames/s all together
 * and the process's CPU time a frame, beside the bus limit)
 */
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "kconv.h"
#include "kconv-matrix.h"
#include "bench-bus.h"
#include "bench-harness.h"
#include "tuning-env.h"

/* frames before timing: negotiation, the filter, and both pools grown to
 * what the pipeline holds (a pinned 4K buffer takes milliseconds to make) */
#define WARMUP 32
#define SOURCE_BUFFERS 12
#define MAX_FRAMES 4096
/* the element's default, for pipelines run at once */
#define DEFAULT_IN_FLIGHT 3

typedef struct
{
  const char *name;
  const char *format;
  int width, height;
  const char *element;          /* the element under test, with properties */
  int taps;                     /* kconvfilter: the named kernel, for the */
  KConvNamedKernel named;       /* naive path; 0 for kpatternmatch */
} Case;

static const Case cases[] = {
  {"3840x2160 RGBA, 3x3", "RGBA", 3840, 2160,
      "kconvfilter backend=cuda kernel=edge", 3, KCONV_NAMED_EDGE},
  {"3840x2160 RGBA, 7x7", "RGBA", 3840, 2160,
        "kconvfilter backend=cuda kernel=gaussian kernel-size=7", 7,
      KCONV_NAMED_GAUSSIAN},
  {"1920x1080 RGBA, 3x3", "RGBA", 1920, 1080,
      "kconvfilter backend=cuda kernel=edge", 3, KCONV_NAMED_EDGE},
  /* the template is cut from the first frame; every frame is searched */
  {"kpatternmatch 1920x1080 GRAY8, 64x64", "GRAY8", 1920, 1080,
      "kpatternmatch backend=cuda template-region=700,500,64,64", 0, 0},
  {"kpatternmatch 3840x2160 RGBA, 64x64, luma", "RGBA", 3840, 2160,
      "kpatternmatch backend=cuda template-region=1700,1000,64,64", 0, 0},
  {"kpatternmatch 3840x2160 RGBA, 64x64, match-on=color", "RGBA", 3840, 2160,
      "kpatternmatch backend=cuda template-region=1700,1000,64,64 "
        "match-on=color", 0, 0},
};

/* One pipeline's timings: when each frame (by offset) entered the filter
 * and reached the sink. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint64 received;
  double in_ms[MAX_FRAMES + WARMUP];
  double out_ms[MAX_FRAMES + WARMUP];
} Timings;

static GstPadProbeReturn
on_filter_input (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Timings *t = data;
  guint64 i = GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info));
  if (i < MAX_FRAMES + WARMUP)
    t->in_ms[i] = bench_now_ms ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_sink_input (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Timings *t = data;
  guint64 i = GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info));
  double now = bench_now_ms ();
  g_mutex_lock (&t->lock);
  if (i < MAX_FRAMES + WARMUP)
    t->out_ms[i] = now;
  t->received++;
  g_cond_signal (&t->cond);
  g_mutex_unlock (&t->lock);
  return GST_PAD_PROBE_OK;
}

static void
wait_received (Timings * t, guint64 n)
{
  g_mutex_lock (&t->lock);
  while (t->received < n)
    g_cond_wait (&t->cond, &t->lock);
  g_mutex_unlock (&t->lock);
}

static void
fill_random (GstBuffer * buf, guint32 seed)
{
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  guint32 x = seed * 2654435761u + 1;
  for (gsize i = 0; i + 4 <= map.size; i += 4) {
    x = x * 1664525u + 1013904223u;
    memcpy (map.data + i, &x, 4);
  }
  gst_buffer_unmap (buf, &map);
}

typedef struct
{
  double fps;
  double latency_ms;            /* median, filter input to sink */
  int pinned_input;
  double first_ms, last_ms;     /* the timed frames' arrivals at the sink */
  int timed;                    /* frames between them */
} RunResult;

/* Where pipelines run at once wait for each other before their timed
 * frames, so that the timed parts overlap. */
typedef struct
{
  GMutex lock;
  GCond cond;
  int waiting, total;
  double cpu_s;                 /* the process's CPU time when all had come */
} StartGate;

static double
process_cpu_s (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
      (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void
gate_pass (StartGate * g)
{
  if (!g)
    return;
  g_mutex_lock (&g->lock);
  if (++g->waiting == g->total) {
    g->cpu_s = process_cpu_s ();
    g_cond_broadcast (&g->cond);
  }
  while (g->waiting < g->total)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
}

static GstBusSyncReply
drop_element_messages (GstBus * bus, GstMessage * msg, gpointer data)
{
  return GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT ? GST_BUS_DROP :
      GST_BUS_PASS;
}

static GstFlowReturn
push_frame (GstElement * src, GstBuffer * buf, guint64 index)
{
  GST_BUFFER_OFFSET (buf) = index;
  GST_BUFFER_PTS (buf) = index * (GST_SECOND / 1000);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 1000;
  return gst_app_src_push_buffer (GST_APP_SRC (src), buf);
}

/* frames: how many to time.  one_at_a_time: wait for each frame before
 * pushing the next (latency of a lone frame).  gate: NULL, or where
 * pipelines run at once meet before their timed frames. */
/* --gpu-wait: the elements' gpu-wait property ("" leaves the default) */
static gchar gpu_wait[32];

static int
run_pipeline (const Case * c, int in_flight, int pinned, int frames,
    int one_at_a_time, StartGate * gate, RunResult * res)
{
  gchar *fif = g_strdup_printf ("frames-in-flight=%d%s%s", in_flight,
      gpu_wait[0] ? " gpu-wait=" : "", gpu_wait);
  gchar *desc = g_strdup_printf ("appsrc name=src format=time block=true "
      "max-buffers=4 max-bytes=0 caps=video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=1000/1 ! %s name=f %s ! fakesink name=sink "
      "sync=false", c->format, c->width, c->height, c->element, fif);
  g_free (fif);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    fprintf (stderr, "pipeline: %s\n", err->message);
    gate_pass (gate);           /* the others are not kept waiting */
    return -1;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *filter = gst_bin_get_by_name (GST_BIN (pipe), "f");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  Timings *t = g_new0 (Timings, 1);
  g_mutex_init (&t->lock);
  g_cond_init (&t->cond);
  GstPad *fpad = gst_element_get_static_pad (filter, "sink");
  GstPad *spad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (fpad, GST_PAD_PROBE_TYPE_BUFFER, on_filter_input, t, NULL);
  gst_pad_add_probe (spad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_input, t, NULL);
  /* kpatternmatch posts a message a frame: nobody reads them here */
  GstBus *bus = gst_element_get_bus (pipe);
  gst_bus_set_sync_handler (bus, drop_element_messages, NULL, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  /* warm up with pageable frames: negotiates, builds the filter, fills the
   * output pool */
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (c->format),
      c->width, c->height);
  GstBuffer *pageable = gst_buffer_new_allocate (NULL, info.size, NULL);
  fill_random (pageable, 1);
  for (int i = 0; i < WARMUP; i++)
    push_frame (src, gst_buffer_copy_deep (pageable), i);
  wait_received (t, WARMUP - (in_flight - 1));

  /* the source's pool: the one the element proposes, or a plain one */
  GstBufferPool *pool = NULL;
  GstCaps *caps = gst_video_info_to_caps (&info);
  if (pinned) {
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    GstPad *srcpad = gst_element_get_static_pad (src, "src");
    if (gst_pad_peer_query (srcpad, q)
        && gst_query_get_n_allocation_pools (q) > 0)
      gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    gst_object_unref (srcpad);
    gst_query_unref (q);
  } else {
    pool = gst_video_buffer_pool_new ();
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
    gst_buffer_pool_set_config (pool, config);
  }
  gst_caps_unref (caps);
  if (!pool || !gst_buffer_pool_set_active (pool, TRUE)) {
    fprintf (stderr, "no usable pool\n");
    gate_pass (gate);
    return -1;
  }
  /* fill a few; the pool keeps them when they come back */
  GstBuffer *bufs[SOURCE_BUFFERS];
  res->pinned_input = 1;
  for (int i = 0; i < SOURCE_BUFFERS; i++) {
    gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL);
    fill_random (bufs[i], 2 + i);
    GstMemory *mem = gst_buffer_peek_memory (bufs[i], 0);
    res->pinned_input &= gst_memory_is_type (mem, "KConvPinnedMemory");
  }
  for (int i = 0; i < SOURCE_BUFFERS; i++)
    gst_buffer_unref (bufs[i]);

  gate_pass (gate);
  for (int i = 0; i < frames; i++) {
    guint64 index = WARMUP + i;
    GstBuffer *buf = NULL;
    if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK
        || push_frame (src, buf, index) != GST_FLOW_OK)
      break;
    if (one_at_a_time)
      wait_received (t, index + 1);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  int ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS
      && t->received == (guint64) WARMUP + frames;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e;
    gst_message_parse_error (msg, &e, NULL);
    fprintf (stderr, "error: %s\n", e->message);
    g_error_free (e);
  }
  if (!ok)
    fprintf (stderr, "%d of %d frames reached the sink\n",
        (int) t->received, WARMUP + frames);

  double *lat = g_new (double, frames);
  for (int i = 0; i < frames; i++)
    lat[i] = t->out_ms[WARMUP + i] - t->in_ms[WARMUP + i];
  res->latency_ms = bench_median (lat, frames);
  /* a few frames in, the pipeline is full: time the rest */
  const int first = WARMUP + (frames > 40 ? 8 : 0), last = WARMUP + frames - 1;
  res->fps = (last - first) / (t->out_ms[last] - t->out_ms[first]) * 1e3;
  res->first_ms = t->out_ms[first];
  res->last_ms = t->out_ms[last];
  res->timed = last - first;
  g_free (lat);

  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_buffer_unref (pageable);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_object_unref (fpad);
  gst_object_unref (spad);
  gst_object_unref (src);
  gst_object_unref (filter);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_mutex_clear (&t->lock);
  g_cond_clear (&t->cond);
  g_free (t);
  return ok ? 0 : -1;
}

/* One of the pipelines run at once. */
typedef struct
{
  const Case *c;
  int frames;
  StartGate *gate;
  RunResult res;
  int status;
} Copy;

static gpointer
run_copy (gpointer data)
{
  Copy *p = data;
  p->status = run_pipeline (p->c, DEFAULT_IN_FLIGHT, 1, p->frames, 0,
      p->gate, &p->res);
  return NULL;
}

/* n copies of c's pipeline at once: frames/s all together, over the span
 * from the first timed frame of any to the last of any, and the process's
 * CPU time a frame from when all began their timed frames to the end. */
static int
run_copies (const Case * c, int n, int frames, double *fps,
    double *cpu_us_per_frame)
{
  StartGate gate = { 0 };
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  gate.total = n;
  Copy *copies = g_new0 (Copy, n);
  GThread **threads = g_new (GThread *, n);
  for (int i = 0; i < n; i++) {
    copies[i].c = c;
    copies[i].frames = frames;
    copies[i].gate = &gate;
    threads[i] = g_thread_new ("pipeline", run_copy, &copies[i]);
  }
  for (int i = 0; i < n; i++)
    g_thread_join (threads[i]);
  const double cpu_s = process_cpu_s () - gate.cpu_s;
  int ok = 1, timed = 0;
  double first = 0, last = 0;
  for (int i = 0; i < n; i++) {
    const RunResult *r = &copies[i].res;
    ok &= copies[i].status == 0;
    timed += r->timed;
    first = i == 0 || r->first_ms < first ? r->first_ms : first;
    last = i == 0 || r->last_ms > last ? r->last_ms : last;
  }
  *fps = ok && last > first ? timed / (last - first) * 1e3 : 0;
  /* every frame of the run, warm-up and tail included, shares the CPU */
  *cpu_us_per_frame = cpu_s * 1e6 / ((double) n * frames);
  g_free (threads);
  g_free (copies);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
  return ok ? 0 : -1;
}

static double
naive_ms (const Case * c)
{
  int rows, cols;
  float *w = kconv_named_kernel (c->named, c->taps, 0, &rows, &cols);
  KConvKernel kernel = { cols, rows, w, 0, 0,
    kconv_named_kernel_is_signed (c->named)
  };
  KConvOptions options = { KCONV_BACKEND_CUDA, 0, -1 };
  KConvFilter *f = NULL;
  double ms = -1;
  if (kconv_filter_new (&kernel, KCONV_BORDER_REFLECT, &options, &f) ==
      KCONV_OK) {
    size_t bytes = (size_t) c->width * 4 * c->height;
    uint8_t *a = malloc (bytes), *b = malloc (bytes);
    memset (a, 7, bytes);
    KConvImage src = { a, c->width, c->height, c->width * 4, 4, 3, {0, 1, 2} };
    KConvImage dst = src;
    dst.data = b;
    ms = bench_naive_ms (f, &src, &dst, 20);
    free (a);
    free (b);
    kconv_filter_free (f);
  }
  free (w);
  return ms;
}

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  BenchArgs args;
  gst_init (&argc, &argv);
  /* (this program's own option, taken out before the shared ones) */
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--gpu-wait")) {
      g_strlcpy (gpu_wait, argv[i + 1], sizeof gpu_wait);
      memmove (argv + i, argv + i + 2, (argc - i - 2) * sizeof *argv);
      argc -= 2;
      break;
    }
  if (bench_args_parse (argc, argv, BENCH_FRAMES | BENCH_CSV | BENCH_ONLY |
          BENCH_PIPELINES,
          "case,mode,frames_in_flight,fps,latency_ms,bus_fps,naive_ms", &args))
    return 2;
  if (!kconv_backend_available (KCONV_BACKEND_CUDA)) {
    fprintf (stderr, "no usable CUDA device\n");
    bench_args_clear (&args);
    return 77;
  }
  const int frames = args.frames;

  for (size_t ci = 0; ci < G_N_ELEMENTS (cases); ci++) {
    const Case *c = &cases[ci];
    if (!bench_selected (&args, c->name))
      continue;
    const int kconvfilter = c->taps > 0;
    const size_t bytes = (size_t) c->width * c->height *
        (strcmp (c->format, "GRAY8") ? 4 : 1);
    const int n = frames > 0 ? MIN (frames, MAX_FRAMES) :
        bytes > 16u << 20 ? 400 : 1500;
    BenchBus bus = { 0 };
    bench_bus_measure (bytes, 20, &bus);
    /* kconvfilter moves a frame each way, kpatternmatch uploads only */
    const double bus_fps = 1e3 / (kconvfilter ? bus.sustained_ms : bus.up_ms);
    const double naive = kconvfilter ? naive_ms (c) : 0;
    printf ("\n## %s: %.1f MB a frame each way\n", c->name, bytes / 1e6);
    printf ("bus, pinned: up %.3f ms (%.1f GB/s), down %.3f ms (%.1f GB/s), "
        "both at once %.3f ms; sustained both ways %.3f ms a frame -> limit "
        "%.0f fps\n", bus.up_ms, bytes / bus.up_ms / 1e6, bus.down_ms,
        bytes / bus.down_ms / 1e6, bus.both_ms, bus.sustained_ms, bus_fps);
    if (kconvfilter)
      printf ("naive (pageable, one step at a time): %.3f ms/frame = %.0f "
          "fps\n", naive, 1e3 / naive);
    if (kconvfilter && args.pipelines > 1) {
      double fps, cpu_us;
      if (run_copies (c, args.pipelines, n, &fps, &cpu_us) == 0) {
        printf ("%d pipelines at once, pinned pools, frames-in-flight=%d: "
            "%.0f fps together, %.0f%% of the bus limit; the process's "
            "CPU %.0f us a frame\n", args.pipelines, DEFAULT_IN_FLIGHT, fps,
            100 * fps / bus_fps, cpu_us);
        bench_csv_row (&args, "%s,%d pipelines,%d,%.1f,,%.1f,", c->name,
            args.pipelines, DEFAULT_IN_FLIGHT, fps, bus_fps);
      }
      continue;
    }
    printf ("| input | frames-in-flight | fps | of bus limit | x naive | "
        "latency ms (median) |\n|---|---|---|---|---|---|\n");
    for (int pinned = 1; pinned >= 0; pinned--) {
      for (int fif = 1; fif <= 4; fif++) {
        RunResult r = { 0 };
        if (run_pipeline (c, fif, pinned, n, 0, NULL, &r) != 0)
          continue;
        gchar *times_naive = naive > 0 ? g_strdup_printf ("%.1f",
            r.fps * naive / 1e3) : g_strdup ("-");
        printf ("| %s | %d | %.0f | %.0f%% | %s | %.3f |\n",
            r.pinned_input ? "pinned pool" : "pageable", fif, r.fps,
            100 * r.fps / bus_fps, times_naive, r.latency_ms);
        g_free (times_naive);
        bench_csv_row (&args, "%s,%s,%d,%.1f,%.4f,%.1f,%.4f", c->name,
            r.pinned_input ? "pinned" : "pageable", fif, r.fps, r.latency_ms,
            bus_fps, naive);
        fflush (stdout);
      }
    }
    RunResult lone = { 0 };
    if (kconvfilter && run_pipeline (c, 1, 1, 100, 1, NULL, &lone) == 0) {
      printf ("lone frame, frames-in-flight=1, pinned: latency %.3f ms "
          "(median of 100)\n", lone.latency_ms);
      bench_csv_row (&args, "%s,lone,1,,%.4f,%.1f,%.4f", c->name,
          lone.latency_ms, bus_fps, naive);
    }
  }
  bench_args_clear (&args);
  return 0;
}
