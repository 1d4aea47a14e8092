/*
 * The blas-kernel rule (reports/analysis/rules_blas.c): OpenBLAS kernels
 * below the CPU's vector ISA, or chosen by OPENBLAS_CORETYPE, are a
 * finding; the kernels the CPU would pick are none. Also the schema of
 * software.blas_run: a document without it loads, a wrong one is refused.
 * Every rank's BLAS (ranks[].blas): ranks apart from the others or below
 * their CPU named at their node. And the library provenance the report's
 * collective tables show (the MPI library in their titles).
 */
#include "reports/analysis/analyze.h"
#include "reports/render/render.h"
#include "tests/reports/report_fixture.h"

/* A one-rank document: software.blas_run {core, cpu_isa} (core NULL: none),
 * OPENBLAS_CORETYPE=forced when forced is not NULL, a gemm case if asked. */
static json_t *blas_doc(const char *core, const char *isa, const char *forced,
                        bool gemm) {
  json_t *doc = fx_doc(1, 1, 8, "Test CPU");
  if (core != NULL)
    json_object_set_new(json_object_get(doc, "software"), "blas_run",
                        json_pack("{s:s, s:s, s:i, s:s, s:s}", "library",
                                  "OpenBLAS", "core", core, "threads", 2,
                                  "parallel", "pthreads", "cpu_isa", isa));
  if (forced != NULL)
    json_object_set_new(json_object_get(doc, "run"), "environment",
                        json_pack("{s:s}", "OPENBLAS_CORETYPE", forced));
  const double figs[] = {100};
  if (gemm)
    fx_add_case(doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                             "GFLOP/s", figs, 1, 0.01, NULL));
  else
    fx_add_case(doc, fx_case("membw", "copy", "{\"kernel\": \"copy\"}", "GB/s",
                             figs, 1, 0.01, NULL));
  fx_check_valid(doc);
  return doc;
}

/* The blas-kernel findings of doc (at most 4) and how many. */
static size_t blas_findings(json_t *doc, struct gcb_finding *out) {
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_doc d = fx_doc_of("t.json", doc);
  struct gcb_findings fs = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_analyze(&d, 1, &t, &fs, &err), GCB_OK, "%s", err.msg);
  size_t n = 0;
  for (size_t i = 0; i < fs.n; i++)
    if (strcmp(fs.items[i].kind->name, "blas-kernel") == 0 && n < 4)
      out[n++] = fs.items[i];
  gcb_findings_free(&fs);
  fx_doc_free(&d);
  json_decref(doc);
  return n;
}

Test(rules_blas, openblas_choosing_sse3_kernels_on_an_avx512_cpu_is_a_warning) {
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(blas_doc("Prescott", "avx512", NULL, true), f), 1);
  cr_expect_eq(f[0].severity, GCB_SEV_WARN);
  cr_expect_eq(f[0].where.rank, 0);
  cr_expect(strstr(f[0].explanation, "Prescott kernels (sse3)") != NULL, "%s",
            f[0].explanation);
  cr_expect(strstr(f[0].explanation, "OpenBLAS's own choice") != NULL, "%s",
            f[0].explanation);
  cr_expect(strstr(f[0].suggestion, "OPENBLAS_CORETYPE=SkylakeX") != NULL, "%s",
            f[0].suggestion);
}

Test(rules_blas, a_forced_haswell_kernel_on_an_avx512_cpu_names_the_variable) {
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(blas_doc("Haswell", "avx512", "Haswell", true), f),
               1);
  cr_expect_eq(f[0].severity, GCB_SEV_WARN);
  cr_expect(strstr(f[0].explanation, "forced by OPENBLAS_CORETYPE=Haswell") !=
                NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].suggestion, "unset OPENBLAS_CORETYPE") != NULL, "%s",
            f[0].suggestion);
}

/* The schema asks for a library name but takes an empty one: the header's
 * sentence names OpenBLAS then, as every rank's does. */
