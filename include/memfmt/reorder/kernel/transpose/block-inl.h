// The block transpose: a rows x cols block of 1-, 2- or 4-byte elements in W x W
// tiles, in the order that suits where the block lies (in cache or streamed from
// memory) and how its destination rows are spaced.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <type_traits>

#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/transpose/block_tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Elements from `p` to the next line boundary when every row `step` bytes apart starts
/// there at the same place in its line (and the boundary falls between elements), else 0.
template <std::size_t kSize>
HWY_INLINE dim elements_to_line(const void* p, dim step) {
  const auto past = static_cast<dim>(reinterpret_cast<std::uintptr_t>(p) % 64);
  return step % 64 == 0 && past % dim{kSize} == 0 ? (64 - past) % 64 / dim{kSize} : 0;
}

/// A `rows` x `cols` block of kSize-byte elements in W x W tiles (partial at the
/// edges): source rows `src_row` elements apart, starting at column `col0` of the
/// map; destination rows placed by `cols_at`, consecutive destination columns
/// (source rows) adjacent. Tiles go along a strip of W source rows, which reads the
/// source sequentially, or down a strip of W destination rows when those are the
/// farther apart: over the whole block in cache, over bands of source rows from memory.
/// A tile row that crosses a cache line costs about twice as much to store, or to load,
/// as one that does not (buffers 16 bytes past a line, as malloc returns large blocks):
/// when every destination (source) row starts at the same place in its line, the rows
/// (columns) before the first line boundary go as a block of their own, and the other
/// tiles store (load) whole lines.
template <std::size_t kSize, std::size_t W>
void transpose_block(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
                     dim cols, bool stream) {
  constexpr auto w = static_cast<dim>(W);
  const dim src_step = src_row * dim{kSize};
  const bool one_period = col0 + cols <= cols_at.period;
  const dim dst_lead = elements_to_line<kSize>(
      dst, one_period ? cols_at.inner_stride * dim{kSize}
                      : std::gcd(cols_at.inner_stride, cols_at.outer_stride) * dim{kSize});
  if (dst_lead > 0 && rows - dst_lead >= w) {
    MEMFMT_KERNEL_PATH("destination lead");
    column_map head = cols_at;
    head.spare = 0;  // rows follow its rows, not padding
    transpose_block<kSize, W>(src, src_row, dst, head, col0, dst_lead, cols, stream);
    transpose_block<kSize, W>(src + dst_lead * src_step, src_row, dst + dst_lead * dim{kSize}, cols_at, col0,
                              rows - dst_lead, cols, stream);
    return;
  }
  const dim src_lead = elements_to_line<kSize>(src, src_step);
  if (src_lead > 0 && cols - src_lead >= w) {
    MEMFMT_KERNEL_PATH("source lead");
    transpose_block<kSize, W>(src, src_row, dst, cols_at, col0, rows, src_lead, stream);
    transpose_block<kSize, W>(src + src_lead * dim{kSize}, src_row, dst, cols_at, col0 + src_lead, rows,
                              cols - src_lead, stream);
    return;
  }
  block_tiles<kSize, W>(src, src_row, dst, cols_at, col0, rows, cols, stream).run();
}

using transpose_block_fn = void (*)(const std::byte*, dim, std::byte*, const column_map&, dim, dim, dim, bool);

/// The block transpose for elements of `size` bytes with the tile that wastes least on
/// a block whose narrow side is `narrow` elements: the widest, or 8 or 4 lanes.
/// `rows_share_sets`: in cache, the 16 rows a 16-lane tile of 32-bit elements stores at
/// once would share L1 sets, so 8-lane tiles take them 8 at a time: destination rows a
/// multiple of 2 KiB apart and farther apart than the source rows (nhwc -> nchw, nChw16c
/// -> nchw). (Source rows that alias so, into destination rows of one line each, read
/// the source line by line instead: see transpose_tile_by_blocks.)
inline transpose_block_fn pick_transpose_block(std::size_t size, dim narrow, bool rows_share_sets = false) {
  const auto pick = [&]<std::size_t kSize>() -> transpose_block_fn {
    if constexpr (tile_lanes < 4) {
      return nullptr;  // no tiles on this target
    } else if constexpr (tile_lanes >= 16) {
      if (narrow <= 4) return &transpose_block<kSize, 4>;
      if (narrow <= 8 || (kSize == 4 && rows_share_sets)) return &transpose_block<kSize, 8>;
    } else if constexpr (tile_lanes >= 8) {
      if (narrow <= 4) return &transpose_block<kSize, 4>;
    }
    return &transpose_block<kSize, tile_lanes>;
  };
  if (size == 4) return pick.template operator()<4>();
  if (size == 2) return pick.template operator()<2>();
  return pick.template operator()<1>();
}

/// Tile widths, widest first: tile_lanes, then halves down to 4.
inline constexpr std::size_t tile_levels = tile_lanes >= 16 ? 3 : tile_lanes >= 8 ? 2 : tile_lanes >= 4 ? 1 : 0;

/// The plain tile transposes of one element size, widest first.
template <std::size_t kSize>
constexpr std::array<void (*)(const std::byte*, dim, std::byte*, dim), 3> plain_tiles() {
  std::array<void (*)(const std::byte*, dim, std::byte*, dim), 3> fns{};
  if constexpr (tile_levels >= 1) fns[0] = &transpose_tile_plain<kSize, tile_lanes>;
  if constexpr (tile_levels >= 2) fns[1] = &transpose_tile_plain<kSize, tile_lanes / 2>;
  if constexpr (tile_levels >= 3) fns[2] = &transpose_tile_plain<kSize, tile_lanes / 4>;
  return fns;
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_INL_H_
