// Moves of contiguous rows: bytes with or without streaming stores, walks of rows of a
// fixed size a few vectors at a time (loads before stores), runs of rows that fill
// destination lines, short copies and zeros by masked moves.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_COPY_MOVES_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_COPY_MOVES_INL_H_
#undef MEMFMT_REORDER_KERNEL_COPY_MOVES_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_COPY_MOVES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/convert/lanes-inl.h"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Rows at least this long are copied by copy_bytes' own loop, not by memcpy: glibc's
/// memcpy (rep movsb) slows down severalfold from about half a megabyte on, where four
/// vectors per step keep their speed (below, memcpy is as fast or faster).
inline constexpr std::size_t long_copy_bytes = 384 << 10;

/// Rows of a vector to this many vectors are copied inline, the last vector overlapping
/// the one before where the row ends within one: a call of memcpy costs about what a
/// row of three vectors does (f32 BA16a48b -> ab, rows of 192 bytes).
inline constexpr std::size_t inline_copy_vectors = 16;

/// Copies `bytes` bytes; with `stream`, the aligned whole vectors bypass the caches.
HWY_INLINE void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes, bool stream) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<std::uint8_t> d8;
  const std::size_t N = hn::Lanes(d8);
  auto* d = reinterpret_cast<std::uint8_t*>(dst);
  const auto* s = reinterpret_cast<const std::uint8_t*>(src);
  if (!stream && bytes >= N && bytes <= inline_copy_vectors * N) {
    MEMFMT_KERNEL_PATH("rows of vectors, inline");
    for (std::size_t i = 0; i + N < bytes; i += N) hn::StoreU(hn::LoadU(d8, s + i), d8, d + i);
    hn::StoreU(hn::LoadU(d8, s + bytes - N), d8, d + bytes - N);
    return;
  }
  if (!stream && bytes >= long_copy_bytes) {
    MEMFMT_KERNEL_PATH("long row, vectors");
    std::size_t i = 0;
    for (; i + 4 * N <= bytes; i += 4 * N) {  // every load of a step before its first store
      const auto v0 = hn::LoadU(d8, s + i), v1 = hn::LoadU(d8, s + i + N);
      const auto v2 = hn::LoadU(d8, s + i + 2 * N), v3 = hn::LoadU(d8, s + i + 3 * N);
      hn::StoreU(v0, d8, d + i);
      hn::StoreU(v1, d8, d + i + N);
      hn::StoreU(v2, d8, d + i + 2 * N);
      hn::StoreU(v3, d8, d + i + 3 * N);
    }
    std::memcpy(d + i, s + i, bytes - i);
    return;
  }
  if (stream) {
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

/// Rows of a 2-D walk: `outer` x `inner` rows, steps in bytes.
struct row_walk {
  dim outer, inner;
  dim src_outer, src_inner;
  dim dst_outer, dst_inner;
};

/// Calls f(src_row, dst_row) for every row of `w`, outer rows first.
template <class F>
HWY_INLINE void for_each_row(const std::byte* src, std::byte* dst, const row_walk& w, F&& f) {
  for (dim k = 0; k < w.outer; ++k, src += w.src_outer, dst += w.dst_outer) {
    const std::byte* s = src;
    std::byte* d = dst;
    for (dim j = 0; j < w.inner; ++j, s += w.src_inner, d += w.dst_inner) f(s, d);
  }
}

/// Rows of B bytes that move_rows moves in one step: 4 vectors' worth (at least one row).
template <std::size_t B>
inline constexpr dim batch_rows = [] {
  constexpr std::size_t per_row = B / hn::MaxLanes(hn::CappedTag<std::uint8_t, B>());
  return HWY_HAVE_SCALABLE || per_row >= 4 ? dim{1} : static_cast<dim>(4 / per_row);
}();

/// Moves `Rows` rows of B bytes, `src_step` and `dst_step` bytes apart, a few vectors
/// at a time: every load of a step before its first store. A load after a store waits
/// when the CPU cannot tell that they do not overlap (their addresses agree in the low
/// 12 bits, as the rows of planes 4 KiB apart do); loads first, it never has to ask.
/// With `Streaming`, the stores bypass the caches.
template <std::size_t B, dim Rows, bool Streaming>
HWY_INLINE void move_rows(const std::byte* s, dim src_step, std::byte* d, dim dst_step) {
  using D = hn::CappedTag<std::uint8_t, B>;
  const D d8;
  constexpr std::size_t N = hn::MaxLanes(d8);
  static_assert(B % N == 0, "rows are whole vectors");
  const auto load = [&](dim r, std::size_t k) {
    return hn::LoadU(d8, reinterpret_cast<const std::uint8_t*>(s + r * src_step) + k);
  };
  const auto store = [&](hn::Vec<D> v, dim r, std::size_t k) {
    auto* p = reinterpret_cast<std::uint8_t*>(d + r * dst_step) + k;
    if constexpr (Streaming) {
      hn::Stream(v, d8, p);
    } else {
      hn::StoreU(v, d8, p);
    }
  };
#if HWY_HAVE_SCALABLE  // sizeless vectors do not form arrays
  for (dim r = 0; r < Rows; ++r)
    for (std::size_t k = 0; k < B; k += N) store(load(r, k), r, k);
#else
  // vectors of each row per step: streamed rows of whole lines, a line (every streaming
  // store of a line back to back: the halves of a line alternating between rows cost a
  // sixth from memory); else up to 4
  constexpr std::size_t step = Streaming && B % 64 == 0 ? (N >= 64 ? 1 : 64 / N) : B / N < 4 ? B / N : 4;
  for (std::size_t k = 0; k < B; k += step * N) {
    // vector q of a step: row q / step, bytes k + q % step * N of it
    [&]<std::size_t... Q>(std::index_sequence<Q...>) {
      const hn::Vec<D> v[] = {load(static_cast<dim>(Q / step), k + Q % step * N)...};
      (store(v[Q], static_cast<dim>(Q / step), k + Q % step * N), ...);
    }(std::make_index_sequence<static_cast<std::size_t>(Rows) * step>());
  }
#endif
}

/// Moves every row of `w`, B bytes each, batch_rows<B> rows of each inner run at a
/// time; calls before(s) for each row from s ahead of the step that moves it.
template <std::size_t B, bool Streaming, class F>
HWY_INLINE void move_walk(const std::byte* src, std::byte* dst, const row_walk& w, F&& before) {
  constexpr dim R = batch_rows<B>;
  for (dim k = 0; k < w.outer; ++k, src += w.src_outer, dst += w.dst_outer) {
    const std::byte* s = src;
    std::byte* d = dst;
    dim j = 0;
    const auto step = [&] {
      for (dim r = 0; r < R; ++r) before(s + r * w.src_inner);
      move_rows<B, R, Streaming>(s, w.src_inner, d, w.dst_inner);
    };
    if constexpr (R == 1) {
      // one row per step (rows of 4 vectors or more; every row on targets of sizeless
      // vectors), unrolled: a loop of one row per iteration ran rows of 256 bytes that
      // are back to back in the source (ab -> BA16a64b) at half the speed; steps of
      // several shorter rows are fast enough as they are, and lose a little unrolled
      _Pragma("GCC unroll 4")
      for (; j + R <= w.inner; j += R, s += R * w.src_inner, d += R * w.dst_inner) step();
    } else {
      for (; j + R <= w.inner; j += R, s += R * w.src_inner, d += R * w.dst_inner) step();
    }
    for (; j < w.inner; ++j, s += w.src_inner, d += w.dst_inner) {
      before(s);
      move_rows<B, 1, Streaming>(s, w.src_inner, d, w.dst_inner);
    }
  }
}

/// Rows of B bytes from `d` (a multiple of B) to the next cache line boundary.
template <std::size_t B>
HWY_INLINE dim rows_to_line(const std::byte* d) {
  const auto misaligned = static_cast<dim>(reinterpret_cast<std::uintptr_t>(d) % 64);
  return misaligned == 0 ? 0 : (64 - misaligned) / static_cast<dim>(B);
}

/// The most runs move_across_runs fills at once (the kernel owns fewer streams than this).
inline constexpr dim max_runs = nest::few_rows;

/// Moves the rows of `w` when they lie back to back along its outer loop, one run of
/// them for each inner row (nhwc -> nChw8c with the channel blocks inside the pixels:
/// the runs are the blocks' planes): 64 / B outer rows at a time, so the source is read
/// once, in order, and every run gets whole aligned lines (streamed with `Streaming`).
/// The rows before a run's first whole line and after its last go through the cache.
/// @pre w.dst_outer == B; dst and w.dst_inner are multiples of B; w.inner <= max_runs
template <std::size_t B, bool Streaming>
HWY_INLINE void move_across_runs(const std::byte* src, std::byte* dst, const row_walk& w) {
  constexpr dim per_line = 64 / static_cast<dim>(B);
  const std::byte* first_src[max_runs];  // each run's first row of a whole line
  std::byte* first_dst[max_runs];
  dim lead[max_runs];
  dim lines = w.outer / per_line;  // the whole lines every run gets
  for (dim k = 0; k < w.inner; ++k) {
    const std::byte* s = src + k * w.src_inner;
    std::byte* d = dst + k * w.dst_inner;
    lead[k] = rows_to_line<B>(d);
    if (lead[k] > w.outer) lead[k] = w.outer;
    if ((w.outer - lead[k]) / per_line < lines) lines = (w.outer - lead[k]) / per_line;
    for (dim j = 0; j < lead[k]; ++j, s += w.src_outer, d += B) move_rows<B, 1, false>(s, 0, d, 0);
    first_src[k] = s;
    first_dst[k] = d;
  }
  const dim line_src = per_line * w.src_outer;
  for (dim l = 0; l < lines; ++l)
    for (dim k = 0; k < w.inner; ++k)
      move_rows<B, per_line, Streaming>(first_src[k] + l * line_src, w.src_outer, first_dst[k] + l * 64, B);
  for (dim k = 0; k < w.inner; ++k) {
    const std::byte* s = first_src[k] + lines * line_src;
    std::byte* d = first_dst[k] + lines * 64;
    for (dim j = lead[k] + lines * per_line; j < w.outer; ++j, s += w.src_outer, d += B)
      move_rows<B, 1, false>(s, 0, d, 0);
  }
}

/// The rows of `w` from outer row `first` on, one at a time (the ends of zip_runs and
/// unzip_runs, less than a vector of rows).
template <std::size_t B>
HWY_INLINE void move_rows_from(const std::byte* src, std::byte* dst, row_walk w, dim first) {
  w.outer -= first;
  for_each_row(src + first * w.src_outer, dst + first * w.dst_outer, w,
               [](const std::byte* s, std::byte* d) { move_rows<B, 1, false>(s, 0, d, 0); });
}

/// Copies `bytes` <= masked_bytes with one masked load and store (memcpy elsewhere).
HWY_INLINE void copy_short(std::byte* dst, const std::byte* src, std::size_t bytes) {
  if constexpr (exact_masked_bytes) {
    const hn::ScalableTag<std::uint8_t> d8;
    const auto m = hn::FirstN(d8, bytes);
    hn::BlendedStore(hn::MaskedLoad(m, d8, reinterpret_cast<const std::uint8_t*>(src)), m, d8,
                     reinterpret_cast<std::uint8_t*>(dst));
  } else {
    std::memcpy(dst, src, bytes);
  }
}

/// Writes `bytes` <= 64 zero bytes: one masked store (AVX-512), else at most two
/// overlapping fixed-size stores (a memset call per short run costs more than the run:
/// the 9 padding channels after the last 7 of nChw16c with 71 channels).
HWY_INLINE void zero_short(std::byte* dst, std::size_t bytes) {
  static_assert(!exact_masked_bytes || masked_bytes >= 64, "one masked store covers every short run");
  if constexpr (exact_masked_bytes) {
    const hn::ScalableTag<std::uint8_t> d8;
    hn::BlendedStore(hn::Zero(d8), hn::FirstN(d8, bytes), d8, reinterpret_cast<std::uint8_t*>(dst));
  } else {
    static constexpr std::byte zeros[64] = {};
    copy_few(dst, zeros, bytes);
  }
}

/// Rows of `bytes` followed by zeros up to `Span` bytes (the last channels of nChw16c
/// with 17 channels: 4 bytes, then 60 zeros): the span is zeroed whole, then the row
/// written over it. With `Streaming` (@pre then Span is 64 and the spans are aligned
/// lines), a row of one element is built in a register and the line bypasses the caches.
template <std::size_t Span, bool Streaming>
HWY_INLINE void copy_rows_into_zeros(const std::byte* src, std::byte* dst, const row_walk& w, std::size_t bytes) {
  const hn::CappedTag<std::uint8_t, Span> d8;
  constexpr std::size_t N = hn::MaxLanes(d8);
  const auto zero = hn::Zero(d8);
  if constexpr (Streaming && N >= 8) {
    const auto stream_element = [&]<class T>(T) {
      const hn::Repartition<T, decltype(d8)> d;
      const auto first = hn::FirstN(d, 1);
      for_each_row(src, dst, w, [&](const std::byte* s, std::byte* p) {
        T x;
        std::memcpy(&x, s, sizeof(T));
        hn::Stream(hn::BitCast(d8, hn::IfThenElseZero(first, hn::Set(d, x))), d8, reinterpret_cast<std::uint8_t*>(p));
        for (std::size_t k = N; k < Span; k += N) hn::Stream(zero, d8, reinterpret_cast<std::uint8_t*>(p + k));
      });
    };
    switch (bytes) {
      case 1: return stream_element(std::uint8_t{});
      case 2: return stream_element(std::uint16_t{});
      case 4: return stream_element(std::uint32_t{});
      case 8: return stream_element(std::uint64_t{});
      default: break;
    }
  }
  for_each_row(src, dst, w, [&](const std::byte* s, std::byte* p) {
    for (std::size_t k = 0; k < Span; k += N) hn::StoreU(zero, d8, reinterpret_cast<std::uint8_t*>(p + k));
    copy_few(p, s, bytes);
  });
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_COPY_MOVES_INL_H_
