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
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/prefetch.hpp"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Rows at least this long are copied by copy_bytes' own loop, not by memcpy: glibc's
/// memcpy (rep movsb) slows down severalfold from about half a megabyte on, where four
/// vectors per step keep their speed (below, memcpy is as fast or faster).
inline constexpr std::size_t long_copy_bytes = 384 << 10;

/// Copies `bytes` bytes; with `stream`, the aligned whole vectors bypass the caches.
HWY_INLINE void copy_bytes(std::byte* dst, const std::byte* src, std::size_t bytes, bool stream) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  if (!stream && bytes >= long_copy_bytes) {
    MEMFMT_KERNEL_PATH("long row, vectors");
    const hn::ScalableTag<std::uint8_t> d8;
    const std::size_t N = hn::Lanes(d8);
    auto* d = reinterpret_cast<std::uint8_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint8_t*>(src);
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

/// Whether rows of B bytes zip and unzip as lanes (zip_runs, unzip_runs): 4 or 8 bytes,
/// on targets whose vectors hold several such lanes.
template <std::size_t B>
inline constexpr bool zips_rows = (B == 4 || B == 8) && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR;

/// The rows of `w` when its inner rows, 2 or 4 of them, each lead a run of rows back to
/// back along the outer loop in the source, and lie side by side in the destination,
/// which is one run (s8 nChw8c -> nChw16c: the two 8-channel planes of a 16-channel
/// block; bf16 nChw4c -> nChw8c): the runs zipped, a vector of rows from each, stored
/// interleaved (rows as lanes). The last rows go one by one.
/// @pre zips_rows<B>; w.src_outer == B, w.dst_inner == B, w.dst_outer == w.inner * B,
///      w.inner == 2 or 4
template <std::size_t B>
HWY_INLINE void zip_runs(const std::byte* src, std::byte* dst, const row_walk& w) {
  using T = hwy::UnsignedFromSize<B>;
  const hn::ScalableTag<T> d;
  const auto N = static_cast<dim>(hn::Lanes(d));
  const auto run = [&](dim k, dim j) { return reinterpret_cast<const T*>(src + k * w.src_inner + j * dim{B}); };
  const auto out = [&](dim j) { return reinterpret_cast<T*>(dst + j * w.dst_outer); };
  dim j = 0;
  if (w.inner == 2) {
    for (; j + N <= w.outer; j += N) hn::StoreInterleaved2(hn::LoadU(d, run(0, j)), hn::LoadU(d, run(1, j)), d, out(j));
  } else {
    for (; j + N <= w.outer; j += N)
      hn::StoreInterleaved4(hn::LoadU(d, run(0, j)), hn::LoadU(d, run(1, j)), hn::LoadU(d, run(2, j)),
                            hn::LoadU(d, run(3, j)), d, out(j));
  }
  move_rows_from<B>(src, dst, w, j);
}

/// The reverse of zip_runs: the source one run of rows side by side, 2 or 4 at a time,
/// each going to its own run along the outer loop in the destination (s8 nChw16c ->
/// nChw8c): loaded interleaved, a vector of rows stored to each run.
/// @pre zips_rows<B>; w.dst_outer == B, w.src_inner == B, w.src_outer == w.inner * B,
///      w.inner == 2 or 4
template <std::size_t B>
HWY_INLINE void unzip_runs(const std::byte* src, std::byte* dst, const row_walk& w) {
  using T = hwy::UnsignedFromSize<B>;
  const hn::ScalableTag<T> d;
  const auto N = static_cast<dim>(hn::Lanes(d));
  const auto in = [&](dim j) { return reinterpret_cast<const T*>(src + j * w.src_outer); };
  const auto run = [&](dim k, dim j) { return reinterpret_cast<T*>(dst + k * w.dst_inner + j * dim{B}); };
  dim j = 0;
  if (w.inner == 2) {
    for (; j + N <= w.outer; j += N) {
      hn::Vec<decltype(d)> v0, v1;
      hn::LoadInterleaved2(d, in(j), v0, v1);
      hn::StoreU(v0, d, run(0, j));
      hn::StoreU(v1, d, run(1, j));
    }
  } else {
    for (; j + N <= w.outer; j += N) {
      hn::Vec<decltype(d)> v0, v1, v2, v3;
      hn::LoadInterleaved4(d, in(j), v0, v1, v2, v3);
      hn::StoreU(v0, d, run(0, j));
      hn::StoreU(v1, d, run(1, j));
      hn::StoreU(v2, d, run(2, j));
      hn::StoreU(v3, d, run(3, j));
    }
  }
  move_rows_from<B>(src, dst, w, j);
}

/// Copies the rows of `w`, B bytes each (a compile-time size: the copy is a few
/// vector moves). With `stream`, whole aligned cache lines (rows of whole lines, or
/// shorter rows back to back) bypass the caches.
template <std::size_t B>
HWY_INLINE void copy_fixed_walk(const std::byte* src, std::byte* dst, const row_walk& w, bool stream) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  constexpr bool can_stream = B % 16 == 0;  // whole 16-byte vectors
#else
  constexpr bool can_stream = false;
#endif
  const auto nothing = [](const std::byte*) {};
  if constexpr (B % 64 == 0) {
    // rows of whole aligned lines, written around the cache
    if (can_stream && stream && w.dst_outer % 64 == 0 && w.dst_inner % 64 == 0 &&
        reinterpret_cast<std::uintptr_t>(dst) % 64 == 0) {
      MEMFMT_KERNEL_PATH("whole lines, streamed");
      move_walk<B, can_stream>(src, dst, w, nothing);
      return;
    }
  } else if constexpr (64 % B == 0) {
    constexpr dim per_line = 64 / static_cast<dim>(B);
    const auto streamed = [&](auto&& f) {
      if (can_stream && stream) {
        f(std::bool_constant<can_stream>{});
      } else {
        f(std::false_type{});
      }
    };
    // runs of rows zipped into one, or one unzipped into runs: rows as lanes, whole
    // vectors in and out (the moves below take these rows one at a time). From memory,
    // runs out are left to the moves below, which stream whole lines of each run that
    // has a line of rows or more.
    if constexpr (zips_rows<B>) {
      constexpr auto b = static_cast<dim>(B);
      const bool two_or_four = w.inner == 2 || w.inner == 4;
      if (two_or_four && w.src_outer == b && w.dst_inner == b && w.dst_outer == w.inner * b) {
        MEMFMT_KERNEL_PATH("runs zipped");
        zip_runs<B>(src, dst, w);
        return;
      }
      if (!stream && two_or_four && w.dst_outer == b && w.src_inner == b && w.src_outer == w.inner * b) {
        MEMFMT_KERNEL_PATH("run unzipped");
        unzip_runs<B>(src, dst, w);
        return;
      }
    }
    // rows back to back along the outer loop, a run of them per inner row (tile_rows puts
    // the channel blocks of a pixel inside the pixels)
    if (w.dst_outer == static_cast<dim>(B) && w.outer >= per_line && w.inner > 1 && w.inner <= max_runs &&
        reinterpret_cast<std::uintptr_t>(dst) % B == 0 && w.dst_inner % static_cast<dim>(B) == 0) {
      MEMFMT_KERNEL_PATH("runs along the outer loop");
      streamed([&](auto streaming) { move_across_runs<B, decltype(streaming)::value>(src, dst, w); });
      return;
    }
    // rows that fill one whole line per outer step (nChw8c -> nChw16c): a line's rows in
    // one step, loads before stores, with no ends to look for; streamed when the lines
    // are aligned (in a buffer 16 bytes into a line they still go a line at a time:
    // row by row was half as fast)
    if (w.dst_inner == static_cast<dim>(B) && w.inner == per_line && w.dst_outer == 64) {
      MEMFMT_KERNEL_PATH("a line per outer step");
      const auto lines = [&](auto streaming) {
        for (dim k = 0; k < w.outer; ++k, src += w.src_outer, dst += 64)
          move_rows<B, per_line, decltype(streaming)::value>(src, w.src_inner, dst, B);
      };
      if (reinterpret_cast<std::uintptr_t>(dst) % 64 == 0) {
        streamed(lines);
      } else {
        lines(std::false_type{});
      }
      return;
    }
    // shorter rows back to back: moved a whole aligned line at a time (its rows in one
    // step, which keeps streaming stores' lines whole: twice as fast from memory as a
    // row per step), the partial lines at both ends of each run through the cache
    if (w.dst_inner == static_cast<dim>(B) && reinterpret_cast<std::uintptr_t>(dst) % B == 0 &&
        w.dst_outer % static_cast<dim>(B) == 0) {
      MEMFMT_KERNEL_PATH("rows back to back, by lines");
      for (dim k = 0; k < w.outer; ++k, src += w.src_outer, dst += w.dst_outer) {
        dim lead = rows_to_line<B>(dst);
        if (lead > w.inner) lead = w.inner;
        const dim whole = (w.inner - lead) / per_line;
        const std::byte* s = src;
        std::byte* d = dst;
        for (dim j = 0; j < lead; ++j, s += w.src_inner, d += B) move_rows<B, 1, false>(s, 0, d, 0);
        streamed([&](auto streaming) {
          for (dim l = 0; l < whole; ++l, s += per_line * w.src_inner, d += 64)
            move_rows<B, per_line, decltype(streaming)::value>(s, w.src_inner, d, B);
        });
        for (dim j = lead + whole * per_line; j < w.inner; ++j, s += w.src_inner, d += B)
          move_rows<B, 1, false>(s, 0, d, 0);
      }
      return;
    }
  }
  MEMFMT_KERNEL_PATH(stream ? "fixed rows, streamed" : "fixed rows");
  if (stream) {
    // from memory, rows far apart: ask for the source rows a few rows ahead
    const dim ahead = 8 * w.src_inner;
    move_walk<B, false>(src, dst, w, [&](const std::byte* s) { prefetch_ahead(s, ahead); });
    return;
  }
  move_walk<B, false>(src, dst, w, nothing);
}

