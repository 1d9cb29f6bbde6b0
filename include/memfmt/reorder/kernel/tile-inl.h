// The `tile` kernel: W x W tiles of units (an element of 1, 2 or 4 bytes, the 2 to 8
// contiguous in source and destination that make 2 to 8 bytes, or 4 contiguous 4-byte
// elements). A tile reads W source rows along the columns, one vector each, transposes
// them (transpose_units; transpose_blocks for units of 16 bytes), and writes each
// column's W rows as one vector: whole vectors on both sides, whichever
// loops the rows come from (OIhw4i16o4i: rows of 4 input and 4 output channels;
// OIhw16o16i: 16 x 16 channels; AB8b32a2b: units of 2 elements).
// Units of 1 or 2 bytes ride in 32-bit lanes, widened on load and narrowed on store;
// units of 16 bytes are 128-bit blocks, W = blocks per vector (4 x 4 on AVX-512, 2 x 2 on
// AVX2, a unit at a time on SSE4).
// Units of 2, 4 or 8 bytes of 1- or 2-byte elements, and of 8 bytes of 4-byte ones, may
// also be spread on one side: packed from 2 to 8 vectors of elements (each widened,
// shifted to its place and or-ed in), or unpacked into them. Units of 16 bytes of 4-byte
// elements spread only without rows: zipped a vector of each part at a time.
// With no rows, the units go from source to destination without a transpose.
// Groups of W rows without rows of zeros, of whole units, run as straight code with the
// tile in registers (whole_tiles); a quarter of a tile or less, in columns or in rows,
// goes unit by unit, which costs less than a transpose that moves a unit or two per
// vector.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_TILE_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_TILE_INL_H_
#undef MEMFMT_REORDER_KERNEL_TILE_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_TILE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "memfmt/reorder/kernel/convert-inl.h"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/path.hpp"
#include "memfmt/reorder/kernel/tile/units-inl.h"
#include "memfmt/reorder/kernel/transpose/registers-inl.h"
#include "memfmt/reorder/kernel/transpose/small_blocks-inl.h"

HWY_BEFORE_NAMESPACE();
namespace memfmt::detail::HWY_NAMESPACE {

/// Runs the nest's tiles: per outer iteration, its rows in groups of W, its columns
/// in groups of W, the zeros of its zero tail as rows of zeros. Units are moved as
/// bits: the kind serves plain copies only.
class tile_kernel {
 public:
  /// @pre n.kind == tile, n.cvt.is_plain_copy(), units of 1, 2, 4, 8 or 16 bytes, at most
  ///      tile_rows_max rows
  explicit tile_kernel(const nest& n) : stream_(n.stream_stores) {
    const int first = n.nloops - n.owned_loops();
    const auto elem = static_cast<dim>(data_type_size(n.cvt.src));
    elem_ = elem;
    unit_bytes_ = n.tile_unit * elem;
    // a unit's elements: elem bytes apart on both sides, or spread on one
    const loop* unit = n.tile_unit > 1 ? &n.loops[n.nloops - 1] : nullptr;
    part_bytes_ = unit != nullptr && (unit->src_stride != 1 || unit->dst_stride != 1) ? elem : unit_bytes_;
    src_part_ = unit != nullptr ? unit->src_stride * elem : 0;
    dst_part_ = unit != nullptr ? unit->dst_stride * elem : 0;
    column_step_ = unit != nullptr && unit->src_stride != 1 ? elem : unit_bytes_;
    row_step_ = unit != nullptr && unit->dst_stride != 1 ? elem : unit_bytes_;
    transposed_ = n.tile_row_loops > 0;
    // the column loops, innermost first: the extents and dst byte steps of the walk
    cols_ = 1;
    for (int k = 0; k < n.tile_column_loops; ++k) {
      const loop& l = n.loops[first + n.tile_row_loops + n.tile_column_loops - 1 - k];
      col_extent_[k] = l.extent;
      col_step_[k] = l.dst_stride * elem;
      col_src_step_[k] = l.src_stride * elem;
      cols_ *= l.extent;
    }
    for (int k = n.tile_column_loops; k < max_column_loops; ++k) {
      col_extent_[k] = 1;
      col_step_[k] = col_src_step_[k] = 0;
    }
    one_column_loop_ = col_extent_[0] == cols_;
    if (transposed_ && cols_ <= column_chunk) {  // (straight units walk their columns)
      dim at[max_column_loops] = {}, offset = 0;
      for (dim c = 0; c < cols_; ++c, next_column(at, offset)) col_dst_[c] = offset;
    }
    // the rows' source byte offsets, row-major over the row loops (dense in dst)
    rows_ = 1;
    src_rows_[0] = 0;
    // (the innermost row loop's run is followed by zero_tail rows of zeros: offset -1)
    for (int k = first; k < first + n.tile_row_loops; ++k) {
      const loop& l = n.loops[k];
      const dim e = k + 1 == first + n.tile_row_loops ? l.extent + n.zero_tail : l.extent;
      // (in place, last first: row q's e rows start at q * e >= q)
      for (dim q = rows_; q-- > 0;) {
        const dim outer_row = src_rows_[q];
        for (dim i = e; i-- > 0;)
          src_rows_[q * e + i] = outer_row < 0 || i >= l.extent ? -1 : outer_row + i * l.src_stride * elem;
      }
      rows_ *= e;
    }
    zero_rows_ = std::any_of(src_rows_, src_rows_ + rows_, [](dim o) { return o < 0; });
  }

