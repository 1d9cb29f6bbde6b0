// Plain copies as tiles (memfmt/reorder/pass/tiles.hpp): worked examples checked loop by
// loop, role by role, and for each the same elements at the same offsets as before.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <utility>
#include <vector>

#include "memfmt/reorder/pass/tiles.hpp"
#include "nest_elements.hpp"

using memfmt::dim;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::nest;
using memfmt_test::loops_of;
using memfmt_test::make_nest;
using memfmt_test::sorted_elements;

namespace {

nest tiled(const nest& n, dim bytes) {
  nest t = n;
  memfmt::detail::use_tiles(t, bytes);
  CHECK(sorted_elements(t) == sorted_elements(n));
  return t;
}

/// `n` ordered for a pass from memory, checked to visit the same elements (and scales).
nest ordered(const nest& n, dim bytes) {
  nest t = n;
  memfmt::detail::order_tiles_for_memory(t, bytes);
  CHECK(sorted_elements(t) == sorted_elements(n));
  return t;
}

}  // namespace

TEST_CASE("weights into blocks take the destination's rows, then the source's columns (f32 oihw -> OIhw16i16o)",
          "[pass][tiles]") {
  // 32 x 32 x 3 x 3 as simplify leaves it: blocks of o and of i outside, then i in a
  // block (9, 16), o in a block (288, 1), and the 9 pixels (1, 256) that i continues
  const nest n = make_nest(kernel_kind::transpose,
                           {{2, 4608, 4608}, {2, 144, 2304}, {16, 9, 16}, {16, 288, 1}, {9, 1, 256}}, 2);
  const nest t = tiled(n, 4);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 1);
  // rows: the 16 o of a block fill the lanes; columns: the pixels, then the i they continue
  CHECK(t.tile_row_loops == 1);
  CHECK(t.tile_column_loops == 2);
  CHECK(loops_of(t) == std::vector<loop>{{2, 4608, 4608}, {2, 144, 2304}, {16, 288, 1}, {16, 9, 16}, {9, 1, 256}});
}

TEST_CASE("1-byte elements packed 4 to a unit along a loop dense at unit level: columns and no rows "
          "(s8 ab -> BA16a16b4a)",
          "[pass][tiles]") {
  // 64 x 32: blocks of b (16, 1024), a in groups of 4 (128, 64), b in a block (1, 4), a
  // in a group (32, 1). Units of 4 a; b steps a unit in the destination and an element
  // in the source: the units go straight through, no transpose. A run of 16 b is a
  // quarter of a vector of bytes: the blocks of b, which go on along the source's rows,
  // are columns too.
  const nest n = make_nest(kernel_kind::transpose, {{2, 16, 1024}, {16, 128, 64}, {16, 1, 4}, {4, 32, 1}});
  const nest t = tiled(n, 1);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 4);
  CHECK(t.tile_row_loops == 0);
  CHECK(t.tile_column_loops == 2);
  CHECK(loops_of(t) == std::vector<loop>{{16, 128, 64}, {2, 16, 1024}, {16, 1, 4}, {4, 32, 1}});
}

