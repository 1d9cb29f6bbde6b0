// Two translation units that include memfmt's kernels link into one program:
// no duplicate symbols, and both use the same (inline, external-linkage)
// dispatch table and kernels.

#include <memfmt/reorder/kernel/run.hpp>

#include <catch2/catch.hpp>

#include "memfmt_check.hpp"

namespace memfmt_test {
bool link_b_transpose_ok();
const void* link_b_table();
memfmt::detail::run_nest_fn link_b_best_kernel();
}  // namespace memfmt_test

TEST_CASE("two translation units with memfmt's kernels link into one program", "[kernel][link]") {
  CHECK(memfmt_test::memfmt_transpose_ok());
  CHECK(memfmt_test::link_b_transpose_ok());
  // One definition of the table and of every kernel, whichever unit asks.
  CHECK(memfmt_test::link_b_table() == static_cast<const void*>(&memfmt::detail::kernel_table));
  CHECK(memfmt_test::link_b_best_kernel() == memfmt::detail::compiled_kernel_targets[0].run);
}
