// Copies of rows of a fixed size (a power of two from 4 to 1024 bytes), a walk of them
// at a time: zipped or unzipped runs, moves across runs, and streamed whole lines.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_COPY_FIXED_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_COPY_FIXED_INL_H_
#undef MEMFMT_REORDER_KERNEL_COPY_FIXED_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_COPY_FIXED_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memfmt/reorder/kernel/copy/moves-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

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

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_COPY_FIXED_INL_H_
