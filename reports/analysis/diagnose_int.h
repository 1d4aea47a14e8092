/*
 * Internal to the diagnosis: the working state shared by its three files
 * (diagnose.c: machines, components and the build; diagnose_rules.c: the
 * grouping table that places each finding at a component;
 * diagnose_text.c: reconciling sources and writing each root cause's
 * statement).
 */
#ifndef GCB_DIAGNOSE_INT_H
#define GCB_DIAGNOSE_INT_H

#include "reports/analysis/diagnose.h"

/* A component being built: its key and the findings assigned to it. */
struct gcb__comp {
  struct gcb_component c;
  int doc; /* ranks are per document; -1 for the other kinds */
  bool live;
};

struct gcb__dx {
  const struct gcb_doc *docs;
  size_t ndocs;
  const struct gcb_findings *fs;
  const struct gcb_thresholds *t;
  struct gcb_diagnosis *out;
  struct gcb__comp *comps;
  size_t ncomps, capcomps;
  long *comp_of; /* per finding: component index, -1 */
  enum gcb_family *fam_of;
  struct gcb_err *err;
};

/* The machine of node `node` (the node's index) of document doc, -1. */
long long gcb__dx_machine(const struct gcb__dx *x, int doc, long long node);

/* The index of the component equal to *c (kind and key), adding it when
 * new; -1 on ENOMEM (err set). doc only matters for ranks. */
long gcb__dx_comp(struct gcb__dx *x, const struct gcb_component *c, int doc);

/* An existing component of kind k on machine m holding bus id `bus` (a
 * GPU, a host link, a rank on that GPU; a link with the bus id at either
 * end for GCB_COMP_LINK); -1 when none. */
long gcb__dx_find(const struct gcb__dx *x, enum gcb_comp_kind k, long long m,
                  const char *bus);

/* Places every warn/fail finding at a component (two passes: the first
 * places findings about one component, the second attaches consequences
 * -- imbalance, evenness checks, collective bandwidth -- to a component
 * the first pass found, else to the run). GCB_ENOMEM. */
enum gcb_status gcb__dx_place(struct gcb__dx *x);

/* The case a finding is about: the one it recorded, else the first of
 * its document with its title; NULL. */
const json_t *gcb__dx_case(const struct gcb__dx *x,
                           const struct gcb_finding *f);

/* Node-wide symptoms: on a run of several machines, the evidence of one
 * family on most GPUs of a machine that the other machines do not share
 * moves to one node component. GCB_ENOMEM. */
enum gcb_status gcb__dx_collapse_nodes(struct gcb__dx *x);

/* Fills a root cause's statement, figures, cost and suggestion from its
 * evidence, reconciling sources and links at rest (diagnose_text.c). */
void gcb__dx_state(const struct gcb__dx *x, struct gcb_root_cause *rc);

#endif
