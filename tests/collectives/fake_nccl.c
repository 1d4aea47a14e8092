/*
 * A fake NCCL (and the one MPI call the NCCL transport makes) for
 * call-sequence tests of collectives/nccl.c without a GPU: each
 * communicator remembers the `blocking` of the config it was made with,
 * and every call is logged with the communicator it used. The test
 * executable defines these symbols, so nccl.c's calls bind to them; with
 * tests/kernels/fake_cuda.c for the CUDA runtime.
 */
#include "tests/collectives/fake_nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_nccl fake_nccl;

struct ncclComm {
  int blocking;
  int serial;
};

void fake_nccl_reset(int version) {
  memset(&fake_nccl, 0, sizeof fake_nccl);
  fake_nccl.version = version;
}

int fake_nccl_find(const char *name, int k) {
  for (int i = 0; i < fake_nccl.n; i++)
    if (strcmp(fake_nccl.log[i].name, name) == 0 && k-- == 0)
      return i;
  return -1;
}

static ncclResult_t logged(const char *name, ncclComm_t comm) {
  if (fake_nccl.n < FAKE_NCCL_LOG_MAX) {
    struct fake_nccl_call *c = &fake_nccl.log[fake_nccl.n++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->comm = comm;
    c->blocking = comm ? comm->blocking : -1;
  }
  return ncclSuccess;
}

static ncclComm_t make(const ncclConfig_t *config) {
  ncclComm_t c = calloc(1, sizeof *c);
  c->blocking = config && config->blocking != NCCL_CONFIG_UNDEF_INT
                    ? config->blocking
                    : 1; /* NCCL's default: blocking */
  c->serial = ++fake_nccl.comms;
  return c;
}

ncclResult_t ncclGetVersion(int *v) {
  *v = fake_nccl.version;
  return ncclSuccess;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 7, sizeof *id);
  return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int n, ncclUniqueId id,
                                    int rank, ncclConfig_t *config) {
  (void)n, (void)id, (void)rank;
  *comm = make(config);
  logged("ncclCommInitRankConfig", *comm);
  /* A non-blocking communicator's set-up finishes later, polled. */
  return (*comm)->blocking ? ncclSuccess : ncclInProgress;
}
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int n, ncclUniqueId id,
                              int rank) {
  return ncclCommInitRankConfig(comm, n, id, rank, NULL);
}
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                           ncclComm_t *newcomm, ncclConfig_t *config) {
  (void)color, (void)key;
  logged("ncclCommSplit", comm);
  *newcomm = make(config);
  logged("child", *newcomm);
  return ncclSuccess;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *state) {
  (void)comm;
  *state = ncclSuccess;
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t rc) {
  return rc == ncclSuccess ? "no error" : "fake NCCL error";
}
const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm;
  return "";
}
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  return logged("ncclCommFinalize", comm);
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  logged("ncclCommDestroy", comm);
  free(comm);
  return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  logged("ncclCommAbort", comm);
  free(comm);
  return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)stream;
  return logged("ncclAllReduce", comm);
}
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t t,
                          ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)stream;
  return logged("ncclAlltoAll", comm);
}
ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t t,
                        int root, ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)root, (void)stream;
  return logged("ncclGather", comm);
}
ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t t,
                         int root, ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)r, (void)n, (void)t, (void)root, (void)stream;
  return logged("ncclScatter", comm);
}
ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t t, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  (void)s, (void)n, (void)t, (void)peer, (void)stream;
  return logged("ncclSend", comm);
}
ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t t, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  (void)r, (void)n, (void)t, (void)peer, (void)stream;
  return logged("ncclRecv", comm);
}
ncclResult_t ncclGroupStart(void) {
  return logged("ncclGroupStart", NULL);
}
ncclResult_t ncclGroupEnd(void) {
  return logged("ncclGroupEnd", NULL);
}

/* MPICH's signature: the transport broadcasts rank 0's unique id. */
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm) {
  (void)buf, (void)count, (void)type, (void)root, (void)comm;
  return MPI_SUCCESS;
}
