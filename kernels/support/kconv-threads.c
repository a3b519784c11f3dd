/* kconv: the CPU backends' worker threads
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE             /* sched_getaffinity */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#include "kconv-threads.h"

/* as many as the n-threads properties allow */
#define MAX_WORKERS 1023

/* How long an idle worker watches for the next region before it sleeps.
 * Waking a sleeping thread takes tens of microseconds (more in a virtual
 * machine), long enough for the caller to run the part itself, one after
 * the other; regions of one frame follow each other within this time, and
 * frames are further apart, so between frames the cores are free. */
#define SPIN_NS 100000

typedef struct Region Region;
struct Region
{
  KConvPartFunc fn;
  void *ctx;
  int n;
  int next;                     /* next part to hand out */
  int unfinished;               /* parts not yet returned */
  Region *later;                /* queue of regions with parts to hand out */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t part_done = PTHREAD_COND_INITIALIZER;
static Region *queue_head;     /* written under the lock, atomically: the
                                 * spinning workers read it without it */
static int n_workers;

static void
dequeue (Region * r)
{
  Region **p = &queue_head;
  while (*p && *p != r)
    p = &(*p)->later;
  if (*p)
    __atomic_store_n (p, r->later, __ATOMIC_RELEASE);
}

/* Hands out the next part of r; the lock is held. */
static int
take_part (Region * r)
{
  int t = r->next++;
  if (r->next == r->n)
    dequeue (r);
  return t;
}

/* Runs part t of r and counts it done; the lock is held, and released while
 * the part runs. */
static void
run_part (Region * r, int t)
{
  pthread_mutex_unlock (&lock);
  r->fn (t, r->n, r->ctx);
  pthread_mutex_lock (&lock);
  if (--r->unfinished == 0)
    pthread_cond_broadcast (&part_done);
}

static int64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Watches the queue without the lock for SPIN_NS; 1 if work came. */
static int
spin_for_work (void)
{
  const int64_t until = now_ns () + SPIN_NS;
  do {
    for (int i = 0; i < 64; i++) {
      if (__atomic_load_n (&queue_head, __ATOMIC_RELAXED))
        return 1;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause ();
#endif
    }
  } while (now_ns () < until);
  return 0;
}

static void *
worker_main (void *unused)
{
  (void) unused;
  pthread_mutex_lock (&lock);
  for (;;) {
    if (!queue_head) {
      pthread_mutex_unlock (&lock);
      spin_for_work ();
      pthread_mutex_lock (&lock);
    }
    while (!queue_head)
      pthread_cond_wait (&work_queued, &lock);
    Region *r = queue_head;
    run_part (r, take_part (r));
  }
  return NULL;
}

/* Starts workers until there are `want`; the lock is held. */
static void
grow_pool (int want)
{
  if (want > MAX_WORKERS)
    want = MAX_WORKERS;
  while (n_workers < want) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init (&attr);
    pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
    int failed = pthread_create (&thread, &attr, worker_main, NULL);
    pthread_attr_destroy (&attr);
    if (failed)
      break;                    /* fewer workers: the caller does the rest */
    n_workers++;
  }
}

void
kconv_parallel (int n, KConvPartFunc fn, void *ctx)
{
  if (n <= 1) {
    fn (0, 1, ctx);
    return;
  }
  Region r = { fn, ctx, n, 1, n, NULL };

  pthread_mutex_lock (&lock);
  grow_pool (n - 1);
  Region **tail = &queue_head;
  while (*tail)
    tail = &(*tail)->later;
  __atomic_store_n (tail, &r, __ATOMIC_RELEASE);
  for (int i = 1; i < n; i++)
    pthread_cond_signal (&work_queued);
  run_part (&r, 0);
  /* parts no worker has taken yet: ours */
  while (r.next < r.n)
    run_part (&r, take_part (&r));
  while (r.unfinished > 0)
    pthread_cond_wait (&part_done, &lock);
  pthread_mutex_unlock (&lock);
}

int
kconv_cpu_count (void)
{
  /* the cores this process may run on (taskset, cgroups' cpusets) */
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
}
