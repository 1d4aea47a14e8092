/*
 * Reading several results documents at once: `compare` and `report` with
 * a baseline read two documents of the same size, and at thousands of
 * ranks parsing is most of their time. jansson keeps no shared state but
 * its hash seed, which is set before the threads start.
 */
#include "reports/document/results_many.h"

#include <pthread.h>
#include <unistd.h>

struct job {
  struct gcb_parse_job *items;
  size_t n, next;
  pthread_mutex_t lock;
};

static void *worker(void *arg) {
  struct job *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    size_t i = j->next < j->n ? j->next++ : j->n;
    pthread_mutex_unlock(&j->lock);
    if (i == j->n)
      return NULL;
    struct gcb_parse_job *p = &j->items[i];
    p->status = gcb_results_parse(p->text, p->len, p->name, &p->out, &p->err);
  }
}

void gcb_results_parse_many(struct gcb_parse_job *items, size_t n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t nthreads = cpus > 1 ? (size_t)cpus : 1;
  nthreads = nthreads < n ? nthreads : n;
  pthread_t tid[GCB_PARSE_MAX_THREADS];
  nthreads =
      nthreads < GCB_PARSE_MAX_THREADS ? nthreads : GCB_PARSE_MAX_THREADS;
  struct job j = {.items = items, .n = n, .next = 0};
  json_object_seed(0);
  pthread_mutex_init(&j.lock, NULL);
  size_t started = 0;
  /* The calling thread works too; a thread that cannot start just leaves
   * its share to the others. */
  while (started + 1 < nthreads &&
         pthread_create(&tid[started], NULL, worker, &j) == 0)
    started++;
  worker(&j);
  for (size_t t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&j.lock);
}
