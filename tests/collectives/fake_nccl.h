/*
 * The fake NCCL of fake_nccl.c: a log of the calls the NCCL transport
 * made, each with the communicator it used and that communicator's
 * `blocking` setting, and the library version ncclGetVersion reports.
 */
#ifndef GCB_FAKE_NCCL_H
#define GCB_FAKE_NCCL_H

#include <mpi.h>
#include <nccl.h>

#define FAKE_NCCL_LOG_MAX 256

struct fake_nccl_call {
  char name[40];
  ncclComm_t comm;
  int blocking; /* of comm; -1 without one */
};

struct fake_nccl {
  struct fake_nccl_call log[FAKE_NCCL_LOG_MAX];
  int n;
  int version; /* ncclGetVersion's answer */
  int comms;   /* communicators made */
};

extern struct fake_nccl fake_nccl;

void fake_nccl_reset(int version);
/* Index of the k-th call named `name`, or -1. */
int fake_nccl_find(const char *name, int k);

#endif
