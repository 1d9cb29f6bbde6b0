// W x W tiles of 32-bit lanes in registers: the transposes (within 128-bit blocks, then
// across them) and the loads and stores of tile rows, widened from and narrowed to
// 1-, 2- and 4-byte elements, whole or masked.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TRANSPOSE_REGISTERS_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TRANSPOSE_REGISTERS_INL_H_
#undef MEMFMT_REORDER_KERNEL_TRANSPOSE_REGISTERS_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TRANSPOSE_REGISTERS_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "memfmt/reorder/kernel/vectors-inl.h"
#include "memfmt/reorder/kernel/x86/avx512-inl.h"

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
    (void)d;
    MEMFMT_UNROLL
    for (std::size_t k = 0; k < L; ++k) transpose_4x4_blocks(r[k], r[L + k], r[2 * L + k], r[3 * L + k]);
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
/// both, which read every row twice.
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

/// Stores the first `n` < W lanes of `v` as whole stores of halves, quarters, ... of
/// the vector (7 of 8 lanes: 16, 8 and 4 bytes). For AVX2, whose masked stores
/// (vpmaskmov) cost a dozen cycles or more each on some processors.
#if HWY_TARGET == HWY_AVX2
template <std::size_t W>
HWY_INLINE void store_u32_first(VTile<W> v, std::uint32_t* p, dim n) {
  if constexpr (W >= 2) {
    constexpr auto half = static_cast<dim>(W / 2);
    const DTile<W / 2> dh;
    if (n >= half) {
      hn::StoreU(hn::LowerHalf(dh, v), dh, p);
      if (n > half) store_u32_first<W / 2>(hn::UpperHalf(dh, v), p + half, n - half);
    } else if (n > 0) {
      store_u32_first<W / 2>(hn::LowerHalf(dh, v), p, n);
    }
  }
}
#endif

/// Stores the first `n` lanes of a tile row of 32-bit lanes, writing nothing after them.
/// @pre n < W, exact_masked_rows<4>
template <std::size_t W>
HWY_INLINE void store_lanes_first(VTile<W> v, std::uint32_t* p, dim n) {
#if HWY_TARGET == HWY_AVX2
  store_u32_first<W>(v, p, n);
#else
  const DTile<W> du;
  hn::BlendedStore(v, hn::FirstN(du, static_cast<std::size_t>(n)), du, p);
#endif
}

/// Stores the first `n` lanes of `v` as kSize-byte elements.
template <std::size_t kSize, std::size_t W>
HWY_INLINE void store_bits_first(VTile<W> v, std::byte* p, dim n) {
  if constexpr (exact_masked_rows<kSize> && kSize == 4) {
    store_lanes_first<W>(v, reinterpret_cast<std::uint32_t*>(p), n);
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

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TRANSPOSE_REGISTERS_INL_H_
