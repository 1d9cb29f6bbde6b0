// desc::unfold, memfmt::fold and memfmt::same_bytes, for every oneDNN tag name on small
// dims, against a reference model of blocked offsets written here from the tag's blocking
// (padded dims, outer strides, digits of each index) and against brute force.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <memfmt/desc/desc.hpp>
#include <memfmt/tag/parse.hpp>

namespace {

using memfmt::blocking;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;

constexpr std::string_view tag_names[] = {
#define MEMFMT_TAG_NAME(N) #N,
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
};

// ---- compile time: the documented examples (values worked out by hand) ----
constexpr desc nchw16c({2, 17, 5, 4}, data_type::f32, "nChw16c");
static_assert(nchw16c.unfold().get_dims() == dims{2, 2, 5, 4, 16});
static_assert(nchw16c.unfold().get_strides() == dims{640, 320, 64, 16, 1});
static_assert(nchw16c.unfold().get_inner_nblks() == 0);
static_assert(memfmt::fold(nchw16c.unfold(), nchw16c) == nchw16c);
// (1, 17, 2, 3) -> (1, 1, 2, 3, 1): 640 + 320 + 128 + 48 + 1
static_assert(nchw16c.unfold().offset({1, 1, 2, 3, 1}) == 1137);
constexpr desc vnni({64, 33, 3, 3}, data_type::s8, "OIhw4i16o4i");
static_assert(vnni.unfold().get_dims() == dims{4, 3, 3, 3, 4, 16, 4});
static_assert(vnni.unfold().get_strides() == dims{6912, 2304, 768, 256, 64, 4, 1});
static_assert(memfmt::same_bytes(desc({1, 16, 3, 4}, data_type::f32, "nChw16c"), desc({1, 16, 3, 4}, data_type::f32, "nhwc")));
static_assert(!memfmt::same_bytes(desc({1, 32, 3, 4}, data_type::f32, "nChw16c"), desc({1, 32, 3, 4}, data_type::f32, "nhwc")));
static_assert(memfmt::same_bytes(desc({2, 3, 1, 1}, data_type::f32, "nChw16c"), desc({2, 3, 1, 1}, data_type::f32, dims{16, 1, 1, 1})));
static_assert(memfmt::same_bytes(desc({1, 5}, data_type::u8, "ab"), desc({1, 5}, data_type::u8, "ba")));
static_assert(!memfmt::same_bytes(desc({2, 5}, data_type::u8, "ab"), desc({2, 5}, data_type::u8, "ba")));

// ---- the reference model: what a tag's blocking means, written from scratch ----

struct reference {
  int n = 0;
  std::vector<dim> logical, blocks, padded, strides;
  std::vector<dim> blks;  ///< inner blocks, outermost first
  std::vector<int> idxs;  ///< their dims

  reference(const blocking& b, const std::vector<dim>& d) : n(b.ndims), logical(d) {
    blocks.assign(static_cast<std::size_t>(n), 1);
    for (int k = 0; k < b.inner_nblks; ++k) {
      blks.push_back(b.inner_blks[static_cast<std::size_t>(k)]);
      idxs.push_back(b.inner_idxs[static_cast<std::size_t>(k)]);
      blocks[static_cast<std::size_t>(idxs.back())] *= blks.back();
    }
    for (int i = 0; i < n; ++i) {
      const auto u = static_cast<std::size_t>(i);
      padded.push_back((logical[u] + blocks[u] - 1) / blocks[u] * blocks[u]);
    }
    dim block_volume = 1;
    for (dim v : blks) block_volume *= v;
    strides.assign(static_cast<std::size_t>(n), 0);
    dim s = block_volume;  // the innermost outer dim steps over one whole inner block
    for (int p = n - 1; p >= 0; --p) {
      const auto d = static_cast<std::size_t>(b.order[static_cast<std::size_t>(p)]);
      strides[d] = s;
      s *= padded[d] / blocks[d];
    }
  }

  /// The digit of index x of inner block k: x divided by the blocks of its dim that are
  /// inside block k, modulo block k.
  dim digit(int k, dim x) const {
    dim inside = 1;
    for (std::size_t j = static_cast<std::size_t>(k) + 1; j < blks.size(); ++j)
      if (idxs[j] == idxs[static_cast<std::size_t>(k)]) inside *= blks[j];
    return x / inside % blks[static_cast<std::size_t>(k)];
  }