TEST_CASE("runs of columns shorter than a vector take the loops that go on along the plain side's rows, up to 3 "
          "column loops (s8 ab <-> BA4b8a8b4a; bf16 ab -> BA16a64b2a and u8 ab -> BA16a48b4a keep their runs)",
          "[pass][tiles]") {
  // s8 64 x 64: blocks of b (32, 2048), of a (2048, 1024), 4 groups of 8 b (8, 256), 8
  // groups of 4 a (256, 32), 8 b (1, 4), 4 a (64, 1). Runs of 8 b (32 bytes in dst); the
  // groups of 8 b and the blocks of b go on along a source row: 64 columns in all.
  const nest n = make_nest(kernel_kind::transpose,
                           {{2, 32, 2048}, {2, 2048, 1024}, {4, 8, 256}, {8, 256, 32}, {8, 1, 4}, {4, 64, 1}});
  const nest t = tiled(n, 1);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 4);
  CHECK(t.tile_row_loops == 0);
  CHECK(t.tile_column_loops == 3);
  CHECK(loops_of(t) ==
        std::vector<loop>{{2, 2048, 1024}, {8, 256, 32}, {2, 32, 2048}, {4, 8, 256}, {8, 1, 4}, {4, 64, 1}});
  // bf16 128 x 128 -> BA16a64b2a: a run of 64 b, 128 bytes of each part, is a vector of
  // AVX-512 or more: the blocks of b stay outside
  const nest w = make_nest(kernel_kind::transpose, {{2, 64, 8192}, {8, 2048, 1024}, {8, 256, 128}, {64, 1, 2}, {2, 128, 1}});
  const nest u = tiled(w, 2);
  CHECK(u.kind == kernel_kind::tile);
  CHECK(u.tile_unit == 2);
  CHECK(u.tile_column_loops == 1);
  CHECK(loops_of(u) == loops_of(w));
  // the way back (s8 BA4b8a8b4a -> ab): the same loops, strides swapped, dense in dst
  nest back = n;
  for (int k = 0; k < back.nloops; ++k) std::swap(back.loops[k].src_stride, back.loops[k].dst_stride);
  const nest b = tiled(back, 1);
  CHECK(b.kind == kernel_kind::tile);
  CHECK(b.tile_unit == 4);
  CHECK(b.tile_row_loops == 0);
  CHECK(b.tile_column_loops == 3);
  CHECK(loops_of(b) ==
        std::vector<loop>{{2, 1024, 2048}, {8, 32, 256}, {2, 2048, 32}, {4, 256, 8}, {8, 4, 1}, {4, 1, 64}});
  // u8 96 x 96 -> BA16a48b4a: a run of 48 b, not a power of 2 (a vector of AVX-512
  // zips 64 columns: a run and a third), stays alone
  const nest x = make_nest(kernel_kind::transpose, {{2, 48, 4608}, {6, 1536, 768}, {4, 384, 192}, {48, 1, 4}, {4, 96, 1}});
  const nest v = tiled(x, 1);
  CHECK(v.kind == kernel_kind::tile);
  CHECK(v.tile_column_loops == 1);
  CHECK(loops_of(v) == loops_of(x));
}

TEST_CASE("units of 16 bytes: 128-bit blocks, 4 x 4 to a tile (f32 ohwi -> OhwI16o4i)", "[pass][tiles]") {
  // 32 x 16 x 3 x 3 as simplify leaves it: 2 blocks of o; the pixels and the 4 blocks of
  // 4 i, folded (36, 4 apart in the source, a block of 64 in the destination); the 16 o
  // of a block (a pixel row of 144 in the source, 4 apart in the destination); 4 i, one
  // unit of 16 bytes. Rows: the 16 o; columns: the 36.
  const nest n = make_nest(kernel_kind::copy, {{2, 2304, 2304}, {36, 4, 64}, {16, 144, 4}, {4, 1, 1}});
  const nest t = tiled(n, 4);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 4);
  CHECK(t.tile_row_loops == 1);
  CHECK(t.tile_column_loops == 1);
  CHECK(loops_of(t) == std::vector<loop>{{2, 2304, 2304}, {16, 144, 4}, {36, 4, 64}, {4, 1, 1}});
  // 8 f32 (32 bytes) are no unit: the rows stay a copy
  const nest n8 = make_nest(kernel_kind::copy, {{2, 4608, 4608}, {18, 8, 128}, {16, 144, 8}, {8, 1, 1}});
  CHECK(tiled(n8, 4).kind == kernel_kind::copy);
}