  /// The tiles of one outer iteration.
  void block(const std::byte* src, std::byte* dst) const { blocks_at(src, dst, 1, 0, 0); }

  /// The tiles of `run.extent` outer iterations, `run` apart (strides in elements): the
  /// kernel walks them itself, its route chosen once (through block(), a call cost as
  /// much as the zip of a vector or two: ab -> BA16a16b2a, 16 pairs a call).
  void blocks(const std::byte* src, std::byte* dst, const loop& run) const {
    blocks_at(src, dst, run.extent, run.src_stride * elem_, run.dst_stride * elem_);
  }

 private:
  /// `count` outer iterations, `ss` and `ds` bytes apart, by the route of their units.
  void blocks_at(const std::byte* src, std::byte* dst, dim count, dim ss, dim ds) const {
    if (part_bytes_ != unit_bytes_) {  // spread units
      if (unit_bytes_ == 2) return groups<2, 1>(src, dst, count, ss, ds);
      if (unit_bytes_ == 4)
        return part_bytes_ == 1 ? groups<4, 1>(src, dst, count, ss, ds) : groups<4, 2>(src, dst, count, ss, ds);
      if (unit_bytes_ == 16) {  // (use_tiles gives them no rows; with rows, unit by unit)
        if (!transposed_) return straight<16, 4>(src, dst, count, ss, ds);
        for (dim i = 0; i < count; ++i) unit_rows<16, 4>(src + i * ss, dst + i * ds, src_rows_, rows_);
        return;
      }
      if (part_bytes_ == 4) return groups<8, 4>(src, dst, count, ss, ds);
      return part_bytes_ == 1 ? groups<8, 1>(src, dst, count, ss, ds) : groups<8, 2>(src, dst, count, ss, ds);
    }
    switch (unit_bytes_) {
      case 1: return groups<1, 1>(src, dst, count, ss, ds);
      case 2: return groups<2, 2>(src, dst, count, ss, ds);
      case 4: return groups<4, 4>(src, dst, count, ss, ds);
      case 8: return groups<8, 8>(src, dst, count, ss, ds);
      default: return groups<16, 16>(src, dst, count, ss, ds);
    }
  }

  /// Lanes that carry units of kBytes: 64-bit for 8 (and two per unit of 16), else
  /// 32-bit (widened).
  template <std::size_t kBytes>
  using lane_t = std::conditional_t<kBytes >= 8, std::uint64_t, std::uint32_t>;
  /// Units of kBytes per vector: a tile's W (1 where a vector holds one unit or less).
  template <std::size_t kBytes>
  static constexpr std::size_t tile_w = std::max<std::size_t>(unit_lanes<lane_t<kBytes>> / (kBytes == 16 ? 2 : 1), 1);

  /// blocks_at() for units of kBytes; kPart: bytes per element of a spread unit, else
  /// kBytes.
  template <std::size_t kBytes, std::size_t kPart>
  void groups(const std::byte* src, std::byte* dst, dim count, dim ss, dim ds) const {
    if (!transposed_) return straight<kBytes, kPart>(src, dst, count, ss, ds);
    for (dim i = 0; i < count; ++i) row_groups<kBytes, kPart>(src + i * ss, dst + i * ds);
  }