  /// The offset of a padded index (outer part through the strides, the inner digits as one
  /// number in the mixed radix of the blocks, outermost first).
  dim offset(const std::vector<dim>& i) const {
    dim off = 0;
    for (int d = 0; d < n; ++d) off += i[static_cast<std::size_t>(d)] / blocks[static_cast<std::size_t>(d)] * strides[static_cast<std::size_t>(d)];
    dim inner = 0;
    for (std::size_t k = 0; k < blks.size(); ++k)
      inner = inner * blks[k] + digit(static_cast<int>(k), i[static_cast<std::size_t>(idxs[k])]);
    return off + inner;
  }

  /// Where a padded index sits in the unfolded tensor: the outer parts, then the digits.
  std::vector<dim> unfolded_index(const std::vector<dim>& i) const {
    std::vector<dim> u;
    for (int d = 0; d < n; ++d) u.push_back(i[static_cast<std::size_t>(d)] / blocks[static_cast<std::size_t>(d)]);
    for (std::size_t k = 0; k < blks.size(); ++k)
      u.push_back(digit(static_cast<int>(k), i[static_cast<std::size_t>(idxs[k])]));
    return u;
  }

  std::vector<dim> unfolded_dims() const {
    std::vector<dim> u;
    for (int d = 0; d < n; ++d) u.push_back(padded[static_cast<std::size_t>(d)] / blocks[static_cast<std::size_t>(d)]);
    for (dim b : blks) u.push_back(b);
    return u;
  }
};

/// Calls f(index) for every index of the box `extent` (none when an extent is 0);
/// stops early when f returns false.
bool for_each_index(const std::vector<dim>& extent, const std::function<bool(const std::vector<dim>&)>& f) {
  for (dim e : extent)
    if (e == 0) return true;
  std::vector<dim> i(extent.size(), 0);
  while (true) {
    if (!f(i)) return false;
    std::size_t d = extent.size();
    while (d > 0) {
      --d;
      if (++i[d] < extent[d]) break;
      i[d] = 0;
      if (d == 0) return true;
    }
    if (extent.empty()) return true;
  }
}

/// The brute-force answer: same type and dims, and every logical index at the same offset.
bool brute_same_bytes(const desc& a, const desc& b) {
  if (a.get_data_type() != b.get_data_type() || !(a.get_dims() == b.get_dims())) return false;
  const std::vector<dim> extent = a.get_dims().to_vector();
  return for_each_index(extent, [&](const std::vector<dim>& i) { return a.offset(i) == b.offset(i); });
}

/// Small dim sets for a tag: all ones; each blocked dim at exactly its block and the others
/// at 2 (with a 1 in the last dim); each blocked dim at its block + 1 (padding) and the
/// others alternating 3 and 1. Dims shrink to 1 where the padded volume grows past 2^15.
std::vector<std::vector<dim>> dim_sets(const reference& r0) {
  const int n = r0.n;
  std::vector<std::vector<dim>> sets;
  sets.emplace_back(static_cast<std::size_t>(n), 1);
  std::vector<dim> exact, ragged;
  for (int d = 0; d < n; ++d) {
    const dim b = r0.blocks[static_cast<std::size_t>(d)];
    exact.push_back(b > 1 ? b : (d == n - 1 && n > 1 ? 1 : 2));
    ragged.push_back(b > 1 ? b + 1 : (d % 2 == 0 ? 3 : 1));
  }
  sets.push_back(exact);
  sets.push_back(ragged);
  for (auto& s : sets) {
    const auto volume = [&] {
      dim v = 1;
      for (int d = 0; d < n; ++d) {
        const dim b = r0.blocks[static_cast<std::size_t>(d)];
        v *= (s[static_cast<std::size_t>(d)] + b - 1) / b * b;
      }
      return v;
    };
    for (int d = n - 1; d >= 0 && volume() > (dim{1} << 15); --d) s[static_cast<std::size_t>(d)] = 1;
  }
  return sets;
}

bool contains(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const memfmt::error& e) {
    return e.what();
  }
  return "";
}

