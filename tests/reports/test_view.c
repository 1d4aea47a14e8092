/*
 * Tests for the views over a results document (reports/document/view.h).
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "reports/document/view.h"

/* The one definition of a sweep (reports/document/view.h): the sizes and
 * the in-place half of one collective sweep share a key; another type,
 * transport or bench does not. */
Test(sweep, sizes_and_halves_share_a_key_other_parameters_do_not) {
  json_t *a =
      json_pack("{s:s, s:s, s:s, s:{s:s, s:i, s:i, s:s, s:i}}", "bench", "coll",
                "backend", "nccl", "unit", "GB/s", "params", "op", "allreduce",
                "size", 1024, "count", 256, "type", "float", "inplace", 0);
  json_t *b = json_deep_copy(a);
  json_t *pb = json_object_get(b, "params");
  json_object_set_new(pb, "size", json_integer(1 << 20));
  json_object_set_new(pb, "count", json_integer(1 << 18));
  json_object_set_new(pb, "inplace", json_integer(1));
  json_t *other_type = json_deep_copy(a);
  json_object_set_new(json_object_get(other_type, "params"), "type",
                      json_string("half"));
  json_t *other_backend = json_deep_copy(a);
  json_object_set_new(other_backend, "backend", json_string("mpi"));
  char ka[GCB_VIEW_SWEEP_KEY], kb[GCB_VIEW_SWEEP_KEY], kt[GCB_VIEW_SWEEP_KEY],
      kx[GCB_VIEW_SWEEP_KEY];
  gcb_view_sweep_key(a, ka, sizeof ka);
  gcb_view_sweep_key(b, kb, sizeof kb);
  gcb_view_sweep_key(other_type, kt, sizeof kt);
  gcb_view_sweep_key(other_backend, kx, sizeof kx);
  cr_expect_str_eq(ka, kb);
  cr_expect_str_eq(ka, "coll op=allreduce type=float [GB/s] nccl");
  cr_expect_str_neq(ka, kt);
  cr_expect_str_neq(ka, kx);
  json_decref(a);
  json_decref(b);
  json_decref(other_type);
  json_decref(other_backend);
}
