/*
 * The verdict as a scheduler acts on it: the nodes whose verdict is fail,
 * one line each with the reason, for a person or a script to drain
 * (drain.txt, read by scripts/gcbench.sbatch --drain), and the same list as
 * kubectl commands that cordon and taint them (cordon.sh, printed, never
 * run by gcbench). A node fails when a root cause that is not cleared
 * fails on it: on one of its GPUs, their links, its ranks or the node
 * itself; causes of the run as a whole (a failed criterion over all
 * ranks, a bad input) drain nothing, since no one node is to blame.
 *
 * The hostnames come from the results document, so they are checked
 * before they reach a line a script passes to scontrol or a shell: a name
 * that is not a valid host name (RFC 1123 letters, digits, '-', '.', '_')
 * is not listed but counted in a comment. Reasons are cut to one line of
 * printable text without quotes.
 */
#include "reports/render/render.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A reason fits a Slurm node's Reason= and a terminal line. */
#define REASON_MAX 160

/* One node to drain: its name, its worst failing root cause, and how many
 * more fail there. */
struct drain_node {
  const char *hostname;
  const struct gcb_root_cause *worst;
  size_t more;
};

struct drain_list {
  struct drain_node *nodes;
  size_t n;
  size_t unnamed; /* failing nodes whose name was not a host name */
};

static bool host_name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 253 || s[0] == '-' || s[0] == '.')
    return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
      return false;
  return true;
}

/* The machines with a failing root cause, in machine order; the root
 * causes come fail first, so the first one seen is the worst. */
static enum gcb_status drain_list_make(const struct gcb_diagnosis *d,
                                       struct drain_list *out,
                                       struct gcb_err *err) {
  *out = (struct drain_list){0};
  if (d->nmachines == 0)
    return GCB_OK;
  out->nodes = calloc(d->nmachines, sizeof *out->nodes);
  if (out->nodes == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "drain list: out of memory");
  /* Gathered by machine, then packed to the nodes listed. */
  for (size_t i = 0; i < d->n; i++) {
    const struct gcb_root_cause *rc = &d->items[i];
    long long m = rc->comp.node;
    if (rc->cleared || rc->severity != GCB_SEV_FAIL ||
        rc->comp.kind == GCB_COMP_RUN || m < 0 || (size_t)m >= d->nmachines)
      continue;
    if (out->nodes[m].worst == NULL)
      out->nodes[m].worst = rc;
    else
      out->nodes[m].more++;
  }
  for (size_t m = 0; m < d->nmachines; m++) {
    struct drain_node n = out->nodes[m];
    if (n.worst == NULL)
      continue;
    if (!host_name_ok(d->machines[m].hostname)) {
      out->unnamed++;
      continue;
    }
    n.hostname = d->machines[m].hostname;
    out->nodes[out->n++] = n;
  }
  return GCB_OK;
}

/* "gcbench: GPU 1 0000:3b:00.0: GEMM 39 % below its peers (+2 more)":
 * one line (control characters as spaces), double quotes as apostrophes,
 * cut at a word boundary to fit a Slurm Reason=. */
static void reason_text(const struct drain_node *n, char *buf, size_t size) {
  char raw[REASON_MAX * 2];
  /* The line is the node's (its host is the line's NODE): the component
   * by its name on the node, which never carries the host. */
  snprintf(raw, sizeof raw, "gcbench: %s: %s", n->worst->comp.local_name,
           n->worst->summary);
  size_t k = 0;
  for (const char *s = raw; *s && k + 1 < size; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"')
      c = '\'';
    else if (c < 0x20 || c == 0x7f)
      c = ' ';
    buf[k++] = (char)c;
  }
  buf[k] = '\0';
  char tail[32] = "";
  if (n->more)
    snprintf(tail, sizeof tail, " (+%zu more)", n->more);
  size_t limit = REASON_MAX - strlen(tail);
  if (k > limit) {
    size_t cut = limit;
    while (cut > limit / 2 && buf[cut] != ' ')
      cut--;
    /* never inside a UTF-8 character */
    while (cut > 0 && ((unsigned char)buf[cut] & 0xC0) == 0x80)
      cut--;
    buf[cut] = '\0';
  }
  strncat(buf, tail, size - strlen(buf) - 1);
}

