/*
 * The registry of collective transports and the names of element types and
 * reduction operators.
 *
 * Transports are listed in the order `--transport auto` prefers them: NCCL
 * (device memory) first where CUDA was compiled in, then MPI (host
 * memory). The array is explicit and NULL-terminated, so a static library
 * cannot drop a transport the way a constructor-based registry could.
 * The deadline rule every transport that polls follows is here too, and
 * the decoding of NCCL's version codes (pure, in every build: the suite's
 * one copy; the results header and the NCCL transport use it).
 */
#include <string.h>

#include "collectives/comm.h"

#if GCB_HAVE_CUDA
extern const struct gcb_coll_ops gcb_coll_nccl_row;
#endif
extern const struct gcb_coll_ops gcb_coll_mpi;

const struct gcb_coll_ops *const gcb_coll_transports[] = {
#if GCB_HAVE_CUDA
    &gcb_coll_nccl_row,
#endif
    &gcb_coll_mpi,
    NULL,
};

const struct gcb_coll_ops *gcb_coll_transport_find(const char *name) {
  for (int i = 0; name != NULL && gcb_coll_transports[i] != NULL; i++)
    if (strcmp(gcb_coll_transports[i]->name, name) == 0)
      return gcb_coll_transports[i];
  return NULL;
}

bool gcb_coll_deadline_passed(const volatile double *deadline, double now) {
  double d = deadline != NULL ? *deadline : 0;
  return d > 0 && now > d;
}

struct gcb_coll_nccl_plan gcb_coll_nccl_plan(int header_code, int library_code,
                                             bool have_split) {
  int code = header_code < library_code ? header_code : library_code;
  bool split = have_split && code >= 21800; /* NCCL_VERSION(2, 18, 0) */
  return (struct gcb_coll_nccl_plan){
      .init_nonblocking = split,
      .split_blocking = split,
      .timed_blocking = true,
      .nvlink_centric = header_code >= 22800}; /* NCCL_VERSION(2, 28, 0) */
}

static const struct {
  const char *name;
  size_t size;
} dtype_table[] = {
#define GCB__CD_ROW(id, name, bytes) {name, bytes},
    GCB_COLL_DTYPE_LIST(GCB__CD_ROW)
#undef GCB__CD_ROW
};

static const char *const redop_table[] = {
#define GCB__RO_ROW(id, name) name,
    GCB_COLL_REDOP_LIST(GCB__RO_ROW)
#undef GCB__RO_ROW
};

const char *gcb_coll_dtype_name(enum gcb_coll_dtype t) {
  return (int)t >= 0 && t < GCB_COLL_DTYPE_COUNT ? dtype_table[t].name : "?";
}

size_t gcb_coll_dtype_size(enum gcb_coll_dtype t) {
  return (int)t >= 0 && t < GCB_COLL_DTYPE_COUNT ? dtype_table[t].size : 0;
}

const char *gcb_coll_redop_name(enum gcb_coll_redop op) {
  return (int)op >= 0 && op < GCB_COLL_REDOP_COUNT ? redop_table[op] : "?";
}
