/*
 * MPI errors into gcb_err (mpi_err.h).
 */
#include "common/mpi_err.h"

#include <mpi.h>
#include <stdio.h>

enum gcb_status gcb_mpi_err(struct gcb_err *err, int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return GCB_OK;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS || text[0] == '\0')
    snprintf(text, sizeof text, "MPI error %d", rc);
  return gcb_err_set(err, GCB_EMPI, "%s failed: %s", call, text);
}