/// Walks of rows, `count` of them, each `src_step` and `dst_step` bytes after the last.
struct walk_repeat {
  dim count = 1;
  dim src_step = 0, dst_step = 0;
};

/// copy_fixed_walk of `walk`, repeated as `repeat` says: one call for a whole share of
/// a nest's outer loop (a call per walk cost 3 % of nChw8c -> nChw16c in L2).
template <std::size_t B>
HWY_NOINLINE void copy_fixed_rows(const std::byte* src, std::byte* dst, const row_walk& walk, bool stream,
                                  const walk_repeat& repeat) {
  // copies the stores cannot alias: the strides stay in registers
  const row_walk w = walk;
  const walk_repeat r = repeat;
  for (dim q = 0; q < r.count; ++q, src += r.src_step, dst += r.dst_step) copy_fixed_walk<B>(src, dst, w, stream);
}

using copy_fixed_rows_fn = void (*)(const std::byte*, std::byte*, const row_walk&, bool, const walk_repeat&);

/// The copy of rows of `row_bytes` each with moves of that fixed size, for the powers of
/// two from 4 to 1024 bytes; nullptr for other sizes.
inline copy_fixed_rows_fn pick_copy_fixed_rows(dim row_bytes) {
  switch (row_bytes) {
    case 4: return &copy_fixed_rows<4>;
    case 8: return &copy_fixed_rows<8>;
    case 16: return &copy_fixed_rows<16>;
    case 32: return &copy_fixed_rows<32>;
    case 64: return &copy_fixed_rows<64>;
    case 128: return &copy_fixed_rows<128>;
    case 256: return &copy_fixed_rows<256>;
    case 512: return &copy_fixed_rows<512>;
    case 1024: return &copy_fixed_rows<1024>;
    default: return nullptr;
  }
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
    const dim row_bytes = I.extent * dsz;
    const copy_fixed_rows_fn fixed = plain && tail_bytes == 0 ? pick_copy_fixed_rows(row_bytes) : nullptr;
    if (O.extent != 1 && fixed == nullptr) {
      for (dim o = 0; o < O.extent; ++o)
        rows(src + o * O.src_stride * ssz, dst + o * O.dst_stride * dsz,
             scales != nullptr ? scales + o * O.scale_stride : nullptr, K, J, I);
      return;
    }
    if (plain && tail_bytes != 0) {
      const row_walk w{K.extent,          J.extent,          K.src_stride * ssz, J.src_stride * ssz,
                       K.dst_stride * dsz, J.dst_stride * dsz};
      const auto bytes = static_cast<std::size_t>(I.extent * dsz);
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
      return;
    }
    if (plain) {
      const row_walk w{K.extent,          J.extent,          K.src_stride * ssz, J.src_stride * ssz,
                       K.dst_stride * dsz, J.dst_stride * dsz};
      if (fixed != nullptr) {
        const walk_repeat repeat{O.extent, O.src_stride * ssz, O.dst_stride * dsz};
        if (!stream && w.dst_inner % 2048 == 0 && w.dst_outer < w.dst_inner && w.outer > 1 && w.inner >= 8) {
          // In cache, destination rows a multiple of 2 KiB apart share one or two L1 sets:
          // walked along them, each outer step evicts the lines the last one left partly
          // written. Along the outer loop instead, the destination goes in order (nChw16c
          // -> nhwc, rows 2 KiB apart: about three times as fast). (From memory, the source
          // goes in order, and the destination's lines stream: ab -> BA16a64b lost a third
          // walked the other way.)
          MEMFMT_KERNEL_PATH("fixed rows, destination order");
          const row_walk across{w.inner, w.outer, w.src_inner, w.src_outer, w.dst_inner, w.dst_outer};
          return fixed(src, dst, across, stream, repeat);
        }
        return fixed(src, dst, w, stream, repeat);
      }
      const auto bytes = static_cast<std::size_t>(I.extent * dsz);
      if (bytes <= masked_bytes) {
        MEMFMT_KERNEL_PATH("short rows, masked");
        for_each_row(src, dst, w, [&](const std::byte* s, std::byte* d) { copy_short(d, s, bytes); });
        return;
      }
    }
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