std::string str(const std::vector<dim>& v) {
  std::string s = "{";
  for (dim x : v) s += std::to_string(x) + ",";
  return s + "}";
}

/// The strided descriptor that puts each logical step where `d` does, if the offsets of
/// `d` are linear and the strides do not overlap (otherwise the zero descriptor).
desc strided_candidate(const desc& d) {
  const int n = d.get_ndims();
  const std::vector<dim> zero(static_cast<std::size_t>(n), 0);
  dims strides = dims::filled(n, 0);
  for (int i = 0; i < n; ++i) {
    if (d.get_dims()[i] < 2) continue;
    std::vector<dim> e = zero;
    e[static_cast<std::size_t>(i)] = 1;
    strides[i] = d.offset(e) - d.offset(zero);
  }
  desc s(d.get_dims(), d.get_data_type(), strides, true);
  if (s.is_zero()) return s;
  memfmt::desc_fields f = s.fields();
  f.offset0 = d.offset(zero);
  return desc::from_fields(f);
}

}  // namespace

TEST_CASE("unfold: for every tag, the offset of every padded index is the blocked offset; fold inverts it", "[desc][unfold]") {
  long checked_indices = 0, tags_with_blocks = 0;
  for (std::string_view name : tag_names) {
    const blocking b = memfmt::parse_tag_or_throw(name);
    const reference shape_of_tag(b, std::vector<dim>(static_cast<std::size_t>(b.ndims), 1));
    tags_with_blocks += b.inner_nblks != 0;
    for (const std::vector<dim>& d : dim_sets(shape_of_tag)) {
      INFO("tag " << name << " dims " << str(d));
      const reference ref(b, d);
      const desc blocked(d, data_type::f32, name);
      // the reference agrees with desc::offset on the logical tensor (so it is a model of
      // the same layout), then unfold agrees with the reference on the padded tensor
      long bad_logical = 0;
      for_each_index(d, [&](const std::vector<dim>& i) {
        bad_logical += blocked.offset(i) != ref.offset(i);
        return true;
      });
      REQUIRE(bad_logical == 0);

      const desc u = blocked.unfold();
      REQUIRE(u.get_dims().to_vector() == ref.unfolded_dims());
      CHECK(u.get_inner_nblks() == 0);
      CHECK(u.get_padded_dims() == u.get_dims());
      CHECK(u.get_submemory_offset() == 0);
      CHECK(u.get_data_type() == data_type::f32);
      CHECK(u.get_size() == blocked.get_size());
      long bad_padded = 0;
      std::vector<dim> first_bad;
      for_each_index(ref.padded, [&](const std::vector<dim>& i) {
        if (u.offset(ref.unfolded_index(i)) != ref.offset(i) && bad_padded++ == 0) first_bad = i;
        ++checked_indices;
        return true;
      });
      INFO("first wrong padded index " << str(first_bad));
      CHECK(bad_padded == 0);

      CHECK(memfmt::fold(u, blocked) == blocked);
      if (b.inner_nblks == 0) CHECK(u == blocked);  // plain layouts unfold to themselves
    }
  }
  CHECK(tags_with_blocks > 500);
  CHECK(checked_indices > 1000000);
}

TEST_CASE("unfold and fold of views: submemory offsets and padded offsets off the block boundaries", "[desc][unfold]") {
  const desc parent({2, 40, 3, 5}, data_type::f32, "nChw16c");  // C pads to 48
  for (const desc& view : {parent.submemory_desc({2, 16, 2, 5}, {0, 16, 1, 0}),  // one whole block, inside
                           parent.submemory_desc({1, 8, 3, 5}, {1, 32, 0, 0})}) {  // the right border
    const desc u = view.unfold();
    CHECK(u.get_submemory_offset() == view.get_submemory_offset());
    CHECK(u.get_dims() == dims{view.get_dims()[0], view.get_padded_dims()[1] / 16, view.get_dims()[2], 5, 16});
    for_each_index(view.get_dims().to_vector(), [&](const std::vector<dim>& i) {
      CHECK(u.offset({i[0], i[1] / 16, i[2], i[3], i[1] % 16}) == view.offset(i));
      return true;
    });
    CHECK(memfmt::fold(u, view) == view);
  }

  // a oneDNN-style view: C starts 13 elements into its padding, across a block boundary
  memfmt::desc_fields f = desc({2, 40, 3, 5}, data_type::f32, "nChw16c").fields();
  f.logical = {2, 7, 3, 5};
  f.padded_offsets = {0, 13, 0, 0};
  f.offset0 = 11;
  const desc skewed = desc::from_fields(f);
  const desc u = skewed.unfold();  // over the physical padded tensor
  CHECK(u.get_dims() == dims{2, 3, 3, 5, 16});
  CHECK(u.get_submemory_offset() == 11);
  for_each_index(skewed.get_dims().to_vector(), [&](const std::vector<dim>& i) {
    const dim c = i[1] + 13;
    CHECK(u.offset({i[0], c / 16, i[2], i[3], c % 16}) == skewed.offset(i));
    return true;
  });
  CHECK(memfmt::fold(u, skewed) == skewed);
}

