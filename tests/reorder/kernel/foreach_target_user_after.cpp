// The user's own Highway foreach_target.h and highway.h first, memfmt's kernels after.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "foreach_target_user-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "foreach_target_user-inl.h"

#include <memfmt/reorder/kernel/run.hpp>

#include "foreach_target_user.hpp"
#include "memfmt_check.hpp"

// memfmt restored Highway's state: the static target's macros are back.
#ifndef HWY_NAMESPACE
#error "memfmt lost HWY_NAMESPACE"
#endif
#ifdef N_AVX2
#error "memfmt leaked its namespace renaming"
#endif

#if HWY_ONCE
namespace user_code {
HWY_EXPORT(compiled_for);
HWY_EXPORT(lanes);
HWY_EXPORT(sum);
}  // namespace user_code

namespace user_code {
namespace {

// HWY_DYNAMIC_DISPATCH names the function unqualified, from its own namespace
// (with a single target it expands to N_<TARGET>::name).
memfmt_test::tu_report report() {
  float values[64];
  for (int k = 0; k < 64; ++k) values[k] = static_cast<float>(k + 1);
  memfmt_test::tu_report r;
  r.user_target = HWY_DYNAMIC_DISPATCH(compiled_for)();
  r.user_lanes = HWY_DYNAMIC_DISPATCH(lanes)();
  r.user_sum = HWY_DYNAMIC_DISPATCH(sum)(values, 64);
  r.memfmt_target = memfmt::detail::kernel_target_now();
  r.memfmt_ok = memfmt_test::memfmt_transpose_ok();
  r.memfmt_table = &memfmt::detail::kernel_table;
  r.memfmt_best = reinterpret_cast<const void*>(memfmt::detail::compiled_kernel_targets[0].run);
  // Static-target code written after memfmt still sees the static target.
  namespace hn = hwy::HWY_NAMESPACE;
  if (hn::Lanes(hn::ScalableTag<float>()) != user_code::HWY_NAMESPACE::lanes()) r.user_lanes = 0;
  return r;
}

}  // namespace
}  // namespace user_code

namespace memfmt_test {

tu_report report_memfmt_after() { return user_code::report(); }

}  // namespace memfmt_test
#endif  // HWY_ONCE
