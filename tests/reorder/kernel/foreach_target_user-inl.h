// A user's own per-target code, compiled by the user's own Highway
// foreach_target.h in a translation unit that also includes memfmt's kernels
// (foreach_target_user_test.cpp, foreach_target_user_after.cpp).

#if defined(MEMFMT_TEST_FOREACH_TARGET_USER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MEMFMT_TEST_FOREACH_TARGET_USER_INL_H_
#undef MEMFMT_TEST_FOREACH_TARGET_USER_INL_H_
#else
#define MEMFMT_TEST_FOREACH_TARGET_USER_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace user_code {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The target this copy was compiled for.
inline std::int64_t compiled_for() { return HWY_TARGET; }

/// f32 lanes of this target.
inline std::size_t lanes() { return hn::Lanes(hn::ScalableTag<float>()); }

/// Sum of p[0..n), n a multiple of the lanes.
inline float sum(const float* p, std::size_t n) {
  const hn::ScalableTag<float> d;
  auto acc = hn::Zero(d);
  for (std::size_t i = 0; i < n; i += hn::Lanes(d)) acc = hn::Add(acc, hn::LoadU(d, p + i));
  return hn::GetLane(hn::SumOfLanes(d, acc));
}

}  // namespace HWY_NAMESPACE
}  // namespace user_code
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_TEST_FOREACH_TARGET_USER_INL_H_
