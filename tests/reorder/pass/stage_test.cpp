// Conversions staged through a scratch (memfmt/reorder/pass/stage.hpp): the pair of nests a
// converting nest becomes. By brute force, every element of both stages joined through
// the scratch gives the nest's own source, destination and scale offsets, each once,
// within the scratch, every scratch element read written first; and one worked
// example loop by loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/lower.hpp"
#include "nest_elements.hpp"
#include "memfmt/reorder/plan_str.hpp"
#include "memfmt/reorder/pass/stage.hpp"

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::detail::kernel_kind;
using memfmt::detail::nest;
using memfmt::detail::placed_nest;
using memfmt::detail::stage;

namespace {

using memfmt_test::elements;
using memfmt_test::offsets;

// The nests of src -> dst with scales over the dims of `mask` (row-major), converting
// with a sum `beta`.
std::vector<placed_nest> lowered(const desc& src, const desc& dst, int mask, float beta = 0.f) {
  const int n = src.get_ndims();
  dims scale_strides = dims::filled(n, 0);
  dim stride = 1;
  for (int d = n - 1; d >= 0; --d)
    if ((mask >> d & 1) != 0) {
      scale_strides[d] = stride;
      stride *= src.get_dims()[d];
    }
  std::vector<placed_nest> nests;
  REQUIRE(memfmt::detail::lower(src, dst, scale_strides, nests));
  for (placed_nest& p : nests) {
    p.loops.cvt.src = src.get_data_type();
    p.loops.cvt.dst = dst.get_data_type();
    p.loops.cvt.beta = beta;
  }
  return nests;
}


// The pair (first, second) joined through the scratch, iteration by iteration of their
// shared loops, as (src, dst, scale) from the plan's bases; checks the scratch on the way.
std::vector<offsets> joined(const placed_nest& first, const placed_nest& second, dim scratch_elements) {
  const nest &a = first.loops, &b = second.loops;
  dim shared = 1;
  for (int k = 0; k < second.fused_loops; ++k) shared *= b.loops[k].extent;
  const dim per_a = a.outer_count() / shared, per_b = b.outer_count() / shared;
  REQUIRE(per_a * shared == a.outer_count());
  REQUIRE(per_b * shared == b.outer_count());
  const bool converts_first = first.staged == stage::convert_to_scratch;
  std::vector<offsets> out;
  for (dim it = 0; it < shared; ++it) {
    std::map<dim, std::pair<dim, dim>> written;  // scratch offset -> (src, scale)
    bool inside = true, once = true, known = true;  // (one check per iteration: millions of elements)
    for (const auto& [s, at, c] : elements(a, it * per_a, (it + 1) * per_a)) {
      inside = inside && at >= 0 && at < scratch_elements;
      once = written.emplace(at, std::pair{s, c}).second && once;
    }
    REQUIRE(inside);  // within the scratch
    REQUIRE(once);    // each scratch element written once
    std::size_t read = 0;
    for (const auto& [at, d, c] : elements(b, it * per_b, (it + 1) * per_b)) {
      const auto w = written.find(at);
      known = known && w != written.end();  // written before it is read
      if (w == written.end()) continue;
      ++read;
      const dim scale = converts_first ? w->second.second : c;
      out.emplace_back(first.src_base + w->second.first, second.dst_base + d,
                       (converts_first ? first.scale_base : second.scale_base) + scale);
    }
    REQUIRE(known);
    CHECK(read == written.size());
  }
  return out;
}

std::vector<offsets> sorted(std::vector<offsets> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("a staged pair visits the nest's elements at the same offsets, through the scratch", "[stage]") {
  const data_type f32 = data_type::f32, bf16 = data_type::bf16, s8 = data_type::s8;
  struct problem {
    desc src, dst;
    int mask;
    float beta;
    stage first;
  };
  const problem problems[] = {
      // conversion first, into the narrower type: packed units, 4i16o4i, grouped, long columns cut
      {desc({384, 171}, f32, "ab"), desc({384, 171}, s8, "OI16i64o2i"), 2, 0.f, stage::convert_to_scratch},
      {desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), 1, 0.f, stage::convert_to_scratch},
      {desc({4, 64, 28, 3, 3}, f32, "goihw"), desc({4, 64, 28, 3, 3}, s8, "gOIhw4o4i"), 3, 0.f, stage::convert_to_scratch},
      {desc({1024, 512}, f32, "ab"), desc({1024, 512}, s8, "BA16a64b4a"), 0, 0.f, stage::convert_to_scratch},
      // the move first: a wider destination, or a sum
      {desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), desc({35, 37, 3, 3}, f32, "oihw"), 1, 0.f, stage::move_to_scratch},
      {desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, bf16, "OIhw8i16o2i"), 0, 0.5f, stage::move_to_scratch},
      // zeros after runs of the destination (5 of 16 i in the last block of i)
      {desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw16o16i"), 1, 0.f, stage::convert_to_scratch},
  };
  int zero_tails = 0;
  for (const problem& pr : problems) {
    for (const dim threads : {1, 2, 6})
     for (const bool from_memory : {false, true}) {
      INFO(pr.src.str() << " -> " << pr.dst.str() << ", " << threads << " threads" << (from_memory ? ", from memory" : ""));
      int staged = 0;
      for (const placed_nest& p : lowered(pr.src, pr.dst, pr.mask, pr.beta)) {
        placed_nest first, second;
        if (!memfmt::detail::stage_conversion(p, threads, first, second, from_memory)) continue;
        ++staged;
        INFO(memfmt::detail::nest_str(p) << "\n" << memfmt::detail::nest_str(first) << "\n"
                                         << memfmt::detail::nest_str(second));
        CHECK(first.staged == pr.first);
        CHECK(second.staged == (pr.first == stage::convert_to_scratch ? stage::move_from_scratch : stage::convert_from_scratch));
        // the move is a plain copy as tiles; the conversion, the nest's own
        const nest& moves = pr.first == stage::convert_to_scratch ? second.loops : first.loops;
        const nest& converts = pr.first == stage::convert_to_scratch ? first.loops : second.loops;
        CHECK(moves.kind == kernel_kind::tile);
        CHECK(moves.cvt.is_plain_copy());
        CHECK(converts.kind == kernel_kind::copy);
        CHECK(converts.cvt.src == p.loops.cvt.src);
        CHECK(converts.cvt.dst == p.loops.cvt.dst);
        CHECK(converts.cvt.beta == p.loops.cvt.beta);
        CHECK(second.loops.zero_tail == p.loops.zero_tail);
        // a run that zeros follow goes whole, in the stage that writes the destination
        if (p.loops.zero_tail != 0) {
          dim run = 0, staged_run = 0;
          for (int k = 0; k < p.loops.nloops; ++k)
            if (p.loops.loops[k].dst_stride == 1) run = p.loops.loops[k].extent;
          for (int k = 0; k < second.loops.nloops; ++k)
            if (second.loops.loops[k].dst_stride == 1) staged_run = second.loops.loops[k].extent;
          CHECK(staged_run == run);
          ++zero_tails;
        }
        const data_type scratch_type = pr.first == stage::convert_to_scratch ? pr.dst.get_data_type() : pr.src.get_data_type();
        const dim scratch = memfmt::detail::stage_bytes / static_cast<dim>(memfmt::data_type_size(scratch_type));
        std::vector<offsets> own = elements(p.loops, 0, p.loops.outer_count());
        for (auto& [s, d, c] : own) {
          s += p.src_base;
          d += p.dst_base;
          c += p.scale_base;
        }
        own = sorted(own);
        // as planned, and with the shared loops ordered for a pass from memory
        for (const bool ordered : {false, true}) {
          if (ordered) memfmt::detail::order_staged_for_memory(first, second);
          const std::vector<offsets> pair = sorted(joined(first, second, scratch));
          CHECK(pair.size() == own.size());
          // (the first difference, not the vectors: they hold up to half a million elements)
          const auto differ = std::mismatch(pair.begin(), pair.end(), own.begin(), own.end());
          CHECK(differ.first == pair.end());
        }
      }
      CHECK(staged >= 1);
    }
  }
  CHECK(zero_tails >= 1);
}

