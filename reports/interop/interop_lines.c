/*
 * Lines of the text formats (nccl-tests, rccl-tests, OSU, nvbandwidth
 * stdout), as people keep them: pasted into markdown ("> " quoting),
 * captured through Open MPI's --tag-output ("[1,0]<stdout>:") or srun
 * --label ("0: "), with CRs from Windows editors. Those prefixes are
 * removed here once, so the converters see the tool's own text, read a
 * line at a time and split into tokens by one reader (struct gcb__lines).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_int.h"

/* Length of an Open MPI "[1,0]<stdout>:" / "<stderr>:" tag at s, or 0. */
static size_t mpi_tag(const char *s, size_t n) {
  size_t i = 0;
  if (n < 2 || s[0] != '[')
    return 0;
  for (i = 1; i < n && (isdigit((unsigned char)s[i]) || s[i] == ','); i++)
    ;
  if (i == 1 || i >= n || s[i] != ']')
    return 0;
  i++;
  static const char *const tags[] = {"<stdout>:", "<stderr>:"};
  for (size_t t = 0; t < 2; t++) {
    size_t k = strlen(tags[t]);
    if (n - i >= k && memcmp(s + i, tags[t], k) == 0)
      return i + k;
  }
  return 0;
}

/* Length of an srun --label "12: " prefix at s, or 0. Rows of numbers
 * never have a colon after their first token, so this cannot eat one. */
static size_t srun_label(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i] == ' ')
    i++;
  size_t d = i;
  while (i < n && isdigit((unsigned char)s[i]))
    i++;
  if (i == d || i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
    return 0;
  return i + 2;
}

static void strip_prefixes(struct gcb__line *l) {
  for (int round = 0; round < 4; round++) {
    size_t k = 0;
    if (l->len > 0 && l->at[0] == '>') {
      k = 1 + (l->len > 1 && l->at[1] == ' ');
    } else {
      size_t lead = 0;
      while (lead < l->len && l->at[lead] == ' ')
        lead++;
      k = mpi_tag(l->at + lead, l->len - lead);
      k = k ? lead + k : srun_label(l->at, l->len);
    }
    if (k == 0)
      return;
    l->at += k;
    l->len -= k;
  }
}

/* Splits r's line at blanks into r->tok. */
static void tokens(struct gcb__lines *r) {
  const struct gcb__line *l = &r->l;
  size_t used = 0, i = 0;
  r->n = 0;
  while (i < l->len) {
    while (i < l->len && isspace((unsigned char)l->at[i]))
      i++;
    if (i == l->len)
      break;
    size_t s = i;
    while (i < l->len && !isspace((unsigned char)l->at[i]))
      i++;
    if (r->n == GCB__MAX_TOKENS || used + (i - s) + 1 > r->room) {
      r->n = GCB__MAX_TOKENS + 1;
      return;
    }
    memcpy(r->buf + used, l->at + s, i - s);
    r->buf[used + (i - s)] = '\0';
    r->tok[r->n++] = r->buf + used;
    used += i - s + 1;
  }
}

bool gcb__lines_next(struct gcb__lines *r) {
  if (r->pos >= r->len)
    return false;
  const char *start = r->text + r->pos;
  const char *nl = memchr(start, '\n', r->len - r->pos);
  size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
  r->pos += n + (nl != NULL);
  r->l = (struct gcb__line){
      .at = start, .len = n, .number = ++r->number, .last = nl == NULL};
  if (r->raw)
    return true;
  if (r->l.len > 0 && r->l.at[r->l.len - 1] == '\r')
    r->l.len--;
  strip_prefixes(&r->l);
  tokens(r);
  return true;
}

bool gcb__line_starts(const struct gcb__line *l, const char *prefix) {
  size_t i = 0, k = strlen(prefix);
  while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
    i++;
  return l->len - i >= k && memcmp(l->at + i, prefix, k) == 0;
}

bool gcb__line_leads_digit(const struct gcb__line *l) {
  size_t i = 0, from;
  while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
    i++;
  for (from = i; i < l->len && l->at[i] != ' ' && l->at[i] != '\t'; i++)
    if (!isdigit((unsigned char)l->at[i]))
      return false; /* "10-0-0-5:123:123 [0] NCCL INFO ..." */
  return i > from;
}

bool gcb__line_has(const struct gcb__line *l, const char *needle) {
  return gcb__text_has(l->at, l->len, needle, l->len);
}

/* Notes who failed where l is nccl-tests' "HOST: Test X failure ..." (a
 * cause) or " .. HOST pid P: Test failure ..." (its callers, a line per
 * frame): f->host while every cause names one host, f->pid while every
 * caller line names one process. */
