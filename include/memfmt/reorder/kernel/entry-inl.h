// Per-target entry point: walks outer iterations [begin, end) of a nest and
// runs the kernel of its kind on the loops it owns.
//
// Compiled once per target by pass-inl.h.

#if defined(MEMFMT_REORDER_KERNEL_ENTRY_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_ENTRY_INL_H_
#undef MEMFMT_REORDER_KERNEL_ENTRY_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_ENTRY_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "memfmt/reorder/kernel/copy-inl.h"
#include "memfmt/reorder/kernel/gather-inl.h"
#include "memfmt/reorder/kernel/interleave-inl.h"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/scalar_rows.hpp"
#include "memfmt/reorder/kernel/tile-inl.h"
#include "memfmt/reorder/kernel/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// The outer iterations [begin, end) of a nest, which every kind walks alike: the
/// cursor, the element sizes, and the zero tails the kernels that do not write them
/// themselves leave to the walk.
class outer_walk {
 public:
  /// @pre begin < end, every extent of `n` positive
  outer_walk(const nest& n, const void* src, void* dst, dim begin, dim end)
      : n_(n),
        src_(static_cast<const std::byte*>(src)),
        dst_(static_cast<std::byte*>(dst)),
        ssz_(static_cast<dim>(data_type_size(n.cvt.src))),
        dsz_(static_cast<dim>(data_type_size(n.cvt.dst))),
        begin_(begin),
        end_(end),
        owned_(n.owned_loops() <= n.nloops ? n.owned_loops() : n.nloops),
        cursor_(n, begin) {}

  /// Calls body(src, dst, scales) at every outer iteration, then writes the zero tails
  /// unless `kernel_writes_tails`.
  template <class Body>
  void each(Body&& body, bool kernel_writes_tails) {
    const bool tails = n_.zero_tail > 0 && !kernel_writes_tails;
    for (dim it = begin_; it < end_; ++it, cursor_.next()) {
      std::byte* dp = dst_ + cursor_.dst * dsz_;
      body(src_ + cursor_.src * ssz_, dp, scales_at(cursor_.scale));
      if (tails) write_tails(dp);
    }
  }

  /// Whether the nest has an outer loop, which the kernel may walk itself (runs).
  bool has_outer_loop() const { return n_.nloops > owned_; }

  /// Calls body(src, dst, scales, run) for each run of the innermost outer loop in this
  /// walk's iterations: `run` is that loop cut to the iterations the run covers, starting
  /// where the pointers are (one call for the whole walk when the nest has one outer
  /// loop). The kernel then walks it, choosing once for all its iterations.
  /// @pre has_outer_loop(); the nest writes no zero tails, or the kernel writes them
  template <class Body>
  void runs(Body&& body) {
    const int last = n_.nloops - owned_ - 1;
    const loop& L = n_.loops[last];
    for (dim it = begin_; it < end_;) {
      const dim left = L.extent - cursor_.index[last];
      const dim count = end_ - it < left ? end_ - it : left;
      body(src_ + cursor_.src * ssz_, dst_ + cursor_.dst * dsz_, scales_at(cursor_.scale),
           loop{count, L.src_stride, L.dst_stride, L.scale_stride});
      it += count;
      cursor_.skip(count);
    }
  }

  dim dst_size() const { return dsz_; }

 private:
  const nest& n_;
  const std::byte* src_;
  std::byte* dst_;
  dim ssz_, dsz_, begin_, end_;
  int owned_;
  outer_cursor cursor_;

  const float* scales_at(dim offset) const { return n_.cvt.scales != nullptr ? n_.cvt.scales + offset : nullptr; }