  /// One outer iteration's rows, W at a time.
  template <std::size_t kBytes, std::size_t kPart>
  void row_groups(const std::byte* src, std::byte* dst) const {
    constexpr auto W = static_cast<dim>(tile_w<kBytes>);
    for (dim r = 0; r < rows_; r += W) {
      const dim* rows = src_rows_ + r;
      const dim nr = rows_ - r < W ? rows_ - r : W;
      const bool whole = nr == W && (!zero_rows_ || std::all_of(rows, rows + W, [](dim o) { return o >= 0; }));
      std::byte* to = dst + r * row_step_;
      if (W > 1 && 4 * nr <= W) {
        // the last few rows unit by unit: a tile's transpose would fill a quarter of
        // each vector it stores, or less
        MEMFMT_KERNEL_PATH("last rows unit by unit");
        unit_rows<kBytes, kPart>(src, to, rows, nr);
      } else if (whole && kPart == kBytes) {
        MEMFMT_KERNEL_PATH("whole tiles");
        whole_tiles<kBytes>(src, to, rows);
      } else {
        tiles<kBytes, kPart>(src, to, rows, nr);
      }
    }
  }

  /// The tiles of the `nr` rows at source byte offsets `rows`, over all columns.
  template <std::size_t kBytes, std::size_t kPart>
  void tiles(const std::byte* src, std::byte* dst, const dim* rows, dim nr) const;

  /// The tiles of W rows at source byte offsets `rows` (none of zeros), over all columns,
  /// of whole units.
  template <std::size_t kBytes>
  HWY_INLINE void whole_tiles(const std::byte* src, std::byte* dst, const dim* rows) const;

  /// The byte offsets in dst of the next `count` columns of a chunk (column_chunk of them,
  /// the last fewer): the kernel's table when it holds every column, else `table`, filled
  /// from the column walk `at`, `offset` (next_column), which moves on past the chunk.
  /// (Chunks of a table serve every arrangement of the column loops with one loop: a loop
  /// per arrangement doubled the kernel's code, and a walk column by column, which
  /// branches at each column that ends a loop, was slower by up to a third.)
  const dim* chunk_columns(dim count, dim* table, dim* at, dim& offset) const {
    if (cols_ <= column_chunk) return col_dst_;
    MEMFMT_KERNEL_PATH("columns in chunks");
    for (dim j = 0; j < count; ++j, next_column(at, offset)) table[j] = offset;
    return table;
  }

  /// The `nr` rows at source byte offsets `rows` (or of zeros), unit by unit.
  template <std::size_t kBytes, std::size_t kPart>
  void unit_rows(const std::byte* src, std::byte* dst, const dim* rows, dim nr) const {
    std::byte* column = dst;
    dim at[max_column_loops] = {};
    for (dim c = 0; c < cols_; ++c, next_column(at, column))
      for (dim k = 0; k < nr; ++k)
        move_unit<kBytes, kPart>(rows[k] < 0 ? nullptr : src + rows[k] + c * column_step_, column + k * row_step_);
  }

  /// Moves `column` (a pointer or an offset in dst, or in src by `step` col_src_step_)
  /// on by `count` columns; `at`: its place in the column loops, from zeros at the first
  /// column.
  /// @pre count is 1, or divides col_extent_[0] and at[0]
  template <class P>
  void next_column(dim* at, P& column, dim count = 1, const dim* step = nullptr) const {
    if (step == nullptr) step = col_step_;
    column += count * step[0];
    if (one_column_loop_ || (at[0] += count) < col_extent_[0]) return;
    at[0] = 0;
    column -= col_extent_[0] * step[0];
    for (int k = 1; k < max_column_loops; ++k) {
      column += step[k];
      if (++at[k] < col_extent_[k]) return;
      at[k] = 0;
      column -= col_extent_[k] * step[k];
    }
  }

  /// The byte offset of column `c` in dst (or in src by `step` col_src_step_).
  dim column_at(dim c, const dim* step = nullptr) const {
    if (step == nullptr) step = col_step_;
    if (one_column_loop_) return c * step[0];
    const dim outer = c / col_extent_[0];
    return c % col_extent_[0] * step[0] + outer % col_extent_[1] * step[1] + outer / col_extent_[1] * step[2];
  }

