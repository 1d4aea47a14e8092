/*
 * The watchdog's deadline (see watchdog.h): who had not finished when it
 * passed, the one line that says so, and the rule that ends the run — rank
 * 0 at the deadline, every other rank a grace period later where rank 0
 * cannot (frozen, unreachable).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/watchdog_internal.h"

#define NAMED_MAX 8

static int behind(const struct gcb__wd_rank *a, const struct gcb__wd_rank *b) {
  return a->seq < b->seq || (a->seq == b->seq && a->step < b->step);
}

int gcb__watchdog_laggards(const struct gcb__wd_rank *ranks, int n, int *out) {
  const struct gcb__wd_rank *front = NULL;
  for (int r = 0; r < n; r++)
    if (ranks[r].heard && !ranks[r].dead &&
        (!front || behind(front, &ranks[r])))
      front = &ranks[r];
  int k = 0;
  for (int r = 0; r < n; r++)
    if (!ranks[r].heard || ranks[r].dead || behind(&ranks[r], front))
      out[k++] = r;
  for (int r = 0; k == 0 && r < n; r++)
    out[r] = r;
  return k == 0 ? n : k;
}

void gcb__wd_append(char *buf, size_t len, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= len)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
}

void gcb__wd_name_rank(char *buf, size_t len, int r, const char (*names)[96],
                       const struct gcb__wd_rank *st) {
  gcb__wd_append(buf, len, "rank %d", r);
  if (names != NULL)
    gcb__wd_append(buf, len, " (%s)", names[r]);
  if (st->dead)
    gcb__wd_append(buf, len, " died");
  else if (!st->heard)
    gcb__wd_append(buf, len, " silent (its watchdog never reported)");
  else
    gcb__wd_append(buf, len, " in %s", gcb_watchdog_phase_name(st->phase));
}

int gcb__wd_name_unconnected(const struct gcb_watchdog *w, char *buf,
                             size_t len, int *first) {
  int k = 0;
  *first = -1;
  for (int r = 1; r < w->size; r++) {
    if (w->peers[r].connected || w->peers[r].bye)
      continue;
    if (k == 0)
      *first = r;
    if (k < NAMED_MAX) {
      gcb__wd_append(buf, len, "%srank %d", k > 0 ? ", " : "", r);
      if (w->opts.rank_names != NULL)
        gcb__wd_append(buf, len, " (%s)", w->opts.rank_names[r]);
    }
    k++;
  }
  if (k > NAMED_MAX)
    gcb__wd_append(buf, len, " and %d more", k - NAMED_MAX);
  return k;
}

void gcb__watchdog_timeout_message(char *buf, size_t len, const char *bench,
                                   const char *label, double timeout_s,
                                   const struct gcb__wd_rank *ranks, int n,
                                   const char (*names)[96]) {
  int *late = malloc(sizeof *late * (size_t)(n > 0 ? n : 1));
  int k = late != NULL ? gcb__watchdog_laggards(ranks, n, late) : 0;
  buf[0] = '\0';
  gcb__wd_append(buf, len, "%s %s did not finish within %g s; ", bench, label,
                 timeout_s);
  gcb__wd_append(buf, len,
                 k == n && n > 1 ? "no rank is behind, still inside it: "
                                 : "not finished: ");
  for (int i = 0; i < k && i < NAMED_MAX; i++) {
    if (i > 0)
      gcb__wd_append(buf, len, ", ");
    gcb__wd_name_rank(buf, len, late[i], names, &ranks[late[i]]);
  }
  if (k > NAMED_MAX)
    gcb__wd_append(buf, len, " and %d more", k - NAMED_MAX);
  free(late);
}

static _Noreturn void timeout_rank0(struct gcb_watchdog *w,
                                    const struct gcb__wd_armed *a) {
  struct gcb__wd_msg mine = gcb__wd_own_progress(w, GCB__WD_PROGRESS);
  w->ranks[0] = (struct gcb__wd_rank){
      .heard = true, .seq = mine.a, .step = mine.b, .phase = mine.phase};
  char message[1536];
  gcb__watchdog_timeout_message(message, sizeof message, a->bench, a->desc,
                                w->opts.timeout_s, w->ranks, w->size,
                                w->opts.rank_names);
  /* The errors[] entry names the rank when exactly one is behind. */
  int *late = malloc(sizeof *late * (size_t)w->size), rank = -1;
  if (late != NULL && gcb__watchdog_laggards(w->ranks, w->size, late) == 1)
    rank = late[0];
  free(late);
  gcb__wd_end_run(w, GCB_ETIMEOUT, "timeout", rank, a->bench, a->label,
                  message);
}

void gcb__wd_check_deadline(struct gcb_watchdog *w, double now) {
  struct gcb__wd_armed a;
  gcb__wd_armed(w, &a);
  if (a.deadline <= 0)
    return;
  if (w->rank == 0) {
    if (now > a.deadline)
      timeout_rank0(w, &a);
    return;
  }
  /* Rank 0 ends the run at its deadline; this is for a rank 0 that
   * cannot (frozen, unreachable). */
  double grace = 5 + 0.1 * w->opts.timeout_s;
  if (now > a.deadline + grace) {
    char line[512];
    snprintf(line, sizeof line,
             "timeout: rank %d: %s %s did not finish within %g s and rank 0 "
             "did not end the run; ending this rank",
             w->rank, a.bench, a.desc, w->opts.timeout_s);
    gcb__wd_say(w, "error", line);
    _exit(gcb_status_exit_code(GCB_ETIMEOUT));
  }
}