TEST_CASE("a staged pair, loop by loop: f32 ab -> s8 OI16i64o2i with a scale per input channel", "[stage]") {
  // 384 x 171: 6 blocks of 64 a (source stride 64 x 171), each with 80 pairs of b (the
  // 5 whole blocks of 32 b) of 2 b. As a plain s8 copy: tiles of 2-byte units (2 b),
  // rows the 64 a (2 bytes apart in the destination), columns the 80 pairs (2 apart in
  // the source): 10240 elements per block of a, within the scratch's 16384 bytes.
  // The conversion converts 64 rows of 160 b into the scratch, in source order (a row
  // 160 apart); the tiles take them out.
  const auto nests = lowered(desc({384, 171}, data_type::f32, "ab"), desc({384, 171}, data_type::s8, "OI16i64o2i"), 2);
  REQUIRE(memfmt::detail::nest_str(nests[0]) == "copy @src+0 dst+0: 6(10944,12288) 80(2,128,sc2) | 64(171,2) 2(1,1,sc1)");
  placed_nest first, second;
  REQUIRE(memfmt::detail::stage_conversion(nests[0], 1, first, second));
  CHECK(memfmt::detail::nest_str(first) == "copy @src+0 scratch: 6(10944,0) | 64(171,160) 160(1,1,sc1)");
  CHECK(memfmt::detail::nest_str(second) ==
        "tile @scratch dst+0: 6(0,12288) | rows 64(160,2) columns 80(2,128) unit 2(1,1)"
        "  staged after the nest before over 1 loops");
  // two threads: 4 blocks each or more, so the 80 columns are cut into 5 x 16
  REQUIRE(memfmt::detail::stage_conversion(nests[0], 2, first, second));
  CHECK(memfmt::detail::nest_str(second) ==
        "tile @scratch dst+0: 6(0,12288) 5(0,2048) | rows 64(32,2) columns 16(2,128) unit 2(1,1)"
        "  staged after the nest before over 2 loops");
}