  /// Transposes the tile `v` of units of kBytes.
  template <std::size_t kBytes, class D>
  static HWY_INLINE void transpose(D d, hn::Vec<D>* v) {
    if constexpr (kBytes == 16) {
      transpose_blocks<1>(d, v);
    } else {
      transpose_units(d, v);
    }
  }

  /// No rows: the columns' units, W at a time within a run (dense on both sides), of
  /// `count` blocks `ss` and `ds` bytes apart.
  template <std::size_t kBytes, std::size_t kPart>
  void straight(const std::byte* src, std::byte* dst, dim count, dim ss, dim ds) const;
  /// straight() from column `first` on, without zipping.
  template <std::size_t kBytes, std::size_t kPart>
  void straight_from(const std::byte* src, std::byte* dst, dim first) const;

  /// No rows, units of 2 or 4 parts spread on one side: there the parts are rows of
  /// whole vectors, which Highway's interleaved stores (or loads) zip into units (or
  /// unzip) a vector of each at a time, where packing them lane by lane takes a load,
  /// shift and or per part per W units. Returns the columns done (whole vectors).
  template <std::size_t kBytes, std::size_t kPart>
  HWY_INLINE dim zipped(const std::byte* src, std::byte* dst) const {
    using T = uint_of_size<kPart>;
    constexpr dim m = static_cast<dim>(kBytes / kPart), part = static_cast<dim>(kPart);
    const hn::ScalableTag<T> d;
    if constexpr (m > 4) {
      return 0;
    } else if (src_part_ != part && dst_part_ == part && !one_column_loop_) {
      return runs_through_buffer<kBytes, kPart, true>(src, dst);
    } else if (src_part_ != part && dst_part_ == part && interleaved_access_ok<kPart>(dst)) {
      MEMFMT_KERNEL_PATH("spread units zipped");
      return interleave_rows(d, reinterpret_cast<const T*>(src), src_part_ / part, reinterpret_cast<T*>(dst), m, cols_,
                             stream_);
    } else if (dst_part_ != part && src_part_ == part && !one_column_loop_) {
      return runs_through_buffer<kBytes, kPart, false>(src, dst);
    } else if (dst_part_ != part && src_part_ == part && interleaved_access_ok<kPart>(src)) {
      MEMFMT_KERNEL_PATH("spread units unzipped");
      return deinterleave_rows(d, reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), dst_part_ / part, m, cols_,
                               stream_);
    }
    return 0;
  }

  /// zipped() where the blocked side holds the columns in runs (col_extent_[0] columns,
  /// the runs dense on the plain side: ab <-> BA16a16b4a, runs of 16 columns 64 KiB apart
  /// in the blocked side), a vector's columns at a time through a buffer of units:
  /// packing, zipped from a vector of each part, then copied out a run at a time (or a
  /// vector's worth of one); unpacking, copied in, then unzipped. Returns the columns done.
  template <std::size_t kBytes, std::size_t kPart, bool kPack>
  dim runs_through_buffer(const std::byte* src, std::byte* dst) const {
    using T = uint_of_size<kPart>;
    constexpr dim m = static_cast<dim>(kBytes / kPart);
    const hn::ScalableTag<T> d;
    const auto V = static_cast<dim>(hn::Lanes(d));
    const dim run = col_extent_[0];
    if (run % V != 0 && V % run != 0) return 0;
    if constexpr (kPack) {
      MEMFMT_KERNEL_PATH("spread units zipped, runs of columns");
    } else {
      MEMFMT_KERNEL_PATH("spread units unzipped, runs of columns");
    }
    const dim piece = run < V ? run : V;  // columns per copy
    const auto piece_bytes = static_cast<std::size_t>(piece) * kBytes;
    HWY_ALIGN T units[4 * hn::MaxLanes(d)];
    auto* buffer = reinterpret_cast<std::byte*>(units);
    const dim* step = kPack ? col_step_ : col_src_step_;  // (of the blocked side)
    dim at[max_column_loops] = {}, blocked = 0;
    dim c = 0;
    for (; c + V <= cols_; c += V) {
      if constexpr (kPack) interleave_rows(d, reinterpret_cast<const T*>(src) + c, src_part_ / static_cast<dim>(kPart), units, m, V);
      for (dim j = 0; j < V; j += piece, next_column(at, blocked, piece, step)) {
        std::byte* unit = buffer + j * static_cast<dim>(kBytes);
        if constexpr (kPack) {
          copy_piece(unit, dst + blocked, piece_bytes, stream_);
        } else {
          copy_piece(src + blocked, unit, piece_bytes, false);
        }
      }
      if constexpr (!kPack)
        deinterleave_rows(d, units, reinterpret_cast<T*>(dst) + c, dst_part_ / static_cast<dim>(kPart), m, V, stream_);
    }
    return c;
  }

