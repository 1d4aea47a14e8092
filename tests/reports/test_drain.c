/*
 * The drain list and the cordon commands (reports/render/render_drain.c):
 * which nodes a verdict drains, and that nothing a results document says
 * can break out of the line a script passes to scontrol or a shell.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/render/render.h"

#define NODES 3

struct dx {
  struct gcb_diagnosis d;
  struct gcb_machine machines[NODES];
  struct gcb_root_cause items[8];
  struct gcb_findings none;
  struct gcb_report rep;
};

static void setup(struct dx *x, const char *const names[NODES]) {
  memset(x, 0, sizeof *x);
  for (int m = 0; m < NODES; m++)
    snprintf(x->machines[m].hostname, sizeof x->machines[m].hostname, "%s",
             names[m]);
  x->d.machines = x->machines;
  x->d.nmachines = NODES;
  x->d.items = x->items;
  x->rep.findings = &x->none;
  x->rep.diagnosis = &x->d;
}

/* A root cause on machine `node` as the diagnosis makes it: its name on
 * the node, the machine's host, and the name shown with the host (the
 * diagnosis has several machines). */
static void add(struct dx *x, enum gcb_severity sev, enum gcb_comp_kind kind,
                long long node, const char *name, const char *summary) {
  struct gcb_root_cause *rc = &x->items[x->d.n++];
  rc->severity = sev;
  rc->comp.kind = kind;
  rc->comp.node = node;
  snprintf(rc->comp.local_name, sizeof rc->comp.local_name, "%s", name);
  if (node >= 0) /* both 128 bytes */
    memcpy(rc->comp.hostname, x->machines[node].hostname,
           sizeof rc->comp.hostname);
  gcb_component_show(&rc->comp, true, rc->comp.name, sizeof rc->comp.name);
  snprintf(rc->summary, sizeof rc->summary, "%s", summary);
}

static char *render(const struct gcb_renderer *r, const struct dx *x) {
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  struct gcb_err err = {0};
  cr_assert_eq(r->render(f, &x->rep, &err), GCB_OK, "%s", err.msg);
  fclose(f);
  return text;
}

/* The lines of text that are not comments. */
static size_t entries(const char *text) {
  size_t n = 0;
  for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
    if (*l != '#')
      n++;
    if (strchr(l, '\n') == NULL)
      break;
  }
  return n;
}

static const char *const plain[NODES] = {"node-a", "node-b", "node-c"};

Test(drain, lists_each_failing_node_once_with_its_worst_cause) {
  struct dx x;
  setup(&x, plain);
  add(&x, GCB_SEV_FAIL, GCB_COMP_GPU, 1, "GPU 1 0000:3b:00.0",
      "GEMM 40 % below its peers");
  add(&x, GCB_SEV_FAIL, GCB_COMP_LINK, 1, "GPU 2 <-> host", "H2D 3 GB/s");
  add(&x, GCB_SEV_WARN, GCB_COMP_RANK, 0, "rank 0", "late at 3 of 3");
  add(&x, GCB_SEV_FAIL, GCB_COMP_RUN, -1, "the run", "criterion missed");
  char *t = render(&gcb_render_drain, &x);
  cr_assert_eq(entries(t), 1, "%s", t);
  cr_assert_not_null(strstr(t, "\nnode-b\tgcbench: GPU 1 0000:3b:00.0: GEMM 40 "
                               "% below its peers (+1 more)\n"),
                     "%s", t);
  cr_assert_null(strstr(t, "node-a"), "a warning drains nothing: %s", t);
  free(t);
}

/* Issue 25: the line is the node's, so it names the component without its
 * host, from the component's own parts (its name on the node and its
 * host), not by cutting " on HOST" off the name shown, whatever the host
 * is called: one named like a piece of the component's name ("host",
 * "b1" in bus 0000:b1) included. */
Test(drain, the_line_names_the_component_on_its_node_whatever_the_host) {
  static const char *const hosts[NODES] = {"node-a", "host", "b1"};
  struct dx x;
  setup(&x, hosts);
  add(&x, GCB_SEV_FAIL, GCB_COMP_LINK, 1, "GPU 2 <-> host", "H2D 3 GB/s");
  add(&x, GCB_SEV_FAIL, GCB_COMP_GPU, 2, "GPU 0 0000:b1:00.0", "GEMM 40 % low");
  cr_assert_str_eq(x.items[0].comp.name, "GPU 2 <-> host on host");
  cr_assert_str_eq(x.items[1].comp.name, "GPU 0 0000:b1:00.0 on b1");
  char *t = render(&gcb_render_drain, &x);
  cr_assert_eq(entries(t), 2, "%s", t);
  cr_assert_not_null(strstr(t, "\nhost\tgcbench: GPU 2 <-> host: H2D 3 GB/s\n"),
                     "%s", t);
  cr_assert_not_null(
      strstr(t, "\nb1\tgcbench: GPU 0 0000:b1:00.0: GEMM 40 % low\n"), "%s", t);
  free(t);
}