TEST_CASE("a staged pair ordered for a pass from memory: whole source rows per block, far steps outside",
          "[stage]") {
  // f32 ab -> s8 BA16a64b4a, 1024 x 512: the pair goes block by block of 256 a x 64 b
  // (16 KiB of s8 in the scratch). As planned, the 8 blocks of b (64 apart in the
  // source) are outside the 4 of a (131072 apart): a strip of 64 columns down all 1024
  // rows per pass. Ordered, the blocks of a go outside, and the source is read across
  // whole rows, a block of 256 rows at a time.
  const auto nests = lowered(desc({1024, 512}, data_type::f32, "ab"), desc({1024, 512}, data_type::s8, "BA16a64b4a"), 0);
  placed_nest first, second;
  REQUIRE(memfmt::detail::stage_conversion(nests[0], 1, first, second));
  CHECK(memfmt::detail::nest_str(first) == "copy @src+0 scratch: 8(64,0) 4(131072,0) | 256(512,64) 64(1,1)");
  CHECK(memfmt::detail::nest_str(second) ==
        "tile @scratch dst+0: 8(0,65536) 4(0,16384) 64(256,256) | columns 64(1,4) unit 4(64,1)"
        "  staged after the nest before over 2 loops");
  memfmt::detail::order_staged_for_memory(first, second);
  CHECK(memfmt::detail::nest_str(first) == "copy @src+0 scratch: 4(131072,0) 8(64,0) | 256(512,64) 64(1,1)");
  CHECK(memfmt::detail::nest_str(second) ==
        "tile @scratch dst+0: 4(0,16384) 8(0,65536) 64(256,256) | columns 64(1,4) unit 4(64,1)"
        "  staged after the nest before over 2 loops");
  // planned from memory, the block itself is ordered as tiles from memory are (the loop
  // with the smallest source step, the 8 blocks of b, inside the rows): a block is 32
  // whole rows, converted as one run of 16384 elements; the tiles then write, per block
  // of b, its 8 groups of 4 rows as one run of 2 KiB
  REQUIRE(memfmt::detail::stage_conversion(nests[0], 1, first, second, true));
  CHECK(memfmt::detail::nest_str(first) == "copy @src+0 scratch: 32(16384,0) | 16384(1,1)");
  CHECK(memfmt::detail::nest_str(second) ==
        "tile @scratch dst+0: 32(0,2048) 8(64,65536) 8(2048,256) | columns 64(1,4) unit 4(512,1)"
        "  staged after the nest before over 1 loops");
}

