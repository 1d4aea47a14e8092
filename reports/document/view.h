/*
 * Read-only accessors over a validated results document (a jansson tree
 * that gcb_results_parse accepted), for the code at its edges that still
 * walks one (the model's builder, the converters, the criteria and SKU
 * reader, the run engine's MPI line), and the text helpers every report
 * module shares (copies, figures, times, ranges).
 *
 * None of these functions fails: a field that is absent or of another type
 * yields the documented fallback ("" for strings, NAN for numbers, the
 * given default for integers, NULL for objects).
 */
#ifndef GCB_VIEW_H
#define GCB_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct gcb_burn_doc;
struct gcb_model; /* reports/document/model.h */

/* One loaded document and the name it is shown by (its path): its tree,
 * which the converters take a machine's topology from, and its typed
 * model (model.h), which every report module reads. Whoever loads a
 * document builds the model once (reports/load.c). */
struct gcb_doc {
  const char *name;
  const json_t *root;
  const struct gcb_model *model;
  /* Its burn cases, read and judged once by whoever loaded it (the
   * report command: reports/analysis/burn.h); NULL: each reader of them
   * reads its own. Not owned. */
  const struct gcb_burn_doc *burn;
};

/* String member, or "" when absent or not a string. */
const char *gcb_view_str(const json_t *obj, const char *key);

/* Number member (integer or real), or NAN. */
double gcb_view_num(const json_t *obj, const char *key);

/* Integer member, or def. */
long long gcb_view_int(const json_t *obj, const char *key, long long def);

/* Object member, or NULL when absent or not an object. */
const json_t *gcb_view_obj(const json_t *obj, const char *key);

/* Whether a run.status says the run did not finish: anything but
 * "complete" and "unknown" (a converted excerpt that cannot say). */
bool gcb_view_status_failed(const char *status);

/* Where a rank runs, from ranks[] and nodes[] (gcb_model_place, model.h);
 * unknown parts are -1 / "". */
struct gcb_place {
  long long node;
  const char *hostname; /* borrowed from the document, never NULL */
  long long gpu;        /* device index; -1 without a device */
  const char *bus_id;   /* "" without one */
  long long numa;       /* -1 when the document does not say */
};

/* Bytes that hold any sweep key that is not truncated (gcb_model_sweep_key,
 * model.h: the case key without the parameters a sweep varies, then the
 * transport). */
#define GCB_VIEW_SWEEP_KEY 512

/*
 * The MPI library a run used, as its header recorded it (view_mpi.c), for
 * the collective tables' headers, live and in the report: the library's
 * name and version from software.mpi ("MPICH 4.0.2"), software.mpi_device
 * ("ch4:ucx"), and the run.environment settings that choose a transport
 * (UCX_TLS, MPIR_CVAR_CH4_NETMOD, FI_PROVIDER, ...) where they were set:
 * "MPICH 4.0.2 ch4:ucx; UCX_TLS=sm,self". "" when software.mpi is absent.
 * Returns the line's length uncut, as snprintf does (size 0: only that).
 */
size_t gcb_view_mpi_line(const json_t *root, char *buf, size_t size);

/* The same from the document's model (model.h). */
size_t gcb_view_mpi_line_model(const struct gcb_model *m, char *buf,
                               size_t size);

/* The start-up MPI probe's reading (run.mpi_probe), per pair: "8 B
 * one-way 410 ns (ranks 0-1, same node); 2.1 us (ranks 0-4, two nodes)",
 * the least batch of each; "" without a probe. */
void gcb_view_mpi_probe_line(const json_t *root, char *buf, size_t size);

/* The cut of an incomplete UTF-8 sequence at the end of a truncated
 * text. */
void gcb__view_trim_partial(char *s);

/* Copies src into dst[0..size) with a terminating NUL, cutting at a UTF-8
 * character boundary when it does not fit. Returns strlen(dst). */
size_t gcb_view_copy(char *dst, size_t size, const char *src);

/* Formats a figure compactly for tables: 4 significant digits at most for
 * small values, whole numbers from 1000 up, 4 digits and an exponent from
 * 1e15 ("1e+296", not 39 digits a double never held); "-" for NAN. */
void gcb_view_fmt(double x, char *buf, size_t size);

/* Formats seconds with a fitting unit and 4 significant digits:
 * "262.7 us", "15.44 ms", "1.2 s"; "-" for NAN. */
void gcb_view_fmt_time(double seconds, char *buf, size_t size);

/*
 * Formats a sorted list of integers compactly as ranges: "0-3,7,9-10".
 * What does not fit in size is counted at the end: "0-3,7,... (+12 more)"
 * (12 values left out).
 */
void gcb_view_ranges(const long long *v, size_t n, char *buf, size_t size);

#endif
