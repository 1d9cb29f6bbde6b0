// The units of the tile kernel in vector lanes: a unit of 1, 2 or 4 bytes in a 32-bit
// lane, of 8 bytes in a 64-bit lane, of 16 bytes in two; their loads and stores, whole or
// the first few of a vector.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TILE_UNITS_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TILE_UNITS_INL_H_
#undef MEMFMT_REORDER_KERNEL_TILE_UNITS_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TILE_UNITS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "memfmt/reorder/kernel/convert/lanes-inl.h"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/transpose/registers-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Lanes of a tile of units of type T (u32 or u64): a whole vector, or 1 where vectors
/// are sizeless or the target is scalar (tiles of one unit: a copy per unit).
template <class T>
inline constexpr std::size_t unit_lanes =
    (HWY_HAVE_SCALABLE || HWY_TARGET == HWY_SCALAR) ? 1 : hn::MaxLanes(hn::ScalableTag<T>());

template <class T>
using DUnits = hn::CappedTag<T, unit_lanes<T>>;

/// Lanes of D per unit of kBytes: two u64 for 16 bytes, else one (a unit narrower than
/// a lane rides widened in it).
template <std::size_t kBytes, class D>
inline constexpr auto lanes_per_unit =
    static_cast<dim>(kBytes > sizeof(hn::TFromD<D>) ? kBytes / sizeof(hn::TFromD<D>) : 1);

/// W units of kBytes at `p` in the lanes of `d` (the first `n` of them when n < W, the
/// others zero).
template <std::size_t kBytes, class D>
HWY_INLINE hn::Vec<D> load_units(D d, const std::byte* p, dim n) {
  constexpr dim per_unit = lanes_per_unit<kBytes, D>;
  constexpr auto W = static_cast<dim>(hn::MaxLanes(D())) / per_unit;
  if constexpr (kBytes >= sizeof(hn::TFromD<D>)) {
    const auto* q = reinterpret_cast<const hn::TFromD<D>*>(p);
    return n == W ? hn::LoadU(d, q) : load_first(d, q, n * per_unit);
  } else {
    return n == W ? load_bits<kBytes, W>(p) : load_bits_first<kBytes, W>(p, n);
  }
}

/// Stores the first `n` units of `v` (a lane each, or two for 16 bytes) as units of
/// kBytes at `p`; around the caches when `stream` and the store is whole and aligned.
template <std::size_t kBytes, class D>
HWY_INLINE void store_units(D d, hn::Vec<D> v, std::byte* p, dim n, bool stream) {
  constexpr dim per_unit = lanes_per_unit<kBytes, D>;
  constexpr auto W = static_cast<dim>(hn::MaxLanes(D())) / per_unit;
  if constexpr (kBytes >= sizeof(hn::TFromD<D>)) {
    auto* q = reinterpret_cast<hn::TFromD<D>*>(p);
    if (n == W) {
      store_maybe_stream(v, d, q, stream);
    } else {
      store_first(v, d, q, n * per_unit);
    }
  } else if (n == W) {
    store_bits<kBytes, W>(v, p);
  } else {
    store_bits_first<kBytes, W>(v, p, n);
  }
}

/// The u32 lanes `v` as lanes of D (u32 or u64, as many), zero-extended.
template <class D>
HWY_INLINE hn::Vec<D> widen_lanes(D d, hn::Vec<hn::Rebind<std::uint32_t, D>> v) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return hn::PromoteTo(d, v);
  } else {
    (void)d;
    return v;
  }
}

/// The low 32 bits of each lane of `v` (u32 or u64 lanes of D).
template <class D>
HWY_INLINE hn::Vec<hn::Rebind<std::uint32_t, D>> narrow_lanes(D /* d */, hn::Vec<D> v) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    return hn::TruncateTo(hn::Rebind<std::uint32_t, D>(), v);
  } else {
    return v;
  }
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TILE_UNITS_INL_H_
