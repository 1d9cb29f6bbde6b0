// Per-target `interleave` kind: blocks where the destination interleaves r (2 to 4)
// source columns of o rows, such as the 4i16o4i of weights. The o x columns tile is
// transposed (converted first when the types differ) into a buffer laid out like the
// block with o and r swapped, so each r x o piece of it holds r rows of o; each piece
// is then interleaved into place with Highway's interleaved stores.
//
// Conversions to 8- or 16-bit types take another route, since the interleaved stores
// of narrow elements are short and transposes widen them to 32-bit lanes anyway: the
// tile is transposed as f32 values, and each piece is converted while it is
// interleaved, a vector of o per row (the scales vary along o only), then rounded
// and stored whole vectors at a time.
//
// Compiled once per target by pass-inl.h.

#if defined(MEMFMT_REORDER_KERNEL_INTERLEAVE_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_INTERLEAVE_INL_H_
#undef MEMFMT_REORDER_KERNEL_INTERLEAVE_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_INTERLEAVE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Pieces of `pieces` x m rows of `o` elements at `src`, each interleaved into
/// m x o elements at the same offset of `dst`: dst[i * m + j] = src[j * o + i].
template <class T>
void interleave_pieces(const T* src, T* dst, dim m, dim o, dim pieces) {
  for (dim p = 0; p < pieces; ++p, src += m * o, dst += m * o) {
    const dim done = interleave_rows(hn::CappedTag<T, 16>(), src, o, dst, m, o);
    for (dim i = done; i < o; ++i)  // (memcpy: buffers need not be aligned to T)
      for (dim j = 0; j < m; ++j) std::memcpy(dst + i * m + j, src + j * o + i, sizeof(T));
  }
}

/// The f32 route's last step: pieces of `pieces` x m rows of `o` f32 at `src`, each
/// through the arithmetic of `c` (row i of o with the scale at `scales + i *
/// scale_stride`) and interleaved into m x o elements of type D at the same offset of
/// `dst`: dst[i * m + j] = convert(src[j * o + i]).
/// @pre c.beta == 0; `src` holds values of type c.src as f32 (exact)
template <data_type D>
void interleave_converted(const float* src, std::byte* dst, dim m, dim o, dim pieces, const conversion& c,
                          const float* scales, dim scale_stride) {
  const DF df;
  const auto N = static_cast<dim>(hn::Lanes(df));
  constexpr auto size = static_cast<dim>(sizeof(storage_t<D>));
  const bool multiply = scales != nullptr || c.alpha != 1.f;  // (x * 1 would flush subnormals under FTZ)
  const VF src_zp = hn::Set(df, static_cast<float>(c.src_zero_point));
  const VF dst_zp = hn::Set(df, static_cast<float>(c.dst_zero_point));
  HWY_ALIGN float lanes[4 * hn::MaxLanes(df)];
  dim i = 0;
  for (; i + N <= o; i += N) {
    const VF factor = scales != nullptr ? hn::Mul(hn::Set(df, c.alpha), load_scales(scales, scale_stride, i))
                                        : hn::Set(df, c.alpha);
    const auto row = [&](const float* piece, dim j) {
      VF v = hn::LoadU(df, piece + j * o + i);
      if (c.src_zero_point != 0) v = hn::Sub(v, src_zp);
      if (multiply) v = no_contract_v(hn::Mul(factor, v));
      if (c.dst_zero_point != 0) v = hn::Add(v, dst_zp);
      return v;
    };
    for (dim p = 0; p < pieces; ++p) {
      const float* piece = src + p * m * o;
      std::byte* out = dst + (p * m * o + i * m) * size;
      if (m == 2) {
        hn::StoreInterleaved2(row(piece, 0), row(piece, 1), df, lanes);
        store_f32_pair<D>(hn::Load(df, lanes), hn::Load(df, lanes + N), out, false);
      } else if (m == 3) {
        hn::StoreInterleaved3(row(piece, 0), row(piece, 1), row(piece, 2), df, lanes);
        store_f32_pair<D>(hn::Load(df, lanes), hn::Load(df, lanes + N), out, false);
        store_f32<D>(hn::Load(df, lanes + 2 * N), out + 2 * N * size, false);
      } else {
        hn::StoreInterleaved4(row(piece, 0), row(piece, 1), row(piece, 2), row(piece, 3), df, lanes);
        store_f32_quad<D>(hn::Load(df, lanes), hn::Load(df, lanes + N), hn::Load(df, lanes + 2 * N),
                          hn::Load(df, lanes + 3 * N), out, false);
      }
    }
  }
  for (; i < o; ++i) {
    const float* scale = scales != nullptr ? scales + i * scale_stride : nullptr;
    for (dim p = 0; p < pieces; ++p) {
      for (dim j = 0; j < m; ++j) {
        const storage_t<D> v = store_converted<D>(convert_value(c, src[p * m * o + j * o + i], scale, 0.f));
        std::memcpy(dst + (p * m * o + i * m + j) * size, &v, sizeof v);
      }
    }
  }
}

