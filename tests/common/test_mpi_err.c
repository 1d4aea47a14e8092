/* MPI errors into gcb_err: success passes, a failure names the call and
 * the library's reason (MPI_Error_string may be called before MPI_Init). */
#include <criterion/criterion.h>
#include <mpi.h>
#include <string.h>

#include "common/mpi_err.h"

Test(mpi_err, success_is_ok_and_leaves_err_alone) {
  struct gcb_err err = {0};
  cr_expect_eq(gcb_mpi_err(&err, MPI_SUCCESS, "MPI_Send"), GCB_OK);
  cr_expect_str_empty(err.msg);
}

Test(mpi_err, a_failure_names_the_call_and_the_reason) {
  struct gcb_err err = {0};
  cr_expect_eq(gcb_mpi_err(&err, MPI_ERR_COUNT, "MPI_Allreduce"), GCB_EMPI);
  cr_expect_eq(err.code, GCB_EMPI);
  cr_expect(strncmp(err.msg, "MPI_Allreduce failed: ", 22) == 0, "%s", err.msg);
  cr_expect_gt(strlen(err.msg), 22, "a reason follows: %s", err.msg);
  cr_expect_eq(gcb_mpi_err(NULL, MPI_ERR_TAG, "MPI_Recv"), GCB_EMPI);
}
