// Per-target `copy` kind: contiguous rows (src and dst stride 1). Short rows
// are walked by the kernel a loop or two at a time and moved with fixed-size
// vector copies (or one masked move on AVX-512); a byte copy when the
// conversion is plain, else stage A + stage B through an L1-resident chunk
// buffer (stage A is skipped for f32 sources), many rows per call, short rows
// that lie back to back on one side converted there as one long row. Zeros of
// the destination's padding that follow each row are written with it.
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
#include <type_traits>
#include <utility>

#include "memfmt/reorder/kernel/convert-inl.h"
#include "memfmt/reorder/kernel/copy/fixed-inl.h"
#include "memfmt/reorder/kernel/copy/moves-inl.h"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// The `copy` kind for one nest: everything that does not change per row.
struct copy_kernel {
  const conversion* cvt;
  bool plain;
  bool stream;
  std::size_t src_size, dst_size;
  to_f32_rows_fn to_f32;
  store_rows_fn store;
  convert_rows_fn convert;  ///< one pass, for the rows converts_in_one_pass allows (else null)

  std::size_t tail_bytes;  ///< zeros after each row (destination padding)

  explicit copy_kernel(const nest& n)
      : cvt(&n.cvt),
        plain(n.cvt.is_plain_copy()),
        stream(n.stream_stores),
        src_size(data_type_size(n.cvt.src)),
        dst_size(data_type_size(n.cvt.dst)),
        to_f32(plain ? nullptr : pick_to_f32_rows(n.cvt.src)),
        store(plain ? nullptr : pick_store_rows(n.cvt.dst)),
        convert(plain || !converts_in_one_pass(n.cvt, 0) ? nullptr : pick_convert_rows(n.cvt.src, n.cvt.dst)),
        tail_bytes(static_cast<std::size_t>(n.zero_tail) * data_type_size(n.cvt.dst)) {}

