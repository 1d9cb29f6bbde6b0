// Per-target `transpose` kernel: the two innermost loops J (dst stride 1) and
// I (src stride 1) form a 2-D block (its columns may also span a third loop C,
// contiguous with I in the source); W x W tiles (W = u32 lanes: 16, 8 or 4,
// whichever wastes least) are loaded as W source rows, transposed in registers
// as 32-bit lanes and stored as W destination rows; partial tiles load and
// store masked rows. 16- and 8-bit elements are widened to 32-bit lanes, except where
// a tile's rows make whole 128-bit blocks: those transpose unwidened, one small
// transpose per 128-bit block of a vector, as tiles side by side in cache (x86 SIMD
// targets) and in stacks that fill destination lines (AVX-512).
// Converting reorders convert each strip of source rows into a buffer of the
// destination type first, then transpose that (with beta, which reads the
// destination, they transpose f32 values and convert destination rows). A side
// of 2 to 4 packed elements uses interleaved loads/stores.
//
// Compiled once per target by pass-inl.h.

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "memfmt/reorder/kernel/convert-inl.h"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"
#include "memfmt/reorder/kernel/scalar_rows.hpp"

#ifndef MEMFMT_UNROLL
// A tile stays in registers only when the loops over its rows are unrolled completely,
// which GCC's -O2 does not do by itself for bodies this large.
#define MEMFMT_UNROLL _Pragma("GCC unroll 16")
#endif

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Tile edge: the lanes of a u32 vector. Targets with fewer than 4 lanes (or
/// sizeless vectors, which cannot form arrays) transpose with scalar rows.
#if HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR
inline constexpr std::size_t tile_lanes = 1;
#else
inline constexpr std::size_t tile_lanes = hn::MaxLanes(DU());
#endif

/// A tile row of W 32-bit lanes (W = tile_lanes, or 8 or 4 for smaller tiles).
template <std::size_t W>
using DTile = hn::CappedTag<std::uint32_t, W>;
template <std::size_t W>
using VTile = hn::Vec<DTile<W>>;

#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE  // (the scalar target lacks the shuffles)
/// Transposes the 4 x 4 matrix in each 128-bit block of the four rows r[0..4): afterwards
/// lane k of block b of r[i] is lane i of block b of r[k].
template <std::size_t W>
HWY_INLINE void transpose_within_blocks(VTile<W>* r) {
  using V = VTile<W>;
  const DTile<W> du;
  const hn::Repartition<std::uint64_t, DTile<W>> d64;
  const V t0 = hn::InterleaveLower(du, r[0], r[1]);
  const V t1 = hn::InterleaveLower(du, r[2], r[3]);
  const V t2 = hn::InterleaveUpper(du, r[0], r[1]);
  const V t3 = hn::InterleaveUpper(du, r[2], r[3]);
  r[0] = hn::BitCast(du, hn::InterleaveLower(d64, hn::BitCast(d64, t0), hn::BitCast(d64, t1)));
  r[1] = hn::BitCast(du, hn::InterleaveUpper(d64, hn::BitCast(d64, t0), hn::BitCast(d64, t1)));
  r[2] = hn::BitCast(du, hn::InterleaveLower(d64, hn::BitCast(d64, t2), hn::BitCast(d64, t3)));
  r[3] = hn::BitCast(du, hn::InterleaveUpper(d64, hn::BitCast(d64, t2), hn::BitCast(d64, t3)));
}

/// Transposes B x B 128-bit blocks: the vectors r[L * m + k] (m < B) in, block m of
/// r[L * b + k] = block b of the m-th of them out, for each k < L.
template <std::size_t L, class D>
HWY_INLINE void transpose_blocks(D d, hn::Vec<D>* r) {
  constexpr std::size_t B = hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) / 16;
  if constexpr (B == 2) {
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < L; ++k) {
      const hn::Vec<D> lo = r[k], hi = r[L + k];
      r[k] = hn::ConcatLowerLower(d, hi, lo);
      r[L + k] = hn::ConcatUpperUpper(d, hi, lo);
    }
  } else if constexpr (B == 4) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // two rounds of block shuffles: 0x88 takes blocks (0, 2) of each operand, 0xDD (1, 3)
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < L; ++k) {
      const __m512i x0 = hn::BitCast(hn::Repartition<std::uint32_t, D>(), r[k]).raw;
      const __m512i x1 = hn::BitCast(hn::Repartition<std::uint32_t, D>(), r[L + k]).raw;
      const __m512i x2 = hn::BitCast(hn::Repartition<std::uint32_t, D>(), r[2 * L + k]).raw;
      const __m512i x3 = hn::BitCast(hn::Repartition<std::uint32_t, D>(), r[3 * L + k]).raw;
      const __m512i u0 = _mm512_shuffle_i32x4(x0, x1, 0x88), u1 = _mm512_shuffle_i32x4(x0, x1, 0xDD);
      const __m512i u2 = _mm512_shuffle_i32x4(x2, x3, 0x88), u3 = _mm512_shuffle_i32x4(x2, x3, 0xDD);
      using VU32 = hn::Vec<hn::Repartition<std::uint32_t, D>>;
      r[k] = hn::BitCast(d, VU32{_mm512_shuffle_i32x4(u0, u2, 0x88)});
      r[2 * L + k] = hn::BitCast(d, VU32{_mm512_shuffle_i32x4(u0, u2, 0xDD)});
      r[L + k] = hn::BitCast(d, VU32{_mm512_shuffle_i32x4(u1, u3, 0x88)});
      r[3 * L + k] = hn::BitCast(d, VU32{_mm512_shuffle_i32x4(u1, u3, 0xDD)});
    }
#else
    static_assert(B != 4, "4 blocks per vector: AVX-512 only");
#endif
  }
}

/// Transposes the W x W units (32- or 64-bit lanes) of r[0..W), W = Lanes(d): afterwards
/// lane k of r[i] is lane i of the former r[k]. The tile kernel's network, and the
/// transpose kernel's for 32-bit lanes.
template <class D>
HWY_INLINE void transpose_units(D d, hn::Vec<D>* r) {
  using T = hn::TFromD<D>;
  constexpr std::size_t W = hn::MaxLanes(D()), L = 16 / sizeof(T);  // L: lanes per block
  if constexpr (W >= 2) {
    // L x L inside the blocks of each group of L rows, then the blocks across groups
    if constexpr (L == 4) {
      MEMFMT_UNROLL
      for (std::size_t g = 0; g < W; g += 4) transpose_within_blocks<W>(r + g);
    } else {
      MEMFMT_UNROLL
      for (std::size_t g = 0; g < W; g += 2) {
        const hn::Vec<D> a = r[g], b = r[g + 1];
        r[g] = hn::InterleaveLower(d, a, b);
        r[g + 1] = hn::InterleaveUpper(d, a, b);
      }
    }
    transpose_blocks<L>(d, r);
  }
}
#endif

/// Transposes the W x W matrix of 32-bit lanes held in rows r[0..W).
template <std::size_t W>
HWY_INLINE void transpose_tile(VTile<W>* r) {
#if HWY_TARGET != HWY_SCALAR && !HWY_HAVE_SCALABLE
  transpose_units(DTile<W>(), r);
#else
  (void)r;
#endif
}

template <std::size_t kSize>
using uint_of_size = std::conditional_t<kSize == 1, std::uint8_t, std::conditional_t<kSize == 2, std::uint16_t, std::uint32_t>>;

/// One row of a plain tile: W elements of kSize bytes, widened to u32 lanes.
template <std::size_t kSize, std::size_t W>
HWY_INLINE VTile<W> load_bits(const std::byte* p) {
  const DTile<W> du;
  if constexpr (kSize == 4) {
    return hn::LoadU(du, reinterpret_cast<const std::uint32_t*>(p));
  } else if constexpr (kSize == 2) {
    const hn::Rebind<std::uint16_t, DTile<W>> d16;
    return hn::PromoteTo(du, hn::LoadU(d16, reinterpret_cast<const std::uint16_t*>(p)));
  } else {
    const hn::Rebind<std::uint8_t, DTile<W>> d8;
    return hn::PromoteTo(du, hn::LoadU(d8, reinterpret_cast<const std::uint8_t*>(p)));
  }
}

/// Stores the u32 lanes of `v` as kSize-byte elements (the values fit: exact); with
/// kStream, around the caches.
/// @pre with kStream, `p` is aligned to the stored bytes
template <std::size_t kSize, std::size_t W, bool kStream = false>
HWY_INLINE void store_bits(VTile<W> v, std::byte* p) {
  const auto store = [](auto x, auto d, auto* to) {
    if constexpr (kStream) {
      hn::Stream(x, d, to);
    } else {
      hn::StoreU(x, d, to);
    }
  };
  const DTile<W> du;
  const hn::RebindToSigned<DTile<W>> di;
  if constexpr (kSize == 4) {
    store(v, du, reinterpret_cast<std::uint32_t*>(p));
  } else if constexpr (kSize == 2) {
    const hn::Rebind<std::uint16_t, DTile<W>> d16;
    store(hn::DemoteTo(d16, hn::BitCast(di, v)), d16, reinterpret_cast<std::uint16_t*>(p));
  } else {
    const hn::Rebind<std::uint8_t, DTile<W>> d8;
    store(hn::DemoteTo(d8, hn::BitCast(di, v)), d8, reinterpret_cast<std::uint8_t*>(p));
  }
}

/// `v`, kept in a register: the compiler may not fold the load that produced it into the
/// instructions that use it. A tile row feeds two interleaves; GCC folded its load into
/// both, which read every row twice (in L2 on Zen 5, one thread, each row read once:
/// nhwc -> nchw 100 to 103 -> 115 GB/s, nchw -> nChw16c 122 to 125 -> 127 to 129).
template <class V>
HWY_INLINE V pinned(V v) {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__)) && HWY_TARGET <= HWY_SSSE3  // x86 SIMD targets
  asm("" : "+v"(v.raw));
#endif
  return v;
}

/// A plain W x W tile at `src` (rows `src_row` elements apart) to `dst` (rows `dst_row` apart).
template <std::size_t kSize, std::size_t W>
void transpose_tile_plain(const std::byte* src, dim src_row, std::byte* dst, dim dst_row) {
  VTile<W> r[W];
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k)
    r[k] = pinned(load_bits<kSize, W>(src + static_cast<dim>(k) * src_row * dim{kSize}));
  transpose_tile<W>(r);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) store_bits<kSize, W>(r[k], dst + static_cast<dim>(k) * dst_row * dim{kSize});
}

/// Whether this target loads and stores the first lanes of a W-lane tile row of
/// kSize-byte elements without touching the others (AVX-512 masks; AVX2's
/// maskload/maskstore for 32-bit lanes). Elsewhere Highway 1.0 emulates masked
/// loads and stores with whole-vector ones, which could reach past the tile.
template <std::size_t kSize>
inline constexpr bool exact_masked_rows =
    HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || (HWY_TARGET == HWY_AVX2 && kSize == 4);

/// The first `n` elements of a tile row, widened to u32 lanes (the others zero).
template <std::size_t kSize, std::size_t W>
HWY_INLINE VTile<W> load_bits_first(const std::byte* p, dim n) {
  if constexpr (exact_masked_rows<kSize>) {
    const hn::Rebind<uint_of_size<kSize>, DTile<W>> d;
    const auto v = hn::MaskedLoad(hn::FirstN(d, static_cast<std::size_t>(n)), d,
                                  reinterpret_cast<const uint_of_size<kSize>*>(p));
    if constexpr (kSize == 4) {
      return v;
    } else {
      return hn::PromoteTo(DTile<W>(), v);
    }
  } else {
    alignas(64) std::byte row[W * kSize] = {};
    std::memcpy(row, p, static_cast<std::size_t>(n) * kSize);
    return load_bits<kSize, W>(row);
  }
}