TEST_CASE("fold puts a blocked shape on other outer strides: gaps and another outer order", "[desc][unfold]") {
  const desc like({2, 17, 5, 4}, data_type::f32, "nChw16c");
  const std::vector<dim> shape{2, 2, 5, 4, 16};
  // rows of 16 with a gap of 8 after each w, the channel blocks outermost (an "CnhwC16c")
  for (const dims& strides : {dims{960, 480, 96, 24, 1}, dims{320, 640, 64, 16, 1}}) {
    INFO("strides " << str(strides.to_vector()));
    const desc strided(shape, data_type::bf16, strides);
    const desc folded = memfmt::fold(strided, like);
    CHECK(folded.get_dims() == like.get_dims());
    CHECK(folded.get_data_type() == data_type::bf16);
    CHECK(folded.get_inner_blks() == dims{16});
    for_each_index(like.get_dims().to_vector(), [&](const std::vector<dim>& i) {
      CHECK(folded.offset(i) == i[0] * strides[0] + i[1] / 16 * strides[1] + i[2] * strides[2] + i[3] * strides[3] + i[1] % 16);
      return true;
    });
    CHECK(folded.unfold() == strided);
  }
}

TEST_CASE("same_bytes agrees with brute force for every tag against others of its rank and strided ones", "[desc][same_bytes]") {
  std::vector<std::vector<std::string_view>> by_rank(memfmt::max_ndims + 1);
  for (std::string_view name : tag_names) by_rank[static_cast<std::size_t>(memfmt::parse_tag_or_throw(name).ndims)].push_back(name);
  long agree_true = 0, agree_false = 0, disagree = 0, strided_true = 0;
  std::string first_disagreement;
  const auto compare = [&](const desc& a, const desc& b, const std::string& what) {
    const bool brute = brute_same_bytes(a, b);
    const bool fast = memfmt::same_bytes(a, b), reverse = memfmt::same_bytes(b, a);
    if (fast != brute || reverse != brute) {
      if (disagree++ == 0) first_disagreement = what + ": brute " + std::to_string(brute) + ", same_bytes " + std::to_string(fast);
    } else {
      (brute ? agree_true : agree_false)++;
    }
    return brute;
  };
  for (std::string_view name : tag_names) {
    const blocking b = memfmt::parse_tag_or_throw(name);
    const auto& peers = by_rank[static_cast<std::size_t>(b.ndims)];
    const auto at = static_cast<std::size_t>(std::find(peers.begin(), peers.end(), name) - peers.begin());
    for (const std::vector<dim>& d : dim_sets(reference(b, std::vector<dim>(static_cast<std::size_t>(b.ndims), 1)))) {
      const desc a(d, data_type::f32, name);
      const std::string where = std::string(name) + " " + str(d);
      for (std::size_t step : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{31}, peers.size() / 2}) {
        const std::string_view other = peers[(at + step) % peers.size()];
        compare(a, desc(d, data_type::f32, other), where + " vs " + std::string(other));
      }
      compare(a, a.plain(), where + " vs plain");
      const desc s = strided_candidate(a);
      if (!s.is_zero()) strided_true += compare(a, s, where + " vs its strided candidate");
      compare(a, desc(d, data_type::s32, name), where + " vs s32");  // another type: never
    }
  }
  INFO("first disagreement: " << first_disagreement);
  CHECK(disagree == 0);
  // both answers occur often, so neither a constant true nor a constant false could pass
  CHECK(agree_true > 2000);
  CHECK(agree_false > 2000);
  CHECK(strided_true > 500);
}

