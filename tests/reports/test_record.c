/* Records: figures from work and time, cross-rank summaries, parameters. */
#include <criterion/criterion.h>
#include <string.h>

#include "reports/document/record.h"

static struct gcb_record record_with(struct gcb_rank_result *ranks, int n) {
  struct gcb_record rec = {.bench = "gemm",
                           .backend = "host",
                           .work_per_op = 2e9,
                           .figure = {"GFLOP/s", 1e9, "2*m*n*k flops"},
                           .nranks = n,
                           .ranks = ranks};
  return rec;
}

Test(record, figure_is_work_over_time_in_the_unit) {
  struct gcb_record rec = record_with(NULL, 0);
  cr_expect_float_eq(gcb_record_figure(&rec, 0.5), 4.0, 1e-12);
  cr_expect_eq(gcb_record_figure(&rec, 0), 0);
  cr_expect_eq(gcb_record_figure(&rec, -1), 0);
}

Test(record, summary_names_slowest_and_fastest_rank_and_imbalance) {
  struct gcb_rank_result ranks[3] = {
      {.rank = 0, .time_s = 1.0, .check = {.checked = true}},
      {.rank = 1, .time_s = 2.0, .check = {.checked = true, .wrong = 3}},
      {.rank = 2, .time_s = 0.5, .check = {.checked = true}},
  };
  struct gcb_record rec = record_with(ranks, 3);
  struct gcb_record_summary s;
  gcb_record_summarize(&rec, &s);
  cr_expect_eq(s.min_rank, 1);
  cr_expect_eq(s.max_rank, 2);
  cr_expect_float_eq(s.figure.min, 1.0, 1e-12);
  cr_expect_float_eq(s.figure.median, 2.0, 1e-12);
  cr_expect_float_eq(s.figure.max, 4.0, 1e-12);
  /* times 1, 2, 0.5: mean 7/6, max 2 */
  cr_expect_float_eq(s.imbalance, (2.0 - 7.0 / 6.0) / 2.0, 1e-12);
  cr_expect_eq(s.wrong, 3);
  cr_expect(s.checked);
}

Test(record, one_unchecked_rank_makes_the_case_unchecked) {
  struct gcb_rank_result ranks[2] = {
      {.time_s = 1.0, .check = {.checked = true}},
      {.time_s = 1.0, .check = {.checked = false}},
  };
  struct gcb_record rec = record_with(ranks, 2);
  struct gcb_record_summary s;
  gcb_record_summarize(&rec, &s);
  cr_expect_not(s.checked);
  cr_expect_float_eq(s.imbalance, 0, 1e-12);
}

Test(record, parameters_keep_type_and_stop_at_the_limit) {
  struct gcb_record rec = record_with(NULL, 0);
  gcb_record_param_str(&rec, "dtype", "fp32");
  gcb_record_param_int(&rec, "m", 2048);
  gcb_record_param_size(&rec, "bytes", 1 << 20);
  gcb_record_param_double(&rec, "alpha", 0.5);
  cr_expect_eq(rec.nparams, 4);
  cr_expect_str_eq(rec.params[0].s, "fp32");
  cr_expect_eq(rec.params[1].i, 2048);
  cr_expect_eq(rec.params[2].type, GCB_PARAM_SIZE);
  cr_expect_float_eq(rec.params[3].d, 0.5, 1e-12);
  for (int i = 0; i < 2 * GCB_MAX_PARAMS; i++)
    gcb_record_param_int(&rec, "x", i);
  cr_expect_eq(rec.nparams, GCB_MAX_PARAMS);
}

Test(record, text_too_long_to_keep_is_cut_visibly) {
  struct gcb_record rec = record_with(NULL, 0);
  char text[2 * GCB_PARAM_TEXT_MAX];
  memset(text, 'x', sizeof text - 1);
  text[sizeof text - 1] = '\0';
  gcb_record_param_str(&rec, "span", text);
  const char *kept = gcb_record_text(&rec, "span");
  cr_expect_eq(strlen(kept), GCB_PARAM_TEXT_MAX - 1);
  cr_expect_eq(strncmp(kept, text, GCB_PARAM_TEXT_MAX - 4), 0);
  cr_expect_str_eq(kept + GCB_PARAM_TEXT_MAX - 4, "...");
}