  /// Rows K x J of I.extent contiguous elements each (K has extent 1 when the
  /// kernel owns two loops), for each iteration of O.
  void rows(const std::byte* src, std::byte* dst, const float* scales, const loop& K, const loop& J, const loop& I,
            const loop& O = loop{}) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const auto bytes = static_cast<std::size_t>(I.extent * dsz);
    const copy_fixed_rows_fn fixed = plain && tail_bytes == 0 ? pick_copy_fixed_rows(I.extent * dsz) : nullptr;
    if (O.extent != 1 && fixed == nullptr) {
      for (dim o = 0; o < O.extent; ++o)
        rows(src + o * O.src_stride * ssz, dst + o * O.dst_stride * dsz,
             scales != nullptr ? scales + o * O.scale_stride : nullptr, K, J, I);
      return;
    }
    const row_walk w{K.extent,          J.extent,          K.src_stride * ssz, J.src_stride * ssz,
                     K.dst_stride * dsz, J.dst_stride * dsz};
    if (plain && tail_bytes != 0) return rows_and_zeros(src, dst, w, bytes);
    if (fixed != nullptr)
      return fixed_rows(fixed, src, dst, w, walk_repeat{O.extent, O.src_stride * ssz, O.dst_stride * dsz});
    if (plain && bytes <= masked_bytes) {
      MEMFMT_KERNEL_PATH("short rows, masked");
      for_each_row(src, dst, w, [&](const std::byte* s, std::byte* d) { copy_short(d, s, bytes); });
      return;
    }
    rows_one_by_one(src, dst, scales, K, J, I);
  }

  /// Plain rows of `bytes` each and the zeros (tail_bytes) after each.
  void rows_and_zeros(const std::byte* src, std::byte* dst, const row_walk& w, std::size_t bytes) const {
    if constexpr (exact_masked_bytes && masked_bytes == 64) {
      // a row and its zeros make one aligned line (the last channel of nChw16c with
      // 17 channels): built in a register and written around the cache
      if (stream && bytes + tail_bytes == 64 && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 &&
          w.dst_outer % 64 == 0 && w.dst_inner % 64 == 0) {
        MEMFMT_KERNEL_PATH("rows and zeros in a line, streamed");
        const hn::ScalableTag<std::uint8_t> d8;
        const auto first = hn::FirstN(d8, bytes);
        for_each_row(src, dst, w, [&](const std::byte* s, std::byte* d) {
          const auto line = hn::MaskedLoad(first, d8, reinterpret_cast<const std::uint8_t*>(s));
          hn::Stream(line, d8, reinterpret_cast<std::uint8_t*>(d));
        });
        return;
      }
    }
    if constexpr (!exact_masked_bytes && !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR) {
      const bool lines = reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && w.dst_outer % 64 == 0 &&
                         w.dst_inner % 64 == 0;
      const std::size_t span = bytes + tail_bytes;
      if (span == 64 && stream && lines) {
        MEMFMT_KERNEL_PATH("rows into zeros, streamed lines");
        return copy_rows_into_zeros<64, true>(src, dst, w, bytes);
      }
      if (span == 16 || span == 32 || span == 64) MEMFMT_KERNEL_PATH("rows into zeros");
      switch (span) {
        case 16: return copy_rows_into_zeros<16, false>(src, dst, w, bytes);
        case 32: return copy_rows_into_zeros<32, false>(src, dst, w, bytes);
        case 64: return copy_rows_into_zeros<64, false>(src, dst, w, bytes);
        default: break;
      }
    }
    MEMFMT_KERNEL_PATH("rows then zeros");
    for_each_row(src, dst, w, [&](const std::byte* s, std::byte* d) { copy_with_tail(d, s, bytes, tail_bytes); });
  }

  /// Plain rows of a size `fixed` copies, `repeat`ed.
  void fixed_rows(copy_fixed_rows_fn fixed, const std::byte* src, std::byte* dst, const row_walk& w,
                  const walk_repeat& repeat) const {
    // In cache, along the outer loop inside, the destination goes in order:
    // - rows a few lines apart at most along the outer loop, further along the inner one,
    //   which walks the source in order (AB16a16b -> ab: a block's 16 rows, then the next
    //   block's): each store finishes the line the last one began, and the source goes in
    //   few streams (few_rows at most: more, from memory, outrun the prefetchers);
    // - rows a multiple of 2 KiB apart along the inner loop, which share one or two L1
    //   sets: walked along them, each outer step evicts the lines the last one left
    //   partly written (nChw16c -> nhwc, rows 2 KiB apart: about three times as fast).
    // (From memory, streamed, the source goes in order, and the destination's lines
    // stream: ab -> BA16a64b lost a third walked the other way.)
    const bool few_near_runs = w.outer <= nest::few_rows && w.inner > 1 && w.dst_inner > w.dst_outer &&
                               w.src_inner < w.src_outer && w.dst_outer <= 256;
    const bool sets_shared = w.dst_inner % 2048 == 0 && w.dst_outer < w.dst_inner && w.inner >= 8;
    if (!stream && w.outer > 1 && (few_near_runs || sets_shared)) {
      MEMFMT_KERNEL_PATH("fixed rows, destination order");
      const row_walk across{w.inner, w.outer, w.src_inner, w.src_outer, w.dst_inner, w.dst_outer};
      return fixed(src, dst, across, stream, repeat);
    }
    return fixed(src, dst, w, stream, repeat);
  }

  /// Rows K x J, plain or converted, a row or a run of rows per call.
  void rows_one_by_one(const std::byte* src, std::byte* dst, const float* scales, const loop& K, const loop& J,
                       const loop& I) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    // rows shorter than a line go in destination order, run by run, also when tile_rows
    // put the loop of runs inside (partial lines of a run stay together, for the cache
    // and for streaming stores); longer rows in source order; converted rows as below
    bool k_inside = K.dst_stride < J.dst_stride && I.extent * dsz < 64;
    if (!plain) {
      // converted rows go many per call along the inside loop: the longer of the loops
      // whose rows lie back to back on one side, when the rows are short (converted there
      // as one long row, see converted_rows), else the loop of more than one row
      const auto back_to_back = [&](const loop& l) {
        return I.extent < short_converted_row && l.extent > 1 &&
               ((l.src_stride == I.extent && cvt->beta == 0.f) || l.dst_stride == I.extent);
      };
      if (back_to_back(K) && (!back_to_back(J) || K.extent > J.extent)) {
        k_inside = true;
      } else if (back_to_back(J) || K.extent == 1) {
        k_inside = false;
      } else if (J.extent == 1) {
        k_inside = true;
      }
    }
    MEMFMT_KERNEL_PATH(k_inside ? "rows in destination order" : "rows");
    const loop& outer = k_inside ? J : K;
    const loop& inside = k_inside ? K : J;
    for (dim k = 0; k < outer.extent; ++k) {
      if (!plain && I.extent <= chunk_elems) {
        converted_rows(src + k * outer.src_stride * ssz, inside.src_stride * ssz, dst + k * outer.dst_stride * dsz,
                       inside.dst_stride * dsz, scales != nullptr ? scales + k * outer.scale_stride : nullptr,
                       inside.scale_stride, I.scale_stride, I.extent, inside.extent);
        continue;
      }
      for (dim j = 0; j < inside.extent; ++j) {
        const dim s_off = k * outer.src_stride + j * inside.src_stride, d_off = k * outer.dst_stride + j * inside.dst_stride;
        row(src + s_off * ssz, dst + d_off * dsz,
            scales != nullptr ? scales + k * outer.scale_stride + j * inside.scale_stride : nullptr, I.scale_stride,
            I.extent);
      }
    }
  }

  /// Copies a row of `bytes` and zeros the `tail` bytes after it: on AVX-512, one masked
  /// load and one store when both fit a vector.
  static void copy_with_tail(std::byte* dst, const std::byte* src, std::size_t bytes, std::size_t tail) {
    if constexpr (exact_masked_bytes) {
      if (bytes + tail <= masked_bytes) {
        const hn::ScalableTag<std::uint8_t> d8;
        const auto v = hn::MaskedLoad(hn::FirstN(d8, bytes), d8, reinterpret_cast<const std::uint8_t*>(src));
        hn::BlendedStore(v, hn::FirstN(d8, bytes + tail), d8, reinterpret_cast<std::uint8_t*>(dst));
        return;
      }
    }
    std::memcpy(dst, src, bytes);
    std::memset(dst + bytes, 0, tail);
  }

  /// Moves `rows` rows of `bytes` each, `src_step` and `dst_step` bytes apart.
  static void move_rows_of(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, dim bytes, dim rows,
                           bool stream) {
    if (const copy_fixed_rows_fn fixed = pick_copy_fixed_rows(bytes)) {
      fixed(src, dst, row_walk{1, rows, 0, src_step, 0, dst_step}, stream, walk_repeat{});
      return;
    }
    for (dim r = 0; r < rows; ++r) {
      const std::byte* from = src + r * src_step;
      std::byte* to = dst + r * dst_step;
      if (static_cast<std::size_t>(bytes) <= masked_bytes) {
        copy_short(to, from, static_cast<std::size_t>(bytes));
      } else if (masked_bytes < 64 && bytes <= 64) {
        copy_few(to, from, static_cast<std::size_t>(bytes));
      } else {
        std::memcpy(to, from, static_cast<std::size_t>(bytes));
      }
    }
  }

  /// `rows` converted rows of `n` <= chunk_elems elements, row r at src + r * src_step
  /// and dst + r * dst_step bytes, its scales from scales + r * row_scale_stride. Many
  /// rows per call (one row per call cost 30 times oneDNN's time on rows of 8 elements:
  /// nChw16c -> nChw8c f32 -> bf16). Short rows back to back on one side convert there
  /// as one long row, through a buffer in L1 whose rows the plain row moves take to or
  /// from the other side: a row shorter than a vector costs a vector otherwise. Rows
  /// that convert in one pass (convert_rows) skip the buffer when they fill whole
  /// vectors, or half a vector each (two per vector).
  void converted_rows(const std::byte* src, dim src_step, std::byte* dst, dim dst_step, const float* scales,
                      dim row_scale_stride, dim scale_stride, dim n, dim rows) const {
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    const bool in_one_pass = one_pass(convert, scales, scale_stride);
    const auto lanes = static_cast<dim>(hn::Lanes(DF()));
    // rows of whole vectors, or of half a vector (two per vector), cost nothing more
    // than the vectors they fill; so do rows whose zeros complete one (nChw8c -> nChw8c
    // with 3 channels: 3 + 5 zeros), converted in one pass with them
    const dim span = n + static_cast<dim>(tail_bytes) / dsz;
    const bool zeros_in_vectors = in_one_pass && tail_bytes != 0 && (span == lanes || 2 * span == lanes);
    const bool whole_vectors = n % lanes == 0 || 2 * n == lanes || zeros_in_vectors;
    if (tail_bytes != 0 && !zeros_in_vectors) {
      for (dim r = 0; r < rows; ++r) {
        std::byte* zeros = dst + r * dst_step + n * dsz;
        if (tail_bytes <= 64) {
          zero_short(zeros, tail_bytes);
        } else {
          std::memset(zeros, 0, tail_bytes);
        }
      }
    }
    row_params p{cvt, scales, scale_stride, stream, row_scale_stride};
    HWY_ALIGN float buffer[chunk_elems];
    // `count` elements from `from` converted to `to`, as one row whose first scale is at
    // p.scales
    const auto convert_run = [&](const std::byte* from, std::byte* to, dim count) {
      if (in_one_pass) {
        convert(from, 0, to, 0, count, 1, p);
        return;
      }
      const float* x = buffer;
      if (cvt->src == data_type::f32) {
        x = reinterpret_cast<const float*>(from);  // read with unaligned loads only
      } else {
        to_f32(from, 0, buffer, 0, count, 1);
      }
      store(x, 0, to, 0, count, 1, p);
    };
    const dim batch = chunk_elems / n;
    // the scales of a batch read as those of one long row
    const bool linear_scales = scales == nullptr || row_scale_stride == n * scale_stride;
    if (rows > 1 && n < short_converted_row && linear_scales && !(in_one_pass && whole_vectors)) {
      if (src_step == n * ssz && cvt->beta == 0.f) {
        MEMFMT_KERNEL_PATH("converted source runs, rows moved");
        HWY_ALIGN std::byte converted[chunk_elems * sizeof(float)];
        p.stream = false;
        for (dim r = 0; r < rows; r += batch) {
          const dim count = rows - r < batch ? rows - r : batch;
          if (scales != nullptr) p.scales = scales + r * row_scale_stride;
          convert_run(src + r * src_step, converted, n * count);
          move_rows_of(converted, n * dsz, dst + r * dst_step, dst_step, n * dsz, count, stream);
        }
        return;
      }
      if (dst_step == n * dsz) {
        MEMFMT_KERNEL_PATH("rows moved, converted destination runs");
        HWY_ALIGN std::byte moved[chunk_elems * sizeof(float)];
        for (dim r = 0; r < rows; r += batch) {
          const dim count = rows - r < batch ? rows - r : batch;
          move_rows_of(src + r * src_step, src_step, moved, n * ssz, n * ssz, count, false);
          if (scales != nullptr) p.scales = scales + r * row_scale_stride;
          convert_run(moved, dst + r * dst_step, n * count);
        }
        return;
      }
    }
    if (in_one_pass) {
      MEMFMT_KERNEL_PATH("converted rows, one pass");
      if (zeros_in_vectors) p.zero_tail = span - n;
      convert(src, src_step, dst, dst_step, n, rows, p);
      return;
    }
    MEMFMT_KERNEL_PATH("converted rows, many per call");
    if (cvt->src == data_type::f32) {  // read with unaligned loads only
      store(reinterpret_cast<const float*>(src), src_step / 4, dst, dst_step, n, rows, p);
      return;
    }
    for (dim r = 0; r < rows; r += batch) {
      const dim count = rows - r < batch ? rows - r : batch;
      to_f32(src + r * src_step, src_step, buffer, n, n, count);
      if (scales != nullptr) p.scales = scales + r * row_scale_stride;
      store(buffer, n, dst + r * dst_step, dst_step, n, count, p);
    }
  }

  /// One row of `n` elements; `scales` is this row's first scale (null without scales).
  void row(const std::byte* src, std::byte* dst, const float* scales, dim scale_stride, dim n) const {
    if (n <= 0) return;
    if (tail_bytes != 0) std::memset(dst + n * static_cast<dim>(dst_size), 0, tail_bytes);
    if (plain) {
      copy_bytes(dst, src, static_cast<std::size_t>(n) * dst_size, stream);
      return;
    }
    row_params p{cvt, scales, scale_stride, stream};
    if (one_pass(convert, scales, scale_stride)) {
      convert(src, 0, dst, 0, n, 1, p);
      return;
    }
    if (cvt->src == data_type::f32) {
      // one call for the whole row: nothing to stage (a call per 512 elements cost up to a
      // tenth of short converted rows)
      store(reinterpret_cast<const float*>(src), 0, dst, 0, n, 1, p);  // read with unaligned loads only
      return;
    }
    // staged in chunks of 8 KiB (in chunks of 2 KiB, the two calls per chunk cost a few
    // percent)
    constexpr dim chunk = 4 * chunk_elems;
    HWY_ALIGN float buffer[chunk];
    const auto ssz = static_cast<dim>(src_size), dsz = static_cast<dim>(dst_size);
    for (dim start = 0; start < n; start += chunk) {
      const dim count = n - start < chunk ? n - start : chunk;
      to_f32(src + start * ssz, 0, buffer, 0, count, 1);
      if (scales != nullptr) p.scales = scales + start * scale_stride;
      store(buffer, 0, dst + start * dsz, 0, count, 1, p);
    }
  }
};

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_COPY_INL_H_
