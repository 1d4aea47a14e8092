/*
 * `gcbench topo [--topology-xml FILE] [--cpuset LIST@GPU;...] [--format
 * text|json]`: the topology of this machine or of a saved hwloc XML, as the
 * matrix of path classes between GPUs and NICs (nvidia-smi topo -m style,
 * with CPU and NUMA affinity), the legend, each device's bus id, link and
 * nearest NIC, expected bandwidths, NUMA nodes, PCIe switches, suspicious
 * facts, and the binding check of the ranks given with --cpuset with the
 * launcher lines that fix it. Rank 0 does all of it; no MPI calls.
 */
#include "bench/cli/topo_command.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/options.h"
#include "reports/reports.h"
#include "topo/topo.h"

struct topo_opts {
  const char *xml;
  const char *cpuset;
  int format;
};

static const char *const formats[] = {"text", "json", NULL};

static const struct gcb_option topo_options[] = {
    {.name = "topology-xml",
     .type = GCB_OPT_STRING,
     .offset = offsetof(struct topo_opts, xml),
     .metavar = "FILE",
     .help = "a saved hwloc XML topology (lstopo file.xml) instead of this "
             "machine"},
    {.name = "cpuset",
     .type = GCB_OPT_STRING,
     .offset = offsetof(struct topo_opts, cpuset),
     .metavar = "LIST[@GPU];...",
     .help = "check the bindings of one node's ranks, in local rank order: a "
             "CPU list and GPU index per rank, e.g. '0-5@0;6-11@1' (without "
             "@GPU, rank i uses GPU i mod #GPUs); exit 1 on problems"},
    {.name = "format",
     .type = GCB_OPT_CHOICE,
     .offset = offsetof(struct topo_opts, format),
     .def = "text",
     .metavar = "FMT",
     .help = "text, or json (the results document's topology summary)",
     .choices = formats},
    {0},
};

/* --- --cpuset ------------------------------------------------------------- */

static enum gcb_status parse_rank(char *item, int i, int ngpus,
                                  struct gcb_topo_rank *r,
                                  struct gcb_err *err) {
  char *at = strchr(item, '@');
  r->rank = i;
  r->cpus = item;
  r->gpu = ngpus > 0 ? i % ngpus : -1;
  if (at) {
    char *end;
    *at = '\0';
    errno = 0;
    long gpu = strtol(at + 1, &end, 10);
    /* Range-checked before the cast: "0@4294967296" was GPU 0. */
    r->gpu = errno == 0 && gpu >= 0 && gpu <= INT_MAX ? (int)gpu : -1;
    if (end == at + 1 || *end != '\0' || r->gpu < 0)
      return gcb_err_set(err, GCB_EUSAGE, "--cpuset: bad GPU '%s' for rank %d",
                         at + 1, i);
  }
  return GCB_OK;
}

enum gcb_status gcb__topo_cpuset_parse(const char *text, int ngpus,
                                       struct gcb__rankset *rs,
                                       struct gcb_err *err) {
  int n = 1;
  for (const char *c = text; *c; c++)
    n += *c == ';';
  rs->text = strdup(text);
  rs->ranks = calloc((size_t)n, sizeof *rs->ranks);
  if (rs->text == NULL || rs->ranks == NULL)
    return gcb_err_set(err, GCB_ENOMEM, "out of memory");
  char *save = NULL;
  enum gcb_status st = GCB_OK;
  for (char *item = strtok_r(rs->text, ";", &save); item && st == GCB_OK;
       item = strtok_r(NULL, ";", &save)) {
    st = parse_rank(item, rs->n, ngpus, &rs->ranks[rs->n], err);
    rs->n++;
  }
  if (st == GCB_OK && rs->n == 0)
    st = gcb_err_set(err, GCB_EUSAGE, "--cpuset: no rank given");
  return st;
}

void gcb__rankset_free(struct gcb__rankset *rs) {
  free(rs->ranks);
  free(rs->text);
}

