/*
 * What the results header records about the libraries under a figure
 * (bench/run/provenance.c, header.c, section_header.c): the MPI device read
 * from real MPI_Get_library_version texts (tests/data/mpi/README.md), the
 * BLAS as OpenBLAS reports it, the BLAS/OpenMP variables among the launch
 * environment, and software.blas_run / software.mpi_device written into a
 * document that reads back.
 */
#include <cblas.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/header.h"
#include "bench/run/sink.h"

static char *slurp(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/mpi/%s", GCB_TEST_DATA, name);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  static char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return buf;
}

Test(provenance, the_mpi_device_comes_from_real_mpich_version_texts) {
  static const struct {
    const char *file, *device;
  } cases[] = {
      {"mpich-3.4.3-ch4-ofi.txt", "ch4:ofi"},          /* "Device:ch4:ofi" */
      {"mpich-4.0.2-debian12-ch4-ucx.txt", "ch4:ucx"}, /* "Device:\tch4:ucx" */
      {"cray-mpich-8.1.22.txt", ""},                   /* names none */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char device[64] = "x";
    gcb__mpi_device(slurp(cases[i].file), device, sizeof device);
    cr_expect_str_eq(device, cases[i].device, "%s", cases[i].file);
  }
}

Test(provenance, a_text_without_a_device_or_none_at_all_gives_an_empty_one) {
  char device[16] = "x";
  gcb__mpi_device("Open MPI v4.1.6, package: Debian OpenMPI", device,
                  sizeof device);
  cr_expect_str_eq(device, "");
  gcb__mpi_device(NULL, device, sizeof device);
  cr_expect_str_eq(device, "");
  gcb__mpi_device("MPICH Device:   \n", device, sizeof device);
  cr_expect_str_eq(device, "", "an empty value is no device");
  gcb__mpi_device("MPICH Device: ch4:a-very-long-netmod-name", device,
                  sizeof device);
  cr_expect_eq(strlen(device), sizeof device - 1, "truncated, terminated");
}

