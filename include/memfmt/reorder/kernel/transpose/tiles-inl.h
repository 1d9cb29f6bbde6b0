// Whole and partial tiles between memory and registers: rows loaded with prefetches
// ahead, stored around the caches when they make whole lines, and tiles whose rows
// or columns stop short of W.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_TILES_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_TILES_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_TILES_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_TILES_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/prefetch.hpp"
#include "memfmt/reorder/kernel/transpose/registers-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// How far ahead a tile's source rows are prefetched when reading from memory. Rows far
/// apart (nchw -> nhwc: W planes) are W streams: each asks for its line far_rows_ahead / W
/// bytes ahead, so that about as much is in flight whatever W. Rows closer than
/// close_rows are one sequential stream, asked for close_rows_ahead bytes ahead: a few
/// stacks of rows further. (Both distances were tuned from memory on one thread; the
/// results vary little around them.)
inline constexpr dim far_rows_ahead = 8192;
inline constexpr dim close_rows = 1024;
inline constexpr dim close_rows_ahead = 4096;

/// Whether a whole tile's rows can be stored around the caches: rows of a whole line
/// each, or shorter rows that fill whole lines back to back (x86 only: elsewhere
/// streaming stores do not pay).
template <std::size_t kSize, std::size_t W>
inline constexpr bool tile_can_stream =
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
    kSize * W >= 16 && kSize * W <= 64 && (kSize * W * W) % 64 == 0;
#else
    false;
#endif

/// The W source rows of a whole tile, `src_step` bytes apart; with `stream` (from
/// memory), asks for the rows' lines a little ahead: W streams outrun the hardware
/// prefetcher.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void load_tile(VTile<W>* r, const std::byte* src, dim src_step, bool stream) {
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) r[k] = pinned(load_bits<kSize, W>(src + static_cast<dim>(k) * src_step));
  if (stream) {
    const dim ahead = src_step < close_rows ? close_rows_ahead : far_rows_ahead / static_cast<dim>(W);
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < W; ++k) prefetch_ahead(src + static_cast<dim>(k) * src_step, ahead);
  }
}

/// Stores the W rows of a transposed tile, row k at row_at(k); around the caches when
/// `around` (@pre then tile_can_stream and whole aligned lines).
template <std::size_t kSize, std::size_t W, class RowAt>
HWY_INLINE void store_tile(const VTile<W>* r, RowAt row_at, bool around) {
  if constexpr (tile_can_stream<kSize, W>) {
    if (around) {
      MEMFMT_UNROLL
      for (std::size_t k = 0; k < W; ++k) store_bits<kSize, W, true>(r[k], row_at(k));
      return;
    }
  }
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) store_bits<kSize, W>(r[k], row_at(k));
}

/// A whole W x W tile: source rows `src_step` bytes apart, destination row k at dst[k];
/// unrolled, in registers. With `stream`, rows of whole aligned lines bypass the caches.
template <std::size_t kSize, std::size_t W>
HWY_NOINLINE void transpose_tile_whole(const std::byte* src, dim src_step, std::byte* const* dst, bool stream) {
  VTile<W> r[W];
  load_tile<kSize, W>(r, src, src_step, stream);
  transpose_tile<W>(r);
  bool lines = false;
  if constexpr (tile_can_stream<kSize, W>) {
    if (kSize * W == 64) {
      std::uintptr_t bits = 0;
      MEMFMT_UNROLL
      for (std::size_t k = 0; k < W; ++k) bits |= reinterpret_cast<std::uintptr_t>(dst[k]);
      lines = bits % 64 == 0;
    } else {
      lines = reinterpret_cast<std::uintptr_t>(dst[0]) % 64 == 0;
      MEMFMT_UNROLL
      for (std::size_t k = 1; k < W; ++k) lines = lines && dst[k] == dst[0] + static_cast<dim>(k * kSize * W);
    }
  }
  store_tile<kSize, W>(r, [dst](std::size_t k) { return dst[k]; }, stream && lines);
}

/// Stores the W rows of a transposed tile at `dst`, `dst_step` bytes apart; around the
/// caches when `stream` and the rows make whole aligned lines.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void store_tile_rows(const VTile<W>* r, std::byte* dst, dim dst_step, bool stream) {
  const auto at = reinterpret_cast<std::uintptr_t>(dst);
  const bool lines = kSize * W == 64 ? (at | static_cast<std::uintptr_t>(dst_step)) % 64 == 0
                                     : at % 64 == 0 && dst_step == static_cast<dim>(kSize * W);
  store_tile<kSize, W>(r, [dst, dst_step](std::size_t k) { return dst + static_cast<dim>(k) * dst_step; },
                       stream && lines);
}

/// A whole W x W tile whose destination rows are `dst_step` bytes apart: inlined into
/// the block's loops, since with 8 or 4 lanes a call and W row pointers per tile cost
/// about as much as the tile. `prefetch`: ask for the source rows' lines ahead (see
/// load_tile), unless the caller does.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void transpose_tile_even(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, bool stream,
                                    bool prefetch) {
  VTile<W> r[W];
  load_tile<kSize, W>(r, src, src_step, prefetch);
  transpose_tile<W>(r);
  store_tile_rows<kSize, W>(r, dst, dst_step, stream);
}

