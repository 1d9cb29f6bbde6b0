// memfmt's header-only dispatch composes with a user's own Highway code:
// this translation unit includes memfmt's kernels first and then runs its own
// foreach_target.h; foreach_target_user_after.cpp does it the other way round;
// foreach_target_user_inside.cpp includes memfmt from inside its -inl.h. All
// three link into one program, with one definition of memfmt's dispatch table
// and kernels. On every target of this CPU, the user's code and memfmt's
// kernels must both run on that target and compute right.

#include <memfmt/reorder/kernel/run.hpp>

// memfmt left no trace in the preprocessor state Highway's foreach_target.h reads.
#ifdef HWY_TARGET_TOGGLE
#error "memfmt left HWY_TARGET_TOGGLE defined"
#endif
#ifdef HWY_HIGHWAY_INCLUDED
#error "memfmt included highway.h, whose guard foreach_target.h checks"
#endif
#if defined(HWY_NAMESPACE) || defined(HIGHWAY_HWY_OPS_SHARED_TOGGLE) || defined(HWY_SET_MACROS_PER_TARGET)
#error "memfmt left Highway's per-target macros defined"
#endif
#if defined(N_AVX2) || defined(N_SCALAR) || defined(N_EMU128)
#error "memfmt leaked its namespace renaming"
#endif
#if HWY_TARGET != HWY_STATIC_TARGET
#error "memfmt changed HWY_TARGET"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "foreach_target_user-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "foreach_target_user-inl.h"

#include <catch2/catch.hpp>

#include <cstdio>

#include "foreach_target_user.hpp"
#include "memfmt_check.hpp"

// The guard list in foreach_target.hpp is Highway 1.0's.
static_assert(HWY_MAJOR == 1 && HWY_MINOR == 0, "check memfmt's per-target guard list against this Highway");

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
  return r;
}

}  // namespace
}  // namespace user_code

namespace memfmt_test {

tu_report report_memfmt_first() { return user_code::report(); }

}  // namespace memfmt_test

namespace {

std::size_t expected_lanes(std::int64_t target) {
  switch (target) {
    case HWY_AVX3:
    case HWY_AVX3_DL: return 16;
    case HWY_AVX2: return 8;
    case HWY_SCALAR: return 1;
    default: return 4;  // SSSE3, SSE4, EMU128
  }
}

/// memfmt's kernels for Highway's choice `target`: itself when compiled, else
/// the scalar fallback (memfmt skips SSSE3).
std::int64_t expected_memfmt_target(std::int64_t target) {
  return target == HWY_SSSE3 ? (HWY_TARGETS & HWY_EMU128 ? HWY_EMU128 : HWY_SCALAR) : target;
}

}  // namespace

TEST_CASE("memfmt's kernels and a user's own foreach_target.h share translation units in any order",
          "[kernel][dispatch]") {
  int targets = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    ++targets;
    INFO("target " << hwy::TargetName(target));
    std::printf("target %-7s user lanes:", hwy::TargetName(target));
    const memfmt_test::tu_report first = memfmt_test::report_memfmt_first();
    const memfmt_test::tu_report after = memfmt_test::report_memfmt_after();
    const memfmt_test::tu_report inside = memfmt_test::report_memfmt_inside();
    for (const memfmt_test::tu_report& r : {first, after, inside}) {
      std::printf(" %zu", r.user_lanes);
      CHECK(r.user_target == target);
      CHECK(r.user_lanes == expected_lanes(target));
      CHECK(r.memfmt_target == expected_memfmt_target(target));
      CHECK(r.memfmt_ok);
    }
    // the units link into one program: one definition of the table and of every
    // kernel (inline, external linkage), whichever unit asks
    CHECK(after.memfmt_table == first.memfmt_table);
    CHECK(inside.memfmt_table == first.memfmt_table);
    CHECK(after.memfmt_best == first.memfmt_best);
    CHECK(inside.memfmt_best == first.memfmt_best);
    CHECK(first.user_sum == 2080.f);
    CHECK(after.user_sum == 2080.f);
    std::printf(", memfmt kernels %s\n", hwy::TargetName(first.memfmt_target));
  }
  hwy::SetSupportedTargetsForTest(0);
  CHECK(targets >= ((HWY_TARGETS & (HWY_TARGETS - 1)) != 0 ? 2 : 1));  // -march=native may leave one target
}

#endif  // HWY_ONCE
