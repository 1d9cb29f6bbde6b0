// Per-target `gather` kernel: a block of elements that is contiguous in the
// destination, each read from the source at an offset from a table made at plan
// time. Plain copies move the elements as they are (32-bit ones with vector
// gathers but on AVX2); conversions gather f32 values into an L1-resident chunk and run
// stage B over it, which writes the block's contiguous destination.
//
// Compiled once per target by pass-inl.h.

#if defined(MEMFMT_REORDER_KERNEL_GATHER_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_GATHER_INL_H_
#undef MEMFMT_REORDER_KERNEL_GATHER_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_GATHER_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// out[k] = src[offsets[k]] for k < n, 32-bit elements.
HWY_INLINE void gather_u32(const std::byte* src, const std::int32_t* HWY_RESTRICT offsets, std::uint32_t* out, dim n) {
  const DU du;
  const DI di;
  const auto N = static_cast<dim>(hn::Lanes(du));
  const auto* s = reinterpret_cast<const std::uint32_t*>(src);
  dim k = 0;
  // (a source not aligned to 4 bytes: Highway's 128-bit gathers load the lanes as typed
  // elements, which such a source does not hold; AVX2: vpgatherdd is microcoded on AMD
  // Zen, the processors that run AVX2 kernels on servers, and slower than scalar moves)
  if (HWY_TARGET != HWY_AVX2 && reinterpret_cast<std::uintptr_t>(src) % 4 == 0)
    for (; k + N <= n; k += N) hn::StoreU(hn::GatherIndex(du, s, hn::LoadU(di, offsets + k)), du, out + k);
  for (; k < n; ++k) std::memcpy(out + k, src + std::ptrdiff_t{offsets[k]} * 4, 4);
}

/// out[k] = src[offsets[k]] for k < n, elements of T (narrow types: scalar loads).
template <class T>
HWY_INLINE void gather_scalar(const std::byte* src, const std::int32_t* HWY_RESTRICT offsets, T* out, dim n) {
  for (dim k = 0; k < n; ++k) std::memcpy(out + k, src + std::ptrdiff_t{offsets[k]} * dim{sizeof(T)}, sizeof(T));
}

/// The `gather` kind for one nest: everything that does not change per block.
struct gather_kernel {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  dim count;  ///< elements per block
  const std::int32_t* src_offsets;
  const std::int32_t* scale_offsets;
  store_row_fn store = nullptr;

  explicit gather_kernel(const nest& n)
      : cvt(&n.cvt),
        plain(n.cvt.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(n.cvt.src)),
        dst_size(data_type_size(n.cvt.dst)),
        count(n.gather_count()),
        src_offsets(n.gather_src),
        scale_offsets(n.gather_scale),
        store(plain ? nullptr : pick_store_row(n.cvt.dst)) {}

  /// The source elements of block elements [k, k + n) as f32.
  void gather_f32(const std::byte* src, dim k, float* out, dim n) const {
    const std::int32_t* offsets = src_offsets + k;
    if (cvt->src == data_type::f32) {
      gather_u32(src, offsets, reinterpret_cast<std::uint32_t*>(out), n);
      return;
    }
    visit_data_type(cvt->src, [&]<data_type S>() {
      for (dim e = 0; e < n; ++e) {
        storage_t<S> v;
        std::memcpy(&v, src + std::ptrdiff_t{offsets[e]} * dim{sizeof v}, sizeof v);
        out[e] = to_f32<S>(v);
      }
    });
  }

  /// One block: `src` and `dst` at its first element, `scales` at its first scale.
  void block(const std::byte* src, std::byte* dst, const float* scales) const {
    if (plain) {
      switch (dst_size) {
        case 4: return gather_u32(src, src_offsets, reinterpret_cast<std::uint32_t*>(dst), count);
        case 2: return gather_scalar(src, src_offsets, reinterpret_cast<std::uint16_t*>(dst), count);
        default: return gather_scalar(src, src_offsets, reinterpret_cast<std::uint8_t*>(dst), count);
      }
    }
    HWY_ALIGN float values[chunk_elems];
    HWY_ALIGN float factors[chunk_elems];
    const auto dsz = static_cast<dim>(dst_size);
    for (dim k = 0; k < count; k += chunk_elems) {
      const dim n = count - k < chunk_elems ? count - k : chunk_elems;
      gather_f32(src, k, values, n);
      row_params p{cvt, scales, 0, stream};
      if (scales != nullptr && scale_offsets != nullptr) {
        for (dim e = 0; e < n; ++e) factors[e] = scales[scale_offsets[k + e]];
        p.scales = factors;
        p.scale_stride = 1;
      }
      store(values, dst + k * dsz, n, p);
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_GATHER_INL_H_