Test(provenance, the_blas_is_described_as_openblas_reports_it) {
  struct gcb_blas_info b;
  gcb__blas_probe(&b);
  cr_expect_str_eq(b.library, "OpenBLAS");
  cr_expect_str_eq(b.core, openblas_get_corename());
  cr_expect_eq(b.threads, openblas_get_num_threads());
  cr_expect_geq(b.threads, 1);
  static const char *const models[] = {"sequential", "pthreads", "openmp"};
  cr_expect_str_eq(b.parallel, models[openblas_get_parallel()]);
#if defined(__x86_64__)
  const char *isas = " sse2 sse3 avx avx2 avx512 ";
  char word[20];
  snprintf(word, sizeof word, " %s ", b.cpu_isa);
  cr_expect(b.cpu_isa[0] != '\0' && strstr(isas, word) != NULL, "'%s'",
            b.cpu_isa);
  cr_expect_eq(strcmp(b.cpu_isa, "avx512") == 0,
               __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512dq"));
#endif
  char line[96];
  struct gcb_blas_info two = {.library = "OpenBLAS",
                              .core = "Haswell",
                              .threads = 2,
                              .parallel = "pthreads"};
  gcb__blas_describe(&two, line, sizeof line);
  cr_expect_str_eq(line, "OpenBLAS Haswell kernels, 2 threads (pthreads)");
  two.threads = 1;
  gcb__blas_describe(&two, line, sizeof line);
  cr_expect_str_eq(line, "OpenBLAS Haswell kernels, 1 thread (pthreads)");
}

Test(provenance, the_blas_and_openmp_variables_are_part_of_the_launch_context) {
  char *env[] = {"OPENBLAS_CORETYPE=Haswell",
                 "OMP_NUM_THREADS=4",
                 "GOTO_NUM_THREADS=2",
                 "OPENBLAS_NUM_THREADS=8",
                 "MPIR_CVAR_CH4_NETMOD=ofi",
                 "UCX_TLS=rc,sm",
                 "FI_PROVIDER=efa",
                 "HOME=/root",
                 "OMP_AUTH_TOKEN=hidden",
                 "OMPI_X=1",
                 NULL};
  const char **got = gcb__launch_env(env);
  cr_assert_not_null(got);
  const char *want[] = {"FI_PROVIDER=efa",
                        "GOTO_NUM_THREADS=2",
                        "MPIR_CVAR_CH4_NETMOD=ofi",
                        "OMP_NUM_THREADS=4",
                        "OPENBLAS_CORETYPE=Haswell",
                        "OPENBLAS_NUM_THREADS=8",
                        "UCX_TLS=rc,sm",
                        NULL};
  size_t n = 0;
  for (; got[n] != NULL; n++)
    cr_expect(want[n] != NULL && strcmp(got[n], want[n]) == 0, "%zu: %s", n,
              got[n]);
  cr_expect_eq(n, 7, "HOME, OMPI_X (not OMPI_MCA_) and a secret left out");
  free(got);
}

/* The header of run and id, dumped and read back as a reader sees it. */
static json_t *round_trip(const struct gcb_run_info *run,
                          const struct gcb_identity *id) {
  struct gcb_results *r = gcb_results_new();
  struct gcb_err err = {0};
  cr_assert_eq(gcb_results_set_header(r, run, id, NULL, 0, &err), GCB_OK, "%s",
               err.msg);
  char *text = json_dumps(gcb_results_json(r), JSON_INDENT(1));
  gcb_results_free(r);
  struct gcb_results *back = NULL;
  cr_assert_eq(gcb_results_parse(text, strlen(text), "t.json", &back, &err),
               GCB_OK, "%s", err.msg);
  free(text);
  json_t *doc = json_incref(gcb_results_json(back));
  gcb_results_free(back);
  return doc;
}

/* A header with the libraries' provenance, dumped and read back. */
static json_t *header_doc(const struct gcb_blas_info *blas, const char *dev) {
  struct gcb_identity id = {.rank = 0, .cpu_threads = 2, .bound_pus = 2};
  snprintf(id.hostname, sizeof id.hostname, "vm");
  id.device.index = -1;
  char *argv[] = {"gcbench", "gemm"};
  struct gcb_run_info run = {.command = "gemm",
                             .argc = 2,
                             .argv = argv,
                             .run_id = "20261201-000000-1",
                             .backend = "host",
                             .backend_reason = "test",
                             .ranks = 1,
                             .nodes = 1,
                             .mpi = "MPICH Version:\t4.0.2",
                             .hwloc = "2.9.0",
                             .backend_versions = "OpenBLAS 0.3.21",
                             .blas = blas,
                             .mpi_device = dev};
  return round_trip(&run, &id);
}

Test(provenance, software_records_the_blas_and_the_mpi_device_and_reads_back) {
  struct gcb_blas_info b = {.library = "OpenBLAS",
                            .core = "Prescott",
                            .threads = 2,
                            .parallel = "pthreads",
                            .cpu_isa = "avx512"};
  json_t *doc = header_doc(&b, "ch4:ucx");
  json_t *sw = json_object_get(doc, "software");
  cr_expect_str_eq(json_string_value(json_object_get(sw, "mpi_device")),
                   "ch4:ucx");
  json_t *blas = json_object_get(sw, "blas_run");
  cr_expect_str_eq(json_string_value(json_object_get(blas, "core")),
                   "Prescott");
  cr_expect_eq(json_integer_value(json_object_get(blas, "threads")), 2);
  cr_expect_str_eq(json_string_value(json_object_get(blas, "parallel")),
                   "pthreads");
  cr_expect_str_eq(json_string_value(json_object_get(blas, "cpu_isa")),
                   "avx512");
  json_decref(doc);
  b.cpu_isa[0] = '\0'; /* off x86: no ISA, no member */
  doc = header_doc(&b, "");
  sw = json_object_get(doc, "software");
  cr_expect_null(json_object_get(sw, "mpi_device"), "no device, no member");
  cr_expect_null(json_object_get(json_object_get(sw, "blas_run"), "cpu_isa"));
  json_decref(doc);
  doc = header_doc(NULL, NULL);
  cr_expect_null(json_object_get(json_object_get(doc, "software"), "blas_run"));
  json_decref(doc);
}

/* The live table's header lines for one record, with `blas` and `mpi` as
 * the harness hands them over. */
static char *table_lines_probe(struct gcb_record *rec, const char *blas,
                               const char *mpi, const char *probe) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  char *line = strdup(mpi);
  cr_assert_not_null(line);
  struct gcb_table table = {.out = out, .nranks = 1, .mpi = line};
  snprintf(table.blas, sizeof table.blas, "%s", blas);
  snprintf(table.mpi_probe, sizeof table.mpi_probe, "%s", probe);
  struct gcb_sink sink = gcb_table_sink(&table);
  struct gcb_err err = {0};
  struct gcb_rank_result rank = {.rank = 0};
  double t[3] = {1e-3, 2e-3, 3e-3};
  gcb_stats_compute(t, 3, &rank.seconds);
  rank.time_s = rank.seconds.median;
  rec->nranks = 1;
  rec->ranks = &rank;
  cr_assert_eq(sink.record(sink.self, rec, &err), GCB_OK);
  cr_assert_eq(sink.finish(sink.self, &err), GCB_OK);
  fclose(out);
  free(line);
  return text;
}