TEST_CASE("pairs of 4-byte elements spread on one side: columns and no rows, replacing a gather where a call "
          "moves 32 columns or more, from memory in one run, or the processor microcodes gathers (f32 ab -> "
          "BA16a32b2a, BA16a16b2a, BA4b8a8b2a)",
          "[pass][tiles]") {
  // 384 x 160 (source rows 171 apart) -> BA16a32b2a, a gather: 5 blocks of b (32, 12288),
  // 192 pairs of a (342, 64), 32 b (1, 2), 2 a (171, 1). A pair of a is a unit of 8
  // bytes spread on the source's rows; the 32 b step a unit in dst and an element in src:
  // one run of 32 columns, no transpose.
  const auto gather = [](std::initializer_list<loop> loops) {
    nest n = make_nest(kernel_kind::gather, loops);
    n.gather_loops = 2;
    return n;
  };
  const nest t = tiled(gather({{5, 32, 12288}, {192, 342, 64}, {32, 1, 2}, {2, 171, 1}}), 4);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 2);
  CHECK(t.tile_row_loops == 0);
  CHECK(t.tile_column_loops == 1);
  CHECK(loops_of(t) == std::vector<loop>{{5, 32, 12288}, {192, 342, 64}, {32, 1, 2}, {2, 171, 1}});
  CHECK(memfmt::detail::tiles_beat_gather(t, false, false));
  CHECK(memfmt::detail::tiles_beat_gather(t, true, false));
  // 16 b per block: tiles too, but a call of 16 columns loses to the gather
  const nest t16 = tiled(gather({{10, 16, 6144}, {192, 342, 32}, {16, 1, 2}, {2, 171, 1}}), 4);
  CHECK(t16.kind == kernel_kind::tile);
  CHECK(t16.tile_unit == 2);
  CHECK_FALSE(memfmt::detail::tiles_beat_gather(t16, false, false));
  // BA4b8a8b2a: 160 columns in runs of 8 pairs (5 x 4 x 8, blocks 12288 and 128 apart):
  // in cache the tiles win, from memory each run is a stream of its own
  nest runs = make_nest(kernel_kind::gather, {{5, 32, 12288}, {24, 2736, 512}, {4, 8, 128}, {8, 342, 16}, {8, 1, 2},
                                               {2, 171, 1}});
  runs.gather_loops = 4;
  const nest tr = tiled(runs, 4);
  REQUIRE(tr.kind == kernel_kind::tile);
  CHECK(tr.tile_unit == 2);
  CHECK(tr.tile_row_loops == 0);
  CHECK(tr.tile_column_loops == 3);
  CHECK(memfmt::detail::tiles_beat_gather(tr, false, false));
  CHECK_FALSE(memfmt::detail::tiles_beat_gather(tr, true, false));
  // where gathers are microcoded, any tiles beat them, and only tiles do
  CHECK(memfmt::detail::tiles_beat_gather(t16, false, true));
  CHECK(memfmt::detail::tiles_beat_gather(tr, true, true));
  CHECK_FALSE(memfmt::detail::tiles_beat_gather(runs, false, true));
  // tiles with rows (the 192 pairs of a as rows): only where gathers are microcoded
  nest with_rows = t16;
  with_rows.tile_row_loops = 1;
  CHECK_FALSE(memfmt::detail::tiles_beat_gather(with_rows, false, false));
  CHECK(memfmt::detail::tiles_beat_gather(with_rows, false, true));
}

TEST_CASE("fours of 4-byte elements spread on one side go straight, without rows, where tiles of elements fill "
          "a quarter of their rows (f32 ab -> BA4b8a8b4a); long rows of 4 packed columns stay a transpose",
          "[pass][tiles]") {
  // 384 x 160 (source rows 171 apart) -> BA4b8a8b4a in dst order: 5 blocks of b (32, 12288),
  // 12 blocks of a (5472, 1024), 4 b (8, 256), 8 a (684, 32), 8 b (1, 4), 4 a (171, 1).
  // Tiles of elements would take the 4 a as rows, a quarter of 16 lanes; fours of a
  // go straight instead, the three loops of b their columns (runs of 8).
  const nest n = make_nest(kernel_kind::transpose,
                           {{5, 32, 12288}, {12, 5472, 1024}, {4, 8, 256}, {8, 684, 32}, {8, 1, 4}, {4, 171, 1}});
  const nest t = tiled(n, 4);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 4);
  CHECK(t.tile_row_loops == 0);
  CHECK(t.tile_column_loops == 3);
  CHECK(loops_of(t) ==
        std::vector<loop>{{12, 5472, 1024}, {8, 684, 32}, {5, 32, 12288}, {4, 8, 256}, {8, 1, 4}, {4, 171, 1}});
  // gOihw4o -> goihw: 252 rows of 4 packed source columns (the transpose kernel's
  // interleaved loads), not fours unzipped
  const nest g = make_nest(kernel_kind::transpose, {{64, 1008, 1008}, {252, 4, 1}, {4, 1, 252}});
  CHECK(tiled(g, 4).kind == kernel_kind::transpose);
}

