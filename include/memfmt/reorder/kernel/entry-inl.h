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

/// Runs outer iterations [begin, end) of `n` on this target.
/// @pre the offsets of every element of those iterations are inside the buffers;
///      src may be null for zero_fill
inline void run_nest_target(const nest& n, const void* src, void* dst, dim begin, dim end) {
  if (begin >= end || n.nloops < 0 || n.nloops > max_loops) return;
  for (int k = 0; k < n.nloops; ++k)
    if (n.loops[k].extent <= 0) return;  // an empty nest
  const conversion& c = n.cvt;
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  const auto ssz = static_cast<dim>(data_type_size(c.src));
  const auto dsz = static_cast<dim>(data_type_size(c.dst));
  // A nest without loops is one element.
  const loop inner = n.nloops >= 1 ? n.loops[n.nloops - 1] : loop{1, 0, 0, 0};
  outer_cursor cursor(n, begin);
  // The zero tail after each dst-stride-1 run, for the paths that do not write it themselves.
  const bool tails = n.zero_tail > 0;
  const int owned = n.owned_loops() <= n.nloops ? n.owned_loops() : n.nloops;
  const auto write_tails = [&](std::byte* dp) {
    const bool transpose = n.kind == kernel_kind::transpose && n.nloops >= 2;
    const int run = transpose ? n.nloops - 2 : n.nloops - 1;
    const dim after = n.loops[run].extent * dsz, bytes = n.zero_tail * dsz;
    // the owned loops other than the run, at most two
    loop a{}, b{};
    int found = 0;
    for (int k = n.nloops - owned; k < n.nloops; ++k)
      if (k != run) (found++ == 0 ? a : b) = n.loops[k];
    for (dim i = 0; i < a.extent; ++i)
      for (dim j = 0; j < b.extent; ++j) {
        std::byte* row = dp + (i * a.dst_stride + j * b.dst_stride) * dsz + after;
        if (bytes <= 64) {
          zero_short(row, static_cast<std::size_t>(bytes));
        } else {
          std::memset(row, 0, static_cast<std::size_t>(bytes));
        }
      }
  };
  bool kernel_writes_tails = false;  // set by kernels that write the zero tails themselves
  auto for_each_outer = [&](auto&& body) {
    for (dim it = begin; it < end; ++it, cursor.next()) {
      std::byte* dp = d + cursor.dst * dsz;
      body(s + cursor.src * ssz, dp, c.scales != nullptr ? c.scales + cursor.scale : nullptr);
      if (tails && !kernel_writes_tails) write_tails(dp);
    }
  };

  switch (n.kind) {
    case kernel_kind::zero_fill: {
      const loop J = owned >= 2 ? n.loops[n.nloops - 2] : loop{};
      const loop K = owned >= 3 ? n.loops[n.nloops - 3] : loop{};
      const row_walk rows{K.extent, J.extent, 0, 0, K.dst_stride * dsz, J.dst_stride * dsz};
      const auto bytes = static_cast<std::size_t>(inner.extent * dsz);
      if (inner.dst_stride == 1 && bytes <= 64) {
        for_each_outer([&](const std::byte*, std::byte* dp, const float*) {
          for_each_row(dp, dp, rows, [&](const std::byte*, std::byte* row) { zero_short(row, bytes); });
        });
        return;
      }
      for_each_outer([&](const std::byte*, std::byte* dp, const float*) {
        for_each_row(dp, dp, rows, [&](const std::byte*, std::byte* row) {
          zero_row_scalar(static_cast<std::size_t>(dsz), row, inner.dst_stride, inner.extent);
        });
      });
      return;
    }
    case kernel_kind::copy:
      if (inner.src_stride == 1 && inner.dst_stride == 1) {
        const copy_kernel kernel(n);
        kernel_writes_tails = true;
        if (n.owned_loops() >= 2) {
          const loop& J = n.loops[n.nloops - 2];
          const loop K = n.owned_loops() == 3 ? n.loops[n.nloops - 3] : loop{};
          if (n.nloops == n.owned_loops() + 1) {
            // one outer loop: the kernel walks this share of it too, in one call (a call per
            // iteration is measurably slower for short rows: ab -> BA16a64b)
            const loop& L = n.loops[0];
            const loop share{end - begin, L.src_stride, L.dst_stride, L.scale_stride};
            const float* scales = c.scales != nullptr ? c.scales + cursor.scale : nullptr;
            if (n.owned_loops() == 2) {
              kernel.rows(s + cursor.src * ssz, d + cursor.dst * dsz, scales, share, J, inner);
            } else {
              kernel.rows(s + cursor.src * ssz, d + cursor.dst * dsz, scales, K, J, inner, share);
            }
            if (n.stream_stores) hwy::FlushStream();
            return;
          }
          for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) {
            kernel.rows(sp, dp, scales, K, J, inner);
          });
          if (n.stream_stores) hwy::FlushStream();
          return;
        }
        for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) {
          kernel.row(sp, dp, scales, inner.scale_stride, inner.extent);
        });
        if (n.stream_stores) hwy::FlushStream();
        return;
      }
      break;  // not contiguous after all: the strided rows are right for any strides
    case kernel_kind::transpose:
      if (n.nloops >= 2) {
        const loop& J = n.loops[n.nloops - 2];
        const loop C = n.owned_loops() == 3 && n.nloops >= 3 ? n.loops[n.nloops - 3] : loop{};
        const bool folds = C.extent == 1 || (C.src_stride == inner.extent && C.scale_stride == inner.extent * inner.scale_stride);
        if (inner.src_stride == 1 && J.dst_stride == 1 && folds) {
          const transpose_kernel kernel(n);
          kernel_writes_tails = kernel.completes_tails(J, inner, C);
          if (kernel_writes_tails) MEMFMT_KERNEL_PATH("tiles write the zeros after rows");
          if (n.nloops == n.owned_loops() + 1 && (!tails || kernel_writes_tails)) {
            // one outer loop: the kernel walks this share of it, choosing once for all its blocks
            const loop& L = n.loops[0];
            const loop share{end - begin, L.src_stride, L.dst_stride, L.scale_stride};
            kernel.blocks(s + cursor.src * ssz, d + cursor.dst * dsz, c.scales != nullptr ? c.scales + cursor.scale : nullptr,
                          share, J, inner, C);
          } else {
            for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) {
              kernel.block(sp, dp, scales, J, inner, C);
            });
          }
          if (n.stream_stores) hwy::FlushStream();
        } else {
          for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) {
            for (dim k = 0; k < C.extent; ++k) {
              for (dim j = 0; j < J.extent; ++j) {
                const dim s_off = k * C.src_stride + j * J.src_stride, d_off = k * C.dst_stride + j * J.dst_stride;
                strided_row(c, sp + s_off * ssz, inner.src_stride, dp + d_off * dsz, inner.dst_stride,
                            scales != nullptr ? scales + k * C.scale_stride + j * J.scale_stride : nullptr,
                            inner.scale_stride, inner.extent);
              }
            }
          });
        }
        return;
      }
      break;  // a single loop: one strided row per iteration
    case kernel_kind::gather:
      if (n.gather_src != nullptr && n.gather_loops >= 1 && n.gather_loops <= n.nloops) {
        kernel_writes_tails = true;  // gather nests have none
        const gather_kernel kernel(n);
        for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.block(sp, dp, scales); });
        if (n.stream_stores) hwy::FlushStream();
        return;
      }
      break;
    case kernel_kind::tile: {
      const tile_kernel kernel(n);
      kernel_writes_tails = true;  // (its zeros are rows of its tiles)
      for_each_outer([&](const std::byte* sp, std::byte* dp, const float*) { kernel.block(sp, dp); });
      if (n.stream_stores) hwy::FlushStream();
      return;
    }
    case kernel_kind::interleave: {
      const interleave_kernel kernel(n);
      if (kernel.fits) {
        kernel_writes_tails = true;  // interleave nests have none
        for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) { kernel.block(sp, dp, scales); });
        return;
      }
      break;  // with beta, or not the kind's block after all: strided rows
    }
    case kernel_kind::strided:
      break;
  }
  // Strided rows over every loop the kind owns (also when its contract did not hold,
  // or a gather nest comes without its tables).
  for_each_outer([&](const std::byte* sp, std::byte* dp, const float* scales) {
    for_each_owned_row(n, [&](dim s_off, dim d_off, dim c_off) {
      strided_row(c, sp + s_off * ssz, inner.src_stride, dp + d_off * dsz, inner.dst_stride,
                  scales != nullptr ? scales + c_off : nullptr, inner.scale_stride, inner.extent);
    });
  });
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_ENTRY_INL_H_