  /// The zeros after each dst-stride-1 run of the owned loops at `dp`: a copy's rows, a
  /// transpose's columns.
  void write_tails(std::byte* dp) const {
    if (n_.kind == kernel_kind::tile) return write_tile_tails(dp);
    const bool transpose = n_.kind == kernel_kind::transpose && n_.nloops >= 2;
    const int run = transpose ? n_.nloops - 2 : n_.nloops - 1;
    const dim after = n_.loops[run].extent * dsz_, bytes = n_.zero_tail * dsz_;
    loop a{}, b{};  // the owned loops other than the run, at most two
    int found = 0;
    for (int k = n_.nloops - owned_; k < n_.nloops; ++k)
      if (k != run) (found++ == 0 ? a : b) = n_.loops[k];
    for (dim i = 0; i < a.extent; ++i)
      for (dim j = 0; j < b.extent; ++j) zero_bytes(dp + (i * a.dst_stride + j * b.dst_stride) * dsz_ + after, bytes);
  }

  /// A tile nest's zeros (for the kernels that run it as strided rows): after the run of
  /// its innermost row loop, zero_tail more of its steps, at every index of its other
  /// owned loops.
  void write_tile_tails(std::byte* dp) const {
    const int first = n_.nloops - owned_, run = first + n_.tile_row_loops - 1;
    if (run < first) return;  // (no rows: no zero tail)
    const loop& r = n_.loops[run];
    const dim after = r.extent * r.dst_stride * dsz_, bytes = n_.zero_tail * r.dst_stride * dsz_;
    dim index[max_loops] = {};
    for (int k = first;;) {
      dim d = after;
      for (int l = first; l < n_.nloops; ++l) d += index[l] * n_.loops[l].dst_stride * dsz_;
      zero_bytes(dp + d, bytes);
      for (k = n_.nloops - 1; k >= first; --k) {
        if (k == run) continue;
        if (++index[k] < n_.loops[k].extent) break;
        index[k] = 0;
      }
      if (k < first) return;
    }
  }

  static void zero_bytes(std::byte* p, dim bytes) {
    if (bytes <= 64) {
      zero_short(p, static_cast<std::size_t>(bytes));
    } else {
      std::memset(p, 0, static_cast<std::size_t>(bytes));
    }
  }
};

inline void run_zero_fill(const nest& n, outer_walk& walk) {
  const loop inner = innermost(n), J = owned_loop(n, 1), K = owned_loop(n, 2);
  const dim dsz = walk.dst_size();
  const row_walk rows{K.extent, J.extent, 0, 0, K.dst_stride * dsz, J.dst_stride * dsz};
  const auto bytes = static_cast<std::size_t>(inner.extent * dsz);
  if (inner.dst_stride == 1 && bytes <= 64) {
    walk.each([&](const std::byte*, std::byte* dp, const float*) {
      for_each_row(dp, dp, rows, [&](const std::byte*, std::byte* row) { zero_short(row, bytes); });
    }, false);
    return;
  }
  walk.each([&](const std::byte*, std::byte* dp, const float*) {
    for_each_row(dp, dp, rows, [&](const std::byte*, std::byte* row) {
      zero_row_scalar(static_cast<std::size_t>(dsz), row, inner.dst_stride, inner.extent);
    });
  }, false);
}

/// @pre meets_contract(n)
inline void run_copy(const nest& n, outer_walk& walk) {
  const copy_kernel kernel(n);
  const loop inner = innermost(n);
  if (n.owned_loops() < 2) {
    walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) {
      kernel.row(sp, dp, scales, inner.scale_stride, inner.extent);
    }, true);
    return;
  }
  const loop J = owned_loop(n, 1);
  const loop K = owned_loop(n, 2);
  if (walk.has_outer_loop()) {
    // the kernel walks the innermost outer loop too, a run per call (a call per iteration
    // is measurably slower for short rows: ab -> BA16a64b)
    walk.runs([&](const std::byte* sp, std::byte* dp, const float* scales, const loop& run) {
      if (n.owned_loops() == 2) {
        kernel.rows(sp, dp, scales, run, J, inner);
      } else {
        kernel.rows(sp, dp, scales, K, J, inner, run);
      }
    });
    return;
  }
  walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.rows(sp, dp, scales, K, J, inner); },
            true);
}