Test(rules_blas, a_header_without_a_library_name_says_openblas) {
  struct gcb_finding f[4];
  json_t *doc = blas_doc("Haswell", "avx512", NULL, true);
  json_object_set_new(
      json_object_get(json_object_get(doc, "software"), "blas_run"), "library",
      json_string(""));
  cr_assert_eq(blas_findings(doc, f), 1);
  cr_expect(
      strncmp(f[0].explanation, "OpenBLAS runs its Haswell kernels", 33) == 0,
      "%s", f[0].explanation);
}

Test(rules_blas, core_names_match_in_any_case_as_static_builds_print_them) {
  struct gcb_finding f[4];
  cr_expect_eq(blas_findings(blas_doc("HASWELL", "avx512", NULL, true), f), 1);
  cr_expect_eq(blas_findings(blas_doc("SKYLAKEX", "avx512", NULL, true), f), 0);
}

Test(rules_blas, without_gemm_figures_a_slow_kernel_is_only_information) {
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(blas_doc("Haswell", "avx512", NULL, false), f), 1);
  cr_expect_eq(f[0].severity, GCB_SEV_INFO);
}

Test(rules_blas, a_forced_kernel_the_cpu_would_pick_anyway_is_information) {
  struct gcb_finding f[4];
  cr_assert_eq(
      blas_findings(blas_doc("SkylakeX", "avx512", "SkylakeX", true), f), 1);
  cr_expect_eq(f[0].severity, GCB_SEV_INFO);
  cr_expect(strstr(f[0].explanation, "OPENBLAS_CORETYPE=SkylakeX") != NULL,
            "%s", f[0].explanation);
}

Test(rules_blas, the_kernels_the_cpu_offers_or_unknown_ones_are_no_finding) {
  struct gcb_finding f[4];
  cr_expect_eq(blas_findings(blas_doc("SkylakeX", "avx512", NULL, true), f), 0);
  cr_expect_eq(blas_findings(blas_doc("Zen", "avx2", NULL, true), f), 0);
  cr_expect_eq(blas_findings(blas_doc("ARMV8", "", NULL, true), f), 0,
               "a core outside the table is not judged");
  cr_expect_eq(blas_findings(blas_doc("Haswell", "", NULL, true), f), 0,
               "without the CPU's ISA nothing is below it");
}

Test(rules_blas, documents_from_before_software_blas_run_load_and_say_nothing) {
  struct gcb_finding f[4];
  cr_expect_eq(blas_findings(blas_doc(NULL, NULL, NULL, true), f), 0);
  /* software.blas was, and stays, a version string beside blas_run */
  json_t *doc = blas_doc("Prescott", "avx512", NULL, true);
  json_object_set_new(json_object_get(doc, "software"), "blas",
                      json_string("OpenBLAS 0.3.21"));
  fx_check_valid(doc);
  cr_expect_eq(blas_findings(doc, f), 1);
}

/* The schema refuses a software.blas_run of the wrong shape, and a version
 * that is not a string, with a located message. */