static char *table_lines(struct gcb_record *rec, const char *blas,
                         const char *mpi) {
  return table_lines_probe(rec, blas, mpi, "");
}

static char *table_header(struct gcb_record *rec, const char *blas) {
  return table_lines(rec, blas, "");
}

Test(provenance, gemm_names_its_kernels_and_every_table_its_time_statistic) {
  struct gcb_record rec = {
      .bench = "gemm",
      .backend = "host",
      .iterations = 3,
      .warmup = 1,
      .work_per_op = 2e6,
      .figure = {.unit = "GFLOP/s", .scale = 1e9, .counted = "flops"}};
  gcb_record_param_str(&rec, "dtype", "fp32");
  char *text = table_header(&rec, "OpenBLAS Haswell kernels, 2 threads "
                                  "(pthreads)");
  cr_expect(strstr(text, "# gemm on host (OpenBLAS Haswell kernels, 2 threads "
                         "(pthreads)): 1 rank(s)") != NULL,
            "%s", text);
  cr_expect(strstr(text, "# time: median over ranks of each rank's median "
                         "iteration") != NULL,
            "%s", text);
  cr_expect(strstr(text, "(med/ranks)") != NULL, "%s", text);
  free(text);
  rec.bench = "membw"; /* not the BLAS's figure: no kernel named */
  text = table_header(&rec, "OpenBLAS Haswell kernels, 2 threads (pthreads)");
  cr_expect(strstr(text, "# membw on host: 1 rank(s)") != NULL, "%s", text);
  free(text);
  struct gcb_record coll = {
      .bench = "coll",
      .backend = "host",
      .iterations = 3,
      .warmup = 1,
      .layout = GCB_LAYOUT_COLLECTIVE,
      .work_per_op = 8,
      .figure = {
          .unit = "GB/s", .scale = 1e9, .counted = "bytes", .bus_factor = 1}};
  snprintf(coll.label, sizeof coll.label, "allreduce float sum 8B");
  gcb_record_param_str(&coll, "op", "allreduce");
  gcb_record_param_size(&coll, "size", 8);
  gcb_record_param_int(&coll, "inplace", 0);
  gcb_record_param_int(&coll, "average", 3);
  text = table_header(&coll, "");
  cr_expect(strstr(text, "time: max over ranks of each rank's loop time\n") !=
                NULL,
            "%s", text);
  free(text);
}