/// Stores the first `n` lanes of `v` as kSize-byte elements.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void store_bits_first(VTile<W> v, std::byte* p, dim n) {
  if constexpr (exact_masked_rows<kSize> && kSize == 4) {
    const DTile<W> du;
    hn::BlendedStore(v, hn::FirstN(du, static_cast<std::size_t>(n)), du, reinterpret_cast<std::uint32_t*>(p));
  } else if constexpr (exact_masked_rows<kSize>) {  // (AVX-512: masked stores of any width)
    const hn::Rebind<uint_of_size<kSize>, DTile<W>> d;
    const auto narrow = hn::DemoteTo(d, hn::BitCast(hn::RebindToSigned<DTile<W>>(), v));
    hn::BlendedStore(narrow, hn::FirstN(d, static_cast<std::size_t>(n)), d, reinterpret_cast<uint_of_size<kSize>*>(p));
  } else {
    alignas(64) std::byte row[W * kSize];
    store_bits<kSize, W>(v, row);
    std::memcpy(p, row, static_cast<std::size_t>(n) * kSize);
  }
}

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

/// How far ahead a tile's source rows are prefetched when reading from memory. Rows far
/// apart (nchw -> nhwc: W planes) are W streams: each asks for its line far_rows_ahead / W
/// bytes ahead, so that about as much is in flight whatever W (on Zen 5, 256 MiB, one
/// thread, with 16-lane tiles 512 bytes against 1 KiB: oihw -> OIhw16i16o 42 -> 46 GB/s,
/// nchw -> nChw16c 36 -> 38; with 8-lane tiles, nchw -> nChw8c, 1 KiB against 512: 46
/// against 43). Rows closer than close_rows are one sequential stream, asked for
/// close_rows_ahead bytes ahead: a few stacks of rows further (on Zen 3, 8 KiB instead of
/// 1 KiB: nhwc -> nchw 69 -> 60 ms, nChw16c -> nchw with 17 channels 59 -> 55 ms). Since
/// transposes to far-apart destination rows go in bands (streamed_band_rows), 4 KiB: on
/// Zen 4, one thread, nhwc -> nchw 82 -> 85 % of memcpy, nChw16c -> nchw with 17 channels
/// 107 -> 106 % (the means of three runs each).
inline constexpr dim far_rows_ahead = 8192;
inline constexpr dim close_rows = 1024;
inline constexpr dim close_rows_ahead = 4096;

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

/// A whole W x W tile whose destination rows are `dst_step` bytes apart: inlined into
/// the block's loops, since with 8 or 4 lanes a call and W row pointers per tile cost
/// about as much as the tile (nchw -> nChw8c in L2 on Zen 4: 50 -> 79 GB/s). `prefetch`:
/// ask for the source rows' lines ahead (see load_tile), unless the caller does.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void transpose_tile_even(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, bool stream,
                                    bool prefetch) {
  VTile<W> r[W];
  load_tile<kSize, W>(r, src, src_step, prefetch);
  transpose_tile<W>(r);
  const auto at = reinterpret_cast<std::uintptr_t>(dst);
  const bool lines = kSize * W == 64 ? (at | static_cast<std::uintptr_t>(dst_step)) % 64 == 0
                                     : at % 64 == 0 && dst_step == static_cast<dim>(kSize * W);
  store_tile<kSize, W>(r, [dst, dst_step](std::size_t k) { return dst + static_cast<dim>(k) * dst_step; },
                       stream && lines);
}

/// How the whole 16 x 16 tiles of 32-bit elements into destination rows of one line each
/// (nchw -> nChw16c, in cache) read their source rows: as whole rows (transpose_tile_even)
/// or by 128-bit blocks (transpose_tile_by_blocks), block by block or line by line.
enum class tile_reads { rows, blocks, lines };

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
/// A whole 16 x 16 tile of 32-bit elements read by 128-bit blocks: vector 4b + i gets
/// block b of source rows i, 4 + i, 8 + i and 12 + i, by a broadcast and three masked
/// broadcasts (loads, no shuffles), so that each of its 128-bit blocks holds a 4 x 4
/// matrix; one transpose within the blocks of vectors 4b..4b+3 turns them into
/// destination rows 4b..4b+3. That is 32 shuffles instead of 64, and in L2 the tiles run
/// faster still than that explains (nchw -> nChw16c in L2 on Zen 5, one thread, against
/// transpose_tile_even, GB/s: 1 x 64 x 16 x 66 139 -> 175, 1 x 128 x 28 x 28 147 -> 175,
/// 1 x 256 x 14 x 14 127 -> 150). kLines: all 16 vectors at once, each source line read
/// at once, for rows a multiple of 4 KiB apart (the tiles left over from
/// transpose_staged_tiles): their 16 lines share one L1 set, and block by block, a line
/// is evicted before its next block is read (1 x 64 x 32 x 32: 121 GB/s so, 135 line by
/// line, 124 to 130 in 8-lane runs; without the aliasing, line by line is the slower: 1
/// x 64 x 16 x 66 175 -> 166, 1 x 128 x 16 x 32 161 -> 158).
/// @pre src and src_step are multiples of 16 (rows only 4-byte aligned, where some block
/// loads cross a line, were mixed against whole rows: 1 x 1024 x 5 x 5 -17 %, 1 x 32 x 35
/// x 35 +30 %)
template <bool kLines, class Step>
HWY_INLINE void transpose_tile_by_blocks(const std::byte* src, Step src_step, std::byte* dst, dim dst_step) {
  const DTile<16> du;
  VTile<16> v[16];
  const auto read = [&](std::size_t row, std::size_t b) {  // block b of source row `row`
    const auto* from = src + static_cast<dim>(row) * src_step + static_cast<dim>(16 * b);
    const __m128i part = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from));
    VTile<16>& to = v[4 * b + row % 4];
    to.raw = row < 4 ? _mm512_broadcast_i32x4(part)
                     : _mm512_mask_broadcast_i32x4(to.raw, static_cast<__mmask16>(0xF << (row / 4 * 4)), part);
  };
  const auto write = [&](std::size_t b) {  // destination rows 4b..4b+3
    transpose_within_blocks<16>(v + 4 * b);
    MEMFMT_UNROLL
    for (std::size_t i = 0; i < 4; ++i)
      hn::StoreU(v[4 * b + i], du, reinterpret_cast<std::uint32_t*>(dst + static_cast<dim>(4 * b + i) * dst_step));
  };
  if constexpr (kLines) {
    MEMFMT_UNROLL
    for (std::size_t row = 0; row < 16; ++row) {
      MEMFMT_UNROLL
      for (std::size_t b = 0; b < 4; ++b) read(row, b);
    }
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < 4; ++b) write(b);
  } else {
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < 4; ++b) {
      MEMFMT_UNROLL
      for (std::size_t row = 0; row < 16; ++row) read(row, b);
      write(b);
    }
  }
}
#endif

/// The reads for the whole tiles of a block into rows of one line (see tile_reads).
template <std::size_t kSize, std::size_t W>
inline tile_reads pick_tile_reads(const std::byte* src, dim src_step) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if (kSize == 4 && W == 16 && (reinterpret_cast<std::uintptr_t>(src) | static_cast<std::uintptr_t>(src_step)) % 16 == 0)
    return src_step % 4096 == 0 ? tile_reads::lines : tile_reads::blocks;
#endif
  (void)src;
  (void)src_step;
  return tile_reads::rows;
}

/// A whole W x W tile into destination rows of one line each, read as kReads says.
/// @pre pick_tile_reads gave kReads
template <std::size_t kSize, std::size_t W, tile_reads kReads, class Step>
HWY_INLINE void transpose_tile_into_lines(const std::byte* src, Step src_step, std::byte* dst) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kReads != tile_reads::rows && kSize == 4 && W == 16) {
    transpose_tile_by_blocks<kReads == tile_reads::lines>(src, src_step, dst, 64);
    return;
  }
#endif
  transpose_tile_even<kSize, W>(src, src_step, dst, 64, false, false);
}

/// A row of whole W x W tiles of 32-bit elements from source rows a multiple of 4 KiB
/// apart, which share one L1 set (planes of 32 x 32 f32), into destination rows
/// `dst_step` bytes apart: on AVX-512, strips of 16 rows x 8 tiles go first into a
/// buffer in L1 whose rows are 9 lines apart, each source row read as 8 consecutive
/// lines; the strip's tiles then read the buffer row by row. Read from the source, a
/// tile's 16 lines share a set (of 12 ways on Zen 5), and the lines of the next tiles
/// evict each other before they are read. In L2 on Zen 5, one thread, GB/s: nchw ->
/// nChw16c, against tiles read line by line, 1 x 64 x 32 x 32 137 -> 178, 1 x 16 x 32 x
/// 32 139 -> 152, 1 x 128 x 32 x 32 123 -> 143, 1 x 32 x 64 x 64 123 -> 137; nchw -> nhwc
/// 1 x 64 x 32 x 32 107 -> 130, 1 x 32 x 64 x 64 107 -> 122, 1 x 128 x 32 x 32 +5 %. (The
/// buffer read by 128-bit blocks, whose loads then wait for the 64-byte stores: 128;
/// strips of 4 tiles: 116; of 16 tiles, 17 lines apart: 156 to 180. Rows that do not
/// share sets, staged too: nchw -> nChw16c 1 x 128 x 28 x 28 +10 %, 1 x 256 x 14 x 14 -11
/// %. From memory, streamed, 16 x 64 x 256 x 256: 40 -> 26.)
/// `dst_step` may be a std::integral_constant: destination rows of one line each
/// (nchw -> nChw16c) then need no pointers (a step in a register: 183 -> 143 to 152).
/// Returns the columns done: whole strips, from the first; the caller does the rest.
/// @pre cols is a multiple of W
template <std::size_t kSize, std::size_t W, class Step>
HWY_NOINLINE dim transpose_staged_tiles(const std::byte* src, dim src_step, std::byte* dst, Step dst_step, dim cols) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kSize == 4 && W == 16) {
    constexpr dim strip = 8 * 16;                    // columns
    constexpr dim buffer_step = strip * 4 + 64;      // bytes between the buffer's rows
    HWY_ALIGN std::byte buffer[16 * buffer_step];    // 9 KiB
    const DTile<16> du;
    const dim strips = cols / strip;
    for (dim s = 0; s < strips; ++s) {
      const std::byte* from = src + s * strip * 4;
      MEMFMT_UNROLL
      for (std::size_t r = 0; r < 16; ++r) {
        MEMFMT_UNROLL
        for (std::size_t c = 0; c < 8; ++c) {
          const auto* line = reinterpret_cast<const std::uint32_t*>(from + static_cast<dim>(r) * src_step) + 16 * c;
          hn::Store(hn::LoadU(du, line), du, reinterpret_cast<std::uint32_t*>(buffer + r * buffer_step) + 16 * c);
        }
      }
      for (dim c = 0; c < 8; ++c)
        transpose_tile_even<4, 16>(buffer + c * 64, buffer_step, dst + (s * strip + c * 16) * dst_step, dst_step, false,
                                   false);
    }
    return strips * strip;
  }
#endif
  (void)src, (void)src_step, (void)dst, (void)dst_step, (void)cols;
  return 0;
}

/// Tiles stacked along the source rows whose destination rows, side by side, fill one
/// cache line: 2 on AVX2 and 4 on SSE4 for 32-bit elements (1: no stacks). A tile row
/// shorter than a line leaves the rest of the line to a later pass: in cache, the line
/// is then written twice (nchw -> nChw16c, 71 channels, in L2 with 8-lane tiles on
/// Zen 3: 17 -> 32 GB/s); from memory, it cannot stream, since only whole lines do
/// (nchw -> nhwc 256 MiB: 26 -> 74 % of memcpy).
template <std::size_t kSize, std::size_t W>
inline constexpr std::size_t tiles_per_line = kSize * W >= 16 && kSize * W < 64 ? 64 / (kSize * W) : 1;