Test(rules_blas, the_schema_checks_software_blas_and_the_version_strings) {
  static const struct {
    const char *member, *json, *what;
  } bad[] = {
      {"blas_run",
       "{\"library\": \"OpenBLAS\", \"core\": \"Haswell\", \"threads\": \"2\", "
       "\"parallel\": \"pthreads\"}",
       "software.blas_run.threads"},
      {"blas_run",
       "{\"library\": \"OpenBLAS\", \"core\": \"Haswell\", \"threads\": 2, "
       "\"parallel\": \"tbb\"}",
       "software.blas_run.parallel"},
      {"blas_run", "{\"library\": \"OpenBLAS\"}",
       "missing required field 'core'"},
      {"hwloc", "29", "software.hwloc"},
      {"mpi_device", "4", "software.mpi_device"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    json_t *doc = fx_doc(1, 1, 8, "Test CPU");
    json_object_set_new(json_object_get(doc, "software"), bad[i].member,
                        json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
    char *text = json_dumps(doc, JSON_INDENT(1));
    struct gcb_results *r = NULL;
    struct gcb_err err = {0};
    cr_expect_eq(gcb_results_parse(text, strlen(text), "t.json", &r, &err),
                 GCB_EINPUT, "%s accepted", bad[i].json);
    cr_expect(strstr(err.msg, bad[i].what) != NULL, "%s: %s", bad[i].what,
              err.msg);
    gcb_results_free(r);
    free(text);
    json_decref(doc);
  }
}

/* ---- every rank's BLAS (ranks[].blas) ------------------------------------ */

/* A document of n ranks on two nodes (ranks 0..n/2-1 on node00), each with
 * ranks[].blas {core[r], threads[r], cpu_isa[r]}, and a gemm case; rank
 * 0's as software.blas_run, as the run engine writes it. */
static json_t *ranks_doc(int n, const char *const *core, const int *threads,
                         const char *const *isa) {
  json_t *doc = fx_doc(n, 2, 8, "Test CPU");
  json_t *ranks = json_object_get(doc, "ranks");
  for (int r = 0; r < n; r++)
    json_object_set_new(json_array_get(ranks, (size_t)r), "blas",
                        json_pack("{s:s, s:i, s:s}", "core", core[r], "threads",
                                  threads[r], "cpu_isa", isa[r]));
  json_object_set_new(json_object_get(doc, "software"), "blas_run",
                      json_pack("{s:s, s:s, s:i, s:s, s:s}", "library",
                                "OpenBLAS", "core", core[0], "threads",
                                threads[0], "parallel", "pthreads", "cpu_isa",
                                isa[0]));
  double figs[FX_MAX_RANKS];
  for (int r = 0; r < n; r++)
    figs[r] = 100;
  fx_add_case(doc, fx_case("gemm", "fp32 1024", "{\"dtype\": \"fp32\"}",
                           "GFLOP/s", figs, (size_t)n, 0.01, NULL));
  fx_check_valid(doc);
  return doc;
}

static const char *const avx512[] = {"avx512", "avx512", "avx512", "avx512"};

Test(rules_blas, a_rank_with_one_thread_where_the_others_have_two_is_named) {
  const char *const core[] = {"SkylakeX", "SkylakeX", "SkylakeX", "SkylakeX"};
  const int threads[] = {2, 2, 2, 1};
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(ranks_doc(4, core, threads, avx512), f), 1);
  cr_expect_eq(f[0].severity, GCB_SEV_WARN);
  cr_expect_eq(f[0].where.node, 1, "at the rank's node");
  cr_expect_str_eq(f[0].where.hostname, "node01");
  cr_expect_str_eq(f[0].where.ranks, "3");
  cr_expect(strstr(f[0].explanation,
                   "rank 3 runs OpenBLAS's SkylakeX "
                   "kernels with 1 thread, where 3 of the "
                   "run's 4 ranks run SkylakeX with 2: a slower GEMM on "
                   "it") != NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].suggestion, "OPENBLAS_NUM_THREADS") != NULL);
}

Test(rules_blas, a_rank_forced_below_its_cpu_is_named_below_it_and_apart) {
  const char *const core[] = {"SkylakeX", "SkylakeX", "Haswell", "Haswell"};
  const int threads[] = {2, 2, 2, 2};
  const char *const isa[] = {"avx512", "avx512", "avx512", "avx512"};
  struct gcb_finding f[4];
  /* a tie: the pair rank 0 runs is the others' */
  cr_assert_eq(blas_findings(ranks_doc(4, core, threads, isa), f), 2);
  for (int i = 0; i < 2; i++) {
    cr_expect_eq(f[i].where.node, 1);
    cr_expect_str_eq(f[i].where.ranks, "2-3");
  }
  cr_expect(strstr(f[0].explanation, "Haswell kernels (avx2) on ranks 2-3, "
                                     "whose CPU offers avx512") != NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].suggestion, "SkylakeX") != NULL, "%s", f[0].suggestion);
  cr_expect(strstr(f[1].explanation, "ranks 2-3 run OpenBLAS's Haswell") !=
                NULL,
            "%s", f[1].explanation);
}