TEST_CASE("same_bytes on views, offsets off the block boundaries, strides of 0 and gaps, random pairs", "[desc][same_bytes]") {
  std::mt19937 rng(20240611);
  const auto pick = [&](dim lo, dim hi) { return std::uniform_int_distribution<dim>(lo, hi)(rng); };
  const std::vector<std::string_view> tags{"nChw16c", "nChw8c", "nchw", "nhwc", "NChw16n16c", "Acdb4a", "aBcd4b",
                                           "ABcd2a4b2a", "ABcd4b4a", "acdb", "cdba", "aBdc8b"};
  long agree_true = 0, agree_false = 0, disagree = 0, off_block_true = 0, off_block_false = 0, shifts = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const std::vector<dim> logical{pick(1, 3), pick(1, 9), pick(1, 3), pick(1, 2)};
    const auto make = [&](bool other) {
      const std::string_view tag = tags[static_cast<std::size_t>(pick(0, static_cast<dim>(tags.size()) - 1))];
      const int kind = static_cast<int>(pick(0, 3));
      if (kind == 0) return desc(logical, data_type::u8, tag);
      if (kind == 1) {  // a oneDNN-style view of a bigger tensor, offsets anywhere in the padding
        memfmt::desc_fields f = desc({logical[0] + 1, logical[1] + 9, logical[2], logical[3]}, data_type::u8, tag).fields();
        f.logical = logical;
        for (int d = 0; d < 2; ++d)
          f.padded_offsets[d] = pick(0, f.padded[d] - logical[static_cast<std::size_t>(d)]);
        f.offset0 = pick(0, 40);
        return desc::from_fields(f);
      }
      dims strides = dims::filled(4, 0);
      if (kind == 2) {  // dense strides in a random order, sometimes with a gap
        std::vector<int> order{0, 1, 2, 3};
        std::shuffle(order.begin(), order.end(), rng);
        dim s = other ? pick(1, 2) : 1;
        for (int d : order) {
          strides[d] = s;
          s *= logical[static_cast<std::size_t>(d)] + (pick(0, 3) == 0 ? 1 : 0);
        }
        return desc(logical, data_type::u8, strides, true);
      }
      for (int d = 0; d < 4; ++d)  // broadcast dims among small strides, often overlapping (then dropped)
        strides[d] = logical[static_cast<std::size_t>(d)] == 1 || pick(0, 1) == 0 ? pick(0, 1) * 40 : pick(1, 3);
      return desc(logical, data_type::u8, strides, true);
    };
    const desc a = make(false);
    if (a.is_zero()) continue;
    const auto off_block = [](const desc& x) {  // a padded offset off its block boundary
      for (int d = 0; d < x.get_ndims(); ++d)
        if (x.get_padded_offsets()[d] % x.get_blocks()[d] != 0) return true;
      return false;
    };
    for (const desc& b : {make(true), strided_candidate(a)}) {
      if (b.is_zero()) continue;
      const bool brute = brute_same_bytes(a, b);
      if (memfmt::same_bytes(a, b) != brute || memfmt::same_bytes(b, a) != brute) {
        INFO("a " << a.str() << " strides " << str(a.get_strides().to_vector()) << " padded offsets "
                  << str(a.get_padded_offsets().to_vector()));
        INFO("b " << b.str() << " strides " << str(b.get_strides().to_vector()) << " padded offsets "
                  << str(b.get_padded_offsets().to_vector()));
        CHECK(memfmt::same_bytes(a, b) == brute);
        ++disagree;
      } else {
        (brute ? agree_true : agree_false)++;
        if (off_block(a) || off_block(b)) (brute ? off_block_true : off_block_false)++;
      }
    }
    // each descriptor against itself shifted by one block in a padded offset: the same
    // offsets when the submemory offset makes up for it
    if (a.get_inner_nblks() != 0) {
      memfmt::desc_fields f = a.fields();
      const int d = static_cast<int>(f.inner_idxs[0]);
      const dim block = a.get_blocks()[d];
      if (f.padded_offsets[d] + block + f.logical[d] <= f.padded[d] && f.offset0 >= f.strides[d]) {
        f.padded_offsets[d] += block;
        f.offset0 -= f.strides[d];
        const desc shifted = desc::from_fields(f);
        CHECK(brute_same_bytes(a, shifted));
        CHECK(memfmt::same_bytes(a, shifted));
        CHECK_FALSE(a == shifted);
        ++shifts;
      }
    }
  }
  CHECK(disagree == 0);
  CHECK(agree_true > 500);
  CHECK(agree_false > 1000);
  // the evaluated path (padded offsets off the block boundaries) answers both ways
  CHECK(off_block_true > 50);
  CHECK(off_block_false > 50);
  CHECK(shifts > 50);

  // big tensors: no iteration over the elements (a brute force would not finish)
  const dims huge{1 << 20, 16, 1 << 12, 1 << 12};
  CHECK(memfmt::same_bytes(desc(huge, data_type::u8, "nChw16c"), desc(huge, data_type::u8, "nhwc")));
  CHECK_FALSE(memfmt::same_bytes(desc(huge, data_type::u8, "nChw16c"), desc(huge, data_type::u8, "nchw")));
  // the zero descriptor and any have no bytes to compare
  CHECK_FALSE(memfmt::same_bytes(desc(), desc()));
  CHECK_FALSE(memfmt::same_bytes(desc::any({2, 3}, data_type::f32), desc::any({2, 3}, data_type::f32)));
  // no element: any two layouts of the same dims agree
  CHECK(memfmt::same_bytes(desc({2, 0, 3}, data_type::f32, "abc"), desc({2, 0, 3}, data_type::f32, "cba")));
  // compensation is part of what a reorder writes: it must match
  const desc w({32, 16, 3, 3}, data_type::s8, "OIhw4i16o4i");
  CHECK_FALSE(memfmt::same_bytes(w, w.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.0f, 0})));
}