/* ---- the start-up MPI probe (mpi_probe.c, run.mpi_probe) ----------------- */

Test(provenance, the_mpi_probe_pairs_rank_0_with_a_local_and_a_remote_peer) {
  int peers[2] = {-1, -1};
  const int one[] = {0};
  cr_expect_eq(gcb__probe_peers(one, 1, peers), 0, "one rank: no pair");
  const int local[] = {0, 0};
  cr_assert_eq(gcb__probe_peers(local, 2, peers), 1);
  cr_expect_eq(peers[0], 1);
  /* rank 1 beside rank 0: the first rank of another node is the second */
  const int two_nodes[] = {0, 0, 0, 1, 1, 1};
  cr_assert_eq(gcb__probe_peers(two_nodes, 6, peers), 2);
  cr_expect(peers[0] == 1 && peers[1] == 3, "%d %d", peers[0], peers[1]);
  /* ranks placed round-robin: rank 1 elsewhere, rank 2 beside rank 0 */
  const int round_robin[] = {0, 1, 0, 1};
  cr_assert_eq(gcb__probe_peers(round_robin, 4, peers), 2);
  cr_expect(peers[0] == 1 && peers[1] == 2, "%d %d", peers[0], peers[1]);
  const int one_each[] = {0, 1, 2};
  cr_expect_eq(gcb__probe_peers(one_each, 3, peers), 1, "no second local");
}

Test(provenance, the_mpi_probe_latency_is_half_a_round_trip_median_and_min) {
  /* batches of 20 round trips: 8 us per batch is 0.2 us one way */
  const double batch_s[] = {8e-6, 18e-6, 9e-6, 4000e-6, 10e-6};
  double median = 0, min = 0;
  gcb__probe_summarize(batch_s, 5, 20, &median, &min);
  cr_expect_float_eq(min, 0.2, 1e-9);
  cr_expect_float_eq(median, 0.25, 1e-9,
                     "a descheduled batch moves no "
                     "median: %g",
                     median);
  gcb__probe_summarize(batch_s, 4, 20, &median, &min);
  cr_expect_float_eq(median, (0.225 + 0.45) / 2, 1e-9, "%g", median);
}

/* A one-rank header with the probe given, dumped and read back. */
static json_t *probe_doc(const struct gcb_mpi_probe *probe) {
  struct gcb_identity id = {.rank = 0, .cpu_threads = 2, .bound_pus = 2};
  snprintf(id.hostname, sizeof id.hostname, "vm");
  snprintf(id.blas.core, sizeof id.blas.core, "Haswell");
  snprintf(id.blas.cpu_isa, sizeof id.blas.cpu_isa, "avx512");
  id.blas.threads = 2;
  id.device.index = -1;
  char *argv[] = {"gcbench", "coll"};
  struct gcb_run_info run = {.command = "coll",
                             .argc = 2,
                             .argv = argv,
                             .run_id = "20261201-000000-1",
                             .backend = "host",
                             .backend_reason = "test",
                             .ranks = 1,
                             .nodes = 1,
                             .mpi = "MPICH Version:\t4.0.2",
                             .hwloc = "2.9.0",
                             .backend_versions = "OpenBLAS 0.3.21",
                             .mpi_probe = probe};
  return round_trip(&run, &id);
}

