// The `tile` kernel: W x W tiles of units (an element of 1, 2 or 4 bytes, or the 2 to 8
// contiguous in source and destination that make 2 to 8 bytes). A tile reads W source
// rows along the columns, one vector each, transposes them (transpose_units), and
// writes each column's W rows as one vector: whole vectors on both sides, whichever
// loops the rows come from (OIhw4i16o4i: rows of 4 input and 4 output channels;
// OIhw16o16i: 16 x 16 channels; AB8b32a2b: units of 2 elements).
// Units of 1 or 2 bytes ride in 32-bit lanes, widened on load and narrowed on store.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TILE_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TILE_INL_H_
#undef MEMFMT_REORDER_KERNEL_TILE_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TILE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/convert-inl.h"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Lanes of a tile of units of type T (u32 or u64): a whole vector, or 1 where vectors
/// are sizeless or the target is scalar (tiles of one unit: a copy per unit).
template <class T>
inline constexpr std::size_t unit_lanes =
    (HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR) ? 1 : hn::MaxLanes(hn::ScalableTag<T>());

template <class T>
using DUnits = hn::CappedTag<T, unit_lanes<T>>;

/// Runs the nest's tiles: per outer iteration, its rows in groups of W, its columns
/// in groups of W, the zeros of its zero tail as rows of zeros. Units are moved as
/// bits: the kind serves plain copies only.
class tile_kernel {
 public:
  /// @pre n.kind == tile, n.cvt.is_plain_copy(), units of 1, 2, 4 or 8 bytes, at most
  ///      tile_rows_max rows
  explicit tile_kernel(const nest& n) : stream_(n.stream_stores) {
    const int first = n.nloops - n.owned_loops();
    const auto elem = static_cast<dim>(data_type_size(n.cvt.src));
    unit_bytes_ = n.tile_unit * elem;
    // the column loops, innermost first: the extents and dst byte steps of the walk
    cols_ = 1;
    for (int k = 0; k < n.tile_column_loops; ++k) {
      const loop& l = n.loops[first + n.tile_row_loops + n.tile_column_loops - 1 - k];
      col_extent_[k] = l.extent;
      col_step_[k] = l.dst_stride * elem;
      cols_ *= l.extent;
    }
    for (int k = n.tile_column_loops; k < max_column_loops; ++k) {
      col_extent_[k] = 1;
      col_step_[k] = 0;
    }
    // the rows' source byte offsets, row-major over the row loops (dense in dst)
    rows_ = 1;
    src_rows_[0] = 0;
    // (the innermost row loop's run is followed by zero_tail rows of zeros: offset -1)
    for (int k = first; k < first + n.tile_row_loops; ++k) {
      const loop& l = n.loops[k];
      const dim e = k + 1 == first + n.tile_row_loops ? l.extent + n.zero_tail : l.extent;
      for (dim r = rows_ * e; r-- > 0;) {
        const dim outer_row = src_rows_[r / e], i = r % e;
        src_rows_[r] = outer_row < 0 || i >= l.extent ? -1 : outer_row + i * l.src_stride * elem;
      }
      rows_ *= e;
    }
  }

  /// The tiles of one outer iteration.
  void block(const std::byte* src, std::byte* dst) const {
    switch (unit_bytes_) {
      case 1: return groups<1>(src, dst);
      case 2: return groups<2>(src, dst);
      case 4: return groups<4>(src, dst);
      default: return groups<8>(src, dst);
    }
  }

 private:
  /// Lanes that carry units of kBytes: 64-bit for 8, else 32-bit (widened).
  template <std::size_t kBytes>
  using lane_t = std::conditional_t<kBytes == 8, std::uint64_t, std::uint32_t>;

  template <std::size_t kBytes>
  void groups(const std::byte* src, std::byte* dst) const {
    constexpr auto W = static_cast<dim>(unit_lanes<lane_t<kBytes>>);
    for (dim r = 0; r < rows_; r += W) tiles<kBytes>(src, dst + r * dim{kBytes}, src_rows_ + r, rows_ - r < W ? rows_ - r : W);
  }