TEST_CASE("unfold and fold refuse what they cannot do, naming the culprit", "[desc][unfold][errors]") {
  const desc nchw16({2, 17, 5, 4}, data_type::f32, "nChw16c");
  struct bad {
    std::string what;
    std::function<void()> run;
    std::vector<std::string_view> parts;
  };
  const std::vector<bad> bads{
      {"zero desc", [] { (void)desc().unfold(); }, {"unfold", "zero descriptor"}},
      {"any", [] { (void)desc::any({2, 3}, data_type::f32).unfold(); }, {"unfold", "any"}},
      {"compensation", [=] { (void)nchw16.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.0f, 0}).unfold(); },
       {"unfold", "extra information"}},
      {"a view of less than one block", [=] { (void)nchw16.submemory_desc({2, 5, 5, 4}, {0, 0, 0, 0}).unfold(); },
       {"unfold", "dim 1", "padded extent 5", "block 16"}},
      {"13 dims", [] { (void)desc(dims::filled(12, 2), data_type::f32, "aBcdefghijkl16b").unfold(); },
       {"unfold", "13 dims", "12 dims and 1 inner blocks", "max_ndims = 12"}},
      {"fold into any", [=] { (void)memfmt::fold(nchw16.unfold(), desc::any({2, 17, 5, 4}, data_type::f32)); },
       {"fold", "like", "any"}},
      {"fold of a blocked desc", [=] { (void)memfmt::fold(nchw16, nchw16); }, {"fold", "1 inner blocks", "strided"}},
      {"fold of the zero desc", [=] { (void)memfmt::fold(desc(), nchw16); }, {"fold", "zero descriptor"}},
      {"fold of the wrong rank", [=] { (void)memfmt::fold(desc({2, 2, 5, 4}, data_type::f32, dims{}), nchw16); },
       {"fold", "4 dims", "unfolds to 5"}},
      {"fold of a wrong extent", [=] { (void)memfmt::fold(desc({2, 2, 5, 4, 8}, data_type::f32, dims{}), nchw16); },
       {"fold", "dim 4", "extent 8", "16"}},
      {"fold of a wrong outer extent", [=] { (void)memfmt::fold(desc({2, 3, 5, 4, 16}, data_type::f32, dims{}), nchw16); },
       {"fold", "dim 1", "extent 3", "padded dim / block", "2"}},
      {"fold of a sparse inner block",
       [=] { (void)memfmt::fold(desc({2, 2, 5, 4, 16}, data_type::f32, dims{1280, 640, 128, 32, 2}), nchw16); },
       {"fold", "dim 4", "stride 2", "dense", "needs 1"}},
  };
  for (const bad& b : bads) {
    INFO(b.what);
    const std::string message = error_of(b.run);
    INFO("message: " << message);
    REQUIRE_FALSE(message.empty());
    for (std::string_view part : b.parts) CHECK(contains(message, part));
  }
  // at the limit: 11 dims and one block make 12
  CHECK(desc(dims::filled(11, 2), data_type::f32, "aBcdefghijk16b").unfold().get_ndims() == 12);
  // a zero-volume tensor unfolds and folds back
  const desc empty({2, 0, 3, 3}, data_type::f32, "nChw16c");
  CHECK(empty.unfold().get_dims() == dims{2, 0, 3, 3, 16});
  CHECK(memfmt::fold(empty.unfold(), empty) == empty);
}

