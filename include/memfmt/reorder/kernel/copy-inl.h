// Per-target `copy` kernel: one contiguous row (src and dst stride 1) per outer
// iteration; a byte copy when the conversion is plain, else stage A + stage B
// through an L1-resident chunk buffer (stage A is skipped for f32 sources).
//
// Compiled once per target by pass-inl.h.

#if defined(MEMFMT_REORDER_KERNEL_COPY_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_COPY_INL_H_
#undef MEMFMT_REORDER_KERNEL_COPY_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_COPY_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Copies `bytes` bytes; with `stream`, the aligned whole vectors bypass the caches.
HWY_INLINE void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes, bool stream) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  if (stream) {
    const hn::ScalableTag<std::uint8_t> d8;
    const std::size_t N = hn::Lanes(d8);
    auto* d = reinterpret_cast<std::uint8_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint8_t*>(src);
    std::size_t head = (N - reinterpret_cast<std::uintptr_t>(d) % N) % N;
    if (head > bytes) head = bytes;
    std::memcpy(d, s, head);
    std::size_t i = head;
    for (; i + N <= bytes; i += N) hn::Stream(hn::LoadU(d8, s + i), d8, d + i);
    std::memcpy(d + i, s + i, bytes - i);
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(dst, src, bytes);
}

/// Copies rows of B bytes (a compile-time size: the copy is a few vector moves),
/// `count` rows, `src_step` and `dst_step` bytes apart. With `stream`, rows that
/// are whole aligned cache lines bypass the caches.
template <std::size_t B>
HWY_NOINLINE void copy_fixed_rows(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim count,
                                  bool stream) {
  const hn::CappedTag<std::uint8_t, B> d8;
  constexpr std::size_t N = hn::MaxLanes(d8);
  static_assert(B % N == 0, "rows are whole vectors");
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  if constexpr (B % 64 == 0) {
    // every row aligned to a line: whole lines, written around the cache
    const bool aligned = reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && dst_step % 64 == 0;
    if (stream && aligned) {
      for (dim r = 0; r < count; ++r, src += src_step, dst += dst_step) {
        const auto* s = reinterpret_cast<const std::uint8_t*>(src);
        auto* d = reinterpret_cast<std::uint8_t*>(dst);
        for (std::size_t k = 0; k < B; k += N) hn::Stream(hn::LoadU(d8, s + k), d8, d + k);
      }
      return;
    }
  }
#else
  (void)stream;
#endif
  for (dim r = 0; r < count; ++r, src += src_step, dst += dst_step) {
    const auto* s = reinterpret_cast<const std::uint8_t*>(src);
    auto* d = reinterpret_cast<std::uint8_t*>(dst);
    for (std::size_t k = 0; k < B; k += N) hn::StoreU(hn::LoadU(d8, s + k), d8, d + k);
  }
}

/// The `copy` kind for one nest: everything that does not change per row.
struct copy_kernel {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  to_f32_row_fn to_f32;
  store_row_fn store;

  explicit copy_kernel(const nest& n)
      : cvt(&n.cvt),
        plain(n.cvt.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(n.cvt.src)),
        dst_size(data_type_size(n.cvt.dst)),
        to_f32(plain ? nullptr : pick_to_f32_row(n.cvt.src)),
        store(plain ? nullptr : pick_store_row(n.cvt.dst)) {}

  /// Rows J x I: I.extent contiguous elements per row, J.extent rows.
  void rows(const std::byte* src, std::byte* dst, const float* scales, const loop& J, const loop& I) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    if (plain) {
      const dim s_step = J.src_stride * ssz, d_step = J.dst_stride * dsz;
      switch (I.extent * dsz) {
        case 4: return copy_fixed_rows<4>(src, s_step, dst, d_step, J.extent, stream);
        case 8: return copy_fixed_rows<8>(src, s_step, dst, d_step, J.extent, stream);
        case 16: return copy_fixed_rows<16>(src, s_step, dst, d_step, J.extent, stream);
        case 32: return copy_fixed_rows<32>(src, s_step, dst, d_step, J.extent, stream);
        case 64: return copy_fixed_rows<64>(src, s_step, dst, d_step, J.extent, stream);
        case 128: return copy_fixed_rows<128>(src, s_step, dst, d_step, J.extent, stream);
        case 256: return copy_fixed_rows<256>(src, s_step, dst, d_step, J.extent, stream);
        case 512: return copy_fixed_rows<512>(src, s_step, dst, d_step, J.extent, stream);
        case 1024: return copy_fixed_rows<1024>(src, s_step, dst, d_step, J.extent, stream);
        default: break;
      }
    }
    for (dim j = 0; j < J.extent; ++j) {
      row(src + j * J.src_stride * ssz, dst + j * J.dst_stride * dsz,
          scales != nullptr ? scales + j * J.scale_stride : nullptr, I.scale_stride, I.extent);
    }
  }

  /// One row of `n` elements; `scales` is this row's first scale (null without scales).
  void row(const std::byte* src, std::byte* dst, const float* scales, dim scale_stride, dim n) const {
    if (n <= 0) return;
    if (plain) {
      copy_bytes(dst, src, static_cast<std::size_t>(n) * dst_size, stream);
      return;
    }
    HWY_ALIGN float buffer[chunk_elems];
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    row_params p{cvt, scales, scale_stride, stream};
    for (dim start = 0; start < n; start += chunk_elems) {
      const dim count = n - start < chunk_elems ? n - start : chunk_elems;
      const float* x = buffer;
      if (cvt->src == data_type::f32) {
        x = reinterpret_cast<const float*>(src + start * ssz);  // read with unaligned loads only
      } else {
        to_f32(src + start * ssz, buffer, count);
      }
      if (scales != nullptr) p.scales = scales + start * scale_stride;
      store(x, dst + start * dsz, count, p);
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_COPY_INL_H_