TEST_CASE("a lone 2-D transpose with a tile of columns or more stays a transpose; zero fills and copies of long rows "
          "stay",
          "[pass][tiles]") {
  const nest nchw_to_nchw16c = make_nest(kernel_kind::transpose, {{16, 64, 1}, {64, 1, 16}});
  CHECK(loops_of(tiled(nchw_to_nchw16c, 4)) == loops_of(nchw_to_nchw16c));
  CHECK(tiled(nchw_to_nchw16c, 4).kind == kernel_kind::transpose);
  const nest fill = make_nest(kernel_kind::zero_fill, {{64, 0, 16}, {13, 0, 1}});
  CHECK(tiled(fill, 4).kind == kernel_kind::zero_fill);
  const nest rows = make_nest(kernel_kind::copy, {{64, 100, 128}, {100, 1, 1}});
  CHECK(tiled(rows, 4).kind == kernel_kind::copy);
}

TEST_CASE("a copy's loop of more rows than a tile holds is cut into runs that do (bf16 OhwI32o2i -> ohwi, 2048 x 896 "
          "x 3 x 3)",
          "[pass][tiles]") {
  // As simplify leaves it (2 of the 64 blocks of 32 o): the blocks; the 4032 pairs of i
  // of a row of o (the 9 pixels times 448 pairs, folded), cut in 4 for the caches; the
  // 32 o of a block (2 elements apart in the source, a row of 8064 in the destination);
  // a pair of i. Units
  // of a pair, 16 to a tile on AVX-512; 1008 = 16 x 63 rows, cut at 144 = 16 x 9, the
  // largest multiple of 16 within 256 that divides it.
  const nest n = make_nest(kernel_kind::copy,
                           {{2, 258048, 258048}, {4, 64512, 2016}, {32, 2, 8064}, {1008, 64, 2}, {2, 1, 1}});
  const nest t = tiled(n, 2);
  CHECK(t.kind == kernel_kind::tile);
  CHECK(t.tile_unit == 2);
  CHECK(t.tile_row_loops == 1);
  CHECK(t.tile_column_loops == 1);
  CHECK(loops_of(t) == std::vector<loop>{{2, 258048, 258048}, {4, 64512, 2016}, {7, 9216, 288}, {144, 64, 2},
                                         {32, 2, 8064}, {2, 1, 1}});
  // 300 rows: no multiple of 16 divides it, 150 does
  const nest n300 = make_nest(kernel_kind::copy, {{32, 2, 600}, {300, 64, 2}, {2, 1, 1}});
  CHECK(loops_of(tiled(n300, 2)) == std::vector<loop>{{2, 9600, 300}, {150, 64, 2}, {32, 2, 600}, {2, 1, 1}});
  // 514 = 2 x 257: no divisor from 16 to 256, the rows stay a copy
  const nest n514 = make_nest(kernel_kind::copy, {{32, 2, 1028}, {514, 64, 2}, {2, 1, 1}});
  const nest t514 = tiled(n514, 2);
  CHECK(t514.kind == kernel_kind::copy);
  CHECK(loops_of(t514) == loops_of(n514));
  // a transpose is not cut: nChw8c -> nchw, 900 pixels of 8 channels
  const nest nchw8c = make_nest(kernel_kind::transpose, {{8, 7200, 7200}, {900, 8, 1}, {8, 1, 900}});
  const nest t8c = tiled(nchw8c, 4);
  CHECK(t8c.kind == kernel_kind::transpose);
  CHECK(loops_of(t8c) == loops_of(nchw8c));
}