/// Whether stacks of 8- and 16-bit elements in 16-lane tiles transpose as such, not
/// widened to 32-bit lanes (transpose_narrow_stack: 16 vectors for a stack, not 64 or 32).
inline constexpr bool narrow_stacks = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;

// On x86 SIMD targets, 8- and 16-bit elements also transpose unwidened in cache as tiles
// side by side, one small transpose per 128-bit block (transpose_narrow_strips).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
using DBytes = hn::ScalableTag<std::uint8_t>;
using VBytes = hn::Vec<DBytes>;

/// 128-bit blocks in a vector: 4 on AVX-512, 2 on AVX2, 1 on SSE4.
inline constexpr std::size_t vector_blocks = hn::MaxLanes(DBytes()) / 16;

/// Stores block b of `v` at to + b * step, for every block.
HWY_INLINE void store_blocks(VBytes v, std::byte* to, dim step) {
  auto* at = reinterpret_cast<__m128i*>(to);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  _mm_storeu_si128(at, _mm512_castsi512_si128(v.raw));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + step), _mm512_extracti32x4_epi32(v.raw, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 2 * step), _mm512_extracti32x4_epi32(v.raw, 2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 3 * step), _mm512_extracti32x4_epi32(v.raw, 3));
#elif HWY_TARGET == HWY_AVX2
  _mm_storeu_si128(at, _mm256_castsi256_si128(v.raw));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + step), _mm256_extracti128_si256(v.raw, 1));
#else
  (void)step;
  _mm_storeu_si128(at, v.raw);
#endif
}

/// One round of a transpose inside 128-bit blocks: in each group of G vectors of `in`,
/// units of type T of vectors 2i and 2i + 1 interleave into out[i] (the lower halves of
/// the blocks) and out[G / 2 + i] (the upper halves).
template <typename T, std::size_t N, std::size_t G>
HWY_INLINE void interleave_round(const VBytes* in, VBytes* out) {
  const DBytes d8;
  const hn::Repartition<T, DBytes> d;
  MEMFMT_UNROLL
  for (std::size_t h = 0; h < N; h += G) {
    MEMFMT_UNROLL
    for (std::size_t i = 0; i < G / 2; ++i) {
      const auto lo = hn::BitCast(d, in[h + 2 * i]), hi = hn::BitCast(d, in[h + 2 * i + 1]);
      out[h + i] = hn::BitCast(d8, hn::InterleaveLower(d, lo, hi));
      out[h + G / 2 + i] = hn::BitCast(d8, hn::InterleaveUpper(d, lo, hi));
    }
  }
}

/// Transposes, in each 128-bit block of a[0..N), the N x N matrix of kSize-byte elements
/// (N = 16 / kSize rows of N): afterwards block b of a[q] holds element q of block b of
/// the N rows. Each round interleaves units twice as wide as the last: elements of rows
/// 2i and 2i + 1, then those pairs of rows 4i..4i+3, and so on up to 64-bit units; N
/// shuffles a round, 4 rounds for bytes and 3 for 16-bit elements.
template <std::size_t kSize>
HWY_INLINE void transpose_narrow_blocks(VBytes* a) {
  constexpr std::size_t N = 16 / kSize;
  VBytes t[N];
  if constexpr (kSize == 1) {
    interleave_round<std::uint8_t, N, 16>(a, t);
    interleave_round<std::uint16_t, N, 8>(t, a);
    interleave_round<std::uint32_t, N, 4>(a, t);
    interleave_round<std::uint64_t, N, 2>(t, a);
  } else {
    static_assert(kSize == 2, "8- and 16-bit elements only");
    interleave_round<std::uint16_t, N, 8>(a, t);
    interleave_round<std::uint32_t, N, 4>(t, a);
    interleave_round<std::uint64_t, N, 2>(a, t);
    MEMFMT_UNROLL
    for (std::size_t q = 0; q < N; ++q) a[q] = t[q];
  }
}

/// Columns that tiles side by side take at once: a vector of each source row.
template <std::size_t kSize>
inline constexpr dim side_by_side_cols = static_cast<dim>(16 * vector_blocks / kSize);

/// 16 source rows of a vector each (kSize-byte elements), `src_step` bytes apart,
/// transposed without widening to 32-bit lanes into side_by_side_cols destination rows
/// of 16 elements, row c at dst + c * dst_step: tiles side by side, one per 128-bit
/// block, in groups of N = 16 / kSize rows (nchw -> nChw16c s8 1 x 256 x 32 x 32 in L2
/// on Zen 5, one thread, at -O3: AVX-512 38 -> 73 to 77 GB/s, bf16 1 x 128 x 32 x 32
/// about the same, 81 -> 82).
template <std::size_t kSize>
HWY_INLINE void transpose_narrow_tiles(const std::byte* src, dim src_step, std::byte* dst, dim dst_step) {
  constexpr std::size_t N = 16 / kSize;
  const DBytes d8;
  const dim block = static_cast<dim>(N) * dst_step;  // from the destination rows of one block to the next's
  MEMFMT_UNROLL
  for (std::size_t g = 0; g < 16 / N; ++g) {  // row groups: their elements go N * g into each destination row
    VBytes a[N];
    const std::byte* from = src + static_cast<dim>(N * g) * src_step;
    MEMFMT_UNROLL
    for (std::size_t m = 0; m < N; ++m, from += src_step)
      a[m] = hn::LoadU(d8, reinterpret_cast<const std::uint8_t*>(from));
    transpose_narrow_blocks<kSize>(a);
    // destination rows by a running pointer, the blocks' rows `block` bytes further
    std::byte* to = dst + static_cast<dim>(N * g * kSize);
    MEMFMT_UNROLL
    for (std::size_t q = 0; q < N; ++q, to += dst_step) store_blocks(a[q], to, block);  // block b: row N * b + q
  }
}

/// `strips` whole strips of 16 source rows (`src_step` bytes apart) of `cols` columns,
/// a multiple of side_by_side_cols, as tiles side by side: the destination row of column
/// c at dst + c * dst_step, strip s at 16 * s elements into it. A call of its own: inlined
/// into transpose_block, at -O3, it made nchw -> nChw16c f32 -> bf16 (whose converted
/// strips take it) slower than widened tiles, 57 against 63 GB/s in L2 on Zen 5. GCC
/// still spills addresses here (at -O2, inlined, nchw -> nChw16c s8 ran at 113 GB/s).
/// Several strips in vectors shorter than a line take a line of columns of a strip
/// before the next strip, so that each source line is used up before the other strips'
/// lines evict it (nchw -> nhwc 1 x 128 x 32 x 32 bf16, planes 2 KiB apart, in L2 on Zen
/// 5, one thread: SSE4 26 -> 63 GB/s; s8 1 x 256 x 32 x 32 SSE4 36 -> 63, AVX2 59 -> 68).
/// The loops stay apart: one more level in the single strip's loop made GCC spill
/// (nchw -> nChw16c s8 in L2, AVX2: 71 -> 62, AVX-512: 75 -> 58).
template <std::size_t kSize>
HWY_NOINLINE void transpose_narrow_strips(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim strips,
                                          dim cols) {
  MEMFMT_KERNEL_PATH("narrow strips");
  constexpr dim line_cols = 64 / dim{kSize};
  if (side_by_side_cols<kSize> < line_cols && strips > 1) {
    _Pragma("GCC unroll 1") for (dim c0 = 0; c0 < cols; c0 += line_cols) {
      const dim c1 = std::min(c0 + line_cols, cols);
      _Pragma("GCC unroll 1") for (dim s = 0; s < strips; ++s)
        _Pragma("GCC unroll 1") for (dim c = c0; c < c1; c += side_by_side_cols<kSize>)
          transpose_narrow_tiles<kSize>(src + s * 16 * src_step + c * dim{kSize}, src_step,
                                        dst + c * dst_step + s * 16 * dim{kSize}, dst_step);
    }
    return;
  }
  _Pragma("GCC unroll 1") for (dim c = 0; c < cols; c += side_by_side_cols<kSize>)
    _Pragma("GCC unroll 1") for (dim s = 0; s < strips; ++s)
      transpose_narrow_tiles<kSize>(src + s * 16 * src_step + c * dim{kSize}, src_step,
                                    dst + c * dst_step + s * 16 * dim{kSize}, dst_step);
}

/// A vector whose first 128-bit block is `part`, the others undefined.
HWY_INLINE VBytes first_block(__m128i part) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return VBytes{_mm512_castsi128_si512(part)};
#elif HWY_TARGET == HWY_AVX2
  return VBytes{_mm256_castsi128_si256(part)};
#else
  return VBytes{part};
#endif
}

/// `v` with its 128-bit block b (0 < b < vector_blocks) replaced by `part`. On AVX-512,
/// kBroadcast merges `part` into the block by a masked broadcast, otherwise an insert;
/// which pays depends on what else the loop waits for (on Zen 5, one thread: in L2 the
/// insert, bf16 nhwc -> nchw 1 x 128 x 32 x 32 88 -> 95 GB/s, nChw16c -> nchw 118 ->
/// 134; from memory, 16 x 64 x 256 x 256, streamed, the broadcast, nChw16c -> nchw bf16
/// 57 -> 61, s8 58 -> 62).
template <bool kBroadcast>
HWY_INLINE VBytes with_block(VBytes v, std::size_t b, __m128i part) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kBroadcast) return VBytes{_mm512_mask_broadcast_i32x4(v.raw, static_cast<__mmask16>(0xF << (4 * b)), part)};
  switch (b) {
    case 1:
      return VBytes{_mm512_inserti32x4(v.raw, part, 1)};
    case 2:
      return VBytes{_mm512_inserti32x4(v.raw, part, 2)};
    default:
      return VBytes{_mm512_inserti32x4(v.raw, part, 3)};
  }
#elif HWY_TARGET == HWY_AVX2
  (void)b;
  return VBytes{_mm256_inserti128_si256(v.raw, part, 1)};
#else
  (void)v;
  (void)b;
  return VBytes{part};
#endif
}

/// Source rows of a narrow stack: as many as fill a vector of 16-byte blocks.
template <std::size_t kSize>
inline constexpr dim narrow_stack_rows = static_cast<dim>(16 * vector_blocks / kSize);

