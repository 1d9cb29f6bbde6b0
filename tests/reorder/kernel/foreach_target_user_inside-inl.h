// A user's per-target code that includes memfmt's kernels itself: memfmt is
// then first included inside the user's first foreach_target.h pass.

#if defined(MEMFMT_TEST_FOREACH_TARGET_USER_INSIDE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MEMFMT_TEST_FOREACH_TARGET_USER_INSIDE_INL_H_
#undef MEMFMT_TEST_FOREACH_TARGET_USER_INSIDE_INL_H_
#else
#define MEMFMT_TEST_FOREACH_TARGET_USER_INSIDE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>
#include <memfmt/reorder/kernel/run.hpp>

HWY_BEFORE_NAMESPACE();
namespace user_inside {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline std::int64_t compiled_for() { return HWY_TARGET; }

inline std::size_t lanes() { return hn::Lanes(hn::ScalableTag<float>()); }

}  // namespace HWY_NAMESPACE
}  // namespace user_inside
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_TEST_FOREACH_TARGET_USER_INSIDE_INL_H_
