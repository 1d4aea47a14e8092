/*
 * A fake CUDA runtime, cuBLASLt and gcbench kernel-launcher layer for
 * call-sequence tests without a GPU (fake_cuda.c). A test executable that
 * links fake_cuda.c defines these symbols itself, so the calls the static
 * gcbench_core makes bind to them instead of libcudart/libcublasLt (ELF
 * symbol interposition by the executable); the launchers of
 * kernels/cuda_kernels.h are the boundary to the .cu files, none of which
 * is linked. Device memory is host memory, copies really copy, kernels do
 * nothing but log, and events report fake_cuda.elapsed_ms. A multiply
 * writes its whole D with the byte 0x3f (the same product every time, as
 * the same inputs and algorithm give on a GPU); the burn compare really
 * compares (fp64, fp32 and int32 elements).
 *
 * Every call is appended to a log: its name, the stream (or event) it
 * used, a size, the host thread, and the state of the gate flag at that
 * moment (open or closed), so a test can check the order of gate, events
 * and work. The current device is per host thread, as in CUDA.
 */
#ifndef GCB_FAKE_CUDA_H
#define GCB_FAKE_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#define FAKE_LOG_MAX 8192

/* CUDA IPC across processes of one machine: the handle carries the size
 * of the exported buffer, and cudaIpcOpenMemHandle maps a fresh local
 * buffer of that size (copies into it are checked on the importer's
 * side). cudaIpcGetMemHandle logs the exported pointer, cudaFree and
 * cudaIpcCloseMemHandle the pointer they release. */

struct fake_call {
  char name[40];     /* "cudaEventRecord", "gate", "matmul", ... */
  const void *what;  /* the stream, or the event recorded/synchronised */
  const void *event; /* cudaEventRecord: the event; else NULL */
  size_t bytes;      /* copies and memsets */
  int device;        /* the device current at the call */
  int stream_device; /* the device the stream was created on; -1 */
  int gate;          /* the gate flag at the call: 1 open, 0 closed, -1 none */
  double t;          /* CLOCK_MONOTONIC seconds at the call (after any
                        delay it injects): comparable across processes */
  double t_end;      /* when it returned, for the calls that take time
                        (pageable copies); else t */
  int thread;        /* the calling host thread: 0 the first to call, ... */
  int kind;          /* copies: the cudaMemcpyKind */
  bool pageable;     /* copies: to or from pageable host memory */
  const void *dst;   /* cublasLtMatmul: the D it wrote */
};

struct fake_cuda {
  struct fake_call log[FAKE_LOG_MAX];
  int n;
  float elapsed_ms;  /* what cudaEventElapsedTime reports */
  bool algo_penalty; /* + 0.1 ms per step of the last multiply's algorithm
                        (the heuristic's index + 1) away from 4 */
  int device_count;
  int bus_base;       /* device d's PCI bus is bus_base + d (0: 0x19), so
                         processes of one test can see different GPUs */
  int close_delay_ms; /* cudaIpcCloseMemHandle takes this long (a peer
                         still mapping the buffer while its owner goes on) */
  int pageable_ms;    /* a pageable copy keeps its caller this long */
  size_t free_bytes;  /* what cudaMemGetInfo says is free (0: 64 GiB) */
  /* Fault injection: the `fail_nth`-th call (1-based) named `fail_name`
   * returns fail_rc. */
  char fail_name[40];
  int fail_nth, fail_seen;
  cudaError_t fail_rc;
};

extern struct fake_cuda fake_cuda;

/* Clears the log and the fault, and sets the defaults (2 devices,
 * 1.6 ms per event pair). */
void fake_cuda_reset(void);
/* Clears only the log. */
void fake_cuda_clear_log(void);
/* Index of the k-th (0-based) log entry named `name` at or after `from`,
 * or -1. */
int fake_find(const char *name, int from, int k);
/* Entries named `name` between log indices lo and hi (exclusive). */
int fake_count(const char *name, int lo, int hi);

#endif