TEST_CASE("from memory, the loop along the rows of one side moves in around chunks of the loop over blocks",
          "[pass][tiles]") {
  // P: the outer loop with the smallest step on either side (along rows there); Q: the
  // one with the smallest step on the other side (from block to block there). Q goes
  // innermost in chunks, P around them: ..., Q / c, P, c, owned loops, with c within
  // 256 KiB of P's blocks and, when P walks the source, at most 16 rows of it.
  const auto tiles = [](std::initializer_list<loop> loops) {  // one loop of rows, one of columns
    nest n = make_nest(kernel_kind::tile, loops);
    n.tile_row_loops = 1;
    n.tile_column_loops = 1;
    return n;
  };
  // tiles of 16 x 16 f32 (1 KiB) whose rows are 16 f32 of P's: 16 rows already, c = 1
  const nest t = ordered(tiles({{8, 16, 1 << 20}, {4096, 4096, 256}, {16, 256, 1}, {16, 1, 16}}), 4);
  CHECK(loops_of(t) == std::vector<loop>{{4096, 4096, 256}, {8, 16, 1 << 20}, {16, 256, 1}, {16, 1, 16}});
  // tiles of 128 x 128 f32 (64 KiB): a chunk is one iteration of Q
  const nest w = ordered(tiles({{2, 128, 1 << 22}, {16, 32768, 16384}, {128, 256, 1}, {128, 1, 128}}), 4);
  CHECK(loops_of(w) == std::vector<loop>{{16, 32768, 16384}, {2, 128, 1 << 22}, {128, 256, 1}, {128, 1, 128}});

  // u8 4096 x 4096, units of 4 a spread on the plain side, 64 b per block (256 bytes)
  const auto units = [](std::initializer_list<loop> loops) {  // columns, then the unit's parts
    nest n = make_nest(kernel_kind::tile, loops);
    n.tile_column_loops = 1;
    n.tile_unit = 4;
    return n;
  };
  // ab -> BA16a64b4a: P = b (source step 64), Q = a / 4 (destination step 256). Each
  // block reads 4 rows, so chunks of 4 a / 4: 16 rows, each b across them
  const nest pt = ordered(units({{64, 64, 262144}, {1024, 16384, 256}, {64, 1, 4}, {4, 4096, 1}}), 1);
  CHECK(loops_of(pt) ==
        std::vector<loop>{{256, 65536, 1024}, {64, 64, 262144}, {4, 16384, 256}, {64, 1, 4}, {4, 4096, 1}});
  // BA16a64b4a -> ab: P = b (destination step 64), Q = a / 4 (source step 256); the rows
  // are the destination's, streamed: chunks of 256 KiB / (64 x 256) = 16, 64 rows
  const nest ut = ordered(units({{64, 262144, 64}, {1024, 256, 16384}, {64, 4, 1}, {4, 1, 4096}}), 1);
  CHECK(loops_of(ut) ==
        std::vector<loop>{{64, 4096, 262144}, {64, 262144, 64}, {16, 256, 16384}, {64, 4, 1}, {4, 1, 4096}});
  // f32 ab -> BA16a64b4a as a transpose (4 rows x 64 columns of f32, 1 KiB): 4 rows
  // per block, so chunks of 4 a / 4; the scale offsets move with their loops
  nest tr = make_nest(kernel_kind::transpose, {{64, 64, 262144, 64}, {1024, 16384, 256, 0}, {4, 4096, 1, 0}, {64, 1, 4, 1}});
  tr.column_loops = 1;
  const nest tt = ordered(tr, 4);
  CHECK(loops_of(tt) == std::vector<loop>{{256, 65536, 1024, 0}, {64, 64, 262144, 64}, {4, 16384, 256, 0},
                                          {4, 4096, 1, 0}, {64, 1, 4, 1}});
  // already in that order: unchanged
  CHECK(loops_of(ordered(ut, 1)) == loops_of(ut));
}

TEST_CASE("from memory, the loops stay in destination order where Q's blocks are not back to back on its side",
          "[pass][tiles]") {
  // f32 oihw -> OIhw4o8i8o4i, 2048 x 896 x 3 x 3 as use_tiles leaves it: blocks of 32 o,
  // of 32 i, the 4 groups of 8 o, the 8 groups of 4 i; rows 8 o x 4 i, columns the 9
  // pixels. A call covers 4 i x 9 = 36 elements back to back in the source; P = the
  // groups of 4 i (destination step 32), Q = the blocks of i (source step 288, not 36)
  nest n = make_nest(kernel_kind::tile, {{64, 258048, 258048}, {28, 288, 9216}, {4, 64512, 256}, {8, 36, 32},
                                         {8, 8064, 4}, {4, 9, 1}, {9, 1, 1024}});
  n.tile_row_loops = 2;
  n.tile_column_loops = 1;
  CHECK(memfmt::detail::block_run(n, true) == 36);
  CHECK(memfmt::detail::block_run(n, false) == 32);
  CHECK(loops_of(ordered(n, 4)) == loops_of(n));
  // built by hand to show the other branch (take_outer_rows joins the groups of 4 i to the
  // rows only after this pass): with them in the rows, a call covers 288 back to back, Q
  // continues it and goes innermost, in chunks of 7 (P: the groups of 8 o, dst step 256)
  nest m = make_nest(kernel_kind::tile, {{64, 258048, 258048}, {28, 288, 9216}, {4, 64512, 256}, {8, 36, 32},
                                         {8, 8064, 4}, {4, 9, 1}, {9, 1, 1024}});
  m.tile_row_loops = 3;
  m.tile_column_loops = 1;
  CHECK(memfmt::detail::block_run(m, true) == 288);
  // in the destination, the zeros after the run at stride 1 count: f32 nchw -> nChw16c
  // with 3 channels (3 + 13 zeros per pixel) and 64 pixels covers 16 x 64 elements there
  nest z = make_nest(kernel_kind::tile, {{2, 192, 1024}, {3, 64, 1}, {64, 1, 16}});
  z.tile_row_loops = 1;
  z.tile_column_loops = 1;
  z.zero_tail = 13;
  CHECK(memfmt::detail::block_run(z, false) == 1024);
  CHECK(memfmt::detail::block_run(z, true) == 192);
  const nest o = ordered(m, 4);
  CHECK(loops_of(o) == std::vector<loop>{{64, 258048, 258048}, {4, 2016, 64512}, {4, 64512, 256}, {7, 288, 9216},
                                         {8, 36, 32}, {8, 8064, 4}, {4, 9, 1}, {9, 1, 1024}});
}