  /// Copies `bytes` from `from` to `to` in the widest vectors that divide it (with
  /// `stream`, the aligned ones around the caches).
  static HWY_INLINE void copy_piece(const std::byte* from, std::byte* to, std::size_t bytes, bool stream) {
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
    const auto copy = [&](auto d) {
      const std::size_t N = hn::Lanes(d);
      if (bytes % N != 0) return false;
      for (std::size_t i = 0; i < bytes; i += N)
        store_maybe_stream(hn::LoadU(d, reinterpret_cast<const std::uint8_t*>(from + i)), d,
                           reinterpret_cast<std::uint8_t*>(to + i), stream);
      return true;
    };
    if (copy(hn::ScalableTag<std::uint8_t>()) || copy(hn::CappedTag<std::uint8_t, 32>()) ||
        copy(hn::CappedTag<std::uint8_t, 16>()))
      return;
#else
    (void)stream;
#endif
    std::memcpy(to, from, bytes);
  }

  /// W units at `p` (the first `n`, the others zero), packed from their parts if the
  /// source spreads them.
  template <std::size_t kBytes, std::size_t kPart, class D>
  HWY_INLINE hn::Vec<D> load(D d, const std::byte* p, dim n) const;
  /// Stores the first `n` of the W units of `v` at `p`, unpacked into their parts if
  /// the destination spreads them.
  template <std::size_t kBytes, std::size_t kPart, class D>
  HWY_INLINE void store(D d, hn::Vec<D> v, std::byte* p, dim n) const;
  /// One unit from `s` to `d`, part by part (or zeros when `s` is null).
  template <std::size_t kBytes, std::size_t kPart>
  void move_unit(const std::byte* s, std::byte* d) const {
    for (std::size_t k = 0; k < kBytes / kPart; ++k) {
      if (s == nullptr) {
        std::memset(d + static_cast<dim>(k) * dst_part_, 0, kPart);
      } else {
        std::memcpy(d + static_cast<dim>(k) * dst_part_, s + static_cast<dim>(k) * src_part_, kPart);
      }
    }
  }

  bool stream_;
  bool transposed_ = true;
  dim elem_ = 0;
  dim unit_bytes_ = 0, part_bytes_ = 0;
  /// Bytes between a unit's parts in src and in dst (spread units), between columns
  /// in src, and between rows in dst (between columns too when there are no rows: in a
  /// run).
  dim src_part_ = 0, dst_part_ = 0, column_step_ = 0, row_step_ = 0;
  /// The columns (in a row of the plain side): col_extent_[k] of them col_step_[k] bytes
  /// apart in dst at level k, innermost first.
  static constexpr int max_column_loops = 3;
  dim cols_ = 0;
  dim col_extent_[max_column_loops], col_step_[max_column_loops];
  dim col_src_step_[max_column_loops];  ///< (their byte steps in src)
  bool one_column_loop_ = true;  ///< the columns are col_step_[0] apart
  /// Columns per table of chunk_columns (a whole number of tiles on every target); with at
  /// most as many columns, col_dst_ holds each one's byte offset in dst.
  static constexpr dim column_chunk = 512;
  dim col_dst_[column_chunk];
  dim rows_ = 0;
  bool zero_rows_ = false;  ///< whether some rows are of zeros
  dim src_rows_[tile_rows_max];  ///< (the first rows_ are set)
};

template <std::size_t kBytes, std::size_t kPart, class D>
HWY_INLINE hn::Vec<D> tile_kernel::load(D d, const std::byte* p, dim n) const {
  if constexpr (kPart == kBytes) {
    return load_units<kBytes>(d, p, n);
  } else if (src_part_ == static_cast<dim>(kPart)) {  // (whole in src)
    return load_units<kBytes>(d, p, n);
  } else {
    constexpr std::size_t W = hn::MaxLanes(D());
    hn::Vec<D> v = hn::Zero(d);
    for (std::size_t k = 0; k < kBytes / kPart; ++k, p += src_part_) {
      const VTile<W> part = n == static_cast<dim>(W) ? load_bits<kPart, W>(p) : load_bits_first<kPart, W>(p, n);
      v = hn::Or(v, hn::ShiftLeftSame(widen_lanes(d, part), static_cast<int>(8 * kPart * k)));
    }
    return v;
  }
}

