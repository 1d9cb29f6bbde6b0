// Blocks too small for a block transpose of their own: many blocks of a few tiles in
// one loop, and blocks 2 to 4 elements wide on a packed side, by interleaved loads
// or stores.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_SMALL_BLOCKS_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_SMALL_BLOCKS_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_SMALL_BLOCKS_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_SMALL_BLOCKS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/convert/lanes-inl.h"
#include "memfmt/reorder/kernel/transpose/tiles-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// A tile of `rows` x `cols` 32-bit elements (each at most W) by masked rows: source
/// rows `src_step` bytes apart, source column k to the destination row at to + k *
/// dst_step. `row_lanes` = FirstN(cols). Loads are masked only when cols < W, and stores
/// of rows < W lanes go by store_lanes_first: AVX2's masked stores (vpmaskmov) cost a
/// dozen cycles or more each on some processors, whole stores one.
/// @pre exact_masked_rows<4>
template <std::size_t W, class M>
HWY_INLINE void transpose_masked_tile(const std::byte* from, dim src_step, std::byte* to, dim dst_step, dim rows,
                                      dim cols, M row_lanes) {
  const DTile<W> du;
  constexpr auto w = static_cast<dim>(W);
  VTile<W> r[W];
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    const auto row = static_cast<dim>(k);
    const auto* p = reinterpret_cast<const std::uint32_t*>(from + row * src_step);
    r[k] = row >= rows ? hn::Zero(du) : cols == w ? hn::LoadU(du, p) : hn::MaskedLoad(row_lanes, du, p);
  }
  transpose_tile<W>(r);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    const auto column = static_cast<dim>(k);
    if (column >= cols) break;
    auto* p = reinterpret_cast<std::uint32_t*>(to + column * dst_step);
    if (rows == w) {
      hn::StoreU(r[k], du, p);
    } else {
      store_lanes_first<W>(r[k], p, rows);
    }
  }
}

/// `count` blocks of `rows` x `cols` 32-bit elements: block b's source rows start at src
/// + b * src_block, `src_step` bytes apart, and its source column k becomes the
/// destination row at dst + b * dst_block + k * dst_step. With blocks this small (nchw
/// <-> nChw16c with few pixels), a block transpose per block costs more than its tiles:
/// here they go inline, one loop over the blocks, by masked rows. Blocks of one tile
/// make their masks once, larger blocks per tile.
/// @pre exact_masked_rows<4>, rows > 0, cols > 0
template <std::size_t W>
HWY_NOINLINE void transpose_small_blocks(const std::byte* src, dim src_step, dim src_block, std::byte* dst, dim dst_step,
                                         dim dst_block, dim rows, dim cols, dim count) {
  MEMFMT_KERNEL_PATH("small blocks");
  const DTile<W> du;
  constexpr auto w = static_cast<dim>(W);
  if (rows <= w && cols <= w) {
    const auto row_lanes = hn::FirstN(du, static_cast<std::size_t>(cols));
    for (dim b = 0; b < count; ++b)
      transpose_masked_tile<W>(src + b * src_block, src_step, dst + b * dst_block, dst_step, rows, cols, row_lanes);
    return;
  }
  for (dim b = 0; b < count; ++b) {
    for (dim r0 = 0; r0 < rows; r0 += w) {
      for (dim c0 = 0; c0 < cols; c0 += w) {
        const dim n_rows = rows - r0 < w ? rows - r0 : w, n_cols = cols - c0 < w ? cols - c0 : w;
        transpose_masked_tile<W>(src + b * src_block + r0 * src_step + c0 * 4, src_step,
                                 dst + b * dst_block + c0 * dst_step + r0 * 4, dst_step, n_rows, n_cols,
                                 hn::FirstN(du, static_cast<std::size_t>(n_cols)));
      }
    }
  }
}

/// `count` blocks of `rows` x `cols` elements of kSize bytes in whole W x W tiles, inline,
/// in one loop over the blocks (placed as in transpose_small_blocks): the last tile of a
/// row or column goes back to end at the edge, and writes some of its neighbour's
/// elements again, with the same values. For blocks a line wide and a few tiles long
/// (nchw <-> nChw16c with 3 x 3 to 8 x 8 pixels), where a block transpose per block
/// costs as much as the block's few tiles.
/// @pre rows >= W, cols >= W; nothing but the elements is written (no padding)
template <std::size_t kSize, std::size_t W>
HWY_NOINLINE void transpose_short_blocks(const std::byte* src, dim src_step, dim src_block, std::byte* dst, dim dst_step,
                                         dim dst_block, dim rows, dim cols, dim count) {
  MEMFMT_KERNEL_PATH("short blocks");
  constexpr auto w = static_cast<dim>(W);
  for (dim b = 0; b < count; ++b) {
    const std::byte* from = src + b * src_block;
    std::byte* to = dst + b * dst_block;
    for (dim j = 0; j < rows; j += w) {
      const dim row = rows - j < w ? rows - w : j;
      for (dim i = 0; i < cols; i += w) {
        const dim col = cols - i < w ? cols - w : i;
        transpose_tile_even<kSize, W>(from + row * src_step + col * dim{kSize}, src_step,
                                      to + col * dst_step + row * dim{kSize}, dst_step, false, false);
      }
    }
  }
}