Test(rules_blas, every_rank_below_its_cpu_alike_is_one_finding_for_the_run) {
  const char *const core[] = {"Prescott", "Prescott", "Prescott", "Prescott"};
  const int same[] = {1, 1, 1, 1}, odd[] = {1, 1, 1, 2};
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(ranks_doc(4, core, same, avx512), f), 1);
  cr_expect_str_eq(f[0].where.ranks, "all");
  cr_expect_eq(f[0].where.rank, 0);
  cr_expect(strstr(f[0].explanation, "Prescott kernels (sse3)") != NULL);
  /* a thread count apart adds its own finding, not one per node */
  cr_assert_eq(blas_findings(ranks_doc(4, core, odd, avx512), f), 2);
  cr_expect_str_eq(f[0].where.ranks, "all");
  cr_expect_str_eq(f[1].where.ranks, "3");
  cr_expect(strstr(f[1].explanation, "with 2 threads, where 3") != NULL, "%s",
            f[1].explanation);
}

Test(rules_blas, ranks_that_agree_on_the_kernels_their_cpu_offers_say_nothing) {
  const char *const core[] = {"SkylakeX", "SKYLAKEX", "SkylakeX", "SkylakeX"};
  const int threads[] = {2, 2, 2, 2};
  struct gcb_finding f[4];
  cr_expect_eq(blas_findings(ranks_doc(4, core, threads, avx512), f), 0);
  /* a node whose CPU has no AVX-512 runs Haswell kernels: not below its
   * CPU, but apart from the others, which the report says */
  const char *const mixed[] = {"SkylakeX", "SkylakeX", "SkylakeX", "Haswell"};
  const char *const isa[] = {"avx512", "avx512", "avx512", "avx2"};
  cr_assert_eq(blas_findings(ranks_doc(4, mixed, threads, isa), f), 1);
  cr_expect_str_eq(f[0].where.ranks, "3");
  cr_expect(strstr(f[0].explanation, "Haswell kernels with 2 threads") != NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].explanation, "a slower GEMM on it") != NULL, "%s",
            f[0].explanation);
  /* one rank on better kernels than the others': they are the slow ones */
  const char *const better[] = {"Prescott", "Prescott", "Prescott", "Haswell"};
  const char *const isa4[] = {"avx2", "avx2", "avx2", "avx2"};
  /* ranks 0-1 (node00) and 2 (node01) below their CPU, 3 apart */
  cr_assert_eq(blas_findings(ranks_doc(4, better, threads, isa4), f), 3);
  cr_expect_str_eq(f[0].where.ranks, "0-1");
  cr_expect_str_eq(f[1].where.ranks, "2");
  cr_expect(strstr(f[2].explanation, "the others' GEMM is the slower") != NULL,
            "%s", f[2].explanation);
}

/* ranks[].blas is optional (documents before it load, as fx_doc's do) and
 * checked when present. */
Test(rules_blas, the_schema_checks_ranks_blas_and_accepts_documents_without) {
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  fx_check_valid(doc); /* no ranks[].blas */
  json_object_set_new(
      json_array_get(json_object_get(doc, "ranks"), 1), "blas",
      json_pack("{s:s, s:s}", "core", "Haswell", "threads", "2"));
  char *text = json_dumps(doc, JSON_INDENT(1));
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_parse(text, strlen(text), "t.json", &r, &err),
               GCB_EINPUT);
  cr_expect(strstr(err.msg, "ranks[1].blas.threads") != NULL, "%s", err.msg);
  gcb_results_free(r);
  free(text);
  json_decref(doc);
}

/* ---- the MPI library in the report's collective tables ------------------- */

/* The title of the report's first collective table for doc. */
static void coll_title(json_t *doc, char *buf, size_t size) {
  struct gcb_doc d = fx_doc_of("t.json", doc);
  struct gcb_findings fs = {0};
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &fs, .thresholds = &t};
  struct gcb_rtables tables = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &tables, &err), GCB_OK, "%s", err.msg);
  buf[0] = '\0';
  for (size_t i = 0; i < tables.n; i++)
    if (strcmp(tables.items[i].id, "coll-1") == 0)
      snprintf(buf, size, "%s", tables.items[i].title);
  gcb_rtables_free(&tables);
  fx_doc_free(&d);
}

