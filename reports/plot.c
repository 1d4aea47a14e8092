/*
 * The gnuplot script: one row per plot kind in `kinds` below, each writing
 * its plots into one script (one gnuplot process draws them all). Data is
 * inlined as datablocks, so the script is self-contained and a user can
 * rerun or edit it (`gnuplot plots.gp` in the report directory). Running
 * gnuplot is in plot_run.c.
 */
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Safe for a single-quoted gnuplot string and for SVG text: no quotes,
 * backquotes (command substitution), '@' (macros), '\\', '<', '&'. */
static void safe_label(const char *in, char *out, size_t size) {
  static const char ok[] = " .,:;=+-_/()[]%#*";
  size_t n = 0;
  for (; *in && n + 1 < size; in++) {
    unsigned char c = (unsigned char)*in;
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                 (c >= 'A' && c <= 'Z');
    if (c >= 0x80 && ((unsigned char)in[1] & 0xC0) == 0x80)
      continue; /* one '?' per multi-byte character, at its last byte */
    out[n++] = alnum || (c != 0 && strchr(ok, c)) ? (char)c : '?';
  }
  out[n] = '\0';
}

struct plotter {
  FILE *f;
  const struct gcb_thresholds *t;
  bool png;
  struct gcb_plots *out;
  size_t cap;
  bool oom;
};

/* Registers the next plot and starts its output; returns its number. */
static size_t begin_plot(struct plotter *p, const char *suffix,
                         const char *title) {
  if (p->out->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 8;
    struct gcb_plot *g = realloc(p->out->items, cap * sizeof *g);
    if (g == NULL) {
      p->oom = true;
      return 0;
    }
    p->out->items = g;
    p->cap = cap;
  }
  size_t id = ++p->out->n;
  struct gcb_plot *pl = &p->out->items[id - 1];
  memset(pl, 0, sizeof *pl);
  snprintf(pl->file, sizeof pl->file, "plot-%zu-%s.%s", id, suffix,
           p->png ? "png" : "svg");
  safe_label(title, pl->title, sizeof pl->title);
  fprintf(p->f, "\nreset\nset output '%s'\nset title '%s'\n", pl->file,
          pl->title);
  fprintf(p->f, "set style fill solid 0.85 noborder\nset grid ytics lc rgb "
                "'#dddddd'\nset key below horizontal\n");
  return id;
}

/* ---- per-rank bars ------------------------------------------------------ */

/* The plot commands of bar chart `id` over x[0..n) (slow[i]: outlier). */
static void bars_body(struct plotter *p, size_t id, const json_t *pr,
                      const double *x, const bool *slow, size_t n) {
  const json_t *e;
  size_t i, nslow = 0;
  double sum = 0;
  fprintf(p->f, "$ranks%zu << EOD\n", id);
  json_array_foreach(pr, i, e) {
    fprintf(p->f, "%lld %.10g %d\n", gcb_view_int(e, "rank", (long long)i),
            x[i], slow[i]);
    sum += x[i];
    nslow += slow[i];
  }
  fprintf(p->f,
          "EOD\nplot $ranks%zu using 1:($3 == 0 ? $2 : NaN) with boxes "
          "lc rgb '#4e79a7' title 'rank', \\\n",
          id);
  if (nslow > 0)
    fprintf(p->f,
            "  $ranks%zu using 1:($3 != 0 ? $2 : NaN) with boxes lc rgb "
            "'#e15759' title 'outlier (slow rank)', \\\n",
            id);
  char mean[32];
  gcb_view_fmt(sum / (double)n, mean, sizeof mean);
  fprintf(p->f,
          "  %.10g with lines dt 2 lw 2 lc rgb '#333333' title "
          "'mean %s'\n",
          sum / (double)n, mean);
}