template <std::size_t kBytes, std::size_t kPart, class D>
HWY_INLINE void tile_kernel::store(D d, hn::Vec<D> v, std::byte* p, dim n) const {
  if constexpr (kPart == kBytes) {
    store_units<kBytes>(d, v, p, n, stream_);
  } else if (dst_part_ == static_cast<dim>(kPart)) {  // (whole in dst)
    store_units<kBytes>(d, v, p, n, stream_);
  } else {
    constexpr std::size_t W = hn::MaxLanes(D());
    for (std::size_t k = 0; k < kBytes / kPart; ++k, p += dst_part_) {
      VTile<W> part = narrow_lanes(d, hn::ShiftRightSame(v, static_cast<int>(8 * kPart * k)));
      // (4-byte parts: narrowing cut them)
      if constexpr (kPart < 4) part = hn::And(part, hn::Set(DTile<W>(), (1u << (8 * kPart)) - 1));
      if (n == static_cast<dim>(W)) {
        store_bits<kPart, W>(part, p);
      } else {
        store_bits_first<kPart, W>(part, p, n);
      }
    }
  }
}

template <std::size_t kBytes, std::size_t kPart>
void tile_kernel::straight(const std::byte* src, std::byte* dst, dim count, dim ss, dim ds) const {
  if (count > 1 && kPart < kBytes) MEMFMT_KERNEL_PATH("spread units straight, blocks in one loop");
  for (dim i = 0; i < count; ++i) {
    const std::byte* s = src + i * ss;
    std::byte* d = dst + i * ds;
    dim first = 0;
    if constexpr (kPart < kBytes) first = zipped<kBytes, kPart>(s, d);
    if (first < cols_) straight_from<kBytes, kPart>(s, d, first);
  }
}

template <std::size_t kBytes, std::size_t kPart>
void tile_kernel::straight_from(const std::byte* src, std::byte* dst, dim first) const {
  constexpr auto W = static_cast<dim>(tile_w<kBytes>);
  // (16-byte units spread: what zipped left, unit by unit; their lanes do not hold parts)
  if constexpr (W == 1 || (kBytes == 16 && kPart < kBytes)) {
    for (dim c = first; c < cols_; ++c)
      move_unit<kBytes, kPart>(src + column_at(c, col_src_step_), dst + column_at(c));
  } else {
    const DUnits<lane_t<kBytes>> d;
    // (a vector's units stay in one run of columns, dense on both sides)
    const dim run = one_column_loop_ ? cols_ : col_extent_[0];
    for (dim c = first, nc = 0; c < cols_; c += nc) {
      nc = std::min({W, run - c % run, cols_ - c});
      store<kBytes, kPart>(d, load<kBytes, kPart>(d, src + column_at(c, col_src_step_), nc), dst + column_at(c), nc);
    }
  }
}