/// Whether a vector half as wide as D's still holds 16 bytes or more: the rest of a
/// row shorter than a vector goes on in those (16 u8 columns on AVX2 or AVX-512).
template <class D>
inline constexpr bool halves_to_16_bytes = !HWY_HAVE_SCALABLE && hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) >= 32;
/// The fewest columns worth going on with: a vector of 16 bytes (each half of a wider
/// vector takes what is left of it in turn, 64 -> 32 -> 16 bytes on AVX-512).
template <class D>
inline constexpr dim half_floor = static_cast<dim>(16 / sizeof(hn::TFromD<D>));

/// Narrow transposes, where one side of the block is 2, 3 or 4 elements wide
/// and packed (e.g. nchw <-> nhwc with 3 channels): Highway's interleaved
/// stores and loads do them a whole vector at a time.
/// Interleave: dst[i * m + j] = src[j * src_row + i] for j < m, i < count;
/// returns how many i it did (whole vectors, then vectors half as wide down to 16 bytes;
/// the caller does the rest). `stream`: around the caches (interleaved through a buffer:
/// Highway has no streaming interleaved store).
template <class D>
HWY_INLINE dim interleave_rows(D d, const hn::TFromD<D>* src, dim src_row, hn::TFromD<D>* dst, dim m, dim count,
                               bool stream = false) {
  const auto N = static_cast<dim>(hn::Lanes(d));
  HWY_ALIGN hn::TFromD<D> lanes[4 * hn::MaxLanes(d)];
  dim i = 0;
  for (; i + N <= count; i += N) {
    hn::TFromD<D>* out = stream ? lanes : dst + i * m;
    const auto v0 = hn::LoadU(d, src + i);
    const auto v1 = hn::LoadU(d, src + src_row + i);
    if (m == 2) {
      hn::StoreInterleaved2(v0, v1, d, out);
    } else if (m == 3) {
      hn::StoreInterleaved3(v0, v1, hn::LoadU(d, src + 2 * src_row + i), d, out);
    } else {
      hn::StoreInterleaved4(v0, v1, hn::LoadU(d, src + 2 * src_row + i), hn::LoadU(d, src + 3 * src_row + i), d, out);
    }
    if (stream)
      for (dim k = 0; k < m; ++k) store_maybe_stream(hn::Load(d, lanes + k * N), d, dst + i * m + k * N, true);
  }
  if constexpr (halves_to_16_bytes<D>) {
    if (count - i >= half_floor<D>)
      i += interleave_rows(hn::Half<D>(), src + i, src_row, dst + i * m, m, count - i, stream);
  }
  return i;
}

/// Deinterleave: dst[j + i * dst_row] = src[j * m + i] for i < m, j < count;
/// returns how many j it did (as interleave_rows). `stream`: around the caches.
template <class D>
HWY_INLINE dim deinterleave_rows(D d, const hn::TFromD<D>* src, hn::TFromD<D>* dst, dim dst_row, dim m, dim count,
                                 bool stream = false) {
  const auto N = static_cast<dim>(hn::Lanes(d));
  dim j = 0;
  for (; j + N <= count; j += N) {
    hn::VFromD<D> v0, v1, v2, v3;
    if (m == 2) {
      hn::LoadInterleaved2(d, src + j * 2, v0, v1);
    } else if (m == 3) {
      hn::LoadInterleaved3(d, src + j * 3, v0, v1, v2);
    } else {
      hn::LoadInterleaved4(d, src + j * 4, v0, v1, v2, v3);
    }
    store_maybe_stream(v0, d, dst + j, stream);
    store_maybe_stream(v1, d, dst + j + dst_row, stream);
    if (m >= 3) store_maybe_stream(v2, d, dst + j + 2 * dst_row, stream);
    if (m == 4) store_maybe_stream(v3, d, dst + j + 3 * dst_row, stream);
  }
  if constexpr (halves_to_16_bytes<D>) {
    if (count - j >= half_floor<D>)
      j += deinterleave_rows(hn::Half<D>(), src + j * m, dst + j, dst_row, m, count - j, stream);
  }
  return j;
}

/// Whether Highway's interleaved loads and stores can take `p`: the emulated target
/// accesses their lanes as typed elements, which a pointer not aligned to them does not hold
/// (the caller then does every element itself).
template <std::size_t kSize>
HWY_INLINE bool interleaved_access_ok(const std::byte* p) {
  return HWY_TARGET != HWY_EMU128 || reinterpret_cast<std::uintptr_t>(p) % kSize == 0;
}

template <std::size_t kSize>
dim interleave_plain(const std::byte* src, dim src_row, std::byte* dst, dim m, dim count, bool stream) {
  using T = uint_of_size<kSize>;
  if (!interleaved_access_ok<kSize>(dst)) return 0;
  return interleave_rows(hn::ScalableTag<T>(), reinterpret_cast<const T*>(src), src_row, reinterpret_cast<T*>(dst), m,
                         count, stream);
}

template <std::size_t kSize>
dim deinterleave_plain(const std::byte* src, std::byte* dst, dim dst_row, dim m, dim count, bool stream) {
  using T = uint_of_size<kSize>;
  if (!interleaved_access_ok<kSize>(src)) return 0;
  return deinterleave_rows(hn::ScalableTag<T>(), reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), dst_row, m,
                           count, stream);
}

using tile_plain_fn = void (*)(const std::byte*, dim, std::byte*, dim);
using interleave_plain_fn = dim (*)(const std::byte*, dim, std::byte*, dim, dim, bool);
using deinterleave_plain_fn = dim (*)(const std::byte*, std::byte*, dim, dim, dim, bool);

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_SMALL_BLOCKS_INL_H_
