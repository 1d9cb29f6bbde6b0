// The format-tag grammar without oneDNN: typed tags at compile time, every parser error
// with its message, and generated tags whose meaning is known by construction.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace {

using memfmt::blocking;
using memfmt::dim;
using memfmt::tag_problem;
namespace tags = memfmt::tags;

/// A blocking written out by hand: outer order, then (size, dim) blocks outermost first.
constexpr blocking make_blocking(std::initializer_list<int> order, std::initializer_list<std::pair<dim, int>> blocks) {
  blocking b;
  for (int d : order) b.order[static_cast<std::size_t>(b.ndims++)] = static_cast<std::int8_t>(d);
  for (auto [size, d] : blocks) {
    b.inner_blks[static_cast<std::size_t>(b.inner_nblks)] = size;
    b.inner_idxs[static_cast<std::size_t>(b.inner_nblks++)] = static_cast<std::int8_t>(d);
  }
  return b;
}

// ---- typed tags, checked by the compiler ----
static_assert(tags::nchw == tags::abcd);
static_assert(tags::nchw == tags::oihw);
static_assert(tags::abcd == memfmt::tag<"abcd">);
static_assert(tags::nChw16c == tags::aBcd16b);
static_assert(tags::nChw16c == memfmt::tag<"aBcd16b">);
static_assert(!(tags::nchw == tags::nhwc));
static_assert(tags::nhwc == tags::acdb);
static_assert(!(tags::nChw16c == tags::nChw8c));
static_assert(!(tags::abcd == tags::abcde));  // same letters, other ndims
static_assert(tags::OIhw4i16o4i == memfmt::tag<"ABcd4b16a4b">);
static_assert(tags::goihw == tags::abcde);
static_assert(tags::x == tags::a);
static_assert(tags::tnc == tags::abc);
static_assert(tags::ntc == tags::bac);  // t n c: t is logical 0
static_assert(tags::ldgOI32o4i == memfmt::tag<"abdEC32e4c">);
static_assert(tags::ldOi32o == memfmt::tag<"abDc32d">);
static_assert(tags::OhwI32o == memfmt::tag<"Acdb32a">);  // oneDNN's spelling quirk
static_assert(tags::nChw16c.abstract() == "aBcd16b");
static_assert(tags::nChw16c.name() == "nChw16c");
static_assert(decltype(tags::OIhw4i16o4i)::ndims == 4);
static_assert(decltype(tags::nCdhw8c)::layout == make_blocking({0, 1, 2, 3, 4}, {{8, 1}}));
static_assert(memfmt::tag_t<"ABcd8b16a2b">::layout == make_blocking({0, 1, 2, 3}, {{8, 1}, {16, 0}, {2, 1}}));
static_assert(memfmt::tag_t<"dcab">::layout == make_blocking({3, 2, 0, 1}, {}));
static_assert(memfmt::format_tag<decltype(tags::nchw)>);
static_assert(memfmt::format_tag<memfmt::tag_t<"aBc4b">>);
static_assert(!memfmt::format_tag<int>);
static_assert(!memfmt::format_tag<memfmt::blocking>);
static_assert(memfmt::parse_tag("nChw16x").problem == tag_problem::letter_not_a_dimension);
static_assert(memfmt::parse_tag("aBcd0b").problem == tag_problem::block_size_zero);
static_assert(memfmt::abstract_tag(memfmt::parse_tag("OIhw4i16o4i").layout).view() == "ABcd4b16a4b");

struct bad_tag {
  std::string_view tag;
  tag_problem problem;
  int position;
  char letter;                                  ///< 0 when the problem has no culprit character
  std::vector<std::string_view> message_parts;  ///< besides the quoted tag
};

