#pragma once
/// @file
/// Sharing a nest among threads: its loops outside the kernel given enough iterations
/// (`split_for_threads`), which threads take in contiguous runs.

#include <algorithm>

#include "memfmt/reorder/kernel/nest.hpp"

namespace memfmt::detail {

/// Nests that write fewer elements run their loops on one thread: 2^15 of f32 move 256
/// KiB, about 3 us on a core, some three times what starting a team of threads costs.
inline constexpr dim worth_sharing = dim{1} << 15;

/// How many pieces to cut a loop of `extent` into for threads: as many as `want`, up to
/// 8 times as many, else fewer (at least 2), the first count that `fits`; 0 if none does.
template <class Fits>
dim piece_count(dim want, dim extent, const Fits& fits) {
  for (dim count = want; count <= 8 * want && count <= extent; ++count)
    if (fits(count)) return count;
  for (dim count = want - 1; count >= 2; --count)
    if (fits(count)) return count;
  return 0;
}

/// Gives a `tile` nest's outer loops `4 * threads` iterations or more, when its
/// extents allow and it is large enough to be worth sharing, by cutting its outermost
/// column loop (into whole tiles when it is the only one): a nest whose kernel owns all
/// its loops (straight through one long column loop: u8 nchw -> nhwc with 4 channels)
/// then still runs on every thread.
/// @post the nest visits the same elements with the same offsets
inline void split_tiles_for_threads(nest& n, dim threads) {
  dim total = 1;
  for (int k = 0; k < n.nloops; ++k) total *= n.loops[k].extent;
  const dim outer = n.outer_count(), pieces = 4 * threads;
  if (total < worth_sharing || outer >= pieces || n.nloops >= max_loops) return;
  const int first = n.nloops - n.owned_loops();
  const int pick = first + n.tile_row_loops;  // the outermost column loop
  const loop l = n.loops[pick];
  const dim granule = n.tile_column_loops == 1 ? 16 : 1;
  const dim want = (pieces + outer - 1) / outer;
  const auto fits = [&](dim count) { return l.extent % count == 0 && (l.extent / count) % granule == 0; };
  const dim q = piece_count(want, l.extent, fits);
  if (q == 0) return;
  const dim c = l.extent / q;
  for (int k = n.nloops; k > first; --k) n.loops[k] = n.loops[k - 1];
  n.loops[first] = loop{q, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
  n.loops[pick + 1].extent = c;
  ++n.nloops;
}

/// Gives the loops outside the kernel `4 * threads` iterations or more (fewer when the
/// extents allow no more), which threads share out in contiguous runs, when the nest is
/// large enough to be worth sharing: a loop the kernel owns, of extent q * c, becomes an
/// outer loop of q and an owned loop of c, with c a multiple of 16 for a transpose (whole tiles; or at least 256, a partial
/// tile then costs little: the 62 x 62 pixels of an image) and of 64 elements for rows
/// (aligned stores). A copy splits its outermost owned loop first (each thread keeps
/// sequential runs), then its rows. A transpose splits its columns first, then its rows,
/// so that each thread writes whole destination rows, one stretch of memory: split by
/// rows first, each thread wrote a stretch of every row, and nhwc -> nchw in L2 ran no
/// faster on two threads than on one (each core took half again as long over its half
/// as alone; its prefetchers, running on along a row, likely took the other's lines).
/// @post the nest visits the same elements with the same offsets
inline void split_for_threads(nest& n, dim threads) {
  if (n.kind == kernel_kind::tile) return split_tiles_for_threads(n, threads);
  if (n.kind == kernel_kind::gather || n.kind == kernel_kind::interleave) return;  // fixed blocks
  const dim pieces = 4 * threads;
  // the loop whose runs the padding zeros follow (its index moves as loops are split)
  const auto run_loop = [&n] { return n.kind == kernel_kind::transpose ? n.nloops - 2 : n.nloops - 1; };
  // elements written, padding zeros included (a block of one channel and 15 zeros)
  dim total = 1;
  for (int k = 0; k < n.nloops; ++k) total *= k == run_loop() ? n.loops[k].extent + n.zero_tail : n.loops[k].extent;
  if (total < worth_sharing) return;
  const bool columns_first = n.kind == kernel_kind::transpose && n.column_loops == 1;
  for (int pass = 0; pass < 2; ++pass) {
    const dim outer = n.outer_count();
    if (outer >= pieces || n.nloops >= max_loops) return;
    const int first = n.nloops - n.owned_loops();
    const bool innermost = (pass == 0) == columns_first && first != n.nloops - 1;
    const int pick = innermost ? n.nloops - 1 : first;
    if (n.zero_tail != 0 && pick == run_loop()) continue;  // its zeros follow the whole run
    // columns over two loops: the kernel needs loops[n-3] to continue loops[n-1] whole
    if (n.column_loops == 2 && pick == n.nloops - 1) continue;
    const loop l = n.loops[pick];
    const bool row = pick == n.nloops - 1;
    const dim granule = n.kind == kernel_kind::transpose ? 16 : row ? 64 : 1;
    const dim want = (pieces + outer - 1) / outer;
    const auto fits = [&](dim count) {
      const dim c = l.extent / count;
      return l.extent % count == 0 && (c % granule == 0 || (n.kind == kernel_kind::transpose && c >= 16 * granule));
    };
    dim q = 0;  // the count of pieces
    if (columns_first && pass == 0) {
      // as many as wanted or fewer, each at least two tiles wide (narrower columns slow the
      // kernel down), a multiple of the thread count if there is one (whole pieces each)
      for (int any = 0; any < 2; ++any)
        for (dim count = std::min(want, l.extent / (2 * granule)); q == 0 && count >= 2; --count)
          if (fits(count) && (any == 1 || count % threads == 0)) q = count;
    } else {
      q = piece_count(want, l.extent, fits);
    }
    if (q == 0) continue;
    const dim c = l.extent / q;
    // split in place (a nest is over a kilobyte), undone if the kernel would own the new loop
    const loop spare = n.loops[n.nloops];
    for (int k = n.nloops; k > first; --k) n.loops[k] = n.loops[k - 1];
    n.loops[first] = loop{q, l.src_stride * c, l.dst_stride * c, l.scale_stride * c};
    n.loops[pick + 1].extent = c;
    ++n.nloops;
    if (n.outer_count() <= outer) {
      --n.nloops;
      for (int k = first; k < n.nloops; ++k) n.loops[k] = n.loops[k + 1];
      n.loops[pick] = l;
      n.loops[n.nloops] = spare;
      return;
    }
  }
}

}  // namespace memfmt::detail
