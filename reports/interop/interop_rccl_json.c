/*
 * rccl-tests' JSON output (`-x FILE -Z json`, ROCm/rccl-tests PR #93): one
 * JSON object per line and per half of a result row, {"#wrong": "0" or
 * "N/A", "algBw", "busBw", "gpus", "inPlace": 0 or 1, "name": "AllReduce",
 * "redop", "size", "time" (us), "type"}, builds with MPI adding fields of
 * their own. Each line becomes one "coll" case, laid out as every other
 * nccl-tests and rccl-tests input (interop_build.c). A line that is not
 * such an object is refused at its line and column.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reports/interop/interop_int.h"

static bool looks_like_row(const json_t *o) {
  return json_is_object(o) && json_object_get(o, "name") != NULL &&
         json_object_get(o, "busBw") != NULL &&
         json_object_get(o, "algBw") != NULL;
}

/* The next line of r that is not blank, from its first non-blank byte
 * to its end, into *at and *len; false at the end. */
static bool next_object(struct gcb__lines *r, const char **at, size_t *len) {
  while (gcb__lines_next(r)) {
    size_t a = 0;
    while (a < r->l.len && isspace((unsigned char)r->l.at[a]))
      a++;
    *at = r->l.at + a;
    *len = r->l.len - a;
    if (*len > 0)
      return true;
  }
  return false;
}

static int detect(const struct gcb__sniff *s, char *why, size_t size) {
  struct gcb__lines r = {.text = s->text, .len = s->len, .raw = true};
  const char *at;
  size_t len;
  json_t *first = next_object(&r, &at, &len) && at[0] == '{'
                      ? json_loadb(at, len, 0, NULL)
                      : NULL;
  bool ok = looks_like_row(first);
  json_decref(first);
  if (!ok)
    snprintf(why, size, "first line no {\"name\", \"algBw\", \"busBw\"}");
  return ok ? 75 : 0;
}

/* One line's object into a row with one half. */
static enum gcb_status read_line(struct gcb__conv *cv, const json_t *o,
                                 struct gcb__coll_row *r, char *op,
                                 size_t opsize, long long *gpus) {
  const json_t *name, *size, *type, *redop, *t, *alg, *bus, *wrong, *ip;
  enum gcb_status st;
  if (!json_is_object(o))
    return gcb__conv_bad(cv, "expected an object");
  if ((st = gcb__conv_get(cv, o, "name", GCB__J_STR, true, &name)) ||
      (st = gcb__conv_get(cv, o, "size", GCB__J_NUM, true, &size)) ||
      (st = gcb__conv_get(cv, o, "type", GCB__J_STR, true, &type)) ||
      (st = gcb__conv_get(cv, o, "redop", GCB__J_STR, false, &redop)) ||
      (st = gcb__conv_get(cv, o, "time", GCB__J_NUM | GCB__J_STR, true, &t)) ||
      (st = gcb__conv_get(cv, o, "algBw", GCB__J_NUM | GCB__J_STR, true,
                          &alg)) ||
      (st = gcb__conv_get(cv, o, "busBw", GCB__J_NUM | GCB__J_STR, true,
                          &bus)) ||
      (st = gcb__conv_get(cv, o, "#wrong", GCB__J_NUM | GCB__J_STR, false,
                          &wrong)) ||
      (st = gcb__conv_get(cv, o, "inPlace", GCB__J_NUM | GCB__J_BOOL, false,
                          &ip)))
    return st;
  gcb__coll_op(json_string_value(name), strlen(json_string_value(name)), op,
               opsize);
  const struct gcb__coll_type *ty = gcb__coll_type(json_string_value(type));
  double bytes = ty != NULL ? ty->bytes : 0;
  double w = gcb__conv_number(wrong);
  size_t h = json_is_true(ip) || json_number_value(ip) == 1;
  *r = (struct gcb__coll_row){.size = json_number_value(size), .root = -1};
  r->count = bytes > 0 ? floor(r->size / bytes) : 0;
  snprintf(r->type, sizeof r->type, "%s", json_string_value(type));
  snprintf(r->redop, sizeof r->redop, "%s",
           redop ? json_string_value(redop) : "");
  r->half[h] = gcb__coll_half(gcb__conv_number(t), gcb__conv_number(alg),
                              gcb__conv_number(bus), !isnan(w) && w >= 0, w);
  double g = gcb__conv_number(json_object_get(o, "gpus"));
  if (g > (double)*gpus && g < (1 << 24)) /* NAN and nonsense stay out */
    *gpus = (long long)g;
  return GCB_OK;
}

/* One line, located as its own JSON text. */
static enum gcb_status line(struct gcb__conv *cv, const char *at, size_t len,
                            int number, long long *gpus) {
  json_error_t je;
  json_t *o = json_loadb(at, len, JSON_REJECT_DUPLICATES, &je);
  if (o == NULL)
    return gcb_err_set(cv->err, GCB_EINPUT, "%s:%d:%d: %s: %s", cv->name,
                       number, je.column, cv->format, je.text);
  struct gcb__conv one = *cv;
  one.text = at;
  one.len = len;
  one.line0 = number - 1;
  struct gcb__coll_row r;
  char op[32];
  enum gcb_status st = read_line(&one, o, &r, op, sizeof op, gpus);
  json_decref(o);
  r.line = number;
  if (st == GCB_OK)
    st = gcb__coll_row_cases(&one, op, &r, *gpus, 0, 0, "rccl-tests -c");
  cv->items = one.items;
  return st;
}

static enum gcb_status convert(struct gcb__conv *cv, const json_t *root) {
  (void)root;
  gcb__conv_run(cv, "rccl-tests");
  struct gcb__lines r = {.text = cv->text, .len = cv->len, .raw = true};
  const char *at;
  size_t len;
  long long gpus = 0;
  enum gcb_status st = GCB_OK;
  while (st == GCB_OK && next_object(&r, &at, &len))
    st = line(cv, at, len, r.number, &gpus);
  gcb__conv_run_set(cv, "ranks", gcb__mvalue_int(gpus));
  return st;
}

const struct gcb__converter gcb__row_rccl_jsonl = {
    "rccl-tests JSON lines", GCB_FORMAT_RCCL_TESTS, false, detect, convert};
