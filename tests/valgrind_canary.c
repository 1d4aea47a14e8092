/* Planted errors for scripts/valgrind-tests, which runs this binary first,
 * the way it runs every unit test binary, and stops unless memcheck fails
 * the two tests below that read past a block and leak one, and passes the
 * third: proof that the pass (tests/valgrind_runner.c, its valgrind options
 * and suppressions) can still fail. Not a ctest test: natively all three
 * pass. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static volatile char sink;
static volatile size_t past = 16; /* hidden from the compiler's checks */
static char *volatile kept;

Test(canary, reads_past_a_block) {
  char *p = malloc(16);
  cr_assert_not_null(p);
  memset(p, 'x', 16);
  sink = p[past];
  free(p);
}

Test(canary, leaks_a_block) {
  kept = malloc(48);
  cr_assert_not_null(kept);
  memset(kept, 'x', 48);
  kept = NULL;
}

Test(canary, frees_what_it_allocates) {
  kept = malloc(48);
  cr_assert_not_null(kept);
  memset(kept, 'x', 48);
  sink = kept[past];
  free(kept);
  kept = NULL;
}
