// Regions of one side that a plan runs one at a time (memfmt/reorder/pass/chunks.hpp):
// a worked example, and on the plans of real s4 and u4 reorders, a brute-force walk of
// every chunk: its iterations reach the side only inside its region, the chunks
// together run each of the plan's elements once, and with `cover` the regions tile the
// side.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "memfmt/memfmt.hpp"
#include "memfmt/reorder/pass/chunks.hpp"
#include "nest_elements.hpp"

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::placed_nest;
using memfmt::detail::side_chunks;
using memfmt::detail::stage;
using memfmt_test::elements;
using memfmt_test::make_nest;

namespace {

placed_nest placed(kernel_kind kind, std::initializer_list<loop> loops, stage staged = stage::none, int fused = 0) {
  placed_nest p;
  p.loops = make_nest(kind, loops);
  p.staged = staged;
  p.fused_loops = fused;
  return p;
}

// find_chunks with regions as large as they come (`most`) unless said.
side_chunks chunks_of(const placed_nest* group, std::size_t size, bool dst_side, dim span, dim target, bool cover,
                      dim most = dim{1} << 40) {
  return memfmt::detail::find_chunks(group, size, dst_side, span, target, cover, most);
}

// Every (src, dst, scale) offset a group visits, as chunk `q` of `c` runs it (c.count 0:
// the whole group), the nest's index first.
std::vector<std::tuple<std::size_t, dim, dim, dim>> visits(const std::vector<placed_nest>& group, const side_chunks& c,
                                                            const memfmt::detail::chunk* k) {
  std::vector<std::tuple<std::size_t, dim, dim, dim>> out;
  for (std::size_t j = 0; j < group.size(); ++j) {
    memfmt::detail::nest n = group[j].loops;
    dim s = group[j].src_base, d = group[j].dst_base, sc = 0;
    if (k != nullptr) memfmt::detail::cut_to_chunk(c, *k, n, s, d, sc);
    for (const auto& [es, ed, esc] : elements(n, 0, n.outer_count())) out.emplace_back(j, s + es, d + ed, sc + esc);
  }
  return out;
}

// The checks of the file's header on one group; returns the number of chunks.
dim check_chunks(const std::vector<placed_nest>& group, bool dst_side, dim span, dim target, bool cover) {
  const side_chunks c = chunks_of(group.data(), group.size(), dst_side, span, target, cover);
  if (c.count == 0) return 0;
  std::vector<std::tuple<std::size_t, dim, dim, dim>> all;
  std::vector<int> owner(static_cast<std::size_t>(span), -1);  // the chunk whose region holds an element
  for (dim q = 0; q < c.chunks(); ++q) {
    const memfmt::detail::chunk k = memfmt::detail::chunk_at(c, q);
    INFO("chunk " << q << ": region " << k.region << " + " << k.elements);
    CHECK(k.region % 2 == 0);
    CHECK(k.elements % 2 == 0);
    REQUIRE(k.region >= 0);
    REQUIRE(k.region + k.elements <= span);
    dim shared = 0, outside = 0;
    for (dim e = k.region; e < k.region + k.elements; ++e) {
      shared += owner[static_cast<std::size_t>(e)] != -1;
      owner[static_cast<std::size_t>(e)] = static_cast<int>(q);
    }
    CHECK(shared == 0);  // regions are disjoint
    for (const auto& v : visits(group, c, &k)) {
      all.push_back(v);
      if (!memfmt::detail::reaches_side(group[std::get<0>(v)], dst_side)) continue;
      const dim at = dst_side ? std::get<2>(v) : std::get<1>(v);
      outside += at < k.region || at >= k.region + k.elements;
    }
    CHECK(outside == 0);
  }
  // the chunks together: the group's elements, each once
  auto whole = visits(group, c, nullptr);
  std::sort(whole.begin(), whole.end());
  std::sort(all.begin(), all.end());
  const bool once = all == whole;  // (not printed: they are long)
  CHECK(once);
  if (cover) CHECK(std::count(owner.begin(), owner.end(), -1) == 0);
  return c.chunks();
}

}  // namespace

