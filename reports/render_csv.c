/*
 * results.csv: one row per case and rank (one row per case where the
 * document has no per-rank entries), with a header, for
 * spreadsheets and scripts. Text fields go through gcb_escape_csv (RFC 4180
 * quoting, formula guard); numbers are written with 10 significant digits,
 * empty when the document has none.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static const char *const columns[] = {"run",
                                      "run_id",
                                      "bench",
                                      "label",
                                      "params",
                                      "unit",
                                      "rank",
                                      "node",
                                      "hostname",
                                      "gpu",
                                      "bus_id",
                                      "samples",
                                      "time_median_s",
                                      "time_min_s",
                                      "time_mean_s",
                                      "time_max_s",
                                      "time_stdev_s",
                                      "figure_time_s",
                                      "figure_median",
                                      "figure_best",
                                      "figure_worst",
                                      "late_mean_s",
                                      "checked",
                                      "wrong",
                                      NULL};

static void text(FILE *out, const char *s) {
  fputc(',', out);
  gcb_escape_csv(out, s);
}

static void num(FILE *out, double x) {
  if (isnan(x))
    fputc(',', out);
  else
    fprintf(out, ",%.10g", x);
}

static void integer(FILE *out, long long v) {
  if (v < 0)
    fputc(',', out);
  else
    fprintf(out, ",%lld", v);
}

/* "dtype=fp32;m=256" in document order. */
static void params_field(FILE *out, const json_t *c) {
  char buf[512] = "";
  size_t used = 0;
  const char *k;
  const json_t *v;
  json_object_foreach(json_object_get(c, "params"), k, v) {
    if (used + 1 >= sizeof buf)
      break;
    int n = json_is_string(v)
                ? snprintf(buf + used, sizeof buf - used, "%s%s=%s",
                           used ? ";" : "", k, json_string_value(v))
                : snprintf(buf + used, sizeof buf - used, "%s%s=%.17g",
                           used ? ";" : "", k, json_number_value(v));
    used += n > 0 ? (size_t)n : 0;
  }
  char safe[512];
  gcb_view_copy(safe, sizeof safe, buf);
  text(out, safe);
}

/* The fields every row of a case shares (run to unit), escaped once into
 * a buffer: at thousands of ranks per case this is most of the text.
 * NULL on ENOMEM. */
static char *case_prefix(size_t d, const json_t *root, const json_t *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (m == NULL)
    return NULL;
  fprintf(m, "%zu", d + 1);
  text(m, gcb_view_str(gcb_view_obj(root, "run"), "id"));
  text(m, gcb_view_str(c, "bench"));
  text(m, gcb_view_str(c, "label"));
  params_field(m, c);
  text(m, gcb_view_str(c, "unit"));
  if (fclose(m) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void rank_row(FILE *out, const char *prefix, const json_t *root,
                     const json_t *e) {
  const json_t *t = gcb_view_obj(e, "time_s"), *f = gcb_view_obj(e, "figure");
  const json_t *v = gcb_view_obj(e, "validation");
  long long rank = gcb_view_int(e, "rank", -1);
  struct gcb_place p;
  gcb_view_place(root, rank, &p);
  fputs(prefix, out);
  integer(out, rank);
  integer(out, p.node);
  text(out, p.hostname);
  integer(out, p.gpu);
  text(out, p.bus_id);
  integer(out, gcb_view_int(t, "n", -1));
  static const char *const times[] = {"median", "min", "mean", "max", "stdev"};
  for (size_t i = 0; i < 5; i++)
    num(out, gcb_view_num(t, times[i]));
  num(out, gcb_view_num(e, "figure_time_s"));
  num(out, gcb_view_num(f, "median"));
  num(out, gcb_view_num(f, "best"));
  num(out, gcb_view_num(f, "worst"));
  num(out, gcb_view_num(gcb_view_obj(e, "late_s"), "mean"));
  text(out, json_is_true(json_object_get(v, "checked")) ? "true" : "false");
  integer(out, gcb_view_int(v, "wrong", -1));
  fputc('\n', out);
}

/* A case without per-rank entries (nccl-tests reports only the average
 * over ranks): one row with the rank fields empty and the summary's time
 * and figure, so the case is not missing from the file. */
static void summary_row(FILE *out, const char *prefix, const json_t *c) {
  const json_t *s = gcb_view_obj(c, "summary");
  const json_t *t = gcb_view_obj(s, "time_s");
  const json_t *v = gcb_view_obj(c, "validation");
  fputs(prefix, out);
  fputs(",,,,,,", out); /* rank, node, hostname, gpu, bus_id, samples */
  num(out, NAN);        /* median time: not recorded */
  num(out, gcb_view_num(t, "min"));
  num(out, gcb_view_num(t, "mean"));
  num(out, gcb_view_num(t, "max"));
  num(out, NAN);
  num(out, gcb_view_num(t, "mean"));
  num(out, gcb_view_num(s, "median"));
  num(out, NAN);
  num(out, NAN);
  num(out, gcb_view_num(s, "late_mean_s"));
  text(out, json_is_true(json_object_get(v, "checked")) ? "true" : "false");
  integer(out, gcb_view_int(v, "wrong", -1));
  fputc('\n', out);
}

static enum gcb_status render_csv(FILE *out, const struct gcb_report *rep,
                                  struct gcb_err *err) {
  for (size_t i = 0; columns[i]; i++)
    fprintf(out, "%s%s", i ? "," : "", columns[i]);
  fputc('\n', out);
  for (size_t d = 0; d < rep->ndocs; d++) {
    const json_t *root = rep->docs[d].root, *c, *e;
    size_t i, j;
    json_array_foreach(json_object_get(root, "cases"), i, c) {
      char *prefix = case_prefix(d, root, c);
      if (prefix == NULL)
        return gcb_err_set(err, GCB_ENOMEM, "results.csv: out of memory");
      json_array_foreach(json_object_get(c, "per_rank"), j, e) {
        rank_row(out, prefix, root, e);
      }
      if (json_array_size(json_object_get(c, "per_rank")) == 0)
        summary_row(out, prefix, c);
      free(prefix);
    }
  }
  return gcb__render_done(out, "results.csv", err);
}

const struct gcb_renderer gcb_render_csv = {
    .name = "csv", .file = "results.csv", .render = render_csv};