/// A stack of narrow_stack_rows source rows of 16 kSize-byte elements, `src_step` bytes
/// apart, transposed without widening to 32-bit lanes into 16 destination rows of a
/// vector each (one line on AVX-512, half of one on AVX2, a quarter on SSE4), row k at
/// row_at(k); with `stream`, around the caches; with `prefetch`, asks for the rows'
/// lines ahead (see load_tile). With N = 16 / kSize elements a block, source row N * b +
/// m goes, N elements at a time, to block b of vectors m, N + m, ... as it is loaded, so
/// that N x N transposes run side by side, one per block, and each vector ends up
/// holding a destination row whole: 16 vectors and 64 (bytes) or 48 (16-bit) shuffles
/// for the stack, against 64 or 32 vectors and 4 or 2 x 64 shuffles on widened lanes
/// on AVX-512, and no widening or narrowing (nchw -> nhwc in L2 on Zen 5, one thread,
/// buffers on lines: s8 1 x 256 x 32 x 32 33 -> 84 GB/s; nhwc -> nchw bf16 1 x 128 x 32
/// x 32 77 -> 92 to 96).
/// @pre with stream, vectors are whole lines (AVX-512) and every row_at(k) is a multiple of 64
template <std::size_t kSize, class RowAt>
HWY_INLINE void transpose_narrow_stack(const std::byte* src, dim src_step, RowAt row_at, bool stream, bool prefetch) {
  constexpr std::size_t N = 16 / kSize;
  const DBytes d8;
  VBytes a[16];  // a[N * h + m]: elements N * h.. of rows N * b + m, b = 0..vector_blocks
  const auto load = [&]<bool kBroadcast>() {
    MEMFMT_UNROLL
    for (std::size_t b = 0; b < vector_blocks; ++b) {  // row by row: each source line is used up at once
      MEMFMT_UNROLL
      for (std::size_t m = 0; m < N; ++m) {
        const std::byte* row = src + static_cast<dim>(N * b + m) * src_step;
        MEMFMT_UNROLL
        for (std::size_t h = 0; h < kSize; ++h) {
          const __m128i part = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 16 * h));
          VBytes& v = a[N * h + m];
          v = b == 0 ? first_block(part) : with_block<kBroadcast>(v, b, part);
        }
      }
    }
  };
  if (stream) {
    load.template operator()<true>();
  } else {
    load.template operator()<false>();
  }
  if (prefetch) {
    const dim ahead = src_step < close_rows ? close_rows_ahead : far_rows_ahead / 16;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < vector_blocks * N; ++k) prefetch_ahead(src + static_cast<dim>(k) * src_step, ahead);
  }
  MEMFMT_UNROLL
  for (std::size_t h = 0; h < kSize; ++h) transpose_narrow_blocks<kSize>(a + N * h);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < 16; ++k) {  // a[k]: destination row k (element N * h + q)
    auto* to = reinterpret_cast<std::uint8_t*>(row_at(k));
    if (stream) {
      hn::Stream(a[k], d8, to);
    } else {
      hn::StoreU(a[k], d8, to);
    }
  }
}
#endif

/// G = tiles_per_line whole W x W tiles, source rows `src_step` bytes apart and tile g
/// g * W rows below tile 0; row k of tile g goes to row_at(k) + g * W * kSize, so that
/// each destination row, 64 bytes, is written at once. With `stream`, around the caches;
/// with `prefetch`, asks for the rows' lines ahead (see load_tile).
/// @pre with stream, every row_at(k) is a multiple of 64
template <std::size_t kSize, std::size_t W, class RowAt>
HWY_INLINE void transpose_tile_stack(const std::byte* src, dim src_step, RowAt row_at, bool stream, bool prefetch) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (kSize < 4 && W == 16) return transpose_narrow_stack<kSize>(src, src_step, row_at, stream, prefetch);
#endif
  constexpr std::size_t G = tiles_per_line<kSize, W>;
  VTile<W> r[G][W];
  MEMFMT_UNROLL
  for (std::size_t g = 0; g < G; ++g) {
    load_tile<kSize, W>(r[g], src + static_cast<dim>(g * W) * src_step, src_step, prefetch);
    transpose_tile<W>(r[g]);
  }
  const auto row = [&](std::size_t k, std::size_t g) { return row_at(k) + static_cast<dim>(g * W * kSize); };
  if constexpr (tile_can_stream<kSize, W>) {
    if (stream) {
      MEMFMT_UNROLL
      for (std::size_t k = 0; k < W; ++k) {
        MEMFMT_UNROLL
        for (std::size_t g = 0; g < G; ++g) store_bits<kSize, W, true>(r[g][k], row(k, g));
      }
      return;
    }
  }
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    MEMFMT_UNROLL
    for (std::size_t g = 0; g < G; ++g) store_bits<kSize, W>(r[g][k], row(k, g));
  }
}

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

