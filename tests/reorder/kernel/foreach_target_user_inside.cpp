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

namespace memfmt_test {

tu_report report_memfmt_inside() {
  tu_report r;
  r.user_target = HWY_DYNAMIC_DISPATCH(user_inside::compiled_for)();
  r.user_lanes = HWY_DYNAMIC_DISPATCH(user_inside::lanes)();
  r.memfmt_target = memfmt::detail::kernel_target_now();
  r.memfmt_ok = memfmt_transpose_ok();
  return r;
}

}  // namespace memfmt_test
#endif  // HWY_ONCE