using interleave_converted_fn = void (*)(const float*, std::byte*, dim, dim, dim, const conversion&, const float*, dim);

/// Whether this target has the f32 route. EMU128, Highway's fallback for CPUs without
/// SSE4, does not: its vectors are arrays of lanes, and its interleave_converted took a
/// fifth of the compile time of all kernels under AddressSanitizer (64 of 300 s with
/// clang 14). Its blocks convert before they are transposed, as on narrower tiles.
inline constexpr bool has_f32_route = tile_lanes >= 4 && HWY_TARGET != HWY_EMU128;

/// The conversion that only widens `c.src` to f32: the f32 route's transposes.
inline conversion widening_of(const conversion& c) {
  conversion w;
  w.src = c.src;
  w.dst = data_type::f32;
  return w;
}

/// The `interleave` kind for one nest: everything that does not change per block.
/// Holds a pointer to its own member: not copyable.
struct interleave_kernel {
  conversion widening;   ///< the f32 route: what its transposes do
  bool via_f32 = false;  ///< whether blocks take the f32 route (see the file comment)
  transpose_kernel tiles;  ///< the transpose into the buffer (never streamed)
  interleave_converted_fn finish = nullptr;  ///< the f32 route's last step
  const conversion* cvt;
  dim m = 0, o = 0, elements = 0, scale_stride = 0;
  loop rows, columns, folded;  ///< the transpose's J (o), I (first source column) and C (the others)

  /// @pre meets_contract(n)
  explicit interleave_kernel(const nest& n)
      : widening(widening_of(n.cvt)),
        via_f32(takes_f32_route(n)),
        tiles(n, via_f32 ? widening : n.cvt),
        cvt(&n.cvt) {
    tiles.stream = false;
    if constexpr (has_f32_route) {
      if (via_f32) finish = visit_data_type(n.cvt.dst, []<data_type D>() -> interleave_converted_fn {
        if constexpr (vector_type<D>) return &interleave_converted<D>;
        return nullptr;
      });
    }
    const int first = n.nloops - n.gather_loops;
    HWY_DASSERT(meets_contract(n));  // (run_nest_target runs no other nest here)
    const interleave_map map = map_interleave(n.loops + first, n.gather_loops);
    const loop& ol = n.loops[n.nloops - 2];
    m = n.loops[n.nloops - 1].extent;
    o = ol.extent;
    elements = map.columns * o;
    scale_stride = ol.scale_stride;
    rows = loop{o, ol.src_stride, 1, via_f32 ? 0 : ol.scale_stride};
    columns = loop{map.period, 1, map.inner_stride, 0};
    folded = loop{map.columns / map.period, map.period, map.outer_stride, 0};
  }
  interleave_kernel(const interleave_kernel&) = delete;
  interleave_kernel& operator=(const interleave_kernel&) = delete;

  /// Converting to 8- or 16-bit types, with at least a vector of o.
  static bool takes_f32_route(const nest& n) {
    return has_f32_route && !n.cvt.is_plain_copy() && data_type_size(n.cvt.dst) < 4 && n.nloops >= 2 &&
           n.loops[n.nloops - 2].extent >= static_cast<dim>(hn::Lanes(DF()));
  }

  /// One block: `src` and `dst` at its first element, `scales` at its first scale.
  void block(const std::byte* src, std::byte* dst, const float* scales) const {
    HWY_ALIGN std::byte buffer[interleave_max * 4];
    const dim pieces = elements / (m * o);
    if (via_f32) {
      tiles.block(src, buffer, nullptr, rows, columns, folded);
      finish(reinterpret_cast<const float*>(buffer), dst, m, o, pieces, *cvt, scales, scale_stride);
      return;
    }
    tiles.block(src, buffer, scales, rows, columns, folded);
    switch (data_type_size(cvt->dst)) {
      case 4:
        return interleave_pieces(reinterpret_cast<const std::uint32_t*>(buffer), reinterpret_cast<std::uint32_t*>(dst), m,
                                 o, pieces);
      case 2:
        return interleave_pieces(reinterpret_cast<const std::uint16_t*>(buffer), reinterpret_cast<std::uint16_t*>(dst), m,
                                 o, pieces);
      default:
        return interleave_pieces(reinterpret_cast<const std::uint8_t*>(buffer), reinterpret_cast<std::uint8_t*>(dst), m, o,
                                 pieces);
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_INTERLEAVE_INL_H_