/// A tile of `rows` x `cols` 32-bit elements (each at most W) by masked rows: source
/// rows `src_step` bytes apart, source column k to the destination row at to + k *
/// dst_step. `row_lanes` = FirstN(cols), `column_lanes` = FirstN(rows).
/// @pre exact_masked_rows<4>
template <std::size_t W, class M>
HWY_INLINE void transpose_masked_tile(const std::byte* from, dim src_step, std::byte* to, dim dst_step, dim rows,
                                      dim cols, M row_lanes, M column_lanes) {
  const DTile<W> du;
  VTile<W> r[W];
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    const auto row = static_cast<dim>(k);
    r[k] = row < rows ? hn::MaskedLoad(row_lanes, du, reinterpret_cast<const std::uint32_t*>(from + row * src_step))
                      : hn::Zero(du);
  }
  transpose_tile<W>(r);
  MEMFMT_UNROLL
  for (std::size_t k = 0; k < W; ++k) {
    const auto column = static_cast<dim>(k);
    if (column >= cols) break;
    hn::BlendedStore(r[k], column_lanes, du, reinterpret_cast<std::uint32_t*>(to + column * dst_step));
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
    const auto column_lanes = hn::FirstN(du, static_cast<std::size_t>(rows));
    for (dim b = 0; b < count; ++b)
      transpose_masked_tile<W>(src + b * src_block, src_step, dst + b * dst_block, dst_step, rows, cols, row_lanes,
                               column_lanes);
    return;
  }
  for (dim b = 0; b < count; ++b) {
    for (dim r0 = 0; r0 < rows; r0 += w) {
      for (dim c0 = 0; c0 < cols; c0 += w) {
        const dim n_rows = rows - r0 < w ? rows - r0 : w, n_cols = cols - c0 < w ? cols - c0 : w;
        transpose_masked_tile<W>(src + b * src_block + r0 * src_step + c0 * 4, src_step,
                                 dst + b * dst_block + c0 * dst_step + r0 * 4, dst_step, n_rows, n_cols,
                                 hn::FirstN(du, static_cast<std::size_t>(n_cols)),
                                 hn::FirstN(du, static_cast<std::size_t>(n_rows)));
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

/// A `rows` x `cols` block of kSize-byte elements in W x W tiles (partial at the
/// edges): source rows `src_row` elements apart, starting at column `col0` of the
/// map; destination rows placed by `cols_at`, consecutive destination columns
/// (source rows) adjacent. Tiles go along a strip of W source rows, which reads the
/// source sequentially, or down a strip of W destination rows when those are the
/// farther apart: over the whole block in cache, over bands of source rows from memory.
template <std::size_t kSize, std::size_t W>
void transpose_block(const std::byte* src, dim src_row, std::byte* dst, const column_map& cols_at, dim col0, dim rows,
                     dim cols, bool stream) {
  constexpr auto w = static_cast<dim>(W);
  const dim src_step = src_row * dim{kSize};
  // A tile row that crosses a cache line costs about twice as much to store, or to load,
  // as one that does not: buffers 16 bytes past a line, as malloc returns large blocks,
  // made nhwc -> nchw in L2 1.75x slower and nchw -> nhwc 1.8x. When every destination
  // (source) row starts at the same place in its line, the rows (columns) before the
  // first line boundary go as a block of their own, and the other tiles store (load)
  // whole lines.
  const auto lead = [](const void* p, dim step) -> dim {  // elements to a line, or 0
    const auto past = static_cast<dim>(reinterpret_cast<std::uintptr_t>(p) % 64);
    return step % 64 == 0 && past % dim{kSize} == 0 ? (64 - past) % 64 / dim{kSize} : 0;
  };
  const bool one_period = col0 + cols <= cols_at.period;
  const dim dst_lead = lead(dst, one_period ? cols_at.inner_stride * dim{kSize}
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
  const dim src_lead = lead(src, src_step);
  if (src_lead > 0 && cols - src_lead >= w) {
    MEMFMT_KERNEL_PATH("source lead");
    transpose_block<kSize, W>(src, src_row, dst, cols_at, col0, rows, src_lead, stream);
    transpose_block<kSize, W>(src + src_lead * dim{kSize}, src_row, dst, cols_at, col0 + src_lead, rows, cols - src_lead,
                              stream);
    return;
  }
  std::byte* at[W];
  const auto place = [&](dim i, dim j) {  // destination rows of columns i.., at row j
    dim q = (col0 + i) / cols_at.period, r = (col0 + i) % cols_at.period;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < W; ++k) {
      at[k] = dst + (q * cols_at.outer_stride + r * cols_at.inner_stride + j) * dim{kSize};
      if (++r == cols_at.period) {
        r = 0;
        ++q;
      }
    }
  };
  const dim row_w = cols_at.inner_stride * dim{kSize};  // bytes between destination rows
  const auto lanes = [&](dim j) {  // of the tiles at row j: W when the padding completes them
    const dim left = rows - j < w ? rows - j : w;
    return left + cols_at.spare >= w ? w : left;
  };
  if (col0 + cols <= cols_at.period) {
    // one period: destination rows step evenly
    std::byte* const first = dst + col0 * row_w;
    bool tile_prefetch = stream;  // whole tiles ask for their own rows' lines ahead
    const auto tile = [&](dim j, dim i) {  // source rows j.., columns i..
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (kSize == 4 && W == 16) {
        // In cache, one or two columns (rows) left of a whole strip go as a gather
        // (scatter) each, not as a tile (nchw -> nChw16c 1 x 512 x 7 x 7 in L2 on Zen 5, one
        // thread: 92 -> 102 GB/s; four gathers cost more than a tile: 1 x 256 x 14 x 14 126
        // -> 124)
        const hn::Full512<std::int32_t> di;
        if (!stream && cols - i <= 2 && rows - j >= w && src_row < (dim{1} << 26)) {
          MEMFMT_KERNEL_PATH("edge gathers");
          const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(src_row)));
          const auto* from = reinterpret_cast<const std::int32_t*>(src) + j * src_row;
          for (dim c = i; c < cols; ++c) {
            auto* to = reinterpret_cast<std::int32_t*>(first + c * row_w + j * dim{kSize});
            hn::StoreU(hn::GatherIndex(di, from + c, index), di, to);
          }
          return;
        }
        if (!stream && rows - j <= 2 && cols - i >= w && cols_at.spare == 0 && cols_at.inner_stride < (dim{1} << 26)) {
          MEMFMT_KERNEL_PATH("edge scatters");
          const auto index = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<std::int32_t>(cols_at.inner_stride)));
          auto* to = reinterpret_cast<std::int32_t*>(first + i * row_w);
          for (dim r = j; r < rows; ++r) {
            const auto* from = reinterpret_cast<const std::int32_t*>(src + (r * src_row + i) * dim{kSize});
            hn::ScatterIndex(hn::LoadU(di, from), di, to + r, index);
          }
          return;
        }
      }
#endif
      // In cache, a tile at the far edge of a block at least a tile wide (and without
      // padding to write after its rows) goes whole, ending at the edge: it writes some of
      // its neighbour's elements again, with the same values, since nothing here reads
      // the destination
      if (!stream) {
        if (cols - i < w && cols >= w) i = cols - w;
        if (rows - j < w && rows >= w && cols_at.spare == 0) j = rows - w;
      }
      const std::byte* from = src + (j * src_row + i) * dim{kSize};
      std::byte* to = first + i * row_w + j * dim{kSize};
      if (rows - j >= w && cols - i >= w) {
        transpose_tile_even<kSize, W>(from, src_step, to, row_w, stream, tile_prefetch);
        return;
      }
      place(i, j);
      transpose_tile_part<kSize, W>(from, src_step, at, rows - j < w ? rows - j : w, cols - i < w ? cols - i : w,
                                    lanes(j), stream);
    };
    if (rows < w && rows + cols_at.spare == w && cols >= w) {
      // Fewer source rows than a tile, and zeros that complete each destination row to a
      // tile's lanes (nchw -> nChw8c or nChw16c with 3 channels): whole tiles along the
      // columns, their other rows zero, each destination row written whole, zeros and all
      // (in L2 on Zen 5, one thread, against 4-lane partial tiles and the zeros after:
      // nchw -> nChw8c 1 x 3 x 224 x 224 18 to 20 -> 109 to 113 GB/s, nChw16c 30 -> 102 to
      // 107)
      MEMFMT_KERNEL_PATH("few rows, tiles complete the zeros");
      const DTile<W> du;
      dim i = 0;
      for (; i + w <= cols; i += w) {
        VTile<W> r[W];
        MEMFMT_UNROLL
        for (std::size_t k = 0; k < W; ++k) {
          const auto row = static_cast<dim>(k);
          r[k] = pinned(row < rows ? load_bits<kSize, W>(src + row * src_step + i * dim{kSize}) : hn::Zero(du));
        }
        transpose_tile<W>(r);
        std::byte* to = first + i * row_w;
        const auto at = reinterpret_cast<std::uintptr_t>(to);
        const bool lines = kSize * W == 64 ? (at | static_cast<std::uintptr_t>(row_w)) % 64 == 0
                                           : at % 64 == 0 && row_w == static_cast<dim>(kSize * W);
        store_tile<kSize, W>(r, [to, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; }, stream && lines);
      }
      if (i < cols) tile(0, i);
      return;
    }
    // tiles stacked down the source rows that fill destination lines, when they fit in
    // registers (G x W vectors of at most 16: 64 bytes of 8-bit elements in 16-lane tiles
    // are 64 vectors, and spill, except on AVX-512, where stacks of 8- and 16-bit elements
    // transpose unwidened in 16)
    constexpr dim stack = static_cast<dim>(tiles_per_line<kSize, W>) * w;
    constexpr bool stack_fits = stack > w && (stack <= 16 || (W == 16 && narrow_stacks));
    // on AVX2 and SSE4, 8- and 16-bit elements in cache go in narrow stacks of 16 columns
    // instead, whose destination rows are a vector each: half or a quarter of a line, the
    // rest of which the next stack down writes right after
    constexpr bool narrow_columns = kSize < 4 && W == tile_lanes && W < 16 && HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3;
    if (cols_at.inner_stride > src_row && !stream && (stack_fits || narrow_columns || row_w % 2048 == 0)) {
      // Destination rows farther apart than source rows (nhwc -> nchw), in cache: tiles go
      // run by run of source rows, about 24 KiB of source that stays in L1 while the column
      // groups pass over it, down each run in stacks that write whole destination lines.
      // Destination rows a multiple of 2 KiB apart (planes of 32 x 32 f32) share L1 sets:
      // with 32-bit elements, 8-lane tiles then store 8 of them at a time, not 16 (see
      // pick_transpose_block). In L2 on Zen 5, one thread, against the whole block column
      // group by column group: nhwc -> nchw 1 x 64 x 32 x 32 61 -> 97 GB/s, nChw16c -> nchw
      // the same 67 -> 106; with 8-lane tiles, nChw8c -> nchw 1 x 72 x 30 x 30 80 -> 99;
      // with 4-lane tiles (SSE4), nChw16c -> nchw with 17 channels 37 -> 97; stacks of
      // bytes (AVX-512), 1 x 256 x 32 x 32 s8: nhwc -> nchw 36 -> 52 to 56, nChw16c ->
      // nchw 37 -> 96 to 111; narrow stacks against widened tiles, the same s8 on AVX2:
      // 19 -> 66 and 20 -> 93, on SSE4 15 -> 64 and 18 -> 71; bf16 1 x 128 x 32 x 32 on
      // AVX2 47 -> 92 and 46 -> 124.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      constexpr dim run_step = narrow_columns ? narrow_stack_rows<kSize> : stack;
#else
      constexpr dim run_step = stack;
#endif
      MEMFMT_KERNEL_PATH("runs of source rows");
      // (source rows 0 apart, a broadcast source, take the longest run)
      const dim run = std::max<dim>(24576 / std::max<dim>(src_step, 1) / run_step, 1) * run_step;
      for (dim j0 = 0; j0 < rows; j0 += run) {
        const dim j1 = rows - j0 < run ? rows : j0 + run;
        dim i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
        if constexpr (narrow_columns) {
          if (cols >= 16) MEMFMT_KERNEL_PATH("narrow stacks");
          for (; i + 16 <= cols; i += 16) {
            dim j = j0;
            for (; j + run_step <= j1; j += run_step)
              transpose_narrow_stack<kSize>(
                  src + (j * src_row + i) * dim{kSize}, src_step,
                  [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                  false, false);
            for (; j < j1; j += w)
              for (dim c = i; c < i + 16; c += w) tile(j, c);
          }
        }
#endif
        for (; i < cols; i += w) {
          dim j = j0;
          if (stack_fits && cols - i >= w) {
            if (j1 - j >= stack) MEMFMT_KERNEL_PATH("stacks down runs");
            // (with the step a constant, in L2 on Zen 5, one thread, nChw16c -> nchw: AVX2 1 x
            // 512 x 7 x 7 92 -> 111 GB/s, 1 x 128 x 28 x 28 126 -> 143; AVX-512, 8-lane
            // tiles, 1 x 64 x 32 x 32 114 -> 126)
            with_source_step(src_step, [&](auto step) {
              for (; j + stack <= j1; j += stack)
                transpose_tile_stack<kSize, W>(
                    src + j * step + i * dim{kSize}, step,
                    [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                    false, false);
            });
          }
          for (; j < j1; j += w) tile(j, i);
        }
      }
    } else if (cols_at.inner_stride > src_row) {
      // destination rows farther apart than source rows (nhwc -> nchw): tiles go down a
      // band of source rows column group by column group, so that W store streams advance
      // line by line. In cache (stacks that do not fit in registers, rows apart by other
      // than 2 KiB multiples), the band is the block, and the tiles go inline. From
      // memory, it is as many rows as make 1 KiB of each destination row
      // (streamed_band_rows): its source stays in L2 while its column groups pass over it,
      // and memory takes each destination row in runs of 16 lines instead of one line per
      // tile (nhwc -> nchw 256 MiB on Zen 4, one thread: 65 -> 82 % of memcpy).
      // From memory, tiles whose rows are shorter than a line go in stacks that fill the
      // lines, so that the lines stream around the caches: alone, each tile row would
      // write part of a line, which is read from memory first (on Zen 5, one thread, 16 x
      // 64 x 256 x 256, GB/s: AVX-512 s8 nhwc -> nchw 15 -> 31, bf16 21 -> 60, s8 nChw16c
      // -> nchw 16 -> 64; AVX2 f32 nhwc -> nchw 26 -> 57, SSE4 19 -> 38).
      if (!stream) {
        MEMFMT_KERNEL_PATH("column groups in cache");
        // In cache, the whole tiles of each column group go inline, and the partial ones
        // through `tile` (in L2 on Zen 5, one thread, 16-lane tiles against a call per
        // tile: nChw16c -> nchw 1 x 512 x 7 x 7 94 -> 115 GB/s, 1 x 256 x 14 x 14 113 ->
        // 129, 1 x 128 x 28 x 28 125 -> 155, 1 x 64 x 56 x 56 108 -> 121).
        const dim whole_rows = rows / w * w, whole_cols = cols / w * w;
        const auto whole_tiles_down = [&](dim i, auto step) {
          for (dim j = 0; j < whole_rows; j += w)
            transpose_tile_even<kSize, W>(src + j * step + i * dim{kSize}, step, first + i * row_w + j * dim{kSize}, row_w,
                                          false, false);
        };
        for (dim i = 0; i < cols; i += w) {
          if (i < whole_cols) with_source_step(src_step, [&](auto step) { whole_tiles_down(i, step); });
          for (dim j = i < whole_cols ? whole_rows : 0; j < rows; j += w) tile(j, i);
        }
        return;
      }
      const bool stacks = stack_fits && row_w % 64 == 0 && reinterpret_cast<std::uintptr_t>(first) % 64 == 0;
      MEMFMT_KERNEL_PATH(stacks ? "bands of source rows, stacks" : "bands of source rows");
      dim band = streamed_band_rows<kSize, W>(src_step);
      if (stacks) band = std::max<dim>(band / stack, 1) * stack;
      for (dim j0 = 0; j0 < rows; j0 += band) {
        const dim j1 = rows - j0 < band ? rows : j0 + band;
        // From memory, each tile also asks for its share of the next band's source lines,
        // in order: one sequential stream a band ahead, instead of W rows' lines a tile
        // ahead (Zen 4, one thread: nhwc -> nchw 256 MiB 72 to 85 -> 108 % of memcpy,
        // nChw16c -> nchw with 17 channels about 100 -> 104 to 111 %). The first band
        // asks tile by tile.
        const dim ahead = std::min(band, rows - j1);
        next_band_lines next(ahead > 0 ? src + j1 * src_step : src, src_step, cols * dim{kSize}, ahead,
                             ((cols + w - 1) / w) * ((j1 - j0 + w - 1) / w));
        tile_prefetch = j0 == 0;
        for (dim i = 0; i < cols; i += w) {
          dim j = j0;
          if (stacks && cols - i >= w) {
            for (; j + stack <= j1; j += stack) {
              transpose_tile_stack<kSize, W>(
                  src + (j * src_row + i) * dim{kSize}, src_step,
                  [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
                  true, tile_prefetch);
              for (dim t = 0; t < stack; t += w) next.prefetch_next_share();
            }
          }
          for (; j < j1; j += w) {
            tile(j, i);
            next.prefetch_next_share();
          }
        }
      }
    } else if (tiles_per_line<kSize, W> > 1 && row_w % 64 == 0 &&
               (stream ? reinterpret_cast<std::uintptr_t>(first) % 64 == 0 : !narrow_columns)) {
      // tile rows shorter than a line, destination rows whole lines apart: tiles go in
      // stacks that fill the lines (in cache, not 8- and 16-bit elements on AVX2 and SSE4,
      // which go side by side below: nchw -> nhwc bf16 1 x 128 x 32 x 32 in L2 on Zen 5,
      // AVX2, 51 -> 62 GB/s; 1 x 96 x 28 x 28 62 -> 76)
      // Source rows a multiple of 2 KiB apart (planes of 32 x 32 f32) share one or two L1
      // sets: a stack's rows evict each other before the next stack reads the rest of
      // their lines. In cache, tiles then go row group by row group over a run of columns,
      // 1 KiB of each source row, so that the group's W rows are the only source streams
      // and each source line is used up at once; the destination lines of the run are
      // written in parts while in L1 (nchw -> nChw16c 64 x 32 x 32 in L2: on Zen 3, a run
      // of two stacks' columns, 15.8 -> 12.8 us; on Zen 5, 1 KiB runs of 8-lane tiles
      // against 16-lane tiles, 109 -> 116 to 121 GB/s; without the aliasing, the stacks
      // are faster: 64 x 30 x 30 on Zen 3, 6.9 us against 8.7).
      const bool aliased = !stream && src_step % 2048 == 0;
      MEMFMT_KERNEL_PATH(stream    ? "stacks into lines, streamed"
                         : aliased ? "stacks into lines, runs of columns"
                                   : "stacks into lines");
      constexpr dim run = std::max<dim>(1024 / dim{kSize} / w, 2) * w;
      // the tiles of a run: destination rows `step` bytes apart (a constant for rows that
      // are single lines: with the step in a register, the stores' row pointers spill;
      // nchw -> nChw16c in L2 on Zen 5 ran at 110 GB/s instead of 116 to 121)
      const auto run_tiles = [&](dim j, dim i, dim end, dim step) {
        for (dim g = j; g < j + stack; g += w) {
          dim c = i;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
          if constexpr (kSize < 4 && W == 16) {
            // 8- and 16-bit elements: tiles side by side (in L2 on Zen 5, one thread: nchw ->
            // nhwc s8 1 x 128 x 64 x 32 37 -> 56 GB/s, bf16 1 x 128 x 32 x 32 79 -> 85)
            const dim n = (end - c) / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
            transpose_narrow_strips<kSize>(src + (g * src_row + c) * dim{kSize}, src_step,
                                           first + c * step + g * dim{kSize}, step, 1, n);
            c += n;
          }
#endif
          for (; c < end; c += w)
            transpose_tile_even<kSize, W>(src + (g * src_row + c) * dim{kSize}, src_step,
                                          first + c * step + g * dim{kSize}, step, false, false);
        }
      };
      dim j = 0;
      for (; j + stack <= rows; j += stack) {
        dim i = 0;
        for (; aliased && i + 2 * w <= cols; i += run) {
          const dim end = cols - i < run ? i + (cols - i) / w * w : i + run;
          if (row_w == 64) {
            run_tiles(j, i, end, 64);
          } else {
            run_tiles(j, i, end, row_w);
          }
        }
        for (; i + w <= cols; i += w) {
          if (kSize == 4 && row_w == 64 && !stream) {
            // 32-bit elements into rows of a line (nchw -> nChw16c in 8- or 4-lane tiles),
            // in cache: the tiles of a stack one after the other, with the row step a
            // constant; a whole stack does not fit in 16 registers (in L2 on Zen 5, one
            // thread: AVX2 1 x 512 x 7 x 7 98 -> 110 GB/s, 1 x 128 x 28 x 28 128 -> 161;
            // SSE4 67 -> 78 and 95 -> 112)
            run_tiles(j, i, i + w, 64);
            continue;
          }
          transpose_tile_stack<kSize, W>(
              src + (j * src_row + i) * dim{kSize}, src_step,
              [to = first + i * row_w + j * dim{kSize}, row_w](std::size_t k) { return to + static_cast<dim>(k) * row_w; },
              stream, stream);
        }
        for (dim i = cols - cols % w; i < cols; i += w)
          for (dim g = j; g < j + stack; g += w) tile(g, i);
      }
      for (; j < rows; j += w)
        for (dim i = 0; i < cols; i += w) tile(j, i);
    } else {
      // Tiles of 8 or 4 lanes: the whole ones inline, the partial ones at the edges through
      // `tile` (a call per tile cost a third of nchw -> nChw8c in L2 on Zen 5: 84 -> 140
      // GB/s). Tiles of 16 lanes stay a call each: inline, the loop's 32 row pointers
      // spill (nchw -> nChw16c in L2 on Zen 5: 120 -> 100 GB/s).
      // In cache, 8- and 16-bit elements in the widest tiles go first as whole strips of
      // 16 rows, a vector of columns at a time, unwidened (transpose_narrow_strips); the
      // tiles of the other rows and columns follow (in L2 on Zen 5, one thread, against
      // widened tiles, GB/s: s8 1 x 256 x 32 x 32 nchw -> nhwc on AVX2 23 -> 61, on SSE4 17
      // -> 36; nchw -> nChw16c 24 -> 68 and 22 -> 71). (Not for destination rows farther
      // apart than the source rows, above: 64 of them at once, 16 bytes at a time, share L1
      // sets when they are planes of 1 KiB; nhwc -> nchw s8 1 x 256 x 32 x 32 in L2 on Zen
      // 5: 36 -> 16 GB/s.)
      MEMFMT_KERNEL_PATH("whole tiles");
      dim narrow_rows = 0, narrow_cols = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
      if constexpr (kSize < 4 && W == tile_lanes) {
        if (!stream) {
          narrow_rows = rows / 16 * 16;
          narrow_cols = cols / side_by_side_cols<kSize> * side_by_side_cols<kSize>;
          transpose_narrow_strips<kSize>(src, src_step, first, row_w, narrow_rows / 16, narrow_cols);
        }
      }
#endif
      // Whole 16-lane tiles of f32 into destination rows of a line each (nchw -> nChw16c)
      // go inline in cache too: with the row step a constant, the stores need no pointers
      // (in L2 on Zen 5, one thread: 1 x 128 x 28 x 28 137 -> 160 GB/s, 1 x 256 x 14 x 14
      // 107 -> 111).
      const bool line_rows = W == 16 && kSize == 4 && row_w == 64 && !stream;
      const dim whole_rows = W < 16 || line_rows ? rows / w * w : 0, whole_cols = cols / w * w;
      // source rows a multiple of 4 KiB apart: strips of 16-lane tiles through L1 first
      dim staged_rows = 0, staged_cols = 0;
      if (W == 16 && kSize == 4 && !stream && src_step % 4096 == 0) {
        for (; staged_rows + w <= rows; staged_rows += w) {
          const std::byte* from = src + staged_rows * src_step;
          std::byte* to = first + staged_rows * dim{kSize};
          staged_cols = line_rows ? transpose_staged_tiles<kSize, W>(from, src_step, to, std::integral_constant<dim, 64>{},
                                                                     whole_cols)
                                  : transpose_staged_tiles<kSize, W>(from, src_step, to, row_w, whole_cols);
        }
        if (staged_cols > 0) {
          MEMFMT_KERNEL_PATH("whole tiles, staged");
        } else {
          staged_rows = 0;
        }
      }
      if (line_rows && staged_cols < whole_cols) {
        const auto whole_tiles = [&](auto reads, dim from_col) {
          for (dim j = 0; j < whole_rows; j += w)
            for (dim i = from_col; i < whole_cols; i += w)
              transpose_tile_into_lines<kSize, W, decltype(reads)::value>(src + (j * src_row + i) * dim{kSize}, src_step,
                                                                           first + i * 64 + j * dim{kSize});
        };
        switch (pick_tile_reads<kSize, W>(src, src_step)) {
          case tile_reads::rows:
            MEMFMT_KERNEL_PATH("tiles into lines, read by rows");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::rows>{}, staged_cols);
            break;
          case tile_reads::blocks:
            MEMFMT_KERNEL_PATH("tiles into lines, read by blocks");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::blocks>{}, staged_cols);
            break;
          case tile_reads::lines:  // the columns left of the staged strips
            MEMFMT_KERNEL_PATH("tiles into lines, read by lines");
            whole_tiles(std::integral_constant<tile_reads, tile_reads::lines>{}, staged_cols);
            break;
        }
      } else if (!line_rows) {
        for (dim j = 0; j < whole_rows; j += w)
          for (dim i = j < narrow_rows ? narrow_cols : 0; i < whole_cols; i += w)
            transpose_tile_even<kSize, W>(src + (j * src_row + i) * dim{kSize}, src_step,
                                          first + i * row_w + j * dim{kSize}, row_w, stream, tile_prefetch);
      }
      for (dim j = 0; j < rows; j += w)
        for (dim i = std::max({j < whole_rows ? whole_cols : 0, j < narrow_rows ? narrow_cols : 0,
                               j < staged_rows ? staged_cols : 0});
             i < cols; i += w)
          tile(j, i);
    }
    return;
  }
  // Several periods: each group of W columns is placed once per strip of rows, and its
  // tiles go down the strip, in stacks that fill lines when the destination rows are
  // whole lines apart (oihw -> OIhw16i16o 255 MiB on Zen 3: 7.4 -> 15 GB/s, as the
  // destination rows now stream).
  constexpr dim stack = static_cast<dim>(tiles_per_line<kSize, W>) * w;
  constexpr dim strip = 8 * stack;  // rows: the strip's source stays in L1 while its columns pass
  const bool lines = stack > w && (cols_at.inner_stride * dim{kSize}) % 64 == 0 &&
                     (cols_at.outer_stride * dim{kSize}) % 64 == 0 &&
                     (!stream || reinterpret_cast<std::uintptr_t>(dst) % 64 == 0);
  MEMFMT_KERNEL_PATH(lines ? "several periods, stacks into lines" : "several periods");
  for (dim j0 = 0; j0 < rows; j0 += strip) {
    const dim j1 = rows - j0 < strip ? rows : j0 + strip;
    for (dim i = 0; i < cols; i += w) {
      place(i, 0);
      const dim n = cols - i < w ? cols - i : w;
      dim j = j0;
      if (lines && n == w) {
        for (; j + stack <= j1; j += stack)
          transpose_tile_stack<kSize, W>(
              src + (j * src_row + i) * dim{kSize}, src_step,
              [&at, down = j * dim{kSize}](std::size_t k) { return at[k] + down; }, stream, stream);
      }
      for (; j < j1; j += w) {
        std::byte* row[W];
        MEMFMT_UNROLL
        for (std::size_t k = 0; k < W; ++k) row[k] = at[k] + j * dim{kSize};
        transpose_tile_part<kSize, W>(src + (j * src_row + i) * dim{kSize}, src_step, row, j1 - j < w ? j1 - j : w, n,
                                      j1 == rows ? lanes(j) : w, stream);
      }
    }
  }
}