TEST_CASE("what stays in one pass", "[stage]") {
  const data_type f32 = data_type::f32, s8 = data_type::s8;
  const auto staged_any = [](const std::vector<placed_nest>& nests) {
    placed_nest first, second;
    return std::any_of(nests.begin(), nests.end(),
                       [&](const placed_nest& p) { return memfmt::detail::stage_conversion(p, 1, first, second); });
  };
  // rows of 8 channels back to back in the source: the copy kernel's one long row
  CHECK_FALSE(staged_any(lowered(desc({1, 96, 28, 28}, f32, "nChw8c"), desc({1, 96, 28, 28}, s8, "nChw16c"), 0)));
  // 8 x 8 tiles without scales convert in registers; with a scale per channel they stage
  CHECK_FALSE(staged_any(lowered(desc({1, 96, 28, 28}, f32, "nChw8c"), desc({1, 96, 28, 28}, s8, "nchw"), 0)));
  CHECK(staged_any(lowered(desc({128, 57, 3, 3}, f32, "oihw"), desc({128, 57, 3, 3}, s8, "OIhw8o8i"), 1)));
  // blocks too small to pay for two calls
  CHECK_FALSE(staged_any(lowered(desc({1, 19, 2, 5}, f32, "nchw"), desc({1, 19, 2, 5}, s8, "aBcd2b"), 2)));
  // zeros after long destination runs (992 of 1024 b), which blocks may not cut short
  CHECK_FALSE(staged_any(lowered(desc({64, 992}, s8, "Ab4a"), desc({64, 992}, f32, "aB1024b"), 0)));
  // nothing to tile: a plain layout on both sides
  CHECK_FALSE(staged_any(lowered(desc({64, 64}, f32, "ab"), desc({64, 64}, s8, "ab"), 2)));
  // f32 with a scale per a: into BA16a32b2a, rows of the plain source converted, then
  // tiles of pairs of a; the way back stays in one pass (converted in source order, the
  // runs would be a pair each)
  CHECK(staged_any(lowered(desc({384, 171}, f32, "ab"), desc({384, 171}, f32, "BA16a32b2a"), 1)));
  CHECK_FALSE(staged_any(lowered(desc({384, 171}, f32, "BA16a32b2a"), desc({384, 171}, f32, "ab"), 1)));
  // with a sum the conversion walks the destination: packing stays in one pass
  CHECK_FALSE(staged_any(lowered(desc({384, 171}, f32, "ab"), desc({384, 171}, f32, "BA16a32b2a"), 1, 0.5f)));
  // into BA16a16b2a, pairs in calls of 16 columns: the gather a plain copy keeps stays,
  // but where gathers are microcoded
  CHECK_FALSE(staged_any(lowered(desc({384, 171}, f32, "ab"), desc({384, 171}, f32, "BA16a16b2a"), 1)));
  const auto gather_nests = lowered(desc({384, 171}, f32, "ab"), desc({384, 171}, f32, "BA16a16b2a"), 1);
  CHECK(std::any_of(gather_nests.begin(), gather_nests.end(), [](const placed_nest& p) {
    placed_nest first, second;
    return memfmt::detail::stage_conversion(p, 1, first, second, false, true);
  }));
}

TEST_CASE("from memory, the pair whose conversion reads the longer run of the source", "[stage]") {
  // source_run: the innermost loop's run, then each loop around it that steps by the run
  nest n;
  n.nloops = 4;
  n.loops[0] = {2, 4096, 0};
  n.loops[1] = {8, 512, 0};
  n.loops[2] = {1, 7, 0};  // (a loop of one steps nowhere)
  n.loops[3] = {64, 1, 0};
  CHECK(memfmt::detail::source_run(n) == 64);
  n.loops[1].src_stride = 64;
  CHECK(memfmt::detail::source_run(n) == 512);
  n.loops[0].src_stride = 512;
  CHECK(memfmt::detail::source_run(n) == 1024);
  // From memory, two blocks for each pair: those of the tiles as they are (destination
  // order), or ordered for memory (order_tiles_for_memory)
  const auto check = [](const desc& src, const desc& dst, const std::string& want, dim run) {
    const auto nests = lowered(src, dst, 1);
    placed_nest first, second;
    REQUIRE(memfmt::detail::stage_conversion(nests[0], 1, first, second, true));
    CHECK(memfmt::detail::nest_str(first) == want);
    CHECK(memfmt::detail::source_run(first.loops) == run);
    const nest& whole = nests[0].loops;
    CHECK(sorted(joined(first, second, memfmt::detail::stage_bytes)) == sorted(elements(whole, 0, whole.outer_count())));
  };
  // f32 OIhw8i16o2i -> s8 oihw, 256 x 128 x 3 x 3, a scale per output channel: as they
  // are, the conversion reads the source from end to end; ordered, the 8 blocks of 16
  // input channels go inside the groups of 2, and it reads runs of 128 elements 256
  // apart. As they are
  check(desc({256, 128, 3, 3}, data_type::f32, "OIhw8i16o2i"), desc({256, 128, 3, 3}, data_type::s8, "oihw"),
        "copy @src+0 scratch: 16(18432,0,sc16) 2(9216,0) 288(32,32) | 16(2,2,sc1) 2(1,1)", 256 * 128 * 9);
  // f32 gOIhw2o8i16o4i -> s8 goihw, 2 x 64 x 224 x 3 x 3, a scale per group: as they
  // are, blocks of 512 elements 1024 apart (the 2 o of a block outside the pixels of 16
  // o); ordered, whole blocks of 32 o x 32 i x 9 pixels, the source from end to end.
  // Ordered
  check(desc({2, 64, 224, 3, 3}, data_type::f32, "gOIhw2o8i16o4i"), desc({2, 64, 224, 3, 3}, data_type::s8, "goihw"),
        "copy @src+0 scratch: 2(129024,0,sc1) 2(64512,0) 7(9216,0) | 9216(1,1)", 2 * 64 * 224 * 9);
}
