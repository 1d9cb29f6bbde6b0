// Per-target `interleave` kind: blocks where the destination interleaves r (2 to 4)
// source columns of o rows, such as the 4i16o4i of weights. The o x columns tile is
// transposed (converted first when the types differ) into a buffer laid out like the
// block with o and r swapped, so each r x o piece of it holds r rows of o; each piece
// is then interleaved into place with Highway's interleaved stores.
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

#include "memfmt/reorder/kernel/transpose-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Pieces of `pieces` x m rows of `o` elements at `src`, each interleaved into
/// m x o elements at the same offset of `dst`: dst[i * m + j] = src[j * o + i].
template <class T>
void interleave_pieces(const T* src, T* dst, dim m, dim o, dim pieces) {
  for (dim p = 0; p < pieces; ++p, src += m * o, dst += m * o) {
    const dim done = interleave_rows(hn::CappedTag<T, 16>(), src, o, dst, m, o);
    for (dim i = done; i < o; ++i)
      for (dim j = 0; j < m; ++j) dst[i * m + j] = src[j * o + i];
  }
}

/// The `interleave` kind for one nest: everything that does not change per block.
struct interleave_kernel {
  transpose_kernel tiles;  ///< the transpose into the buffer (never streamed)
  std::size_t dst_size;
  dim m = 0, o = 0, elements = 0;
  loop rows, columns, folded;  ///< the transpose's J (o), I (first source column) and C (the others)
  bool fits = false;           ///< whether the nest holds the kind's contract (else: the strided fallback)

  explicit interleave_kernel(const nest& n) : tiles(n), dst_size(data_type_size(n.cvt.dst)) {
    tiles.stream = false;
    const int first = n.nloops - n.gather_loops;
    if (n.gather_loops < 2 || first < 0 || n.cvt.beta != 0.f) return;  // beta reads dst, not the buffer
    const interleave_map map = map_interleave(n.loops + first, n.gather_loops);
    if (!map.fits) return;
    const loop& ol = n.loops[n.nloops - 2];
    m = n.loops[n.nloops - 1].extent;
    o = ol.extent;
    elements = map.columns * o;
    rows = loop{o, ol.src_stride, 1, ol.scale_stride};
    columns = loop{map.period, 1, map.inner_stride, 0};
    folded = loop{map.columns / map.period, map.period, map.outer_stride, 0};
    fits = true;
  }

  /// One block: `src` and `dst` at its first element, `scales` at its first scale.
  void block(const std::byte* src, std::byte* dst, const float* scales) const {
    HWY_ALIGN std::byte buffer[interleave_max * 4];
    tiles.block(src, buffer, scales, rows, columns, folded);
    const dim pieces = elements / (m * o);
    switch (dst_size) {
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