Test(rules_blas, the_reports_collective_title_names_the_mpi_under_host_sweeps) {
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  json_t *sw = json_object_get(doc, "software");
  json_object_set_new(sw, "mpi", json_string("MPICH Version:\t4.0.2"));
  json_object_set_new(sw, "mpi_device", json_string("ch4:ucx"));
  json_object_set_new(json_object_get(doc, "run"), "environment",
                      json_pack("{s:s}", "UCX_TLS", "sm,self"));
  const double figs[] = {1, 1};
  fx_add_case(doc, fx_case("coll", "allreduce float sum 8B",
                           "{\"op\": \"allreduce\", \"type\": \"float\", "
                           "\"redop\": \"sum\", \"size\": 8, \"inplace\": 0}",
                           "GB/s", figs, 2, 1e-6, NULL));
  fx_check_valid(doc);
  char title[320];
  coll_title(doc, title, sizeof title);
  cr_expect_str_eq(title, "Collective allreduce float sum (host: MPICH 4.0.2 "
                          "ch4:ucx; UCX_TLS=sm,self)");
  json_object_set_new(json_array_get(json_object_get(doc, "cases"), 0),
                      "backend", json_string("cuda")); /* NCCL's */
  coll_title(doc, title, sizeof title);
  cr_expect_str_eq(title, "Collective allreduce float sum (cuda)");
  json_decref(doc);
}

Test(rules_blas, ranks_below_their_cpu_with_other_cores_are_named_apart) {
  const char *const core[] = {"SkylakeX", "SkylakeX", "Haswell", "Prescott"};
  const int threads[] = {2, 2, 2, 2};
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(ranks_doc(4, core, threads, avx512), f), 4);
  cr_expect_str_eq(f[0].where.ranks, "2");
  cr_expect(strstr(f[0].explanation, "Haswell kernels (avx2) on rank 2,") !=
                NULL,
            "%s", f[0].explanation);
  cr_expect_str_eq(f[1].where.ranks, "3");
  cr_expect(strstr(f[1].explanation, "Prescott kernels (sse3) on rank 3,") !=
                NULL,
            "%s", f[1].explanation);
  cr_expect(strstr(f[2].explanation, "rank 2 runs OpenBLAS's Haswell") != NULL,
            "%s", f[2].explanation);
  cr_expect(strstr(f[3].explanation, "rank 3 runs OpenBLAS's Prescott") != NULL,
            "%s", f[3].explanation);
}

/* ranks[].cpu_threads of doc set to `cpu[r]`. */
static json_t *with_cpu_threads(json_t *doc, const int *cpu) {
  json_t *ranks = json_object_get(doc, "ranks");
  for (size_t r = 0; r < json_array_size(ranks); r++)
    json_object_set_new(json_array_get(ranks, r), "cpu_threads",
                        json_integer(cpu[r]));
  fx_check_valid(doc);
  return doc;
}

Test(rules_blas, a_rank_with_fewer_blas_threads_than_its_cpus_is_named) {
  const char *const core[] = {"SkylakeX", "SkylakeX", "SkylakeX", "SkylakeX"};
  const int threads[] = {1, 1, 1, 1}, cpu[] = {1, 1, 1, 4};
  struct gcb_finding f[4];
  cr_assert_eq(
      blas_findings(with_cpu_threads(ranks_doc(4, core, threads, avx512), cpu),
                    f),
      1);
  cr_expect_str_eq(f[0].where.ranks, "3");
  cr_expect_eq(f[0].where.node, 1);
  cr_expect_float_eq(f[0].measured, 1, 1e-12);
  cr_expect_float_eq(f[0].expected, 4, 1e-12);
  cr_expect(strstr(f[0].explanation, "OpenBLAS runs 1 thread on rank 3, "
                                     "which was given 4 CPU threads") != NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].explanation, "25%") != NULL, "%s", f[0].explanation);
}