// One minimal tag per problem, and the words its message must use.
const std::vector<bad_tag> bad_tags = {
    {"", tag_problem::empty, 0, 0, {"at least one dim"}},
    {"16c", tag_problem::empty, 0, 0, {"at least one dim"}},
    {"ab-c", tag_problem::not_a_letter, 2, '-', {"character '-'", "not a letter"}},
    {"_a", tag_problem::not_a_letter, 0, '_', {"character '_'"}},
    {"aBc16b.", tag_problem::not_a_letter, 6, '.', {"character '.'"}},
    {"abcdefghijklm", tag_problem::too_many_dims, 12, 'm', {"at most 12 dims"}},
    {"nChw16x", tag_problem::letter_not_a_dimension, 6, 'x', {"letter 'x'", "not a dimension", "4-D", "CNN"}},
    {"nCxw", tag_problem::letter_not_a_dimension, 2, 'x', {"letter 'x'", "not a dimension", "CNN"}},
    {"abce", tag_problem::letter_not_a_dimension, 3, 'e', {"letter 'e'", "not a dimension", "4-D", "abstract", "a..d"}},
    {"aBc16d", tag_problem::letter_not_a_dimension, 5, 'd', {"letter 'd'", "not a dimension", "3-D"}},
    {"abca", tag_problem::letter_used_twice, 3, 'a', {"letter 'a'", "twice"}},
    {"nchwC", tag_problem::letter_used_twice, 4, 'C', {"letter 'C'", "twice"}},
    {"ncdw", tag_problem::spatial_dims_incomplete, 4, 'h', {"letter 'h'", "missing", "spatial"}},
    {"nch", tag_problem::spatial_dims_incomplete, 3, 'w', {"letter 'w'", "missing", "spatial"}},
    {"aBc16bc", tag_problem::block_without_size, 6, 'c', {"letter 'c'", "no block size"}},
    {"aBc16", tag_problem::block_size_without_letter, 3, '1', {"block size", "followed by the dim"}},
    {"aBcd0b", tag_problem::block_size_zero, 5, 'b', {"letter 'b'", "block size of 0"}},
    {"aBc2000000000b", tag_problem::block_too_large, 3, '2', {"2^30"}},
    {"ABc65536a65536b", tag_problem::block_too_large, 9, '6', {"2^30"}},
    {"aBc16B", tag_problem::block_letter_uppercase, 5, 'B', {"letter 'B'", "lowercase"}},
    {"abc16b", tag_problem::blocked_dim_lowercase, 1, 'b', {"letter 'b'", "uppercase"}},
    {"nchw16c", tag_problem::blocked_dim_lowercase, 1, 'c', {"letter 'c'", "uppercase"}},
    {"aBc", tag_problem::uppercase_dim_not_blocked, 1, 'B', {"letter 'B'", "no inner block"}},
    {"NChw16c", tag_problem::uppercase_dim_not_blocked, 0, 'N', {"letter 'N'", "no inner block"}},
    {"Abc2a2a2a2a2a2a2a2a2a2a2a2a2a", tag_problem::too_many_blocks, 27, '2', {"at most 12 inner blocks"}},
};

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

TEST_CASE("each bad tag is reported with its problem, position and culprit", "[tag][errors]") {
  for (const bad_tag& bad : bad_tags) {
    INFO("tag '" << bad.tag << "'");
    const memfmt::tag_parse_result r = memfmt::parse_tag(bad.tag);
    CHECK_FALSE(r.ok());
    CHECK(static_cast<int>(r.problem) == static_cast<int>(bad.problem));
    CHECK(r.position == bad.position);
    if (bad.letter != 0) CHECK(r.letter == bad.letter);
  }
}

TEST_CASE("every tag problem has a bad tag that produces it", "[tag][errors]") {
  std::set<tag_problem> produced;
  for (const bad_tag& bad : bad_tags) produced.insert(memfmt::parse_tag(bad.tag).problem);
  for (int p = 1; p <= static_cast<int>(tag_problem::too_many_blocks); ++p) {
    INFO("tag_problem " << p);
    CHECK(produced.count(static_cast<tag_problem>(p)) == 1);
  }
  CHECK(produced.count(tag_problem::none) == 0);
}

TEST_CASE("the message names the tag, the culprit and the problem, from explain and from desc", "[tag][errors]") {
  for (const bad_tag& bad : bad_tags) {
    INFO("tag '" << bad.tag << "'");
    const std::string message = memfmt::explain(bad.tag, memfmt::parse_tag(bad.tag));
    INFO("message: " << message);
    CHECK(contains(message, "tag '" + std::string(bad.tag) + "'"));
    for (std::string_view part : bad.message_parts) CHECK(contains(message, part));
    CHECK(contains(message, "position " + std::to_string(bad.position)));

    // The run-time constructor throws memfmt::error with that same message ...
    bool thrown = false;
    try {
      memfmt::desc d({2, 3, 4, 5}, memfmt::data_type::f32, bad.tag);
    } catch (const memfmt::error& e) {
      thrown = true;
      CHECK(std::string(e.what()) == message);
    }
    CHECK(thrown);
    // ... and parse_tag_or_throw too; with allow_empty the result is the zero descriptor.
    CHECK_THROWS_AS(memfmt::parse_tag_or_throw(bad.tag), memfmt::error);
    const memfmt::desc empty({2, 3, 4, 5}, memfmt::data_type::f32, bad.tag, true);
    CHECK(empty.is_zero());
    CHECK(empty.get_ndims() == 0);
    CHECK(empty.get_format_kind() == memfmt::format_kind::undef);
    CHECK(empty == memfmt::desc());
  }
}

TEST_CASE("memfmt::error is a std::invalid_argument", "[tag][errors]") {
  CHECK_THROWS_AS(memfmt::parse_tag_or_throw("abca"), std::invalid_argument);
}

