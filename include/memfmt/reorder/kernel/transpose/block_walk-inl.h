// One block of a block transpose, tile by tile: where its tiles lie in both buffers,
// and the tile at any row and column, whole, partial, or at an edge (by gathers or
// scatters on AVX-512).
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_WALK_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_WALK_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_WALK_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_WALK_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/transpose/lines-inl.h"
#include "memfmt/reorder/kernel/transpose/tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Where the destination rows of a block start: the row of source column k is at
/// element offset (k / period) * outer_stride + (k % period) * inner_stride. A plain
/// 2-D block has one period; a block whose columns span two loops that are
/// contiguous in the source but not in the destination has several. `spare`: zeros
/// (destination padding) after each destination row, which the last strip's partial
/// tiles may write as part of whole rows.
struct column_map {
  dim period;
  dim inner_stride;
  dim outer_stride;
  dim spare = 0;
};

/// One block of a block transpose, tile by tile (see transpose_block): where its tiles
/// are in both buffers, and the tile at any row and column, whole, partial or at an
/// edge. block_tiles walks its tiles in one order or another.
template <std::size_t kSize, std::size_t W>
class block_walk {
 public:
  block_walk(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
             dim cols, bool stream)
      : src_(src), src_row_(src_row), src_step_(src_row * dim{kSize}), dst_(dst), cols_at_(cols_at), col0_(col0),
        rows_(rows), cols_(cols), stream_(stream), row_w_(cols_at.inner_stride * dim{kSize}),
        first_(dst + col0 * row_w_), tile_prefetch_(stream) {}

 protected:
  static constexpr dim w = static_cast<dim>(W);

  const std::byte* src_;
  dim src_row_, src_step_;
  std::byte* dst_;
  const column_map& cols_at_;
  dim col0_, rows_, cols_;
  bool stream_;
  dim row_w_;           ///< bytes between destination rows (one period)
  std::byte* first_;    ///< the destination row of column 0 (one period)
  bool tile_prefetch_;  ///< whole tiles ask for their own rows' lines ahead

  const std::byte* from(dim j, dim i) const { return src_ + (j * src_row_ + i) * dim{kSize}; }
  std::byte* to(dim j, dim i) const { return first_ + i * row_w_ + j * dim{kSize}; }
  /// Destination row k of the tile whose first row and column are j and i (one period).
  auto rows_at(dim j, dim i) const {
    return [at = to(j, i), step = row_w_](std::size_t k) { return at + static_cast<dim>(k) * step; };
  }

  /// The destination rows of columns i.. at row j, any number of periods.
  void place(dim i, dim j, std::byte** at) const {
    dim q = (col0_ + i) / cols_at_.period, r = (col0_ + i) % cols_at_.period;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < W; ++k) {
      at[k] = dst_ + (q * cols_at_.outer_stride + r * cols_at_.inner_stride + j) * dim{kSize};
      if (++r == cols_at_.period) {
        r = 0;
        ++q;
      }
    }
  }

  /// Lanes written of the tiles at row j: W when the padding completes them.
  dim lanes(dim j) const {
    const dim left = rows_ - j < w ? rows_ - j : w;
    return left + cols_at_.spare >= w ? w : left;
  }

  /// In cache, on AVX-512, one or two columns (rows) left of a whole strip of 32-bit
  /// elements go as a gather (scatter) each, not as a tile: faster than a tile's shuffles
  /// for one or two; four cost more than a tile. Returns whether it did the tile.
  bool edge_gathers(dim j, dim i) const {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kSize == 4 && W == 16) {
      const hn::Full512<std::int32_t> di;
      if (!stream_ && cols_ - i <= 2 && rows_ - j >= w && src_row_ < (dim{1} << 26)) {
        MEMFMT_KERNEL_PATH("edge gathers");
        const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(src_row_)));
        const auto* row = reinterpret_cast<const std::int32_t*>(src_) + j * src_row_;
        for (dim c = i; c < cols_; ++c)
          hn::StoreU(hn::GatherIndex(di, row + c, index), di, reinterpret_cast<std::int32_t*>(to(j, c)));
        return true;
      }
      if (!stream_ && rows_ - j <= 2 && cols_ - i >= w && cols_at_.spare == 0 &&
          cols_at_.inner_stride < (dim{1} << 26)) {
        MEMFMT_KERNEL_PATH("edge scatters");
        const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(cols_at_.inner_stride)));
        auto* column = reinterpret_cast<std::int32_t*>(first_ + i * row_w_);
        for (dim r = j; r < rows_; ++r)
          hn::ScatterIndex(hn::LoadU(di, reinterpret_cast<const std::int32_t*>(from(r, i))), di, column + r, index);
        return true;
      }
    }
#endif
    (void)j, (void)i;
    return false;
  }

  /// The tile of source rows j.., columns i.. (one period), whole or partial.
  void tile(dim j, dim i) {
    if (edge_gathers(j, i)) return;
    // In cache, a tile at the far edge of a block at least a tile wide (and without
    // padding to write after its rows) goes whole, ending at the edge: it writes some of
    // its neighbour's elements again, with the same values, since nothing here reads
    // the destination
    if (!stream_) {
      if (cols_ - i < w && cols_ >= w) i = cols_ - w;
      if (rows_ - j < w && rows_ >= w && cols_at_.spare == 0) j = rows_ - w;
    }
    if (rows_ - j >= w && cols_ - i >= w) {
      transpose_tile_even<kSize, W>(from(j, i), src_step_, to(j, i), row_w_, stream_, tile_prefetch_);
      return;
    }
    std::byte* at[W];
    place(i, j, at);
    transpose_tile_part<kSize, W>(from(j, i), src_step_, at, rows_ - j < w ? rows_ - j : w,
                                  cols_ - i < w ? cols_ - i : w, lanes(j), stream_);
  }

};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_BLOCK_WALK_INL_H_