Test(provenance, the_run_records_the_mpi_probe_and_each_ranks_blas) {
  struct gcb_mpi_probe p = {
      .bytes = 8,
      .round_trips = 200,
      .batches = 10,
      .npairs = 2,
      .pair = {{1, true, 10, 0.45, 0.41}, {3, false, 4, 2.5, 2.25}}};
  json_t *doc = probe_doc(&p);
  json_t *probe = json_object_get(json_object_get(doc, "run"), "mpi_probe");
  cr_assert_not_null(probe);
  cr_expect_eq(json_integer_value(json_object_get(probe, "bytes")), 8);
  cr_expect_eq(json_integer_value(json_object_get(probe, "round_trips")), 200);
  json_t *pairs = json_object_get(probe, "pairs");
  cr_assert_eq(json_array_size(pairs), 2);
  json_t *second = json_array_get(pairs, 1);
  cr_expect_eq(
      json_integer_value(json_array_get(json_object_get(second, "ranks"), 1)),
      3);
  cr_expect(json_is_false(json_object_get(second, "same_node")));
  cr_expect_eq(json_integer_value(json_object_get(second, "batches")), 4,
               "cut short by the budget: the batches that were whole");
  cr_expect_float_eq(json_real_value(json_object_get(second, "median_us")), 2.5,
                     1e-12);
  cr_expect_float_eq(json_real_value(json_object_get(second, "min_us")), 2.25,
                     1e-12);
  json_t *blas =
      json_object_get(json_array_get(json_object_get(doc, "ranks"), 0), "blas");
  cr_expect_str_eq(json_string_value(json_object_get(blas, "core")), "Haswell");
  cr_expect_eq(json_integer_value(json_object_get(blas, "threads")), 2);
  cr_expect_str_eq(json_string_value(json_object_get(blas, "cpu_isa")),
                   "avx512");
  json_decref(doc);
  p.npairs = 0; /* one rank: nothing to probe, no member */
  doc = probe_doc(&p);
  cr_expect_null(json_object_get(json_object_get(doc, "run"), "mpi_probe"));
  json_decref(doc);
  doc = probe_doc(NULL);
  cr_expect_null(json_object_get(json_object_get(doc, "run"), "mpi_probe"));
  json_decref(doc);
}

Test(provenance, the_schema_refuses_an_mpi_probe_of_the_wrong_shape) {
  struct gcb_mpi_probe p = {.bytes = 8,
                            .round_trips = 200,
                            .batches = 10,
                            .npairs = 1,
                            .pair = {{1, true, 10, 0.45, 0.41}}};
  json_t *doc = probe_doc(&p);
  json_t *pair = json_array_get(
      json_object_get(json_object_get(json_object_get(doc, "run"), "mpi_probe"),
                      "pairs"),
      0);
  json_object_set_new(pair, "median_us", json_string("0.45"));
  char *text = json_dumps(doc, JSON_INDENT(1));
  struct gcb_results *r = NULL;
  struct gcb_err err = {0};
  cr_expect_eq(gcb_results_parse(text, strlen(text), "t.json", &r, &err),
               GCB_EINPUT);
  cr_expect(strstr(err.msg, "run.mpi_probe.pairs[0].median_us") != NULL, "%s",
            err.msg);
  gcb_results_free(r);
  free(text);
  json_decref(doc);
}

/* ---- the MPI library in the collective tables' headers ------------------- */

/* A header whose software.mpi is the first line of a real version text
 * (tests/data/mpi, as the run engine records it), its device, and env. */
static json_t *mpi_doc(const char *file, const char *env_json) {
  char *text = slurp(file), device[64];
  gcb__mpi_device(text, device, sizeof device);
  text[strcspn(text, "\n")] = '\0';
  json_t *doc = json_pack("{s:{s:s, s:s}, s:{}}", "software", "mpi", text,
                          "mpi_device", device, "run");
  if (env_json != NULL)
    json_object_set_new(json_object_get(doc, "run"), "environment",
                        json_loads(env_json, 0, NULL));
  return doc;
}

