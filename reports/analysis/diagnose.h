/*
 * Diagnosis: from findings (evidence) to root causes (the answer). One
 * pass over the findings and criteria checks groups them by the component
 * they implicate -- a GPU (node + PCI bus id), a link (GPU<->host,
 * GPU<->GPU, a NIC), a rank (placement, lateness), a node (most of its
 * GPUs share a symptom the other nodes do not), the run -- and states each
 * component once: severity (the worst of its evidence), a one-line
 * statement with the worst measured figure against its expectation, the
 * cost to a synchronous job, one suggestion, and the indices of the
 * findings it explains. Two sources that disagree about one quantity
 * become one root cause stating both; a link downtrained at rest is
 * confirmed or cleared by its bandwidth under load. docs/REPORTS.md
 * ("Root causes") has the grouping rules.
 */
#ifndef GCB_DIAGNOSE_H
#define GCB_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/analysis/analyze.h"

enum gcb_comp_kind {
  GCB_COMP_GPU,
  GCB_COMP_LINK,
  GCB_COMP_RANK,
  GCB_COMP_NODE,
  GCB_COMP_RUN,
};

/* "gpu", "link", "rank", "node", "run". */
const char *gcb_comp_kind_name(enum gcb_comp_kind k);

/* The check families (enum gcb_family) are in kinds.h. */

/* Column heading: "GEMM", "device memory", "H2D", ... */
const char *gcb_family_name(enum gcb_family f);

/* Where a root cause is. node is the machine index of the diagnosis
 * (machines are nodes merged across documents by hostname or, for a
 * one-node document of another tool, by its GPUs' bus ids); parts that do
 * not apply are -1 / "". Its identity is its parts: the host is hostname,
 * never a piece of a name. */
struct gcb_component {
  enum gcb_comp_kind kind;
  long long node;
  char hostname[GCB_HOSTNAME_SIZE]; /* its machine's host */
  long long rank;
  char ranks[96];
  long long gpu;
  char bus_id[32];
  /* "0000:bb:00.0<->host", "0000:4c:00.0->0000:cb:00.0", "A -> B" */
  char link[GCB_LINK_SIZE];
  /* A GPU pair's two ends as link names them (by bus id, or "GPU2"): one
   * pair whatever its direction; "" for any other component. */
  char ends[2][32];
  /* Its name on its host, never with the host: "GPU 1 0000:3b:00.0",
   * "GPU 5 <-> host", "ranks 2-3", "NIC mlx5_0 0000:17:00.0"; a node's
   * name and a network path's say the host(s) themselves ("node h1",
   * "h1 -> h2"): names_host. What a line already about the host shows
   * (drain.txt). */
  char local_name[GCB_LINK_SIZE + 64];
  bool names_host;
  /* As shown (gcb_component_show): local_name, with " on HOST" when the
   * diagnosis holds more than one machine. */
  char name[GCB_LINK_SIZE + 64 + GCB_HOSTNAME_SIZE + 4];
};

/* Composes c's name for display into buf: its local_name, followed by
 * " on HOST" when with_host is true, its host is known and the name does
 * not say it already (names_host). A diagnosis shows its components
 * with their host when it holds more than one machine (gcb_diagnose fills
 * name so); a line that must stand alone (a JUnit test name) always. */
void gcb_component_show(const struct gcb_component *c, bool with_host,
                        char *buf, size_t size);

struct gcb_root_cause {
  enum gcb_severity severity; /* the worst of its evidence */
  bool cleared;               /* the evidence was explained away */
  struct gcb_component comp;
  enum gcb_family family; /* of the worst evidence */
  unsigned families;      /* bit per gcb_family its evidence touches */
  char summary[320];
  double measured, expected; /* the worst figure and its expectation */
  char unit[24];
  double cost; /* fraction of a synchronous job's time; NAN */
  /* its evidence's (a finding's) suggestion, whole */
  char suggestion[sizeof((struct gcb_finding *)0)->suggestion];
  size_t *evidence; /* indices into the findings, ascending; owned */
  size_t nevidence, cap;
};

/* A GPU of a machine. Its identity is its canonical bus id; a GPU its
 * source names by index alone (an nvbandwidth matrix without its device
 * lines, a nccl-tests log without bus ids) has none and is its index on
 * the node: counted and placed, never matched by bus id, and never joins
 * a machine of another document. */
struct gcb_machine_gpu {
  char bus_id[32]; /* canonical; "" when known by index alone */
  long long index; /* known by index alone: its index; else -1 */
};

/* Writes how g is shown where a bus id goes: its bus id, or "device N"
 * for a GPU known by index alone. */