/* JSON: the topology summary, plus the binding problems when asked for. */
static int print_json(const struct gcb_topo *t, const struct gcb__rankset *rs,
                      struct gcb_err *err) {
  json_t *doc = gcb_results_topology_json(t);
  struct gcb_topo_problem *probs = NULL;
  int n = 0;
  if (doc && rs->n > 0) {
    if (gcb_topo_check_ranks(t, rs->ranks, rs->n, &probs, &n, err) != GCB_OK) {
      json_decref(doc);
      return -1;
    }
    if (json_object_set_new(doc, "binding_problems",
                            gcb_results_placement_json(probs, n)) != 0) {
      json_decref(doc);
      doc = NULL;
    }
    free(probs);
  }
  /* One string, one write: stdout is unbuffered after MPI_Init, and
   * json_dumpf wrote each token with its own write(2) (4.5 million for
   * 1,000 GPUs). */
  char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
  json_decref(doc);
  if (text == NULL) {
    gcb_err_set(err, GCB_ENOMEM, "cannot build the JSON document");
    return -1;
  }
  fwrite(text, 1, strlen(text), stdout);
  printf("\n");
  free(text);
  return n;
}

/* Text: the table, then the binding problems or this process's binding.
 * Built whole in memory and written once, so that a --cpuset error found
 * after the table leaves nothing on stdout but its one line on stderr. */
static int print_text(const struct gcb_topo *t, const struct gcb__rankset *rs,
                      const char *xml, struct gcb_err *err) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem == NULL) {
    gcb_err_set(err, GCB_ENOMEM, "cannot hold the topology text");
    return -1;
  }
  int n = 0;
  gcb_topo_print(mem, t, xml);
  if (rs->n > 0)
    n = gcb_topo_print_problems(mem, t, rs->ranks, rs->n, err);
  else if (!gcb_topo_is_from_xml(t))
    gcb_topo_print_own_binding(mem, t);
  if (fclose(mem) != 0 && n >= 0) {
    gcb_err_set(err, GCB_ENOMEM, "cannot hold the topology text");
    n = -1;
  }
  if (n >= 0)
    fwrite(text, 1, len, stdout);
  free(text);
  return n;
}

/* --- the command ---------------------------------------------------------- */

static int run(const struct topo_opts *o, struct gcb_err *err) {
  struct gcb_topo *t = NULL;
  struct gcb__rankset rs = {0};
  enum gcb_status st = gcb_topo_load(o->xml, &t, err);
  if (st == GCB_OK && o->cpuset)
    st = gcb__topo_cpuset_parse(o->cpuset, gcb_topo_gpu_count(t), &rs, err);
  int problems = 0;
  if (st == GCB_OK && o->format == 1)
    problems = print_json(t, &rs, err);
  else if (st == GCB_OK)
    problems = print_text(t, &rs, o->xml, err);
  if (st == GCB_OK && problems < 0)
    st = err->code;
  /* A rank's bad GPU or CPU list is named as --cpuset's. */
  if (st == GCB_EINPUT && problems < 0 && rs.n > 0)
    gcb_err_prefix(err, "--cpuset");
  gcb__rankset_free(&rs);
  gcb_topo_free(t);
  if (st != GCB_OK) {
    int code = gcb_status_exit_code(st);
    return code ? code : 3;
  }
  return problems > 0;
}

int gcb__topo_command(int argc, char **argv, int rank) {
  struct topo_opts opts;
  struct gcb_option_group groups[] = {{"topo options", topo_options, &opts}};
  bool help = false;
  struct gcb_err err = {0};
  if (gcb_options_parse(groups, 1, argc, argv, &help, NULL, 0, NULL, &err) !=
      GCB_OK) {
    if (rank == 0)
      fprintf(stderr, "gcbench: error: %s\n", err.msg);
    return 2;
  }
  if (rank != 0)
    return 0;
  if (help) {
    printf("usage: gcbench topo [options]\n\nGPUs, NICs and the paths between "
           "them (nvidia-smi topo -m style), expected bandwidths, suspicious "
           "facts and, with --cpuset, binding problems with their fixes.\n");
    gcb_options_help(stdout, groups, 1);
    return 0;
  }
  int code = run(&opts, &err);
  if (code >= 2)
    fprintf(stderr, "gcbench: error: %s\n", err.msg);
  return code;
}