TEST_CASE("the loops just outside a tile's rows join them while they continue the rows densely in dst",
          "[pass][tiles]") {
  // f32 oihw -> OIhw8i16o2i, 32 x 32 x 3 x 3 as use_tiles leaves it: blocks of o and of i,
  // the 8 pairs of i of a block, then rows of 16 o x 2 i and columns the 9 pixels. The
  // pairs' loop steps 32 in dst, the 32 rows' span: it joins them, 256 rows in all; the
  // block loop of i (dst step 2304) does not.
  const auto rows_taken = [](std::initializer_list<loop> loops, int row_loops, dim zero_tail = 0, dim threads = 1) {
    nest n = make_nest(kernel_kind::tile, loops);
    n.tile_row_loops = row_loops;
    n.tile_column_loops = 1;
    n.zero_tail = zero_tail;
    nest t = n;
    memfmt::detail::take_outer_rows(t, threads);
    CHECK(loops_of(t) == loops_of(n));  // (the same loops: only their roles change)
    return t.tile_row_loops;
  };
  CHECK(rows_taken({{2, 4608, 4608}, {2, 144, 2304}, {8, 18, 32}, {16, 288, 2}, {2, 9, 1}, {9, 1, 256}}, 2) == 3);
  // with 2 threads, 8 outer iterations stay to share: 4 would be left, so it does not
  CHECK(rows_taken({{2, 4608, 4608}, {2, 144, 2304}, {8, 18, 32}, {16, 288, 2}, {2, 9, 1}, {9, 1, 256}}, 2, 0, 2) == 2);
  CHECK(rows_taken({{4, 4608, 4608}, {2, 144, 2304}, {8, 18, 32}, {16, 288, 2}, {2, 9, 1}, {9, 1, 256}}, 2, 0, 2) == 3);
  // rows of 16 i, then the 16 o outside them (256 rows); the loop after would make 512
  CHECK(rows_taken({{4, 144, 2304}, {2, 288, 256}, {16, 4608, 16}, {16, 9, 1}, {9, 1, 256}}, 1) == 2);
  // a zero tail counts in the span: 5 rows and 3 zeros span 8
  CHECK(rows_taken({{3, 40, 64}, {4, 10, 8}, {5, 2, 1}, {2, 1, 64}}, 1, 3) == 2);
  CHECK(rows_taken({{3, 40, 64}, {4, 10, 5}, {5, 2, 1}, {2, 1, 64}}, 1, 3) == 1);
  // not the tile kind, or no rows: unchanged
  nest copy = make_nest(kernel_kind::copy, {{16, 32, 2}, {2, 1, 1}});
  memfmt::detail::take_outer_rows(copy);
  CHECK(copy.tile_row_loops == 0);
}

