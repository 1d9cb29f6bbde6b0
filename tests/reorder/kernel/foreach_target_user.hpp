#pragma once
// What each translation unit of the dispatch test reports for the current
// (mocked) Highway target: the user's own dispatched code and memfmt's kernels.

#include <cstddef>
#include <cstdint>

namespace memfmt_test {

struct tu_report {
  std::int64_t user_target = 0;  ///< HWY_TARGET of the user's code that ran
  std::size_t user_lanes = 0;    ///< its f32 lanes
  float user_sum = 0.f;          ///< its sum of 1..64 (2080), or 0 when not computed
  std::int64_t memfmt_target = 0;  ///< the target of memfmt's kernels
  bool memfmt_ok = false;        ///< memfmt's reorder of a small tensor was right
  const void* memfmt_table = nullptr;  ///< the dispatch table this unit's run_nest reads
  const void* memfmt_best = nullptr;   ///< the kernels of the best target this unit compiled
};

/// Reorders a small tensor (a transpose with f32 -> bf16 conversion) with memfmt
/// and checks it against the scalar reference; defined in every translation unit
/// of the test under a different name.
tu_report report_memfmt_first();   // foreach_target_user_test.cpp: memfmt, then the user's foreach_target
tu_report report_memfmt_after();   // foreach_target_user_after.cpp: the user's foreach_target, then memfmt
tu_report report_memfmt_inside();  // foreach_target_user_inside.cpp: memfmt inside the user's -inl.h

}  // namespace memfmt_test