static void failure_who(struct gcb__failure *f, const struct gcb__line *l) {
  char text[160];
  snprintf(text, sizeof text, "%.*s", (int)l->len, l->at);
  char *test = strstr(text, ": Test ");
  if (test == NULL)
    return;
  *test = '\0';
  char host[64];
  long long pid = 0;
  if (sscanf(text, " .. %63s pid %lld", host, &pid) == 2) {
    if (pid > 0 && pid != f->pid)
      f->pids++;
    f->pid = f->pids == 1 ? pid : 0;
    return;
  }
  if (strchr(text, ' ') != NULL || text[0] == '\0' ||
      strlen(text) >= sizeof f->host)
    return; /* not a host alone before ": Test" */
  if (f->hosts == 0 || strcmp(text, f->host) != 0)
    f->hosts++;
  snprintf(f->host, sizeof f->host, "%s", f->hosts == 1 ? text : "");
}

bool gcb__failure_see(struct gcb__failure *f, const struct gcb__line *l) {
  static const struct {
    const char *says;
    bool cause;
    enum gcb_status status;
  } signs[] = {
      {"Test NCCL failure", true, GCB_ENCCL},
      {"Test CUDA failure", true, GCB_ECUDA},
      {"Test HIP failure", true, GCB_ECUDA}, /* rccl-tests' HIPCHECK */
      {"Caught signal", true, GCB_EINTERNAL},
      {"] Signal: ", true, GCB_EINTERNAL},
      {"Segmentation fault", true, GCB_EINTERNAL},
      {": Test failure ", false, GCB_EINTERNAL},
      {"*** Process received signal ***", false, GCB_EINTERNAL},
      {"exited with non-zero status", false, GCB_EINTERNAL},
      {"Exited with exit code", false, GCB_EINTERNAL},
      /* OSU -c: "DATA VALIDATION ERROR: ./osu_iallreduce exited with
       * status 1 on message size 16." (osu_util_mpi.c) */
      {"DATA VALIDATION ERROR", true, GCB_EVALIDATION},
      /* the launcher ended the run: Slurm's time limit (a hung
       * collective's usual sign), the cgroup's OOM killer, a cancel;
       * srun's and mpirun's word on a task killed or failed */
      {"DUE TO TIME LIMIT", true, GCB_ETIMEOUT},
      {"oom-kill event", true, GCB_ENOMEM},
      {"oom_kill event", true, GCB_ENOMEM},
      {"CANCELLED AT", false, GCB_EINTR},
      {"srun: error: ", false, GCB_EINTERNAL},
      {"mpirun noticed that process", false, GCB_EINTERNAL},
  };
  size_t k = 0, n = sizeof signs / sizeof *signs;
  while (k < n && !gcb__line_has(l, signs[k].says))
    k++;
  if (k == n)
    return false;
  failure_who(f, l);
  if (f->lines++ == 0 || (signs[k].cause && !f->cause)) {
    f->line = l->number;
    f->cause = signs[k].cause;
    f->status = signs[k].status;
    size_t i = 0, j = 0;
    while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
      i++;
    for (; i < l->len && j + 1 < sizeof f->text; i++)
      f->text[j++] = l->at[i] >= ' ' && l->at[i] <= '~' ? l->at[i] : '?';
    f->text[j] = '\0';
  }
  return true;
}

bool gcb__failure_trace(struct gcb__failure *f, const struct gcb__line *l,
                        bool begun) {
  bool failing = f->lines > 0;
  return (failing || begun) && (gcb__failure_see(f, l) || failing);
}

bool gcb__lines_cut(struct gcb__lines *r) {
  size_t next = r->pos;
  while (next < r->len && isspace((unsigned char)r->text[next]))
    next++;
  bool at_end = r->l.last || next == r->len;
  if (at_end)
    r->cut = r->l.number;
  return at_end;
}

bool gcb__token_number(const char *s, double *out) {
  char *end;
  if (s[0] == '\0' || isspace((unsigned char)s[0]))
    return false;
  double x = strtod(s, &end);
  if (end == s || !isfinite(x))
    return false;
  if (*end == '*')
    end++;
  *out = x;
  return *end == '\0';
}

bool gcb__text_has(const char *text, size_t len, const char *needle,
                   size_t window) {
  size_t n = strlen(needle), end = len < window ? len : window;
  for (size_t i = 0; i + n <= end; i++)
    if (text[i] == needle[0] && memcmp(text + i, needle, n) == 0)
      return true;
  return false;
}