void gcb_machine_gpu_show(const struct gcb_machine_gpu *g, char *buf,
                          size_t size);

/* One machine of the diagnosis. */
struct gcb_machine {
  char hostname[GCB_HOSTNAME_SIZE];
  char model[64]; /* of its GPUs ("NVIDIA H200"), "" */
  size_t ngpus, nranks;
  struct gcb_machine_gpu *gpus; /* its GPUs, ngpus: the topology's, then
                                   its ranks' in rank order; owned */
};

struct gcb_diagnosis {
  struct gcb_root_cause *items; /* fail first, then warn, info, cleared */
  size_t n, cap;
  struct gcb_machine *machines;
  size_t nmachines;
  size_t *na; /* indices of the "criterion-na" findings */
  size_t nna;
  size_t unexplained;     /* warn/fail findings of a kind whose row names
                             no grouping (placed at the run; 0 by design) */
  long long **machine_of; /* internal: [doc][node position] -> machine */
  size_t ndocs;           /* internal */
};

/* The machine of node `node` (its index) of document doc, or -1. */
long long gcb_diagnosis_machine(const struct gcb_diagnosis *d,
                                const struct gcb_doc *docs, int doc,
                                long long node);

/*
 * Diagnoses findings[] (sorted or not; indices refer to its order) over
 * docs[0..ndocs). GCB_ENOMEM (detail in err); free with
 * gcb_diagnosis_free, also after failure.
 */
enum gcb_status gcb_diagnose(const struct gcb_doc *docs, size_t ndocs,
                             const struct gcb_findings *findings,
                             const struct gcb_thresholds *t,
                             struct gcb_diagnosis *out, struct gcb_err *err);

/* NULL is a no-op; the struct is zeroed. */
void gcb_diagnosis_free(struct gcb_diagnosis *d);

/* True when a root cause fails (and is not cleared). */
bool gcb_diagnosis_failed(const struct gcb_diagnosis *d);

/* Root causes at severity s that are not cleared; cleared ones. */
size_t gcb_diagnosis_count(const struct gcb_diagnosis *d, enum gcb_severity s);
size_t gcb_diagnosis_cleared(const struct gcb_diagnosis *d);

/* "ok" for a cleared root cause, else its severity's name. */
const char *gcb_root_cause_state(const struct gcb_root_cause *rc);

/* The scope line's subject: "gpu0000 (8 x NVIDIA H200)", or "3 nodes
 * (24 GPUs)". */
void gcb_diagnosis_scope(const struct gcb_diagnosis *d, char *buf, size_t size);

/* The worst state of family f at GPU gpu of machine node (the GPU, its
 * host link, or its rank's placement; for a GPU known by bus id also a
 * pair link that names it): -1 when no root cause touches it, else a
 * severity (GCB_SEV_INFO for cleared). *rc gets the root cause. For the
 * component matrix. */
int gcb_diagnosis_state_at(const struct gcb_diagnosis *d, long long node,
                           const struct gcb_machine_gpu *gpu, enum gcb_family f,
                           const struct gcb_root_cause **rc);

/* Whether component c is at a GPU of its machine that the machine knows by
 * index alone (the GPU itself, its host link, its rank): its bus id is
 * "" and its GPU index is one such GPU's. A component with a bus id is at
 * that GPU; one with neither (a node, a NIC, several ranks) at none. */
bool gcb_diagnosis_at_gpu_by_index(const struct gcb_diagnosis *d,
                                   const struct gcb_component *c);

/*
 * Writes x in unit scaled to its size, 3-4 significant digits: GFLOP/s
 * as TFLOP/s from 1000 up, GB/s as MB/s below 1, us as ms from 1000 and
 * as ns below 1, s below 1 as ms, us or ns; other units unscaled. "-" for
 * NAN.
 */
void gcb_fmt_scaled(double x, const char *unit, char *buf, size_t size);

/* The factor that scales a figure of magnitude a in unit to the unit
 * *shown (1/1000 and "TFLOP/s" for 1449783 GFLOP/s; 1 and unit itself for
 * units it does not scale). */
double gcb_unit_scale(double a, const char *unit, const char **shown);

/* "870.6 vs 1450 TFLOP/s": both figures in the unit that suits the
 * larger. */
void gcb_fmt_scaled_pair(double a, double b, const char *unit, char *buf,
                         size_t size);

/* x formatted with as few significant digits (4 to 15) as show it on the
 * right side of limit ("20.00001" against 20). */
void gcb_fmt_against(double x, double limit, char *buf, size_t size);

#endif
