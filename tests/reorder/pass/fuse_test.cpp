// Copies that read the same source rows, fused tile by tile
// (memfmt/reorder/pass/fuse.hpp): nhwc -> nChw8c with 71 channels, worked out by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "memfmt/reorder/pass/fuse.hpp"
#include "nest_elements.hpp"

using memfmt::dim;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::placed_nest;
using memfmt_test::loops_of;
using memfmt_test::make_nest;

namespace {

// nhwc -> nChw8c, 71 channels, 3136 pixels, f32. The 8 whole blocks as simplify tiles
// them: tiles of 784 pixels (source 71 apart, destination 8), the 8 blocks inside each
// tile (8, 25088), rows of 8 channels.
placed_nest whole_blocks() {
  placed_nest p;
  p.loops = make_nest(kernel_kind::copy, {{4, 71 * 784, 8 * 784}, {784, 71, 8}, {8, 8, 25088}, {8, 1, 1}});
  return p;
}

// The last block's 7 channels (and the zero after them), rows from the same pixels.
placed_nest last_block(dim src_stride = 71) {
  placed_nest p;
  p.loops = make_nest(kernel_kind::copy, {{3136, src_stride, 8}, {7, 1, 1}});
  p.loops.zero_tail = 1;
  p.src_base = 64;
  p.dst_base = 8 * 25088;
  return p;
}

}  // namespace

TEST_CASE("the copy of the rest of the same source rows takes the tiles of the tiled copy and runs right after it",
          "[pass][fuse]") {
  for (const bool rest_first : {false, true}) {
    std::vector<placed_nest> nests;
    if (rest_first) nests.push_back(last_block());
    nests.push_back(whole_blocks());
    if (!rest_first) nests.push_back(last_block());
    memfmt::detail::fuse_tiled_copies(nests);
    INFO((rest_first ? "rest first" : "tiled first"));
    REQUIRE(nests.size() == 2);
    CHECK(loops_of(nests[0].loops) == loops_of(whole_blocks().loops));
    CHECK(nests[0].fused_loops == 0);
    // fused over the loop of tiles, its own loops the tile's pixels and its row
    CHECK(nests[1].fused_loops == 1);
    CHECK(loops_of(nests[1].loops) == std::vector<loop>{{4, 71 * 784, 8 * 784}, {784, 71, 8}, {7, 1, 1}});
    CHECK(nests[1].loops.zero_tail == 1);
    CHECK(nests[1].src_base == 64);
    CHECK(nests[1].dst_base == 8 * 25088);
  }
}

TEST_CASE("a copy of other source rows is not fused", "[pass][fuse]") {
  std::vector<placed_nest> nests{whole_blocks(), last_block(72)};
  memfmt::detail::fuse_tiled_copies(nests);
  CHECK(nests[1].fused_loops == 0);
  CHECK(nests[1].loops.nloops == 2);
}