using transpose_block_fn = void (*)(const std::byte*, dim, std::byte*, const column_map&, dim, dim, dim, bool);

/// The block transpose for elements of `size` bytes with the tile that wastes least on
/// a block whose narrow side is `narrow` elements: the widest, or 8 or 4 lanes.
/// `rows_share_sets`: in cache, the 16 rows a 16-lane tile of 32-bit elements stores at
/// once would share L1 sets, so 8-lane tiles take them 8 at a time: destination rows a
/// multiple of 2 KiB apart and farther apart than the source rows (nhwc -> nchw, nChw16c
/// -> nchw). (Source rows a multiple of 4 KiB apart into destination rows of one line
/// each, nchw -> nChw16c, once went so too, in runs; 16-lane tiles that read the source
/// line by line are now faster: see transpose_tile_by_blocks.)
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

/// Narrow transposes, where one side of the block is 2, 3 or 4 elements wide
/// and packed (e.g. nchw <-> nhwc with 3 channels): Highway's interleaved
/// stores and loads do them a whole vector at a time.
/// Interleave: dst[i * m + j] = src[j * src_row + i] for j < m, i < count;
/// returns how many i it did (whole vectors; the caller does the rest).
template <class D>
HWY_INLINE dim interleave_rows(D d, const hn::TFromD<D>* src, dim src_row, hn::TFromD<D>* dst, dim m, dim count) {
  const auto N = static_cast<dim>(hn::Lanes(d));
  dim i = 0;
  for (; i + N <= count; i += N) {
    const auto v0 = hn::LoadU(d, src + i);
    const auto v1 = hn::LoadU(d, src + src_row + i);
    if (m == 2) {
      hn::StoreInterleaved2(v0, v1, d, dst + i * 2);
      continue;
    }
    const auto v2 = hn::LoadU(d, src + 2 * src_row + i);
    if (m == 3) {
      hn::StoreInterleaved3(v0, v1, v2, d, dst + i * 3);
      continue;
    }
    const auto v3 = hn::LoadU(d, src + 3 * src_row + i);
    hn::StoreInterleaved4(v0, v1, v2, v3, d, dst + i * 4);
  }
  return i;
}

/// Deinterleave: dst[j + i * dst_row] = src[j * m + i] for i < m, j < count;
/// returns how many j it did (whole vectors).
template <class D>
HWY_INLINE dim deinterleave_rows(D d, const hn::TFromD<D>* src, hn::TFromD<D>* dst, dim dst_row, dim m, dim count) {
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
    hn::StoreU(v0, d, dst + j);
    hn::StoreU(v1, d, dst + j + dst_row);
    if (m >= 3) hn::StoreU(v2, d, dst + j + 2 * dst_row);
    if (m == 4) hn::StoreU(v3, d, dst + j + 3 * dst_row);
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
dim interleave_plain(const std::byte* src, dim src_row, std::byte* dst, dim m, dim count) {
  using T = uint_of_size<kSize>;
  if (!interleaved_access_ok<kSize>(dst)) return 0;
  return interleave_rows(hn::ScalableTag<T>(), reinterpret_cast<const T*>(src), src_row, reinterpret_cast<T*>(dst), m,
                         count);
}

template <std::size_t kSize>
dim deinterleave_plain(const std::byte* src, std::byte* dst, dim dst_row, dim m, dim count) {
  using T = uint_of_size<kSize>;
  if (!interleaved_access_ok<kSize>(src)) return 0;
  return deinterleave_rows(hn::ScalableTag<T>(), reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), dst_row, m,
                           count);
}