  /// The tiles of the `nr` rows at source byte offsets `rows`, over all columns.
  template <std::size_t kBytes>
  void tiles(const std::byte* src, std::byte* dst, const dim* rows, dim nr) const;

  bool stream_;
  dim unit_bytes_ = 0;
  /// The columns (in a row in the source): col_extent_[k] of them col_step_[k] bytes
  /// apart in dst at level k, innermost first.
  static constexpr int max_column_loops = 3;
  dim cols_ = 0;
  dim col_extent_[max_column_loops], col_step_[max_column_loops];
  dim rows_ = 0;
  dim src_rows_[tile_rows_max];  ///< (the first rows_ are set)
};

/// W units of kBytes at `p` in the lanes of `d` (the first `n` of them when n < W, the
/// others zero).
template <std::size_t kBytes, class D>
HWY_INLINE hn::Vec<D> load_units(D d, const std::byte* p, dim n) {
  constexpr auto W = static_cast<dim>(hn::MaxLanes(D()));
  if constexpr (kBytes == sizeof(hn::TFromD<D>)) {
    const auto* q = reinterpret_cast<const hn::TFromD<D>*>(p);
    return n == W ? hn::LoadU(d, q) : load_first(d, q, n);
  } else {
    return n == W ? load_bits<kBytes, W>(p) : load_bits_first<kBytes, W>(p, n);
  }
}

/// Stores the first `n` lanes of `v` as units of kBytes at `p`; around the caches when
/// `stream` and the store is whole and aligned.
template <std::size_t kBytes, class D>
HWY_INLINE void store_units(D d, hn::Vec<D> v, std::byte* p, dim n, bool stream) {
  constexpr auto W = static_cast<dim>(hn::MaxLanes(D()));
  if constexpr (kBytes == sizeof(hn::TFromD<D>)) {
    auto* q = reinterpret_cast<hn::TFromD<D>*>(p);
    if (n == W) {
      store_maybe_stream(v, d, q, stream);
    } else {
      store_first(v, d, q, n);
    }
  } else if (n == W) {
    store_bits<kBytes, W>(v, p);
  } else {
    store_bits_first<kBytes, W>(v, p, n);
  }
}

template <std::size_t kBytes>
void tile_kernel::tiles(const std::byte* src, std::byte* dst, const dim* rows, dim nr) const {
  constexpr std::size_t W = unit_lanes<lane_t<kBytes>>;
  // the destination of column c, walked column by column (an odometer over its loops)
  dim at[max_column_loops] = {};
  std::byte* column = dst;
  const auto next_column = [&] {
    for (int k = 0; k < max_column_loops; ++k) {
      column += col_step_[k];
      if (++at[k] < col_extent_[k]) return;
      at[k] = 0;
      column -= col_extent_[k] * col_step_[k];
    }
  };
  if constexpr (W == 1) {
    for (dim c = 0; c < cols_; ++c, next_column()) {
      if (rows[0] < 0) {
        std::memset(column, 0, kBytes);
      } else {
        std::memcpy(column, src + rows[0] + c * dim{kBytes}, kBytes);
      }
    }
  } else {
    const DUnits<lane_t<kBytes>> d;
    hn::Vec<DUnits<lane_t<kBytes>>> v[W];
    for (dim c = 0; c < cols_; c += static_cast<dim>(W)) {
      const dim nc = cols_ - c < static_cast<dim>(W) ? cols_ - c : static_cast<dim>(W);
      for (std::size_t k = 0; k < W; ++k) {
        // (rows of zeros: padding; rows past the last: transposed, never stored)
        const bool zero = static_cast<dim>(k) >= nr || rows[k] < 0;
        v[k] = zero ? hn::Zero(d) : load_units<kBytes>(d, src + rows[k] + c * dim{kBytes}, nc);
      }
      transpose_units(d, v);
      for (dim j = 0; j < nc; ++j, next_column()) store_units<kBytes>(d, v[j], column, nr, stream_);
    }
  }
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TILE_INL_H_
