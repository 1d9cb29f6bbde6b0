#pragma once
/// @file
/// Reorder attributes, oneDNN v3's model:
/// `dst = (s_src * (src - zp_src) + beta * dst) / s_dst + zp_dst`.

#include <cstdint>
#include <vector>

namespace memfmt {

/// Scale factors, one (`mask == 0`) or one per index of the masked dims (bit d = dim d),
/// in row-major order of those dims, as oneDNN stores them.
struct scales {
  int mask = 0;
  std::vector<float> values;  ///< empty: no scaling
  bool empty() const noexcept { return values.empty(); }
};

/// What a reorder does besides moving and converting elements.
struct reorder_attr {
  scales src_scales;                 ///< s_src
  scales dst_scales;                 ///< s_dst
  std::int32_t src_zero_point = 0;   ///< zp_src, for integer sources
  std::int32_t dst_zero_point = 0;   ///< zp_dst, for integer destinations
  float sum_beta = 0.f;              ///< beta: accumulate into the destination
  /// 0: all cores (OpenMP builds), 1: the calling thread only. The plan cuts its work
  /// into pieces for this many threads (0: every processor; 1: none), also when a
  /// caller's `parallel_for` runs it.
  int threads = 0;
};

}  // namespace memfmt