TEST_CASE("f32 ab -> u4 BA16a64b4a, 4096 x 4096: regions of 4 runs of 16 a-blocks", "[pass][chunks]") {
  // the staged pair the planner makes: conversion into the stage, tiles from it to the
  // destination, 3 shared loops; the destination's loops by stride: 524288, 262144, 16384
  const std::vector<placed_nest> pair{
      placed(kernel_kind::copy, {{16, 1048576, 0}, {32, 128, 0}, {2, 64, 0}, {256, 4096, 64}, {64, 1, 1}},
             stage::convert_to_scratch),
      placed(kernel_kind::tile, {{16, 0, 16384}, {32, 0, 524288}, {2, 0, 262144}, {64, 256, 256}, {64, 1, 4}, {4, 64, 1}},
             stage::move_from_scratch, 3)};
  std::vector<placed_nest> group = pair;
  group[1].loops.tile_unit = 4;  // (the kernel owns the columns and the unit)
  const side_chunks c = chunks_of(group.data(), group.size(), true, dim{4096} * 4096, 65536, true);
  REQUIRE(c.count == 3);
  CHECK(std::vector<int>(c.loops, c.loops + 3) == std::vector<int>{1, 2, 0});
  CHECK(std::vector<dim>(c.strides, c.strides + 3) == std::vector<dim>{524288, 262144, 16384});
  CHECK(c.run == 4);
  CHECK(c.chunks() == 32 * 2 * 4);
  // the source side: only the loop over blocks of 256 rows holds the others (a row crosses
  // the column loops' strides): regions of 2^20 elements
  const side_chunks from = chunks_of(group.data(), group.size(), false, dim{4096} * 4096, 65536, false);
  CHECK(from.count == 1);
  CHECK(from.chunks() == 16);
}

TEST_CASE("no chunks where a loop outside them reaches past their stride, or a region would leave the side",
          "[pass][chunks]") {
  // the outer loop steps by 1 in dst, the inner by 2: the inner one reaches past the outer's stride
  const std::vector<placed_nest> crossed{placed(kernel_kind::strided, {{2, 0, 1}, {4, 1, 2}})};
  CHECK(chunks_of(crossed.data(), 1, true, 8, 2, true).count == 0);
  // the other way round they nest: regions of 2 elements
  const std::vector<placed_nest> nested{placed(kernel_kind::strided, {{4, 1, 2}, {2, 4, 1}})};
  CHECK(check_chunks(nested, true, 8, 2, true) == 4);
  // the loops by stride 4, 2, 1 with extents 2, 3, 2: the outer holds neither (2 x 2 + 1
  // reach past 4), so the middle one cannot pick chunks either, though it holds the inner
  const std::vector<placed_nest> unnested{placed(kernel_kind::strided, {{2, 0, 4}, {3, 0, 2}, {2, 1, 1}})};
  CHECK(chunks_of(unnested.data(), 1, true, 10, 2, false).count == 0);
  // loops by stride 6, 4, 1, each of extent 2: each holds the loops inside it (1 x 4 + 1
  // < 6, 1 < 4), but the two inner ones span 8 > 6: the regions [4, 8) and [6, 10) would
  // overlap
  const std::vector<placed_nest> spilling{placed(kernel_kind::strided, {{2, 0, 6}, {2, 0, 4}, {2, 1, 1}})};
  CHECK(chunks_of(spilling.data(), 1, true, 20, 4, false).count == 0);
  // regions larger than a scratch may hold: none
  const std::vector<placed_nest> wide{placed(kernel_kind::strided, {{4, 0, 1024}, {1024, 1, 1}})};
  CHECK(chunks_of(wide.data(), 1, true, 4096, 64, true, 1024).chunks() == 4);
  CHECK(chunks_of(wide.data(), 1, true, 4096, 64, true, 1023).count == 0);
  // odd strides: regions would split bytes of nibbles
  const std::vector<placed_nest> odd{placed(kernel_kind::strided, {{4, 3, 3}, {3, 1, 1}})};
  CHECK(chunks_of(odd.data(), 1, true, 12, 3, true).count == 0);
  // rows one longer than the stride between them: none
  const std::vector<placed_nest> overlapping{placed(kernel_kind::strided, {{4, 4, 8}, {9, 1, 1}})};
  CHECK(chunks_of(overlapping.data(), 1, true, 33, 8, false).count == 0);
  // rows of 2 every 8: regions of 8 that tile 32 elements; not 40 (the last would be left
  // out), unless the regions need not cover the side
  const std::vector<placed_nest> spaced{placed(kernel_kind::strided, {{4, 4, 8}, {2, 1, 1}})};
  CHECK(check_chunks(spaced, true, 32, 8, true) == 4);
  CHECK(chunks_of(spaced.data(), 1, true, 40, 8, true).count == 0);
  CHECK(check_chunks(spaced, true, 40, 8, false) == 4);
  // regions that would leave the side
  CHECK(chunks_of(spaced.data(), 1, true, 30, 8, false).count == 0);
  // a base offset on the side: none
  std::vector<placed_nest> based{placed(kernel_kind::strided, {{4, 4, 4}, {4, 1, 1}})};
  based[0].dst_base = 2;
  CHECK(chunks_of(based.data(), 1, true, 18, 4, true).count == 0);
  CHECK(check_chunks(based, false, 16, 4, false) == 4);  // (the source side starts at 0)
}