/* Per-rank bars of one case, slow ranks (the analysis' rule) in red. */
static void rank_bars(struct plotter *p, const json_t *c) {
  const json_t *pr = json_object_get(c, "per_rank"), *e;
  size_t i, n = json_array_size(pr);
  double *x = malloc(n * sizeof *x + 1), median;
  bool *slow = malloc(n * sizeof *slow + 1);
  p->oom |= x == NULL || slow == NULL;
  if (!p->oom) {
    bool any = false; /* all zero: nothing to draw, and a gnuplot error */
    json_array_foreach(pr, i, e) {
      x[i] = gcb_view_num(gcb_view_obj(e, "figure"), "median");
      any |= x[i] > 0;
    }
    if (!any)
      goto done;
    gcb_analyze_slow(x, n, p->t, slow, &median);
    char title[160], unit[64];
    gcb_view_case_title(c, title, sizeof title);
    safe_label(gcb_view_str(c, "unit"), unit, sizeof unit);
    size_t id = begin_plot(p, "ranks", title);
    /* About 16 integer ticks, whatever the number of ranks. */
    fprintf(p->f,
            "set boxwidth 0.8\nset xlabel 'rank'\nset ylabel '%s'\n"
            "set xrange [-0.5:%zu.5]\nset yrange [0:*]\nset xtics %zu\n",
            unit, n - 1, (n + 15) / 16);
    if (id > 0)
      bars_body(p, id, pr, x, slow, n);
  }
done:
  free(x);
  free(slow);
}

static void each_rank_plot(struct plotter *p, const struct gcb_doc *docs,
                           size_t ndocs) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    const json_t *c;
    size_t i;
    json_array_foreach(json_object_get(docs[d].root, "cases"), i, c) {
      if (gcb_analyze_per_device(gcb_view_str(c, "bench")) &&
          json_array_size(json_object_get(c, "per_rank")) >= 2)
        rank_bars(p, c);
    }
  }
}

/* ---- bandwidth vs message size ------------------------------------------ */

/* In-place as the writer put it: true, a non-zero number or "yes". */
static bool truthy(const json_t *v) {
  const char *s = json_string_value(v);
  return json_is_true(v) || (json_is_number(v) && json_number_value(v) != 0) ||
         (s != NULL && (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0));
}

/* Collective cases plot together when op, type, reduction, backend and
 * in-place match: one line per nccl-tests sweep. */
static void coll_group_key(const json_t *c, char *buf, size_t size) {
  const json_t *params = json_object_get(c, "params");
  const char *redop = gcb_view_str(params, "redop");
  snprintf(buf, size, "%s %s%s%s %s%s", gcb_view_str(params, "op"),
           gcb_view_str(params, "type"), redop[0] ? " " : "", redop,
           gcb_view_str(c, "backend"),
           truthy(json_object_get(params, "inplace")) ? " in-place" : "");
}

/* Message size in bytes: "size" as the coll benchmark writes it. */
static double coll_bytes(const json_t *c) {
  const json_t *params = json_object_get(c, "params");
  double b = gcb_view_num(params, "size");
  return isnan(b) ? gcb_view_num(params, "bytes") : b;
}

static bool is_coll(const json_t *c) {
  return strcmp(gcb_view_str(c, "bench"), "coll") == 0;
}

/* Case c's point of the sweep `key`: false when c is not in the sweep or
 * has nothing a log-log plot can show (a barrier's zero bytes). */
static bool bw_point(const json_t *c, const char *key, double *bytes,
                     double *alg, double *bus) {
  char k[128];
  if (!is_coll(c))
    return false;
  coll_group_key(c, k, sizeof k);
  const json_t *s = gcb_view_obj(c, "summary");
  *bytes = coll_bytes(c);
  *alg = gcb_view_num(s, "algbw");
  *bus = gcb_view_num(s, "busbw");
  if (isnan(*alg))
    *alg = gcb_view_num(s, "median");
  return strcmp(k, key) == 0 && *bytes > 0 && *alg > 0;
}

