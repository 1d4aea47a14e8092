/*
 * Issue 18: the MPI transport calls the int-count form of each MPI call
 * whenever the count fits in an int and the large-count (_c) form only
 * beyond. mpi.c is included so that its choice is tested directly: the
 * pure mpi_form() at the boundary, then the calls themselves, through
 * stand-ins for MPI_Allreduce, MPI_Send and MPI_Recv (and their _c forms)
 * that this program defines in place of the library's (as a PMPI tool
 * does): they record which form was called with what count, touch no
 * buffer and need no MPI_Init, so a count of 2^31 costs nothing.
 */
#include "collectives/mpi.c"

#include <criterion/criterion.h>

static struct {
  const char *fn;
  long long count;
  int calls;
} seen;

static int record(const char *fn, long long count) {
  seen.fn = fn;
  seen.count = count;
  seen.calls++;
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
                  MPI_Comm c) {
  (void)s, (void)r, (void)t, (void)o, (void)c;
  return record("MPI_Allreduce", n);
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  (void)b, (void)t, (void)d, (void)tag, (void)c;
  return record("MPI_Send", n);
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
             MPI_Status *st) {
  (void)b, (void)t, (void)src, (void)tag, (void)c, (void)st;
  return record("MPI_Recv", n);
}

#if MPI_VERSION >= 4
int MPI_Allreduce_c(const void *s, void *r, MPI_Count n, MPI_Datatype t,
                    MPI_Op o, MPI_Comm c) {
  (void)s, (void)r, (void)t, (void)o, (void)c;
  return record("MPI_Allreduce_c", n);
}

int MPI_Send_c(const void *b, MPI_Count n, MPI_Datatype t, int d, int tag,
               MPI_Comm c) {
  (void)b, (void)t, (void)d, (void)tag, (void)c;
  return record("MPI_Send_c", n);
}

int MPI_Recv_c(void *b, MPI_Count n, MPI_Datatype t, int src, int tag,
               MPI_Comm c, MPI_Status *st) {
  (void)b, (void)t, (void)src, (void)tag, (void)c, (void)st;
  return record("MPI_Recv_c", n);
}
#endif

Test(mpi_count, the_form_changes_just_past_int_max) {
  cr_expect_eq(mpi_form(0), MPI_FORM_INT);
  cr_expect_eq(mpi_form(8), MPI_FORM_INT);
  cr_expect_eq(mpi_form((size_t)INT_MAX), MPI_FORM_INT);
#if MPI_VERSION >= 4
  cr_expect_eq(mpi_form((size_t)INT_MAX + 1), MPI_FORM_LARGE);
  cr_expect_eq(mpi_form((size_t)LLONG_MAX), MPI_FORM_LARGE);
  cr_expect_eq(mpi_form((size_t)LLONG_MAX + 1), MPI_FORM_TOO_LARGE);
#else
  cr_expect_eq(mpi_form((size_t)INT_MAX + 1), MPI_FORM_TOO_LARGE);
#endif
}

static void expect_call(run_fn *run, size_t count, const char *fn) {
  struct gcb_comm c = {.comm = MPI_COMM_WORLD, .rank = 0, .size = 2};
  struct gcb_coll_call k = {.param = count};
  const char *call = NULL;
  seen.calls = 0;
  cr_assert_eq(run(&c, &k, MPI_FLOAT, MPI_SUM, &call), MPI_SUCCESS);
  cr_assert_gt(seen.calls, 0);
  cr_expect_str_eq(seen.fn, fn, "count %zu", count);
  cr_expect_eq(seen.count, (long long)count, "%s", fn);
}

Test(mpi_count, a_collective_calls_the_int_form_up_to_int_max) {
  expect_call(run_allreduce, 8, "MPI_Allreduce");
  expect_call(run_allreduce, (size_t)INT_MAX, "MPI_Allreduce");
#if MPI_VERSION >= 4
  expect_call(run_allreduce, (size_t)INT_MAX + 1, "MPI_Allreduce_c");
#endif
}

/* rank 0 of 2 sends, then receives: the last call seen is the receive */
Test(mpi_count, point_to_point_calls_the_int_form_up_to_int_max) {
  expect_call(run_latency, (size_t)INT_MAX, "MPI_Recv");
#if MPI_VERSION >= 4
  expect_call(run_latency, (size_t)INT_MAX + 1, "MPI_Recv_c");
#endif
  cr_expect_eq(seen.calls, 2, "one send and one receive");
}
