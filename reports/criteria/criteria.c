/*
 * Acceptance criteria as typed data: building them (the criteria file's
 * reader, reports/document/criteria_file.c, and the built-in expectations,
 * expect.c), naming a check, refusing bounds no run can meet, and freeing.
 * Every string the criteria hold is a copy they own. Evaluation lives in
 * criteria_eval.c.
 */
#include "reports/criteria/criteria.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* One owned string, in a list the criteria free at once. */
struct gcb__criteria_string {
  struct gcb__criteria_string *next;
  char text[];
};

struct gcb_criteria *gcb_criteria_new(const char *path) {
  struct gcb_criteria *cr = calloc(1, sizeof *cr);
  if (cr == NULL)
    return NULL;
  gcb_thresholds_default(&cr->thresholds);
  cr->name = "";
  if ((cr->path = gcb_criteria_keep(cr, path)) == NULL) {
    gcb_criteria_free(cr);
    return NULL;
  }
  return cr;
}

const char *gcb_criteria_keep(struct gcb_criteria *cr, const char *s) {
  size_t n = strlen(s);
  struct gcb__criteria_string *k = malloc(sizeof *k + n + 1);
  if (k == NULL)
    return NULL;
  memcpy(k->text, s, n + 1);
  k->next = cr->strings;
  cr->strings = k;
  return k->text;
}

struct gcb_criterion *gcb_criteria_add_check(struct gcb_criteria *cr) {
  if (!gcb_grow((void **)&cr->checks, &cr->capchecks, cr->nchecks,
                sizeof *cr->checks))
    return NULL;
  struct gcb_criterion *k = &cr->checks[cr->nchecks++];
  *k = (struct gcb_criterion){0};
  return k;
}

bool gcb_criterion_add_param(struct gcb_criteria *cr, struct gcb_criterion *k,
                             const char *key, double num, const char *str) {
  if (!gcb_grow((void **)&k->params, &k->capparams, k->nparams,
                sizeof *k->params))
    return false;
  struct gcb_check_param p = {.key = gcb_criteria_keep(cr, key),
                              .is_num = str == NULL,
                              .num = str == NULL ? num : 0,
                              .str = str ? gcb_criteria_keep(cr, str) : NULL};
  if (p.key == NULL || (str != NULL && p.str == NULL))
    return false;
  k->params[k->nparams++] = p;
  return true;
}

/* "gemm dtype=fp32" for checks without a name. */
void gcb_criterion_default_name(struct gcb_criterion *k) {
  size_t used = (size_t)snprintf(k->name, sizeof k->name, "%s", k->bench);
  for (size_t i = 0; i < k->nparams; i++) {
    const struct gcb_check_param *v = &k->params[i];
    if (used >= sizeof k->name)
      break;
    int n = !v->is_num ? snprintf(k->name + used, sizeof k->name - used,
                                  " %s=%s", v->key, v->str)
                       : snprintf(k->name + used, sizeof k->name - used,
                                  " %s=%g", v->key, v->num);
    used += n > 0 ? (size_t)n : 0;
  }
  gcb_view_copy(k->name, sizeof k->name, k->name);
}

/* Bounds that no run can meet (issue 20 item 14): a minimum above the
 * maximum of the same metric, or a maximum below 0 (every metric is a
 * figure, a time, a count or a percentage: never negative). A check that
 * can never pass is a mistake in the file, not a verdict on the run. */
bool gcb_criterion_impossible(const struct gcb_criterion *k, char *what,
                              size_t size) {
  for (size_t i = 0; i < k->nbounds; i++) {
    const struct gcb_bound *b = &k->bounds[i];
    if (!b->is_min && b->limit < 0) {
      snprintf(what, size, "max %s %g can never be met: %s is never negative",
               b->metric->name, b->limit, b->metric->name);
      return true;
    }
    if (b->is_min && b->limit < 0) { /* it would pass on anything */
      snprintf(what, size, "min %s %g can never fail: %s is never negative",
               b->metric->name, b->limit, b->metric->name);
      return true;
    }
    for (size_t j = 0; b->is_min && j < k->nbounds; j++)
      if (!k->bounds[j].is_min && k->bounds[j].metric == b->metric &&
          b->limit > k->bounds[j].limit) {
        snprintf(what, size,
                 "min %s %g is above its max %g: the check can never "
                 "pass",
                 b->metric->name, b->limit, k->bounds[j].limit);
        return true;
      }
  }
  return false;
}

void gcb_criteria_free(struct gcb_criteria *cr) {
  if (cr == NULL)
    return;
  for (size_t i = 0; i < cr->nchecks; i++)
    free(cr->checks[i].params);
  free(cr->checks);
  while (cr->strings != NULL) {
    struct gcb__criteria_string *next = cr->strings->next;
    free(cr->strings);
    cr->strings = next;
  }
  free(cr);
}
