#pragma once
/// @file
/// A plan's nests as the planner's passes leave them: a nest of loops for a kernel, where
/// its first element lies, and how it runs with its neighbours (fused, staged).

#include <cstdint>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

/// A nest's part in a pair that runs a conversion in two stages through a thread's
/// scratch block (see pass/stage.hpp): the first of the pair writes the scratch, the second
/// reads it. The scratch holds the block in the order of the side the first stage
/// reads (a conversion) or writes (a move).
enum class stage : std::uint8_t {
  none,
  convert_to_scratch,    ///< source elements converted into the scratch, in source order
  move_from_scratch,     ///< the scratch's converted elements moved to the destination
  move_to_scratch,       ///< source elements moved into the scratch, in destination order
  convert_from_scratch,  ///< the scratch's elements converted into the destination
};

/// A nest with the element offsets of its first element.
struct placed_nest {
  nest loops;
  dim src_base = 0;
  dim dst_base = 0;
  dim scale_base = 0;
  std::vector<std::int32_t> gather_src, gather_scale;  ///< the `gather` kind's tables
  /// Non-zero: this nest runs interleaved with the nest before it in the plan. Their
  /// first `fused_loops` loops are equal and outer in both; for each iteration of
  /// those, the nest before runs its share of iterations, then this one runs its own.
  /// (A staged pair: their first `fused_loops` loops have equal extents.)
  int fused_loops = 0;
  /// Its part in a staged pair (its offsets into the scratch are from 0).
  stage staged = stage::none;
  /// Units each element of the reorder moves as (pass/split.hpp): 2 for a plain copy of
  /// f64 as pairs of 4-byte elements, whose strides and offsets then count those.
  dim parts = 1;
};

}  // namespace memfmt::detail