/* Writes (or with f NULL, counts) the points of sweep `key` from case
 * `first` on. */
static size_t bw_points(FILE *f, const json_t *cases, size_t first,
                        const char *key) {
  const json_t *c;
  size_t i, n = 0;
  double bytes, alg, bus;
  json_array_foreach(cases, i, c) {
    if (i < first || !bw_point(c, key, &bytes, &alg, &bus))
      continue;
    n++;
    if (f != NULL)
      fprintf(f, "%.17g %.10g %.10g\n", bytes, alg, bus > 0 ? bus : NAN);
  }
  return n;
}

static void bw_plot(struct plotter *p, const json_t *cases, size_t first,
                    const char *key) {
  char title[192];
  if (bw_points(NULL, cases, first, key) == 0)
    return; /* an empty plot is a gnuplot error, and says nothing */
  snprintf(title, sizeof title, "%s: bandwidth vs message size", key);
  size_t id = begin_plot(p, "bw", title);
  if (id == 0)
    return;
  fprintf(p->f,
          "set logscale x 2\nset logscale y\nset format x '%%.0b%%B'"
          "\nset xlabel 'message size (bytes)'\nset ylabel 'GB/s'\n"
          "$bw%zu << EOD\n",
          id);
  bw_points(p->f, cases, first, key);
  fprintf(p->f,
          "EOD\nplot $bw%zu using 1:2 with linespoints lc rgb '#4e79a7' "
          "title 'algbw', \\\n  $bw%zu using 1:3 with linespoints lc "
          "rgb '#f28e2b' title 'busbw'\n",
          id, id);
}

static void each_bw_plot(struct plotter *p, const struct gcb_doc *docs,
                         size_t ndocs) {
  for (size_t d = 0; d < ndocs && !p->oom; d++) {
    const json_t *cases = json_object_get(docs[d].root, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c) {
      char key[128], earlier[128];
      if (!is_coll(c))
        continue;
      coll_group_key(c, key, sizeof key);
      bool seen = false; /* plotted with an earlier case of its group */
      for (size_t j = 0; j < i && !seen; j++) {
        const json_t *o = json_array_get(cases, j);
        if (is_coll(o)) {
          coll_group_key(o, earlier, sizeof earlier);
          seen = strcmp(key, earlier) == 0;
        }
      }
      if (!seen)
        bw_plot(p, cases, i, key);
    }
  }
}

/* ---- the script --------------------------------------------------------- */

static const struct {
  const char *name;
  void (*plot)(struct plotter *p, const struct gcb_doc *docs, size_t ndocs);
} kinds[] = {
    {"per-rank bars", each_rank_plot},
    {"bandwidth vs message size", each_bw_plot},
};

enum gcb_status gcb_plot_script(FILE *script, const struct gcb_doc *docs,
                                size_t ndocs, const struct gcb_thresholds *t,
                                bool png, struct gcb_plots *out,
                                struct gcb_err *err) {
  struct plotter p = {.f = script, .t = t, .png = png, .out = out};
  fprintf(script,
          "# gcbench plots; to redraw them, run in the report "
          "directory: gnuplot %s\n",
          GCB_PLOT_SCRIPT);
  if (png)
    fprintf(script, "set terminal pngcairo size 800,400 noenhanced font "
                    "'sans,10' background '#ffffff'\n");
  else
    fprintf(script, "set terminal svg size 720,360 dynamic noenhanced font "
                    "'sans,11' background '#ffffff'\n");
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds && !p.oom; k++)
    kinds[k].plot(&p, docs, ndocs);
  if (p.oom)
    return gcb_err_set(err, GCB_ENOMEM, "plots: out of memory");
  return GCB_OK;
}

void gcb_plots_free(struct gcb_plots *p) {
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->n; i++)
    free(p->items[i].svg);
  free(p->items);
  memset(p, 0, sizeof *p);
}
