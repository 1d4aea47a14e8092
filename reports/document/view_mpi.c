/*
 * The MPI library a run used, in one line, read from the document's header
 * (gcb_view_mpi_line, view.h): the one road by which the live collective
 * table (bench/run/table.c) and the report's collective tables
 * (render_tables.c) name it. MPI_Get_library_version's first line is
 * the library's own words ("MPICH Version:\t4.0.2", "Open MPI v4.1.6,
 * package: ...", "MPI VERSION    : CRAY MPICH version 8.1.22.12 (ANL base
 * 3.4a2)"); the line keeps its name and version only. And the start-up
 * MPI probe's reading (gcb_view_mpi_probe_line), for the live table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reports/document/model.h"
#include "reports/document/view.h"

/* The settings that choose MPI's transport, in the order shown: UCX's and
 * libfabric's for MPICH's ch4 netmods, MPICH's netmod itself, Intel MPI's
 * and Open MPI's. */
static const char *const transport_vars[] = {
    "MPIR_CVAR_CH4_NETMOD", "UCX_TLS",      "UCX_NET_DEVICES", "FI_PROVIDER",
    "I_MPI_FABRICS",        "OMPI_MCA_pml", "OMPI_MCA_btl"};
#define NVARS (sizeof transport_vars / sizeof *transport_vars)

static size_t trimmed(const char *s, size_t n) {
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    n--;
  return n;
}

/* Appends printf text at buf + *at, counting what does not fit too (as
 * snprintf does). */
static void add(char *buf, size_t size, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t size, size_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(*at < size ? buf + *at : NULL, *at < size ? size - *at : 0,
                    fmt, ap);
  va_end(ap);
  *at += n > 0 ? (size_t)n : 0;
}

/* "MPICH 4.0.2" from "MPICH Version:\t4.0.2"; "CRAY MPICH version
 * 8.1.22.12" from Cray's "MPI VERSION : ..."; else the text up to its
 * first comma or " (" ("Open MPI v4.1.6"; Intel's "Intel(R) MPI Library
 * 2021.10 for Linux* OS" whole): appended as add() does, whole. */
static void library_name(const char *text, char *buf, size_t size, size_t *at) {
  const char *key = strstr(text, " Version:");
  if (key != NULL) {
    const char *v = key + strlen(" Version:");
    v += strspn(v, " \t");
    add(buf, size, at, "%.*s %.*s", (int)(key - text), text,
        (int)trimmed(v, strcspn(v, "\r\n")), v);
    return;
  }
  if (strncmp(text, "MPI VERSION", 11) == 0 && strchr(text, ':') != NULL) {
    text = strchr(text, ':') + 1;
    text += strspn(text, " \t");
  }
  size_t n = strcspn(text, ",\r\n");
  const char *paren = strstr(text, " (");
  if (paren != NULL && (size_t)(paren - text) < n)
    n = (size_t)(paren - text);
  add(buf, size, at, "%.*s", (int)trimmed(text, n), text);
}

/* The line from the header's texts: software.mpi, software.mpi_device and
 * each transport variable's value (vars[i] for transport_vars[i], NULL
 * where it was not set); returns its length uncut. */
static size_t mpi_line(const char *mpi, const char *device,
                       const char *const vars[], char *buf, size_t size) {
  size_t at = 0;
  if (size > 0)
    buf[0] = '\0';
  if (mpi[0] == '\0')
    return 0;
  library_name(mpi, buf, size, &at);
  add(buf, size, &at, "%s%s", device[0] ? " " : "", device);
  const char *sep = "; ";
  for (size_t i = 0; i < NVARS; i++) {
    if (vars[i] == NULL)
      continue;
    add(buf, size, &at, "%s%s=%s", sep, transport_vars[i], vars[i]);
    sep = ", ";
  }
  if (at >= size && size > 0)
    gcb__view_trim_partial(buf); /* cut at a character, not in one */
  return at;
}

size_t gcb_view_mpi_line(const json_t *root, char *buf, size_t size) {
  const json_t *sw = gcb_view_obj(root, "software");
  const json_t *env = gcb_view_obj(gcb_view_obj(root, "run"), "environment");
  const char *vars[NVARS];
  for (size_t i = 0; i < NVARS; i++)
    vars[i] = json_string_value(json_object_get(env, transport_vars[i]));
  return mpi_line(gcb_view_str(sw, "mpi"), gcb_view_str(sw, "mpi_device"), vars,
                  buf, size);
}

size_t gcb_view_mpi_line_model(const struct gcb_model *m, char *buf,
                               size_t size) {
  const char *vars[NVARS];
  for (size_t i = 0; i < NVARS; i++) {
    const struct gcb_mvalue *v =
        gcb_mvalue_get(&m->run.environment, transport_vars[i]);
    vars[i] = v->type == GCB_MV_STRING ? v->text : NULL;
  }
  return mpi_line(gcb_mvalue_str(&m->run.software, "mpi"),
                  gcb_mvalue_str(&m->run.software, "mpi_device"), vars, buf,
                  size);
}

void gcb_view_mpi_probe_line(const json_t *root, char *buf, size_t size) {
  const json_t *probe = gcb_view_obj(gcb_view_obj(root, "run"), "mpi_probe");
  const json_t *pairs = json_object_get(probe, "pairs"), *p;
  char line[512] = "";
  size_t at = 0, i;
  json_array_foreach(pairs, i, p) {
    char t[32];
    gcb_view_fmt_time(gcb_view_num(p, "min_us") * 1e-6, t, sizeof t);
    if (at == 0)
      at = (size_t)snprintf(line, sizeof line, "%lld B one-way ",
                            gcb_view_int(probe, "bytes", 8));
    if (at < sizeof line)
      at += (size_t)snprintf(
          line + at, sizeof line - at, "%s%s (ranks 0-%lld, %s%s)",
          i > 0 ? "; " : "", t,
          (long long)json_integer_value(
              json_array_get(json_object_get(p, "ranks"), 1)),
          json_is_true(json_object_get(p, "same_node")) ? "same node"
                                                        : "two nodes",
          gcb_view_int(p, "batches", 0) > 0 ? "" : ", cut short");
  }
  gcb_view_copy(buf, size, line);
}