TEST_CASE("stores around the caches only where a call writes whole lines of the destination", "[pass][tiles]") {
  // f32 gOIhw16i16o2i -> goihw as planned: rows the 9 pixels (dst 1), columns 16 o (dst
  // 2016) x 2 i (dst 9): a call writes runs of 2 x 9 elements, 72 bytes
  nest t = make_nest(kernel_kind::tile, {{512, 32256, 32256}, {7, 4608, 288}, {16, 32, 18}, {9, 512, 1},
                                         {16, 2, 2016}, {2, 1, 9}});
  t.tile_row_loops = 1;
  t.tile_column_loops = 2;
  CHECK(memfmt::detail::block_run(t, false) == 18);
  CHECK_FALSE(memfmt::detail::writes_whole_lines(t, 4));
  // f32 OIhw8o8i -> oihw: columns 8 o (dst 8064) x 8 i (dst 9), runs of 8 x 9 elements:
  // 288 bytes, 4 lines or more
  nest w = make_nest(kernel_kind::tile, {{256, 64512, 64512}, {112, 576, 72}, {9, 64, 1}, {8, 8, 8064}, {8, 1, 9}});
  w.tile_row_loops = 1;
  w.tile_column_loops = 2;
  CHECK(memfmt::detail::block_run(w, false) == 72);
  CHECK(memfmt::detail::writes_whole_lines(w, 4));
  // nchw -> nChw16c: a transpose whose columns are 16 channels, one line each
  nest c = make_nest(kernel_kind::transpose, {{4, 65536, 65536}, {16, 4096, 1}, {4096, 1, 16}});
  CHECK(memfmt::detail::block_run(c, false) == 16 * 4096);
  CHECK(memfmt::detail::writes_whole_lines(c, 4));
  // rows of one element and 15 zeros (as the last channel of nchw -> nChw16c with 17): a
  // line per row
  nest z = make_nest(kernel_kind::copy, {{4, 65536, 65536}, {4096, 1, 16}, {1, 1, 1}});
  z.zero_tail = 15;
  CHECK(memfmt::detail::block_run(z, false) == 16 * 4096);
  CHECK(memfmt::detail::writes_whole_lines(z, 4));
  // runs of 72 elements of 1 byte: 72 bytes, not whole lines; of 4 bytes: 288, long enough
  nest r = make_nest(kernel_kind::copy, {{64, 128, 128}, {72, 1, 1}});
  CHECK_FALSE(memfmt::detail::writes_whole_lines(r, 1));
  CHECK(memfmt::detail::writes_whole_lines(r, 4));
}

TEST_CASE("band_columns: 32 or more columns 2 KiB or more apart in dst, under few rows, go in bands of a tile's "
          "side per call (f32 OhwI48o4i -> ohwi); fewer or nearer columns stay one call",
          "[pass][tiles]") {
  // OhwI48o4i -> ohwi, 128 x 57 x 3 x 3: per block of 48 o and pixel, 14 rows of 4 i
  // (192 apart in src, a unit apart in dst) by 48 columns of o (a unit apart in src, 513
  // elements, 2052 bytes, apart in dst)
  const auto tile = [](std::initializer_list<loop> loops) {
    nest n = make_nest(kernel_kind::tile, loops);
    n.tile_unit = 4;
    n.tile_row_loops = 1;
    n.tile_column_loops = 1;
    return n;
  };
  const nest n = tile({{2, 25920, 24624}, {9, 2880, 57}, {14, 192, 4}, {48, 4, 513}, {4, 1, 1}});
  nest t = n;
  memfmt::detail::band_columns(t, 4);
  // 16-byte units: bands of 4 columns, 12 of them outside the kernel
  CHECK(loops_of(t) == std::vector<loop>{{2, 25920, 24624}, {9, 2880, 57}, {12, 16, 2052}, {14, 192, 4}, {4, 4, 513},
                                         {4, 1, 1}});
  CHECK(t.tile_row_loops == 1);
  CHECK(t.tile_column_loops == 1);
  CHECK(sorted_elements(t) == sorted_elements(n));
  // 16 columns (OhwI16o4i): the lines of all its columns fit their sets' ways
  nest few = tile({{2, 25920, 24624}, {9, 2880, 57}, {14, 192, 4}, {16, 4, 513}, {4, 1, 1}});
  memfmt::detail::band_columns(few, 4);
  CHECK(few.nloops == 5);
  // bf16 (columns 1026 bytes apart): spread over more sets
  nest near = n;
  memfmt::detail::band_columns(near, 2);
  CHECK(near.nloops == 5);
}
