// memfmt's kernels included from inside the user's own per-target -inl.h, that
// is, first seen in the middle of the user's first foreach_target.h pass.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "foreach_target_user_inside-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "foreach_target_user_inside-inl.h"

#include "foreach_target_user.hpp"
#include "memfmt_check.hpp"

#if HWY_ONCE
namespace user_inside {
HWY_EXPORT(compiled_for);
HWY_EXPORT(lanes);
}  // namespace user_inside

namespace user_inside {
namespace {

// HWY_DYNAMIC_DISPATCH names the function unqualified, from its own namespace
// (with a single target it expands to N_<TARGET>::name).
memfmt_test::tu_report report() {
  memfmt_test::tu_report r;
  r.user_target = HWY_DYNAMIC_DISPATCH(compiled_for)();
  r.user_lanes = HWY_DYNAMIC_DISPATCH(lanes)();
  r.memfmt_target = memfmt::detail::kernel_target_now();
  r.memfmt_ok = memfmt_test::memfmt_transpose_ok();
  r.memfmt_table = &memfmt::detail::kernel_table;
  r.memfmt_best = reinterpret_cast<const void*>(memfmt::detail::compiled_kernel_targets[0].run);
  return r;
}

}  // namespace
}  // namespace user_inside

namespace memfmt_test {

tu_report report_memfmt_inside() { return user_inside::report(); }

}  // namespace memfmt_test
#endif  // HWY_ONCE
