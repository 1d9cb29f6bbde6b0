// Cutting dims into pieces and index ranges into boxes (memfmt/reorder/pass/cut.hpp):
// a worked example piece by piece, blocks that do not nest, and every range of a dim
// cut three ways covered by its boxes exactly once.
#include <catch2/catch.hpp>

#include <vector>

#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/pass/cut.hpp"

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::detail::dim_box;
using memfmt::detail::dim_pieces;
using memfmt::detail::piece;

namespace {

// The pieces of dim `d` of src -> dst, scales `scale_stride` apart along it from group
// to group of `group` indices.
dim_pieces cut(const desc& src, const desc& dst, int d, dim scale_stride, bool& nests, dim group = 1) {
  dim_pieces out{};
  nests = memfmt::detail::cut_dim(src, src.get_blocking(), dst, dst.get_blocking(), d, scale_stride, out, group);
  return out;
}

void check_piece(const piece& p, dim weight, dim extent, dim src_stride, dim dst_stride, dim scale_stride) {
  CHECK(p.weight == weight);
  CHECK(p.extent == extent);
  CHECK(p.src_stride == src_stride);
  CHECK(p.dst_stride == dst_stride);
  CHECK(p.scale_stride == scale_stride);
}

}  // namespace

TEST_CASE("nchw -> nChw16c cuts the channels into blocks of 16 and channels within a block", "[pass][cut]") {
  // 2 x 40 x 3 x 5 f32. nchw: a channel is 15 apart. nChw16c (40 channels padded to 48):
  // a channel within a block is 1 apart, a block 16 x 15 = 240 apart.
  const desc src({2, 40, 3, 5}, data_type::f32, "nchw");
  const desc dst({2, 40, 3, 5}, data_type::f32, "nChw16c");
  bool nests = false;
  const dim_pieces c = cut(src, dst, 1, 1, nests);
  REQUIRE(nests);
  REQUIRE(c.count == 2);
  // the outer piece counts blocks (its extent is lower's to set): 16 channels of the
  // source, a block of the destination, 16 scales
  check_piece(c.pieces[0], 16, 0, 16 * 15, 240, 16);
  check_piece(c.pieces[1], 1, 16, 15, 1, 1);
  // a dim neither layout blocks is one piece of weight 1
  const dim_pieces w = cut(src, dst, 3, 0, nests);
  REQUIRE(nests);
  REQUIRE(w.count == 1);
  check_piece(w.pieces[0], 1, 0, 1, 16, 0);
}

TEST_CASE("groups of indices that share a scale are one more boundary, with no scale stride inside", "[pass][cut]") {
  // ab -> BA16a64b4a, 256 x 512 f32, one scale per 128 b (dim 1): b is blocked by 64 in
  // the destination, within a block 4 apart (4 a inside); a block of 64 b holds all 256 a,
  // 4 blocks of 16 x 64 x 4 = 4096, so is 16384 apart; 128 b are one group
  const desc src({256, 512}, data_type::f32, "ab");
  const desc dst({256, 512}, data_type::f32, "BA16a64b4a");
  bool nests = false;
  const dim_pieces b = cut(src, dst, 1, 1, nests, 128);
  REQUIRE(nests);
  REQUIRE(b.count == 3);
  check_piece(b.pieces[0], 128, 0, 128, 2 * 16384, 1);  // a group: the next scale
  check_piece(b.pieces[1], 64, 2, 64, 16384, 0);        // within a group
  check_piece(b.pieces[2], 1, 64, 1, 4, 0);
  // a group of 48 does not nest with blocks of 64
  cut(src, dst, 1, 1, nests, 48);
  CHECK_FALSE(nests);
  // groups of 1: the pieces of the blocks alone
  const dim_pieces one = cut(src, dst, 1, 1, nests, 1);
  REQUIRE(nests);
  REQUIRE(one.count == 2);
  check_piece(one.pieces[0], 64, 0, 64, 16384, 64);
}

TEST_CASE("double blocks cut a dim at every boundary of either layout (OIhw4i16o4i <- OIhw16i16o)", "[pass][cut]") {
  // input channels: 4i16o4i blocks i by 4 (inside) and 16 (the block); 16i16o by 16
  const desc src({32, 32, 3, 3}, data_type::f32, "OIhw16i16o");
  const desc dst({32, 32, 3, 3}, data_type::f32, "OIhw4i16o4i");
  bool nests = false;
  const dim_pieces i = cut(src, dst, 1, 0, nests);
  REQUIRE(nests);
  REQUIRE(i.count == 3);
  // 16i16o: i within a block 16 apart (16 o inside), a block 16 x 16 x 9 apart.
  // 4i16o4i: i within 4 is 1 apart, groups of 4 are 64 apart, a block 256 x 9 apart.
  check_piece(i.pieces[0], 16, 0, 256 * 9, 256 * 9, 0);
  check_piece(i.pieces[1], 4, 4, 64, 64, 0);
  check_piece(i.pieces[2], 1, 4, 16, 1, 0);
}

TEST_CASE("blocks that do not nest give no pieces (the element-wise path)", "[pass][cut]") {
  // blocks of 3 and 4 channels: a boundary of one falls inside a block of the other
  const desc src({2, 12, 4, 4}, data_type::f32, "aBcd3b");
  const desc dst({2, 12, 4, 4}, data_type::f32, "aBcd4b");
  bool nests = true;
  (void)cut(src, dst, 1, 0, nests);
  CHECK_FALSE(nests);
}

TEST_CASE("every index range of a dim cut three ways is covered by its boxes exactly once", "[pass][cut]") {
  // weights 16, 4, 1 over 5 blocks of 16: 80 indices
  dim_pieces c{};
  c.count = 3;
  c.pieces[0] = piece{16, 5, 0, 0, 0};
  c.pieces[1] = piece{4, 4, 0, 0, 0};
  c.pieces[2] = piece{1, 4, 0, 0, 0};
  for (dim a = 0; a < 80; ++a)
    for (dim b = a + 1; b <= 80; ++b) {
      std::vector<dim_box> boxes;
      memfmt::detail::decompose(c, 0, a, b, dim_box{}, boxes);
      INFO("[" << a << ", " << b << ")");
      CHECK(boxes.size() <= 5);  // a partial box per level on each side, one whole box
      std::vector<int> hits(80, 0), once(80, 0);
      bool inside = true;
      for (const dim_box& box : boxes)
        for (dim x = 0; x < box.count[0]; ++x)
          for (dim y = 0; y < box.count[1]; ++y)
            for (dim z = 0; z < box.count[2]; ++z) {
              const dim index = (box.start[0] + x) * 16 + (box.start[1] + y) * 4 + box.start[2] + z;
              inside = inside && index >= 0 && index < 80;
              if (inside) ++hits[static_cast<std::size_t>(index)];
            }
      for (dim k = a; k < b; ++k) once[static_cast<std::size_t>(k)] = 1;
      REQUIRE(inside);
      REQUIRE(hits == once);
    }
}