Test(drain, a_passing_or_cleared_verdict_drains_nothing) {
  struct dx x;
  setup(&x, plain);
  add(&x, GCB_SEV_FAIL, GCB_COMP_LINK, 2, "GPU 4 <-> host", "gen1 at rest");
  x.items[0].cleared = true;
  add(&x, GCB_SEV_INFO, GCB_COMP_NODE, 0, "node-a", "fine");
  char *t = render(&gcb_render_drain, &x);
  cr_assert_eq(entries(t), 0, "%s", t);
  cr_assert_not_null(strstr(t, "# no node fails\n"), "%s", t);
  cr_assert_not(gcb_renderer_applies(&gcb_render_cordon, &x.rep),
                "cordon.sh is written only when a node fails");
  free(t);
}

Test(drain, a_name_that_is_not_a_host_name_never_reaches_a_line) {
  static const char *const hostile[NODES] = {"a;reboot", "$(id)", "-rf"};
  struct dx x;
  setup(&x, hostile);
  for (int m = 0; m < NODES; m++)
    add(&x, GCB_SEV_FAIL, GCB_COMP_NODE, m, "node", "power capped");
  char *t = render(&gcb_render_drain, &x);
  char *c = render(&gcb_render_cordon, &x);
  cr_assert_eq(entries(t), 0, "%s", t);
  cr_assert_not_null(strstr(t, "# 3 failing node(s) not listed"), "%s", t);
  cr_assert_null(strstr(c, "reboot"), "%s", c);
  cr_assert_null(strstr(c, "$(id)"), "%s", c);
  cr_assert_null(strstr(c, "cordon \"$n\""), "nothing to cordon: %s", c);
  free(t);
  free(c);
}

Test(drain, a_reason_is_one_line_without_double_quotes_cut_at_a_word) {
  struct dx x;
  setup(&x, plain);
  char summary[300];
  snprintf(summary, sizeof summary, "%s",
           "wrong \"results\"\nin gemm: fp16 8192x8192x8192: 2 of 256 "
           "checked values wrong (largest error 0.5, tolerance 3e-05; "
           "relative error versus a long double reference on a sample of "
           "the output) and more words to pass the limit");
  add(&x, GCB_SEV_FAIL, GCB_COMP_GPU, 0, "GPU 1 0000:2c:00.0", summary);
  char *t = render(&gcb_render_drain, &x);
  const char *line = strstr(t, "node-a\t");
  cr_assert_not_null(line, "%s", t);
  const char *end = strchr(line, '\n');
  size_t len = (size_t)(end - line);
  cr_assert_eq(entries(t), 1, "one line: %s", t);
  cr_assert_leq(len, strlen("node-a\t") + 160, "%zu: %s", len, t);
  cr_assert_null(memchr(line, '"', len), "%s", t);
  /* what is left is the summary's first words, as they were, "" -> '' */
  char want[400];
  snprintf(want, sizeof want, "gcbench: GPU 1 0000:2c:00.0: %s", summary);
  for (char *p = want; *p; p++)
    *p = *p == '"' ? '\'' : *p == '\n' ? ' ' : *p;
  const char *body = line + strlen("node-a\t");
  size_t k = (size_t)(end - body);
  cr_assert_eq(strncmp(body, want, k), 0, "%.*s", (int)k, body);
  cr_assert_eq(want[k], ' ', "cut mid-word: %.*s|%s", (int)k, body, want + k);
  free(t);
}

Test(drain, cordon_names_the_pod_or_node_and_quotes_the_reason) {
  struct dx x;
  setup(&x, plain);
  add(&x, GCB_SEV_FAIL, GCB_COMP_GPU, 2, "GPU 3 0000:5d:00.0",
      "clocks 1,410 MHz, hw_thermal at 87 'C; $(halt) `halt`");
  cr_assert(gcb_renderer_applies(&gcb_render_cordon, &x.rep));
  char *c = render(&gcb_render_cordon, &x);
  cr_assert_not_null(strstr(c, "n=$(node_of 'node-c')\n"), "%s", c);
  cr_assert_not_null(strstr(c, "kubectl cordon \"$n\"\n"), "%s", c);
  cr_assert_not_null(
      strstr(c, "kubectl taint nodes \"$n\" gcbench=fail:NoSchedule"), "%s", c);
  const char *a = strstr(c, "gcbench/reason='");
  cr_assert_not_null(a, "%s", c);
  a += strlen("gcbench/reason='");
  const char *q = strchr(a, '\'');
  cr_assert_not_null(q);
  cr_assert_eq(strncmp(q, "' --overwrite\n", 14), 0,
               "the reason stays inside its single quotes: %s", c);
  free(c);
}