Test(rules_blas, every_rank_with_too_few_blas_threads_alike_is_one_finding) {
  const char *const core[] = {"SkylakeX", "SkylakeX", "SkylakeX", "SkylakeX"};
  const int threads[] = {1, 1, 1, 1}, cpu[] = {4, 4, 4, 4};
  struct gcb_finding f[4];
  cr_assert_eq(
      blas_findings(with_cpu_threads(ranks_doc(4, core, threads, avx512), cpu),
                    f),
      1);
  cr_expect_str_eq(f[0].where.ranks, "all");
  cr_expect(strstr(f[0].explanation,
                   "1 thread on every rank, which were given 4 CPU threads") !=
                NULL,
            "%s", f[0].explanation);
  cr_expect(strstr(f[0].suggestion, "OPENBLAS_NUM_THREADS") != NULL);
}

/* Whether the report's table `id` for doc has a cell holding `text`. */
static bool table_has(json_t *doc, const char *id, const char *text) {
  struct gcb_doc d = fx_doc_of("t.json", doc);
  struct gcb_findings fs = {0};
  struct gcb_thresholds t;
  gcb_thresholds_default(&t);
  struct gcb_report rep = {
      .docs = &d, .ndocs = 1, .findings = &fs, .thresholds = &t};
  struct gcb_rtables tables = {0};
  struct gcb_err err = {0};
  cr_assert_eq(gcb_report_tables(&rep, &tables, &err), GCB_OK, "%s", err.msg);
  bool found = false;
  for (size_t i = 0; i < tables.n; i++) {
    const struct gcb_rtable *tb = &tables.items[i];
    for (size_t c = 0;
         strcmp(tb->id, id) == 0 && c < (tb->nrows + 1) * tb->ncols; c++)
      found |= tb->cells[c] != NULL && strcmp(tb->cells[c], text) == 0;
  }
  gcb_rtables_free(&tables);
  fx_doc_free(&d);
  return found;
}

Test(rules_blas, the_reports_libraries_table_shows_the_mpi_probe) {
  json_t *doc = fx_doc(2, 1, 8, "Test CPU");
  json_object_set_new(
      json_object_get(doc, "run"), "mpi_probe",
      json_pack("{s:i, s:i, s:i, s:[{s:[i,i], s:b, s:i, s:f, s:f}, "
                "{s:[i,i], s:b, s:i, s:f, s:f}]}",
                "bytes", 8, "round_trips", 200, "batches", 10, "pairs", "ranks",
                0, 1, "same_node", 1, "batches", 10, "median_us", 0.43,
                "min_us", 0.41, "ranks", 0, 3, "same_node", 0, "batches", 0,
                "median_us", 6200.0, "min_us", 6200.0));
  fx_check_valid(doc);
  cr_expect(table_has(doc, "libraries",
                      "MPI probe, 8 B, ranks 0-1 (same "
                      "node)"));
  cr_expect(table_has(doc, "libraries",
                      "one-way 410 ns (least of 10 batches; median 430 ns)"));
  cr_expect(table_has(doc, "libraries",
                      "MPI probe, 8 B, ranks 0-3 (two "
                      "nodes)"));
  cr_expect(table_has(doc, "libraries",
                      "one-way 6.2 ms (cut short before a whole batch: "
                      "the round trips made)"));
  json_decref(doc);
}

/* Twenty (core, threads) pairs, each counted apart: the four ranks of
 * rank 0's pair are the most, not the last five pairs of one rank each
 * taken together. */
Test(rules_blas, every_pair_of_core_and_threads_is_counted_apart) {
  const char *core[24], *isa[24];
  int threads[24];
  for (int r = 0; r < 24; r++) {
    core[r] = "SkylakeX";
    isa[r] = "avx512";
    threads[r] = r < 4 ? 2 : r - 1; /* 2 2 2 2 3 4 ... 22 */
  }
  struct gcb_finding f[4];
  cr_assert_eq(blas_findings(ranks_doc(24, core, threads, isa), f), 4);
  cr_expect_str_eq(f[0].where.ranks, "4");
  cr_expect(strstr(f[0].explanation, "where 4 of the run's 24 ranks run "
                                     "SkylakeX with 2") != NULL,
            "%s", f[0].explanation);
}