using tile_plain_fn = void (*)(const std::byte*, dim, std::byte*, dim);
using interleave_plain_fn = dim (*)(const std::byte*, dim, std::byte*, dim, dim);
using deinterleave_plain_fn = dim (*)(const std::byte*, std::byte*, dim, dim, dim);

inline const float* advance_scales(const float* scales, dim offset) {
  return scales != nullptr ? scales + offset : nullptr;
}

/// The `transpose` kind for one nest: everything that does not change per block.
struct transpose_kernel {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  dim spare;  ///< the zeros after each column's destination run (see column_map::spare)
  tile_plain_fn tile_plain = nullptr;    ///< the widest tile; null: no tiles on this target
  interleave_plain_fn interleave = nullptr;
  deinterleave_plain_fn deinterleave = nullptr;
  std::array<tile_plain_fn, 3> f32_tiles{};  ///< conversions: f32 tile transposes, widest first
  to_f32_row_fn to_f32 = nullptr;
  store_row_fn store = nullptr;
  convert_rows_fn convert = nullptr;  ///< one pass, for the rows converts_in_one_pass allows

  explicit transpose_kernel(const nest& n) : transpose_kernel(n, n.cvt) {}

  /// The kernel of `n`'s loops with the conversion `c` instead of the nest's own.
  /// @pre `c` outlives the kernel
  transpose_kernel(const nest& n, const conversion& c)
      : cvt(&c),
        plain(c.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(c.src)),
        dst_size(data_type_size(c.dst)),
        spare(n.zero_tail) {
    if constexpr (tile_lanes >= 4) {
      f32_tiles = plain_tiles<4>();
      tile_plain = f32_tiles[0];
      if (plain) {
        if (dst_size == 4) {
          interleave = &interleave_plain<4>;
          deinterleave = &deinterleave_plain<4>;
        }
        if (dst_size == 2) {
          interleave = &interleave_plain<2>;
          deinterleave = &deinterleave_plain<2>;
        }
        if (dst_size == 1) {
          interleave = &interleave_plain<1>;
          deinterleave = &deinterleave_plain<1>;
        }
      } else {
        to_f32 = pick_to_f32_row(c.src);
        store = pick_store_row(c.dst);
        if (converts_in_one_pass(c, 0)) convert = pick_convert_rows(c.src, c.dst);
      }
    }
  }

