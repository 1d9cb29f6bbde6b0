// The second translation unit of link_test_a.cpp.

#include <memfmt/reorder/kernel/run.hpp>

#include "memfmt_check.hpp"

namespace memfmt_test {

bool link_b_transpose_ok() { return memfmt_transpose_ok(); }

const void* link_b_table() { return &memfmt::detail::kernel_table; }

memfmt::detail::run_nest_fn link_b_best_kernel() { return memfmt::detail::compiled_kernel_targets[0].run; }

}  // namespace memfmt_test