static enum gcb_status
with_list(FILE *out, const struct gcb_report *rep, struct gcb_err *err,
          void (*emit)(FILE *, const struct drain_list *)) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  enum gcb_status st = gcb_report_diagnosis_use(rep, &own, &d, err);
  struct drain_list list = {0};
  if (st == GCB_OK)
    st = drain_list_make(d, &list, err);
  if (st == GCB_OK)
    emit(out, &list);
  free(list.nodes);
  gcb_diagnosis_free(&own);
  if (st == GCB_OK && ferror(out))
    st = gcb_err_set(err, GCB_EIO, "drain list: write failed");
  return st;
}

/* The comment lines both files share: the failing nodes left out, or
 * `none` when no node fails. */
static void emit_unlisted(FILE *out, const struct drain_list *l,
                          const char *none) {
  if (l->unnamed)
    fprintf(out,
            "# %zu failing node(s) not listed: the document's name for "
            "them is not a host name\n",
            l->unnamed);
  if (l->n == 0 && l->unnamed == 0)
    fputs(none, out);
}

/* drain.txt: "# ..." comments, then NODE<TAB>REASON per failing node. */
static void emit_drain(FILE *out, const struct drain_list *l) {
  fputs("# gcbench drain list: the nodes whose verdict is fail, one per line:"
        " NODE<TAB>REASON\n",
        out);
  emit_unlisted(out, l, "# no node fails\n");
  char reason[REASON_MAX + 64];
  for (size_t i = 0; i < l->n; i++) {
    reason_text(&l->nodes[i], reason, sizeof reason);
    fprintf(out, "%s\t%s\n", l->nodes[i].hostname, reason);
  }
}

static enum gcb_status render_drain(FILE *out, const struct gcb_report *rep,
                                    struct gcb_err *err) {
  return with_list(out, rep, err, emit_drain);
}

/* cordon.sh: for each failing node, the Kubernetes node it ran on (under
 * the MPI Operator a rank's host name is its pod's; elsewhere the node's
 * own), cordoned, tainted NoSchedule and annotated with the reason. */
static void emit_cordon(FILE *out, const struct drain_list *l) {
  fputs("#!/bin/sh\n"
        "# gcbench: cordon and taint the Kubernetes nodes whose verdict is "
        "fail.\n"
        "# Printed by `gcbench report`, never run by it: review, then run.\n"
        "# A name that is a pod (an MPIJob worker) resolves to its node.\n"
        "set -e\n"
        "node_of() { kubectl get pod \"$1\" -o jsonpath='{.spec.nodeName}' "
        "2>/dev/null || echo \"$1\"; }\n",
        out);
  emit_unlisted(out, l, "# no node fails: nothing to cordon\n");
  char reason[REASON_MAX + 64];
  for (size_t i = 0; i < l->n; i++) {
    const char *h = l->nodes[i].hostname;
    reason_text(&l->nodes[i], reason, sizeof reason);
    /* no ' left in the reason, so single quotes keep it whole */
    for (char *p = reason; *p; p++)
      if (*p == '\'')
        *p = ' ';
    fprintf(out,
            "# %s: %s\n"
            "n=$(node_of '%s')\n"
            "kubectl cordon \"$n\"\n"
            "kubectl taint nodes \"$n\" gcbench=fail:NoSchedule --overwrite\n"
            "kubectl annotate node \"$n\" gcbench/reason='%s' --overwrite\n",
            h, reason, h, reason);
  }
}

static enum gcb_status render_cordon(FILE *out, const struct gcb_report *rep,
                                     struct gcb_err *err) {
  return with_list(out, rep, err, emit_cordon);
}

/* cordon.sh is written into a report directory only when a node fails
 * (a failed run with no node to blame cordons nothing). */
static bool cordon_applies(const struct gcb_report *rep) {
  struct gcb_diagnosis own = {0};
  const struct gcb_diagnosis *d;
  struct gcb_err err = {0};
  struct drain_list list = {0};
  bool any = gcb_report_diagnosis_use(rep, &own, &d, &err) == GCB_OK &&
             drain_list_make(d, &list, &err) == GCB_OK &&
             list.n + list.unnamed > 0;
  free(list.nodes);
  gcb_diagnosis_free(&own);
  return any;
}

const struct gcb_renderer gcb_render_drain = {
    .name = "drain", .file = "drain.txt", .render = render_drain};

const struct gcb_renderer gcb_render_cordon = {.name = "cordon",
                                               .file = "cordon.sh",
                                               .render = render_cordon,
                                               .applies = cordon_applies};