Test(provenance, the_mpi_line_names_library_device_and_transport_settings) {
  static const struct {
    const char *file, *env, *line;
  } cases[] = {
      {"mpich-4.0.2-debian12-ch4-ucx.txt", NULL, "MPICH 4.0.2 ch4:ucx"},
      {"mpich-4.0.2-debian12-ch4-ucx.txt",
       "{\"UCX_TLS\": \"sm,self\", \"UCX_RNDV_THRESH\": \"8k\", "
       "\"MPIR_CVAR_CH4_NETMOD\": \"ucx\"}",
       "MPICH 4.0.2 ch4:ucx; MPIR_CVAR_CH4_NETMOD=ucx, UCX_TLS=sm,self"},
      {"mpich-3.4.3-ch4-ofi.txt", "{\"FI_PROVIDER\": \"efa\"}",
       "MPICH 3.4.3 ch4:ofi; FI_PROVIDER=efa"},
      {"cray-mpich-8.1.22.txt", NULL, "CRAY MPICH version 8.1.22.12"},
  };
  char line[192];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    json_t *doc = mpi_doc(cases[i].file, cases[i].env);
    gcb_view_mpi_line(doc, line, sizeof line);
    cr_expect_str_eq(line, cases[i].line, "%s", cases[i].file);
    json_decref(doc);
  }
  json_t *open_mpi = json_pack(
      "{s:{s:s}}", "software", "mpi",
      "Open MPI v4.1.6, package: Debian OpenMPI, ident: 4.1.6, repo rev: "
      "v4.1.6, Sep 30, 2023");
  gcb_view_mpi_line(open_mpi, line, sizeof line);
  cr_expect_str_eq(line, "Open MPI v4.1.6");
  json_decref(open_mpi);
  json_t *none = json_pack("{s:{}}", "software");
  gcb_view_mpi_line(none, line, sizeof line);
  cr_expect_str_eq(line, "", "a document that records no MPI: no line");
  json_decref(none);
}

/* A collective record of the given layout on the given backend. */
static void coll_record(struct gcb_record *coll, const char *backend,
                        const char *layout) {
  *coll = (struct gcb_record){
      .bench = "coll",
      .backend = backend,
      .iterations = 3,
      .warmup = 1,
      .layout = GCB_LAYOUT_COLLECTIVE,
      .work_per_op = 8,
      .figure = {
          .unit = "GB/s", .scale = 1e9, .counted = "bytes", .bus_factor = 1}};
  snprintf(coll->label, sizeof coll->label, "allreduce float sum 8B");
  gcb_record_param_str(coll, "op", "allreduce");
  gcb_record_param_size(coll, "size", 8);
  gcb_record_param_str(coll, "type", "float");
  gcb_record_param_int(coll, "inplace", 0);
  gcb_record_param_str(coll, "layout", layout);
}

Test(provenance, the_live_collective_header_names_mpi_but_osu_layouts_do_not) {
  static const char mpi[] = "MPICH 4.0.2 ch4:ucx; UCX_TLS=sm,self";
  struct gcb_record coll;
  coll_record(&coll, "host", "nccl");
  char *text = table_lines(&coll, "", mpi);
  cr_expect(strstr(text, "loop time\n# gcbench MPI: MPICH 4.0.2 ch4:ucx; "
                         "UCX_TLS=sm,self\n#\n") != NULL,
            "%s", text);
  free(text);
  coll_record(&coll, "host", "gcbench");
  text = table_lines(&coll, "", mpi);
  cr_expect(strstr(text, "# gcbench MPI: MPICH 4.0.2") != NULL, "%s", text);
  free(text);
  coll_record(&coll, "cuda", "nccl"); /* NCCL's collectives: no MPI line */
  text = table_lines(&coll, "", mpi);
  cr_expect(strstr(text, "MPICH") == NULL, "%s", text);
  free(text);
  static const char *const osu[] = {"osu", "osu-full"};
  for (size_t i = 0; i < 2; i++) { /* OSU's own bytes, nothing added */
    coll_record(&coll, "host", osu[i]);
    text = table_lines(&coll, "", mpi);
    cr_expect(strstr(text, "MPICH") == NULL, "%s: %s", osu[i], text);
    cr_expect(strstr(text, "# OSU MPI") != NULL, "%s: %s", osu[i], text);
    free(text);
  }
}