/// Tiles stacked along the source rows whose destination rows, side by side, fill one
/// cache line: 2 on AVX2 and 4 on SSE4 for 32-bit elements (1: no stacks). A tile row
/// shorter than a line leaves the rest of the line to a later pass: in cache, the line
/// is then written twice; from memory, it cannot stream, since only whole lines do.
template <std::size_t kSize, std::size_t W>
inline constexpr std::size_t tiles_per_line = kSize * W >= 16 && kSize * W < 64 ? 64 / (kSize * W) : 1;

/// A tile of `rows` x `cols` elements (each at most W) of kSize bytes: source rows
/// `src_step` bytes apart; source column k becomes the destination row at dst[k], of
/// which the first `lanes` (rows <= lanes <= W) are written, zeros after `rows` (the
/// destination's padding: whole rows instead of masked ones). Nothing else is read or
/// written. With `stream`, destination rows that are whole aligned cache lines bypass
/// the caches.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void transpose_tile_part(const std::byte* src, dim src_step, std::byte* const* dst, dim rows, dim cols,
                                    dim lanes, bool stream) {
  const DTile<W> du;
  if (rows == static_cast<dim>(W) && cols == static_cast<dim>(W)) {
    transpose_tile_whole<kSize, W>(src, src_step, dst, stream);
    return;
  }
  VTile<W> r[W];
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    const auto row = static_cast<dim>(k);
    r[k] = pinned(row >= rows                   ? hn::Zero(du)
                  : cols == static_cast<dim>(W) ? load_bits<kSize, W>(src + row * src_step)
                                                : load_bits_first<kSize, W>(src + row * src_step, cols));
  }
  transpose_tile<W>(r);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    if (static_cast<dim>(k) >= cols) break;
    if (lanes == static_cast<dim>(W)) {
      store_bits<kSize, W>(r[k], dst[k]);
    } else {
      store_bits_first<kSize, W>(r[k], dst[k], lanes);
    }
  }
}

/// Source rows of a band of a streamed transpose to far-apart destination rows: 1 KiB
/// of each destination row, fewer when the source rows of the band would span more than
/// 128 KiB (the band is read once per column group, from L2), and a multiple of W (at
/// least W, however far apart the source rows are).
template <std::size_t kSize, std::size_t W>
constexpr dim streamed_band_rows(dim src_step) {
  constexpr auto w = static_cast<dim>(W);
  const dim rows = std::min<dim>(1024 / static_cast<dim>(kSize), (128 << 10) / std::max<dim>(src_step, 1));
  return std::max<dim>(rows / w * w, w);
}

/// The source lines of the band after the current one (`rows` rows `step` bytes
/// apart, `bytes` used of each), asked for in `shares` shares of about as many lines
/// each, in order: one share per tile of the current band.
class next_band_lines {
 public:
  /// @pre rows == 0 (nothing to ask for), or `first` is where the band's first row starts
  next_band_lines(const std::byte* first, dim step, dim bytes, dim rows, dim shares)
      : first_(reinterpret_cast<std::uintptr_t>(first)), step_(step), bytes_(bytes), rows_(rows) {
    if (bytes == step && rows > 1) {  // rows back to back: one row, no line asked twice
      bytes_ = rows * step;
      step_ = bytes_;
      rows_ = 1;
    }
    // lines a row touches: the same for every row when rows are whole lines apart
    const dim lead = step_ % 64 == 0 ? static_cast<dim>(first_ % 64) : 63;
    per_row_ = (lead + bytes_ + 63) / 64;
    per_share_ = (rows_ * per_row_ + shares - 1) / std::max<dim>(shares, 1);
  }

  void prefetch_next_share() {
    for (dim k = 0; k < per_share_ && row_ < rows_; ++k) {
      const std::uintptr_t begin = first_ + static_cast<std::uintptr_t>(row_ * step_);
      const std::uintptr_t line = (begin & ~std::uintptr_t{63}) + static_cast<std::uintptr_t>(line_ * 64);
      if (line < begin + static_cast<std::uintptr_t>(bytes_)) prefetch_line(line);
      if (++line_ == per_row_) {
        line_ = 0;
        ++row_;
      }
    }
  }

 private:
  std::uintptr_t first_;
  dim step_, bytes_, rows_;
  dim per_row_ = 1, per_share_ = 0;
  dim row_ = 0, line_ = 0;  ///< the next line to ask for
};

/// Calls f(step), with `step` a compile-time constant when it is one line (the source
/// rows of f32 nChw16c): with the step in a register, GCC keeps the row pointers of a
/// tile in vector registers and moves them back one at a time. (Half a line, nChw8c,
/// gained nothing.)
template <class F>
HWY_INLINE void with_source_step(dim step, F&& f) {
  if (step == 64) {
    f(std::integral_constant<dim, 64>{});
  } else {
    f(step);
  }
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_TILES_INL_H_
