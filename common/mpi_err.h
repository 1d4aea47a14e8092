/*
 * MPI errors into gcb_err: the one place a failed MPI call becomes a
 * status and a line naming the call and the library's reason, for every
 * module that calls MPI (collectives/, bench/).
 */
#ifndef GCB_MPI_ERR_H
#define GCB_MPI_ERR_H

#include "common/status.h"

/*
 * GCB_OK when rc is MPI_SUCCESS; else GCB_EMPI with "CALL failed: REASON"
 * in err (may be NULL), REASON from MPI_Error_string, or "MPI error RC"
 * when the library cannot say.
 */
enum gcb_status gcb_mpi_err(struct gcb_err *err, int rc, const char *call);

#endif