template <std::size_t kBytes>
HWY_INLINE void tile_kernel::whole_tiles(const std::byte* src, std::byte* dst, const dim* rows) const {
  constexpr std::size_t W = tile_w<kBytes>;
  static_assert(column_chunk % W == 0, "a chunk of columns is whole tiles: only the last ends in part");
  const dim column_step = column_step_, row_step = row_step_;
  dim table[column_chunk], at[max_column_loops] = {}, offset = 0;
  for (dim c0 = 0; c0 < cols_; c0 += column_chunk) {
    const dim cols = std::min(column_chunk, cols_ - c0);
    const dim* column = chunk_columns(cols, table, at, offset);
    const std::byte* first = src + c0 * column_step;
    dim c = 0;
    if constexpr (W > 1) {
      const DUnits<lane_t<kBytes>> d;
      // (one loop per kind of store: a choice per tile would cost every tile a branch)
      const auto whole = [&](auto stream) {
        for (; c + static_cast<dim>(W) <= cols; c += static_cast<dim>(W)) {
          const std::byte* from = first + c * column_step;
          hn::Vec<DUnits<lane_t<kBytes>>> v[W];
          MEMFMT_UNROLL
          for (std::size_t k = 0; k < W; ++k) v[k] = load_units<kBytes>(d, from + rows[k], static_cast<dim>(W));
          transpose<kBytes>(d, v);
          MEMFMT_UNROLL
          for (std::size_t j = 0; j < W; ++j)
            store_units<kBytes>(d, v[j], dst + column[c + static_cast<dim>(j)], static_cast<dim>(W),
                                decltype(stream)::value);
        }
      };
      if (stream_) {
        whole(std::true_type());
      } else {
        whole(std::false_type());
      }
      // (chunks are whole tiles: what is left is the last chunk's)
      if (const dim nc = cols - c; nc > 0 && 4 * nc > static_cast<dim>(W)) {  // a partial tile
        hn::Vec<DUnits<lane_t<kBytes>>> v[W];
        MEMFMT_UNROLL
        for (std::size_t k = 0; k < W; ++k) v[k] = load_units<kBytes>(d, first + rows[k] + c * column_step, nc);
        transpose<kBytes>(d, v);
        for (dim j = 0; j < nc; ++j) store_units<kBytes>(d, v[j], dst + column[c + j], static_cast<dim>(W), stream_);
        return;
      }
      if (c < cols) MEMFMT_KERNEL_PATH("last columns unit by unit");
    }
    for (; c < cols; ++c) {
      const std::byte* from = first + c * column_step;
      std::byte* to = dst + column[c];
      for (std::size_t k = 0; k < W; ++k) std::memcpy(to + static_cast<dim>(k) * row_step, from + rows[k], kBytes);
    }
  }
}

template <std::size_t kBytes, std::size_t kPart>
void tile_kernel::tiles(const std::byte* src, std::byte* dst, const dim* rows, dim nr) const {
  constexpr std::size_t W = tile_w<kBytes>;
  static_assert(column_chunk % W == 0, "a chunk of columns is whole tiles: only the last ends in part");
  // (the members the loops use, in locals: a store may alias anything, so that the
  // loops would read members again after each)
  const dim column_step = column_step_, row_step = row_step_, all = cols_;
  const bool stream = stream_;
  dim table[column_chunk], at[max_column_loops] = {}, offset = 0;
  for (dim c0 = 0; c0 < all; c0 += column_chunk) {
    const dim cols = std::min(column_chunk, all - c0);
    const dim* column = chunk_columns(cols, table, at, offset);
    const std::byte* first = src + c0 * column_step;
    if constexpr (W == 1) {
      for (dim c = 0; c < cols; ++c)
        move_unit<kBytes, kPart>(rows[0] < 0 ? nullptr : first + rows[0] + c * column_step, dst + column[c]);
    } else {
      const DUnits<lane_t<kBytes>> d;
      hn::Vec<DUnits<lane_t<kBytes>>> v[W];
      for (dim c = 0; c < cols; c += static_cast<dim>(W)) {
        const dim nc = cols - c < static_cast<dim>(W) ? cols - c : static_cast<dim>(W);
        if (4 * nc <= static_cast<dim>(W)) {
          // the last few columns (the ninth of a 3 x 3 kernel's) unit by unit: a tile's
          // loads would each bring a unit or two, and cost more than moving them
          MEMFMT_KERNEL_PATH("last columns unit by unit");
          for (dim j = c; j < cols; ++j)
            for (dim k = 0; k < nr; ++k)
              move_unit<kBytes, kPart>(rows[k] < 0 ? nullptr : first + rows[k] + j * column_step,
                                       dst + column[j] + k * row_step);
          break;
        }
        for (std::size_t k = 0; k < W; ++k) {
          // (rows of zeros: padding; rows past the last: transposed, never stored)
          const bool zero = static_cast<dim>(k) >= nr || rows[k] < 0;
          v[k] = zero ? hn::Zero(d) : load<kBytes, kPart>(d, first + rows[k] + c * column_step, nc);
        }
        transpose<kBytes>(d, v);
        MEMFMT_UNROLL
        for (std::size_t j = 0; j < W; ++j) {
          if (static_cast<dim>(j) >= nc) break;
          std::byte* to = dst + column[c + static_cast<dim>(j)];
          if constexpr (kPart == kBytes) {
            store_units<kBytes>(d, v[j], to, nr, stream);
          } else {
            store<kBytes, kPart>(d, v[j], to, nr);
          }
        }
      }
    }
  }
}

}  // namespace memfmt::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // MEMFMT_REORDER_KERNEL_TILE_INL_H_