  /// Rows j in [j0, j1) of the block, elements i in [i0, i1), with the scalar strided rows.
  void scalar_part(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I, dim j0,
                   dim j1, dim i0, dim i1) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    for (dim j = j0; j < j1; ++j) {
      strided_row(*cvt, src + (j * J.src_stride + i0) * ssz, 1, dst + (j + i0 * I.dst_stride) * dsz, I.dst_stride,
                  advance_scales(scales, j * J.scale_stride + i0 * I.scale_stride), I.scale_stride, i1 - i0);
    }
  }

  /// A block 2, 3 or 4 wide on a packed side, with interleaved stores or loads;
  /// false when the block is not such a block.
  bool narrow(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I) const {
    constexpr auto V = static_cast<dim>(tile_lanes);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const DF df;
    HWY_ALIGN float staged[4 * tile_lanes];
    HWY_ALIGN float tile[4 * tile_lanes];
    // Few destination rows, packed: dst[i * m + j].
    const dim mj = J.extent;
    const bool linear_scales = cvt->scales == nullptr || I.scale_stride == mj * J.scale_stride;
    if (mj >= 2 && mj <= 4 && I.dst_stride == mj && (plain || linear_scales)) {
      MEMFMT_KERNEL_PATH("interleaved stores");
      dim done = 0;
      if (plain) {
        done = interleave(src, J.src_stride, dst, mj, I.extent);
      } else {
        for (; done + V <= I.extent; done += V) {
          for (dim j = 0; j < mj; ++j) to_f32(src + (j * J.src_stride + done) * ssz, staged + j * V, V);
          interleave_rows(df, staged, V, tile, mj, V);
          // In the packed destination the scales advance by J's scale stride per element.
          const row_params p{cvt, advance_scales(scales, done * I.scale_stride), J.scale_stride, false};
          store(tile, dst + done * mj * dsz, mj * V, p);
        }
      }
      scalar_part(src, dst, scales, J, I, 0, mj, done, I.extent);
      return true;
    }
    // Few source columns, packed: src[j * m + i].
    const dim mi = I.extent;
    if (mi >= 2 && mi <= 4 && J.src_stride == mi) {
      MEMFMT_KERNEL_PATH("interleaved loads");
      dim done = 0;
      if (plain) {
        done = deinterleave(src, dst, I.dst_stride, mi, J.extent);
      } else {
        for (; done + V <= J.extent; done += V) {
          to_f32(src + done * mi * ssz, staged, mi * V);
          deinterleave_rows(df, staged, tile, V, mi, V);
          for (dim i = 0; i < mi; ++i) {
            const row_params p{cvt, advance_scales(scales, done * J.scale_stride + i * I.scale_stride), J.scale_stride,
                               false};
            store(tile + i * V, dst + (done + i * I.dst_stride) * dsz, V, p);
          }
        }
      }
      scalar_part(src, dst, scales, J, I, done, J.extent, 0, mi);
      return true;
    }
    // Plain copies of 2 or 3 source columns in wider source rows (nChw16c -> nchw with 3
    // channels: 3 of each pixel's 16): blocks of rows staged packed in L1, a few moves per
    // row, then as above. (As block transposes, their tiles of 4 lanes moved 2 or 3
    // useful ones per row; 4 columns fill the tiles and stay there. Conversions keep
    // their own paths, which convert whole strips.)
    if (plain && mi >= 2 && mi <= 3 && J.src_stride > mi && J.extent >= V) {
      MEMFMT_KERNEL_PATH("interleaved loads, staged");
      constexpr dim block = 16 * V;  // rows per block
      HWY_ALIGN std::byte packed[block * 4 * sizeof(float)];
      const auto row_bytes = static_cast<std::size_t>(mi * ssz);
      for (dim done = 0; done < J.extent; done += block) {
        const dim count = J.extent - done < block ? J.extent - done : block;
        const std::byte* from = src + done * J.src_stride * ssz;
        for (dim j = 0; j < count; ++j)
          copy_few<16>(packed + j * static_cast<dim>(row_bytes), from + j * J.src_stride * ssz, row_bytes);
        narrow(packed, dst + done * J.dst_stride * dsz, advance_scales(scales, done * J.scale_stride),
               loop{count, mi, J.dst_stride, J.scale_stride}, I);
      }
      return true;
    }
    return false;
  }

  /// Converting rows [j0, j1) x elements [i0, i1) in strips of W rows (W of
  /// level `level`): stage A along the source rows (long, vectorised), W x W
  /// f32 tile transposes, stage B along the destination (one long row when the
  /// destination strip is packed, e.g. a blocked layout's inner block); then the
  /// strips left over with narrower tiles, the last ones scalar.
  void convert_region(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I, dim j0,
                      dim j1, dim i0, dim i1, std::size_t level) const {
    if (j0 >= j1 || i0 >= i1) return;
    if (level == 0) MEMFMT_KERNEL_PATH("f32 tiles, converted rows");
    if (level >= tile_levels) {
      scalar_part(src, dst, scales, J, I, j0, j1, i0, i1);
      return;
    }
    constexpr dim chunk = 4 * static_cast<dim>(tile_lanes);  // elements of i per pass, a multiple of every W
    const auto W = static_cast<dim>(tile_lanes >> level);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const dim j_full = j0 + (j1 - j0) / W * W, i_full = i0 + (i1 - i0) / W * W;
    const bool packed_dst =
        I.dst_stride == W && (cvt->scales == nullptr || I.scale_stride == W * J.scale_stride);
    HWY_ALIGN float staged[tile_lanes * chunk];  // W source rows of `chunk` f32
    HWY_ALIGN float tile[chunk * tile_lanes];    // `chunk` destination rows of W f32
    for (dim j = j0; j < j_full; j += W) {
      for (dim i = i0; i < i_full; i += chunk) {
        const dim count = i_full - i < chunk ? i_full - i : chunk;
        for (dim k = 0; k < W; ++k) to_f32(src + ((j + k) * J.src_stride + i) * ssz, staged + k * chunk, count);
        for (dim t = 0; t < count; t += W) {
          f32_tiles[level](reinterpret_cast<const std::byte*>(staged + t), chunk, reinterpret_cast<std::byte*>(tile + t * W),
                           W);
        }
        if (packed_dst) {
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + i * I.scale_stride), J.scale_stride, false};
          store(tile, dst + (j + i * I.dst_stride) * dsz, count * W, p);
          continue;
        }
        for (dim t = 0; t < count; ++t) {
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + (i + t) * I.scale_stride), J.scale_stride,
                             false};
          store(tile + t * W, dst + (j + (i + t) * I.dst_stride) * dsz, W, p);
        }
      }
    }
    convert_region(src, dst, scales, J, I, j0, j_full, i_full, i1, level + 1);  // right strip
    convert_region(src, dst, scales, J, I, j_full, j1, i0, i1, level + 1);      // bottom strip
  }

  /// Converting without beta: each strip of source rows is converted, in source
  /// order, into a buffer of the destination type (the long contiguous rows
  /// vectorise), which is then transposed as plain elements of that type.
  void convert_then_transpose(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I,
                              const loop& C) const {
    MEMFMT_KERNEL_PATH("converted then transposed");
    constexpr dim chunk = 256;  // columns per strip
    constexpr auto W = static_cast<dim>(tile_lanes);
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const dim columns = C.extent * I.extent;
    const column_map map{I.extent, I.dst_stride, C.dst_stride, spare};
    const transpose_block_fn transpose = pick_transpose_block(dst_size, tile_side(J, I, C));
    const bool in_one_pass = one_pass(convert, scales, I.scale_stride);
    if (in_one_pass) MEMFMT_KERNEL_PATH("strips converted in one pass");
    HWY_ALIGN float staged[chunk];
    HWY_ALIGN std::byte converted[tile_lanes * chunk * 4];  // W rows of `chunk` dst elements
    for (dim j = 0; j < J.extent; j += W) {
      const dim rows = J.extent - j < W ? J.extent - j : W;
      for (dim i = 0; i < columns; i += chunk) {
        const dim cols = columns - i < chunk ? columns - i : chunk;
        const std::byte* first = src + (j * J.src_stride + i) * ssz;
        const dim left = columns - i - cols;  // of each row, after this chunk
        if (stream && left > 0) {
          // from memory: ask for the rows' next chunk while this one converts (W rows far
          // apart outrun the hardware prefetcher: nchw -> nChw16c f32 -> bf16 256 MiB on
          // Zen 5, one thread, at 16 GB/s, under half of memcpy's)
          for (dim k = 0; k < rows; ++k) {
            const auto next = reinterpret_cast<std::uintptr_t>(first + k * J.src_stride * ssz + cols * ssz);
            const auto last = next + static_cast<std::uintptr_t>(std::min(left, chunk) * ssz);
            for (auto line = next & ~std::uintptr_t{63}; line < last; line += 64) prefetch_line(line);
          }
        }
        if (in_one_pass) {
          // the strip's rows in one call (two calls per row cost 20 % of nChw16c -> nchw
          // bf16 -> f32 in L2, whose rows are 16 elements)
          const row_params p{cvt, advance_scales(scales, j * J.scale_stride + i * I.scale_stride), 0, false,
                             J.scale_stride};
          convert(first, J.src_stride * ssz, converted, chunk * dsz, cols, rows, p);
        } else {
          for (dim k = 0; k < rows; ++k) {
            const std::byte* row = first + k * J.src_stride * ssz;
            const float* x = staged;
            if (cvt->src == data_type::f32) {
              x = reinterpret_cast<const float*>(row);  // read with unaligned loads only
            } else {
              to_f32(row, staged, cols);
            }
            const row_params p{cvt, advance_scales(scales, (j + k) * J.scale_stride + i * I.scale_stride),
                               I.scale_stride, false};
            store(x, converted + k * chunk * dsz, cols, p);
          }
        }
        transpose(converted, chunk, dst + j * dsz, map, i, rows, cols, stream);
      }
    }
  }

  /// Converting with fewer columns than a tile and many rows (nChw16c -> nchw with 3
  /// channels, a type change): strips of rows are transposed plain, in the source type,
  /// into a buffer whose rows are the destination's, which then convert as long rows
  /// (converted first, each source row was a conversion of 3 elements: 0.1x oneDNN in L2
  /// on Zen 5, one thread, 1 x 3 x 224 x 224 bf16 -> f32). Beta reads the destination
  /// in its own order.
  void transpose_then_convert(const std::byte* src, std::byte* dst, const float* scales, const loop& J,
                              const loop& I) const {
    MEMFMT_KERNEL_PATH("transposed then converted");
    constexpr dim chunk = 512;  // rows per strip: destination elements per converted row
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const transpose_block_fn transpose = pick_transpose_block(src_size, I.extent);
    const column_map map{I.extent, chunk, 0, 0};
    HWY_ALIGN std::byte staged[static_cast<std::size_t>(tile_lanes) * chunk * 4];  // I.extent rows of `chunk`
    HWY_ALIGN float values[chunk];
    const bool in_one_pass = one_pass(convert, scales, J.scale_stride);
    if (in_one_pass) MEMFMT_KERNEL_PATH("transposed, then converted in one pass");
    for (dim j = 0; j < J.extent; j += chunk) {
      const dim rows = J.extent - j < chunk ? J.extent - j : chunk;
      transpose(src + j * J.src_stride * ssz, J.src_stride, staged, map, 0, rows, I.extent, false);
      for (dim i = 0; i < I.extent; ++i) {
        const std::byte* row = staged + i * chunk * ssz;
        const row_params p{cvt, advance_scales(scales, i * I.scale_stride + j * J.scale_stride), J.scale_stride, stream};
        if (in_one_pass) {
          convert(row, 0, dst + (j + i * I.dst_stride) * dsz, 0, rows, 1, p);
          continue;
        }
        const float* x = values;
        if (cvt->src == data_type::f32) {
          x = reinterpret_cast<const float*>(row);
        } else {
          to_f32(row, values, rows);
        }
        store(x, dst + (j + i * I.dst_stride) * dsz, rows, p);
      }
    }
  }

  /// One block: J = loops[n-2] (dst stride 1), I = loops[n-1] (src stride 1) and,
  /// when the nest folds columns, C = loops[n-3] (src stride I.extent); else C has
  /// extent 1.
  /// The block transpose for plain blocks of rows J, columns I (and C).
  transpose_block_fn plain_block(const loop& J, const loop& I, const loop& C) const {
    const auto dsz = static_cast<dim>(dst_size);
    const bool rows_share_sets = !stream && C.extent == 1 && J.extent >= 16 && I.dst_stride > J.src_stride &&
                                 (I.dst_stride * dsz) % 2048 == 0;
    return pick_transpose_block(dst_size, tile_side(J, I, C), rows_share_sets);
  }

  /// Whether the tiles write the zeros after each destination row themselves: rows of
  /// J.extent elements and `spare` zeros that make exactly one tile's lanes (nchw ->
  /// nChw8c or nChw16c with 3 channels: 3 + 5 or 3 + 13), its other source rows zero.
  /// Else the zeros go row by row after the kernel (see transpose_block's few rows).
  bool completes_tails(const loop& J, const loop& I, const loop& C) const {
    const dim lanes = J.extent + spare;
    // (not blocks of 2 to 4 packed columns, which go through narrow())
    return tile_plain != nullptr && (plain || cvt->beta == 0.f) && spare > 0 && J.extent < C.extent * I.extent &&
           (C.extent > 1 || I.extent > 4) &&
           lanes <= static_cast<dim>(tile_lanes) && (lanes == 4 || lanes == 8 || lanes == static_cast<dim>(tile_lanes));
  }

  /// The narrow side of a block for pick_transpose_block: with completes_tails, the
  /// tile's lanes.
  dim tile_side(const loop& J, const loop& I, const loop& C) const {
    const dim columns = C.extent * I.extent;
    return completes_tails(J, I, C) ? J.extent + spare : J.extent < columns ? J.extent : columns;
  }

  /// The blocks along loop L, each as block() would do it; for plain blocks, the transpose
  /// is chosen once for all (in L2 on Zen 5, one thread, against a call of block() per
  /// block: nchw -> nChw16c 1 x 512 x 1 x 64, 32 blocks of 16 x 64, 121 -> 131 to 134
  /// GB/s; 1 x 512 x 7 x 7 100 -> 116, nChw16c -> nchw 72 to 85 -> 97).
  void blocks(const std::byte* src, std::byte* dst, const float* scales, const loop& L, const loop& J, const loop& I,
              const loop& C) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    dim done = 0;
    if (plain && tile_plain != nullptr && L.extent > 0) {
      if constexpr (tile_lanes >= 4) {
        // Blocks a line of 32-bit elements wide at most (a whole number of tiles: 16
        // channels) and a few tiles long: whole tiles (in L2 on Zen 5, one thread, against
        // a block transpose per block or, with 8 lanes, masked tiles, GB/s:
        // - AVX-512, nchw -> nChw16c 1 x 1024 x 5 x 5 93 -> 135, 1 x 512 x 6 x 6 93 -> 138,
        //   1 x 512 x 7 x 7 111 -> 134, 1 x 256 x 8 x 8 131 -> 142; nChw16c -> nchw 98 ->
        //   147, 107 -> 143, 118 -> 135, 132 -> 142; 9 x 9 to 15 x 15 gained nothing;
        // - AVX2, nchw -> nChw16c and back: 1 x 1024 x 3 x 3 +17 and +26 %, 5 x 5 +27 and
        //   +15 %, 6 x 6 +34 and +25 %, 7 x 7 +5 and -5 %; 8 x 8 lost 7 % both ways;
        // - SSE4, 1 x 1024 x 3 x 3 29 -> 62 and 28 -> 52, 5 x 5 +10 and +71 %; 8 x 8 lost a
        //   quarter.)
        constexpr auto W = static_cast<dim>(tile_lanes);
        constexpr dim longest = W == 16 ? 64 : W == 8 ? 56 : 32;
        const auto fits = [](dim wide, dim along) { return wide % W == 0 && wide <= 16 && along > W && along <= longest; };
        if (dst_size == 4 && C.extent == 1 && (fits(J.extent, I.extent) || fits(I.extent, J.extent)) && spare == 0 &&
            !stream) {
          transpose_short_blocks<4, tile_lanes>(src, J.src_stride * 4, L.src_stride * 4, dst, I.dst_stride * 4,
                                                L.dst_stride * 4, J.extent, I.extent, L.extent);
          return;
        }
      }
      // Other small blocks, by masked rows: of at most a tile, or, in 8-lane tiles, a strip
      // of at most two tiles of at most 8192 elements (the source in L1). In L2 on Zen 5, one
      // thread, against a block transpose per block, GB/s: AVX-512, nchw -> nChw16c 1 x 7296
      // x 3 x 3 35 -> 168, nChw16c -> nchw 38 -> 168; 1 x 4096 x 4 x 4 127 -> 254 both ways;
      // 1 x 16384 x 2 x 2, against interleaved loads or stores, 41 -> 95 and 25 -> 73. AVX2,
      // nchw -> nChw16c and back: 1 x 1024 x 3 x 3 36 -> 72 and 42 -> 71, 5 x 5 83 -> 107 and
      // 50 -> 101, 1 x 512 x 7 x 7 104 -> 127 and 114 -> 119, 1 x 256 x 16 x 16 134 -> 146
      // and 132 -> 143. Larger blocks lost (1 x 128 x 28 x 28 144 -> 133), and so did blocks
      // of several 16-lane masked tiles (AVX-512 1 x 1024 x 5 x 5 101 -> 83). (On AVX2, 3 x 3
      // to 7 x 7 now go in whole tiles, above.)
      if constexpr (exact_masked_rows<4> && tile_lanes >= 8) {
        constexpr auto W = static_cast<dim>(tile_lanes);
        const bool small = W < 16 ? (J.extent <= 2 * W || I.extent <= 2 * W) && J.extent * I.extent <= 8192
                                  : J.extent <= W && I.extent <= W;
        if (dst_size == 4 && C.extent == 1 && small && spare == 0 && !stream) {
          transpose_small_blocks<tile_lanes>(src, J.src_stride * 4, L.src_stride * 4, dst, I.dst_stride * 4,
                                             L.dst_stride * 4, J.extent, I.extent, L.extent);
          return;
        }
      }
      if (C.extent == 1 && narrow(src, dst, scales, J, I)) {
        done = 1;  // blocks 2 to 4 wide: each on its own
      } else {
        const transpose_block_fn each = plain_block(J, I, C);
        const column_map cols_at{I.extent, I.dst_stride, C.dst_stride, spare};
        for (dim l = 0; l < L.extent; ++l)
          each(src + l * L.src_stride * ssz, J.src_stride, dst + l * L.dst_stride * dsz, cols_at, 0, J.extent,
               C.extent * I.extent, stream);
        return;
      }
    }
    for (dim l = done; l < L.extent; ++l)
      block(src + l * L.src_stride * ssz, dst + l * L.dst_stride * dsz, advance_scales(scales, l * L.scale_stride), J, I,
            C);
  }

  void block(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I,
             const loop& C) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const auto each_c = [&](auto&& f) {
      for (dim c = 0; c < C.extent; ++c)
        f(src + c * C.src_stride * ssz, dst + c * C.dst_stride * dsz, advance_scales(scales, c * C.scale_stride));
    };
    if (tile_plain == nullptr) {
      MEMFMT_KERNEL_PATH("scalar rows");
      each_c([&](const std::byte* s, std::byte* d, const float* sc) {
        scalar_part(s, d, sc, J, I, 0, J.extent, 0, I.extent);
      });
      return;
    }
    if (C.extent == 1 && narrow(src, dst, scales, J, I)) return;
    if (plain) {
      plain_block(J, I, C)(src, J.src_stride, dst, column_map{I.extent, I.dst_stride, C.dst_stride, spare}, 0, J.extent,
                           C.extent * I.extent, stream);
      return;
    }
    if (C.extent == 1 && I.extent < static_cast<dim>(tile_lanes) && J.extent >= 4 * static_cast<dim>(tile_lanes) &&
        spare == 0) {
      transpose_then_convert(src, dst, scales, J, I);
      return;
    }
    if (cvt->beta == 0.f) {
      convert_then_transpose(src, dst, scales, J, I, C);
      return;
    }
    each_c([&](const std::byte* s, std::byte* d, const float* sc) {
      convert_region(s, d, sc, J, I, 0, J.extent, 0, I.extent, 0);  // reads dst in dst order
    });
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_INL_H_