TEST_CASE("same_bytes on one dim whose padded offset is off its block boundary: random 2-D views against brute force",
          "[desc][same_bytes]") {
  // Only dim 0 varies; its inner blocks interleave with dim 1's, so its offsets are not
  // a plain mixed radix. The tricky pairs agree on a whole lcm period of their blocks and
  // part ways just after it.
  const std::vector<std::string_view> tags{"ab", "Ab2a", "Ab3a", "Ab4a", "Ab6a", "Ab8a", "AB2a2b", "AB3a2b", "AB4a4b",
                                           "AB8a2b", "AB2a4b2a", "BA4b4a", "BA2b4a2b"};
  std::mt19937 rng(7);
  const auto pick = [&](dim lo, dim hi) { return std::uniform_int_distribution<dim>(lo, hi)(rng); };
  long agree_true = 0, agree_false = 0, tricky = 0, disagree = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const dim n = pick(2, 40);
    const auto make = [&] {
      const desc parent({n + 24, 1}, data_type::u8, tags[static_cast<std::size_t>(pick(0, static_cast<dim>(tags.size()) - 1))]);
      memfmt::desc_fields f = parent.fields();
      f.logical = {n, 1};
      f.padded_offsets = {pick(0, f.padded[0] - n), 0};
      f.strides = {pick(parent.get_blocking().block_size(), 3 * parent.get_blocking().block_size()), 0};
      f.offset0 = 1000;
      return f;
    };
    const memfmt::desc_fields fa = make();
    memfmt::desc_fields fb = make();
    const desc a = desc::from_fields(fa);
    fb.offset0 += a.offset({0, 0}) - desc::from_fields(fb).offset({0, 0});  // the same first element
    const desc b = desc::from_fields(fb);
    if (fa.padded_offsets[0] % a.get_blocks()[0] == 0 && fb.padded_offsets[0] % b.get_blocks()[0] == 0) continue;
    const bool brute = brute_same_bytes(a, b);
    if (memfmt::same_bytes(a, b) != brute || memfmt::same_bytes(b, a) != brute) {
      if (disagree++ == 0) {
        INFO("n " << n << " a " << a.tag_str() << " padded offset " << fa.padded_offsets[0] << " stride " << fa.strides[0]
                  << "; b " << b.tag_str() << " padded offset " << fb.padded_offsets[0] << " stride " << fb.strides[0]);
        CHECK(memfmt::same_bytes(a, b) == brute);
      }
      continue;
    }
    (brute ? agree_true : agree_false)++;
    const dim period = std::lcm(a.get_blocks()[0], b.get_blocks()[0]);
    bool agree_on_period = true;
    for (dim x = 0; x < std::min(n, period); ++x) agree_on_period = agree_on_period && a.offset({x, 0}) == b.offset({x, 0});
    tricky += agree_on_period && !brute;
  }
  CHECK(disagree == 0);
  CHECK(agree_true > 100);
  CHECK(agree_false > 10000);
  CHECK(tricky > 5);
}