/// @pre meets_contract(n)
inline void run_transpose(const nest& n, outer_walk& walk) {
  const loop inner = innermost(n);
  const loop J = owned_loop(n, 1);
  const loop C = owned_loop(n, 2);
  const transpose_kernel kernel(n);
  const bool writes_tails = kernel.completes_tails(J, inner, C);
  if (writes_tails) MEMFMT_KERNEL_PATH("tiles write the zeros after rows");
  if (walk.has_outer_loop() && (n.zero_tail == 0 || writes_tails)) {
    // the kernel walks the innermost outer loop, choosing once for all its blocks (blocks
    // of a tile or less, OIhw16o16i -> oihw's 9 x 16, go inline one after the other)
    walk.runs([&](const std::byte* sp, std::byte* dp, const float* scales, const loop& run) {
      kernel.blocks(sp, dp, scales, run, J, inner, C);
    });
    return;
  }
  walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.block(sp, dp, scales, J, inner, C); },
            writes_tails);
}

/// Strided rows over every loop the kind owns: any nest, the kernels' contracts or not.
inline void run_strided(const nest& n, outer_walk& walk) {
  const loop inner = innermost(n);
  const auto ssz = static_cast<dim>(data_type_size(n.cvt.src)), dsz = walk.dst_size();
  walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) {
    for_each_owned_row(n, [&](dim s_off, dim d_off, dim c_off) {
      strided_row(n.cvt, sp + s_off * ssz, inner.src_stride, dp + d_off * dsz, inner.dst_stride,
                  scales != nullptr ? scales + c_off : nullptr, inner.scale_stride, inner.extent);
    });
  }, false);
}

/// Runs outer iterations [begin, end) of `n` on this target.
/// @pre the offsets of every element of those iterations are inside the buffers;
///      src may be null for zero_fill
inline void run_nest_target(const nest& n, const void* src, void* dst, dim begin, dim end) {
  if (begin >= end || n.nloops < 0 || n.nloops > max_loops) return;
  for (int k = 0; k < n.nloops; ++k)
    if (n.loops[k].extent <= 0) return;  // an empty nest
  outer_walk walk(n, src, dst, begin, end);
  // A fallback target (EMU128, SCALAR) compiled beside a SIMD target runs only on x86
  // processors without SSE4, where its vector kernels would buy little for about a tenth
  // of the kernels' compile time: it runs strided rows. Compiled alone (no SIMD target
  // for this architecture, or MEMFMT_KERNEL_TARGETS=HWY_STATIC_TARGET), it keeps them.
#if (HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR) && (MEMFMT_KERNEL_COMPILED & ~(HWY_EMU128 | HWY_SCALAR)) != 0
  if (n.kind == kernel_kind::zero_fill) return run_zero_fill(n, walk);
  MEMFMT_KERNEL_PATH("fallback: strided rows");
  return run_strided(n, walk);
#else
  // (the vector kernels move elements of 1, 2 and 4 bytes: f64 conversions, and f64
  // copies the planner could not move as pairs of 4-byte elements, go as scalar rows)
  if (!meets_contract(n) || (n.kind != kernel_kind::zero_fill && n.cvt.has_f64())) return run_strided(n, walk);
  switch (n.kind) {
    case kernel_kind::zero_fill:
      return run_zero_fill(n, walk);
    case kernel_kind::copy:
      run_copy(n, walk);
      break;
    case kernel_kind::transpose:
      run_transpose(n, walk);
      break;
    case kernel_kind::gather: {
      const gather_kernel kernel(n);
      walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.block(sp, dp, scales); }, true);
      break;
    }
    case kernel_kind::tile: {
      const tile_kernel kernel(n);  // (its zeros are rows of its tiles)
      if (walk.has_outer_loop()) {
        walk.runs([&](const std::byte* sp, std::byte* dp, const float*, const loop& run) { kernel.blocks(sp, dp, run); });
      } else {
        walk.each([&](const std::byte* sp, std::byte* dp, const float*) { kernel.block(sp, dp); }, true);
      }
      break;
    }
    case kernel_kind::interleave: {
      const interleave_kernel kernel(n);
      walk.each([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.block(sp, dp, scales); }, true);
      return;  // (its transposes never stream)
    }
    case kernel_kind::strided:
      return run_strided(n, walk);
  }
  if (n.stream_stores) hwy::FlushStream();
#endif
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_ENTRY_INL_H_