TEST_CASE("generated abstract tags parse to the order and blocks they were written from", "[tag]") {
  std::mt19937_64 rng(0x7a65);
  for (int round = 0; round < 4000; ++round) {
    const int n = std::uniform_int_distribution<int>(1, memfmt::max_ndims)(rng);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    // Up to 4 blocks on random dims, sizes 1..64: product <= 2^24, far below the limit.
    const int nblocks = std::uniform_int_distribution<int>(0, std::min(n + 1, 4))(rng);
    std::vector<std::pair<dim, int>> blocks;
    for (int k = 0; k < nblocks; ++k)
      blocks.emplace_back(std::uniform_int_distribution<dim>(1, 64)(rng), std::uniform_int_distribution<int>(0, n - 1)(rng));
    std::string text;
    for (int d : order) {
      const bool blocked = std::any_of(blocks.begin(), blocks.end(), [d](auto b) { return b.second == d; });
      text += static_cast<char>((blocked ? 'A' : 'a') + d);
    }
    for (auto [size, d] : blocks) text += std::to_string(size) + static_cast<char>('a' + d);
    INFO("tag " << text);

    const memfmt::tag_parse_result r = memfmt::parse_tag(text);
    REQUIRE(r.ok());
    CHECK(r.family == -1);
    CHECK(r.layout.ndims == n);
    for (int k = 0; k < n; ++k) CHECK(r.layout.order[static_cast<std::size_t>(k)] == order[static_cast<std::size_t>(k)]);
    REQUIRE(r.layout.inner_nblks == nblocks);
    for (int k = 0; k < nblocks; ++k) {
      CHECK(r.layout.inner_blks[static_cast<std::size_t>(k)] == blocks[static_cast<std::size_t>(k)].first);
      CHECK(r.layout.inner_idxs[static_cast<std::size_t>(k)] == blocks[static_cast<std::size_t>(k)].second);
    }
    // The tag was written in canonical form, so it is its own abstract tag.
    CHECK(memfmt::abstract_tag(r.layout).view() == text);
  }
}

TEST_CASE("every ordering of a family's dims maps onto the family's canonical logical order", "[tag]") {
  // (letters in canonical logical order) for each family and dim count oneDNN names.
  const std::vector<std::string> families = {"x",     "nc",    "ncw",    "nchw",   "ncdhw", "oi",    "oiw",
                                             "oihw",  "oidhw", "goiw",   "goihw",  "goidhw", "tnc",  "ldnc",
                                             "ldigo", "ldio"};
  int checked = 0;
  for (const std::string& canonical : families) {
    std::string letters = canonical;
    std::sort(letters.begin(), letters.end());
    do {
      // Expected abstract order: each letter's position in the canonical order.
      std::string expected;
      for (char c : letters) expected += static_cast<char>('a' + canonical.find(c));
      INFO("tag " << letters << ", expected " << expected);
      const memfmt::tag_parse_result r = memfmt::parse_tag(letters);
      REQUIRE(r.ok());
      CHECK(memfmt::abstract_tag(r.layout).view() == expected);
      // Blocking the second canonical dim by 8 (uppercase outer letter + "8<letter>").
      std::string blocked = letters;
      const char second = canonical.size() > 1 ? canonical[1] : canonical[0];
      blocked[blocked.find(second)] = static_cast<char>(second - 'a' + 'A');
      blocked += std::string("8") + second;
      std::string expected_blocked = expected;
      const char abstract_second = static_cast<char>('a' + (canonical.size() > 1 ? 1 : 0));
      expected_blocked[expected_blocked.find(abstract_second)] = static_cast<char>(abstract_second - 'a' + 'A');
      expected_blocked += std::string("8") + abstract_second;
      INFO("blocked " << blocked << ", expected " << expected_blocked);
      const memfmt::tag_parse_result rb = memfmt::parse_tag(blocked);
      REQUIRE(rb.ok());
      CHECK(memfmt::abstract_tag(rb.layout).view() == expected_blocked);
      ++checked;
    } while (std::next_permutation(letters.begin(), letters.end()));
  }
  CHECK(checked == 1343);  // the sum of the factorials of the families' sizes
}

TEST_CASE("typed tags agree with the run-time parser", "[tag]") {
  CHECK(decltype(tags::nChw16c)::layout == memfmt::parse_tag("nChw16c").layout);
  CHECK(decltype(tags::gOIhw4i16o4i)::layout == memfmt::parse_tag("gOIhw4i16o4i").layout);
  CHECK(decltype(tags::ldgOI32o4i)::layout == memfmt::parse_tag("ldgOI32o4i").layout);
  CHECK(decltype(tags::abcdefghijkl)::layout == memfmt::parse_tag("abcdefghijkl").layout);
  CHECK(memfmt::tag_t<"dcab">::abstract() == "dcab");
  CHECK(memfmt::tag_t<"hwigo">::abstract() == "decab");
}