TEST_CASE("the plans of s4 and u4 reorders: each chunk stays in its region, the chunks run the plan once",
          "[pass][chunks]") {
  struct problem {
    dims shape;
    const char *stag, *dtag;
  };
  // (large enough that plans have outer loops: a plan's own loops cannot be cut)
  const std::vector<problem> problems = {
      {{256, 192}, "ab", "BA16a64b4a"},         {{256, 192}, "BA16a64b4a", "ab"}, {{256, 190}, "ab", "AB16b16a"},
      {{256, 190}, "AB16b16a", "ab"},           {{256, 192}, "ab", "ba"},         {{256, 192}, "ba", "ab"},
      {{64, 46, 4, 4}, "oihw", "OIhw16i16o"}, {{64, 46, 4, 4}, "OIhw8i16o2i", "oihw"},
      {{8, 62, 12, 8}, "nchw", "nChw16c"},      {{8, 62, 12, 8}, "nChw16c", "nhwc"},
      {{8, 6144}, "ab", "ab"},
  };
  int found = 0;
  for (const problem& p : problems)
    for (const bool pack : {true, false})
      for (const data_type other : {data_type::f32, data_type::bf16, data_type::u8}) {
        const data_type packed = data_type::u4;
        const desc s(p.shape, pack ? other : packed, p.stag), d(p.shape, pack ? packed : other, p.dtag);
        memfmt::reorder_attr attr;
        // (a scale per index of dim 0: the chunks' scale offsets are checked too)
        memfmt::scales per_row;
        per_row.mask = 1;
        per_row.values.assign(static_cast<std::size_t>(p.shape[0]), 2.f);
        (pack ? attr.dst_scales : attr.src_scales) = per_row;
        const memfmt::reorder r(s, d, attr);
        const std::vector<placed_nest>& nests = r.nests();
        const bool one_group = nests.size() == 1 || (nests.size() == 2 && nests[1].fused_loops != 0);
        if (!one_group) continue;
        const desc& side = pack ? d : s;
        const dim span = side.get_size() * 2;  // (dense layouts: every nibble is an element)
        for (const dim target : {dim{2}, dim{64}, dim{1000}, dim{20000}}) {
          INFO(p.stag << " -> " << p.dtag << (pack ? " packing" : " unpacking") << " with " << to_string(other)
                      << ", target " << target << "\n" << r.plan_str());
          found += check_chunks(nests, pack, span, target, pack) > 1;
        }
      }
  CHECK(found >= 90);  // (most of these plans have several chunks, which the walk checked)
}