Test(provenance, the_live_collective_header_names_every_transport_setting) {
  /* sixteen rails (two ports of eight NICs): past any fixed buffer */
  char devices[512] = "";
  for (int i = 0; i < 16; i++)
    snprintf(devices + strlen(devices), sizeof devices - strlen(devices),
             "%smlx5_%d:1", i ? "," : "", i);
  json_t *doc = json_pack(
      "{s:{s:s, s:s}, s:{s:{s:s, s:s, s:s}}}", "software", "mpi",
      "MPICH Version:\t4.0.2\nMPICH Release date: ...", "mpi_device", "ch4:ucx",
      "run", "environment", "UCX_TLS", "rc_x,sm,self,cuda_copy",
      "UCX_NET_DEVICES", devices, "FI_PROVIDER", "verbs;ofi_rxm");
  cr_assert_not_null(doc);
  size_t n = gcb_view_mpi_line(doc, NULL, 0);
  char *mpi = malloc(n + 1);
  cr_assert_not_null(mpi);
  cr_assert_eq(gcb_view_mpi_line(doc, mpi, n + 1), n);
  cr_assert_gt(n, 192, "the line this test is for: %zu bytes", n);
  struct gcb_record coll;
  coll_record(&coll, "host", "nccl");
  char *text = table_lines(&coll, "", mpi);
  char want[1024];
  snprintf(
      want, sizeof want,
      "# gcbench MPI: MPICH 4.0.2 ch4:ucx; UCX_TLS=rc_x,sm,self,cuda_copy, "
      "UCX_NET_DEVICES=%s, FI_PROVIDER=verbs;ofi_rxm\n",
      devices);
  cr_expect(strstr(text, want) != NULL, "%s", text);
  free(text);
  free(mpi);
  json_decref(doc);
}

Test(provenance, the_live_collective_header_shows_the_launchs_mpi_probe) {
  json_t *doc =
      json_pack("{s:{s:{s:i, s:i, s:i, s:[{s:[i,i], s:b, s:i, s:f, s:f}, "
                "{s:[i,i], s:b, s:i, s:f, s:f}]}}}",
                "run", "mpi_probe", "bytes", 8, "round_trips", 200, "batches",
                10, "pairs", "ranks", 0, 1, "same_node", 1, "batches", 10,
                "median_us", 0.43, "min_us", 0.41, "ranks", 0, 4, "same_node",
                0, "batches", 0, "median_us", 2500.0, "min_us", 2500.0);
  char probe[160];
  gcb_view_mpi_probe_line(doc, probe, sizeof probe);
  cr_expect_str_eq(probe, "8 B one-way 410 ns (ranks 0-1, same node); 2.5 ms "
                          "(ranks 0-4, two nodes, cut short)");
  json_decref(doc);
  struct gcb_record coll;
  coll_record(&coll, "host", "nccl");
  char *text = table_lines_probe(&coll, "", "MPICH 4.0.2 ch4:ucx", probe);
  cr_expect(strstr(text,
                   "# gcbench MPI: MPICH 4.0.2 ch4:ucx\n# gcbench MPI "
                   "probe: 8 B one-way 410 ns (ranks 0-1, same node); "
                   "2.5 ms (ranks 0-4, two nodes, cut short)\n#\n") != NULL,
            "%s", text);
  free(text);
  coll_record(&coll, "host", "osu");
  text = table_lines_probe(&coll, "", "MPICH 4.0.2 ch4:ucx", probe);
  cr_expect(strstr(text, "probe") == NULL, "OSU's layout: %s", text);
  free(text);
  json_t *none = json_pack("{s:{}}", "run");
  gcb_view_mpi_probe_line(none, probe, sizeof probe);
  cr_expect_str_eq(probe, "", "no probe, no line");
  json_decref(none);
}
