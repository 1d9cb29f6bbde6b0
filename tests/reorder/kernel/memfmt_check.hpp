#pragma once
// A small memfmt reorder checked against the scalar reference; included by
// every translation unit of the dispatch and link tests (after run.hpp).

#include <cstdint>
#include <cstring>
#include <vector>

#include <memfmt/reorder/kernel/run.hpp>

namespace memfmt_test {

/// A 37 x 29 f32 -> bf16 transpose with alpha, through run_nest; true if equal
/// to convert_element on every element.
inline bool memfmt_transpose_ok() {
  using namespace memfmt::detail;
  constexpr memfmt::dim rows = 37, cols = 29;
  std::vector<float> src(rows * cols);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<float>(k) * 0.37f - 100.f;
  nest n;
  n.nloops = 2;
  n.kind = kernel_kind::transpose;
  n.loops[0] = loop{rows, cols, 1, 0};
  n.loops[1] = loop{cols, 1, rows, 0};
  n.cvt.src = memfmt::data_type::f32;
  n.cvt.dst = memfmt::data_type::bf16;
  n.cvt.alpha = 3.f;
  std::vector<std::uint16_t> dst(rows * cols, 0), expected(rows * cols, 0);
  run_nest(n, src.data(), dst.data(), 0, n.outer_count());
  for (memfmt::dim r = 0; r < rows; ++r)
    for (memfmt::dim c = 0; c < cols; ++c) convert_element(n.cvt, &src[r * cols + c], &expected[c * rows + r], nullptr);
  return dst == expected;
}

}  // namespace memfmt_test
