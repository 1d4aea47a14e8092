/*
 * What the two nvbandwidth readers (stdout and -j JSON) share: the GPUs of
 * the device list, a testcase's matrix as it is read (each testcase's
 * starts empty, and a row shorter or longer than the first is an error,
 * never filled from anything else), and the one way a matrix becomes
 * cases (interop_nvbw.c): host-device tests "pcie" cases, device-device
 * tests "p2p" pairs, every other cell (latency, all-to-host, host-to-all,
 * ...) and the SUM line imported figures with nvbandwidth's own name and
 * unit. Nothing nvbandwidth printed is dropped without a word, and as it
 * validated nothing, nothing reads as validated.
 */
#ifndef GCB_INTEROP_NVBW_H
#define GCB_INTEROP_NVBW_H

#include "reports/interop/interop_int.h"

#define GCB__NVBW_MAX_GPUS 256
#define GCB__NVBW_MAX_ROWS (3 * GCB__NVBW_MAX_GPUS)
/* The largest figure taken (GB/s, ns, ...): 1 EB/s is far past any link,
 * and sums of 256 such cells and their squares stay finite (1e308 cells
 * once overflowed the statistics into "out of memory"). */
#define GCB__NVBW_MAX_VALUE 1e15

struct gcb__nvbw_gpu {
  char name[128], bus[32], host[128];
};

/* A matrix being read: rows of `cols` cells (NAN for N/A). */
struct gcb__nvbw_matrix {
  double *cell;
  size_t rows, cols, cap;
  char unit[16];  /* "GB/s", "ns": from the description */
  char desc[160]; /* nvbandwidth's description line */
};

struct gcb__nvbw {
  struct gcb__conv *cv;
  struct gcb__nvbw_gpu gpu[GCB__NVBW_MAX_GPUS];
  size_t ngpus, widest; /* listed GPUs; widest matrix seen */
  struct gcb__nvbw_matrix m;
};

/* Starts x and cv's run (tool version may be ""). */
void gcb__nvbw_begin(struct gcb__nvbw *x, struct gcb__conv *cv,
                     const char *version);

/* The CUDA runtime nvbandwidth names as a number (12040) into software[]
 * as "12.4". */
void gcb__nvbw_cuda(struct gcb__nvbw *x, long long version);

/* "0: NVIDIA H200 (00000000:19:00): (host)" (JSON) or "NVIDIA H200
 * (00000009:01:00)" (stdout, after "Device 0: "); false when the entry
 * has no bus id (the GPU is then known by name and index only). */
bool gcb__nvbw_parse_device(const char *s, bool with_index,
                            struct gcb__nvbw_gpu *g);

/* False when each of the n values (NAN: N/A) is a figure from 0 to
 * GCB__NVBW_MAX_VALUE; else true, with what is wrong with the first that
 * is not in why ("value 1e+308 in column 3 is out of range (0 to 1e+15)";
 * column -1: a single value). */
bool gcb__nvbw_value_bad(const double *v, size_t n, long column, char *why,
                         size_t len);

/* Empties x->m for the next matrix (description desc). */
void gcb__nvbw_matrix_start(struct gcb__nvbw *x, const char *desc);

/* Appends a row of n cells; NULL, or what is wrong (a ragged row, too
 * many rows or columns). Cells are checked with gcb__nvbw_value_bad
 * first. */
const char *gcb__nvbw_matrix_row(struct gcb__nvbw *x, const double *v,
                                 size_t n);

/* The cases of x->m for testcase `name` (line: where it is, 0 for JSON).
 * primary: the testcase's last (or only) matrix, the one a gcbench case
 * takes; others become imported figures. part: its index. */
enum gcb_status gcb__nvbw_emit(struct gcb__nvbw *x, const char *name,
                               bool primary, size_t part, int line);

/* nvbandwidth's SUM of a testcase, an imported figure in x->m's unit. */
enum gcb_status gcb__nvbw_sum(struct gcb__nvbw *x, const char *name, double sum,
                              int line);

/* The end of a conversion that reached status st: if GCB_OK, adds the
 * ranks (one per GPU) and the one node. Frees x either way; returns the
 * status. */
enum gcb_status gcb__nvbw_end(struct gcb__nvbw *x, enum gcb_status st);

#endif
