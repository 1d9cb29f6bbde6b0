#pragma once
/// @file
/// A reorder's plan as text: one line per nest, its kernel, where it starts and its
/// loops, the kernel's own loops named by their role. What `reorder::plan_str()` and
/// `memfmt reorder --plan` print.
///
/// Example (s8 ab -> BA16a16b4a, 384 x 171: 96 groups of 4 rows packed straight through
/// along the 10 whole blocks of 16 b, the last partial block of b, and the padding):
///
///     tile @src+0 dst+0: 96(684,64) | columns 10(16,6144) 16(1,4) unit 4(171,1)
///     tile @src+160 dst+61440: 96(684,64) | columns 11(1,4) unit 4(171,1)
///     zero_fill @src+0 dst+61484: | 96(0,64) 20(0,1)
///
/// A loop is extent(source stride, destination stride[, scale stride]) in elements,
/// outermost first; `|` separates the loops that threads share from the kernel's.

#include <string>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// The name of a kernel kind, as plans print it.
constexpr const char* kernel_name(kernel_kind k) noexcept {
  switch (k) {
    case kernel_kind::copy: return "copy";
    case kernel_kind::transpose: return "transpose";
    case kernel_kind::strided: return "strided";
    case kernel_kind::zero_fill: return "zero_fill";
    case kernel_kind::gather: return "gather";
    case kernel_kind::interleave: return "interleave";
    case kernel_kind::tile: return "tile";
  }
  return "?";
}

/// One nest on one line (see the file's example), with its zeros after each run, its
/// streaming stores and its fusion with the nest before it when it has them.
inline std::string nest_str(const placed_nest& p) {
  const nest& n = p.loops;
  std::string s = kernel_name(n.kind);
  const auto add = [&s](const char* text, dim v) {
    s += text;
    s += std::to_string(v);
  };
  // a staged pair's offsets into the scratch (pass/stage.hpp) are its own
  const bool from_scratch = p.staged == stage::move_from_scratch || p.staged == stage::convert_from_scratch;
  const bool to_scratch = p.staged == stage::convert_to_scratch || p.staged == stage::move_to_scratch;
  if (from_scratch) {
    s += " @scratch";
  } else {
    add(" @src+", p.src_base);
  }
  if (to_scratch) {
    s += " scratch";
  } else {
    add(" dst+", p.dst_base);
  }
  s += ":";
  const int owned = n.owned_loops() < n.nloops ? n.owned_loops() : n.nloops;
  const int first = n.nloops - owned;
  // the tile kind's loops by role: rows, columns, unit
  const int rows_at = n.kind == kernel_kind::tile && n.tile_row_loops > 0 ? first : -1;
  const int columns_at = n.kind == kernel_kind::tile ? first + n.tile_row_loops : -1;
  const int unit_at = n.kind == kernel_kind::tile && n.tile_unit > 1 ? n.nloops - 1 : -1;
  for (int i = 0; i < n.nloops; ++i) {
    if (i == first) s += " |";
    if (i == rows_at) s += " rows";
    if (i == columns_at) s += " columns";
    if (i == unit_at) s += " unit";
    const loop& l = n.loops[i];
    add(" ", l.extent);
    add("(", l.src_stride);
    add(",", l.dst_stride);
    if (l.scale_stride != 0) add(",sc", l.scale_stride);
    s += ")";
  }
  if (n.zero_tail != 0) {
    add("  +", n.zero_tail);
    s += " zeros";
  }
  if (n.stream_stores) s += "  streamed";
  if (p.fused_loops != 0) {
    add(from_scratch ? "  staged after the nest before over " : "  fused with the nest before over ", p.fused_loops);
    s += " loops";
  }
  return s;
}

/// Every nest of a plan, a line each.
inline std::string plan_str(const std::vector<placed_nest>& nests) {
  std::string s;
  for (const placed_nest& p : nests) s += nest_str(p) + "\n";
  return s;
}

}  // namespace memfmt::detail
