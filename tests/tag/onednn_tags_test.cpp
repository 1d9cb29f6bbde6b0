// Every oneDNN format tag name, parsed by memfmt (as a string and as a typed tag), against
// oneDNN's own descriptors for the same dims: the tag layer has no other ground truth.
#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "onednn_oracle.hpp"

namespace {

using memfmt::data_type;
using memfmt::dim;
using memfmt::dims;

/// What each typed tag `tags::NAME` computed at compile time, in list order (pointers, so
/// that the table is constant data rather than 987 copies made at start-up).
struct typed_info {
  const memfmt::blocking* layout;
  const memfmt::tag_text* abstract;
  std::string_view name;
};
constexpr typed_info typed_tags[] = {
#define MEMFMT_TAG_NAME(N) \
  {&decltype(memfmt::tags::N)::layout, &decltype(memfmt::tags::N)::abstract_text, decltype(memfmt::tags::N)::name()},
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
};

/// Descriptors from typed tags, for a sample of every family and blocking shape (the
/// typed constructor differs from the string one only in where the layout comes from).
struct typed_sample {
  std::string_view name;
  memfmt::desc (*make)(const dims&, data_type);
};
#define MEMFMT_SAMPLE(name) \
  typed_sample { #name, [](const dims& d, data_type dt) { return memfmt::desc(d, dt, memfmt::tags::name); } }
const typed_sample typed_samples[] = {
    MEMFMT_SAMPLE(a),          MEMFMT_SAMPLE(x),          MEMFMT_SAMPLE(ba),         MEMFMT_SAMPLE(nc),
    MEMFMT_SAMPLE(cn),         MEMFMT_SAMPLE(tnc),        MEMFMT_SAMPLE(ntc),        MEMFMT_SAMPLE(nchw),
    MEMFMT_SAMPLE(nhwc),       MEMFMT_SAMPLE(chwn),       MEMFMT_SAMPLE(oihw),       MEMFMT_SAMPLE(hwio),
    MEMFMT_SAMPLE(ncdhw),      MEMFMT_SAMPLE(ndhwc),      MEMFMT_SAMPLE(goihw),      MEMFMT_SAMPLE(giohw),
    MEMFMT_SAMPLE(dhwigo),     MEMFMT_SAMPLE(nChw16c),    MEMFMT_SAMPLE(nCdhw8c),    MEMFMT_SAMPLE(NChw16n16c),
    MEMFMT_SAMPLE(OIhw4i16o4i), MEMFMT_SAMPLE(gOIhw4i16o4i), MEMFMT_SAMPLE(OhwI32o),   MEMFMT_SAMPLE(gOhwI32o),
    MEMFMT_SAMPLE(gIOhw2i8o16i2o), MEMFMT_SAMPLE(gIOdhw2i8o16i2o), MEMFMT_SAMPLE(IOhw2i8o16i2o),
    MEMFMT_SAMPLE(ldigo),      MEMFMT_SAMPLE(ldgoi),      MEMFMT_SAMPLE(ldgOI32o4i), MEMFMT_SAMPLE(ldOi32o),
    MEMFMT_SAMPLE(aBcd16b),    MEMFMT_SAMPLE(ABcde16a16b2a), MEMFMT_SAMPLE(aBCdef16b16c2b),
    MEMFMT_SAMPLE(abcdefghijkl), MEMFMT_SAMPLE(abcdefghikj), MEMFMT_SAMPLE(BA16b4a),    MEMFMT_SAMPLE(decab),
};
#undef MEMFMT_SAMPLE

constexpr data_type all_types[] = {data_type::f32, data_type::bf16, data_type::s8, data_type::s32, data_type::f16,
                                   data_type::u8};

/// Dim sets for an n-D tag: all ones; random in [1, 70] (in [1, 8] above 6-D so that
/// the volume stays far from overflow); 17, 33 and 71 in each position in turn, which
/// pad every block size oneDNN uses (2..64) in every dim.
std::vector<std::vector<dim>> dim_sets(int n, std::mt19937_64& rng) {
  std::vector<std::vector<dim>> sets;
  sets.emplace_back(static_cast<std::size_t>(n), 1);
  std::uniform_int_distribution<dim> wide(1, n > 6 ? 8 : 70);
  for (int r = 0; r < 3; ++r) {
    std::vector<dim> d(static_cast<std::size_t>(n));
    for (dim& v : d) v = wide(rng);
    sets.push_back(d);
  }
  std::uniform_int_distribution<dim> narrow(1, 5);
  for (dim odd : {17, 33, 71})
    for (int pos = 0; pos < std::min(n, 3); ++pos) {
      std::vector<dim> d(static_cast<std::size_t>(n));
      for (dim& v : d) v = narrow(rng);
      d[static_cast<std::size_t>(pos)] = odd;
      sets.push_back(d);
    }
  return sets;
}

bool is_abstract_name(std::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'l') || (c >= 'A' && c <= 'L') || (c >= '0' && c <= '9');
  });
}

}  // namespace

TEST_CASE("the name list is oneDNN's: 987 distinct names", "[tag][onednn]") {
  const auto& tags = oracle::all_tags();
  CHECK(tags.size() == 987);  // dnnl.hpp 2.6.3's format_tag has 989 enumerators: these, undef and any
  std::vector<std::string_view> names;
  for (const auto& t : tags) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

TEST_CASE("every tag name: same descriptor as oneDNN, from the string and from the typed tag", "[tag][onednn]") {
  std::mt19937_64 rng(20240611);
  const auto& tags = oracle::all_tags();
  int compared = 0;
  for (std::size_t t = 0; t < tags.size(); ++t) {
    const auto& tag = tags[t];
    const int n = oracle::onednn_ndims(tag.onednn);
    INFO("tag " << tag.name);
    REQUIRE(n > 0);
    const memfmt::tag_parse_result parsed = memfmt::parse_tag(tag.name);
    REQUIRE(parsed.ok());
    CHECK(parsed.layout.ndims == n);
    CHECK(*typed_tags[t].layout == parsed.layout);
    CHECK(typed_tags[t].name == tag.name);
    CHECK(typed_tags[t].abstract->view() == memfmt::abstract_tag(parsed.layout).view());
    int k = 0;
    for (const auto& d : dim_sets(n, rng)) {
      const data_type dt = all_types[static_cast<std::size_t>(k++) % std::size(all_types)];
      INFO("dims " << oracle::show(d) << " " << memfmt::to_string(dt));
      const dnnl_memory_desc_t expected = oracle::by_tag(d, dt, tag.onednn);
      REQUIRE(expected.ndims == n);
      const memfmt::desc from_string(d, dt, tag.name);
      CHECK(oracle::difference(from_string, expected) == "");
      CHECK(from_string.matches(tag.name));
      ++compared;
    }
  }
  CHECK(compared > 987 * 8);
}

TEST_CASE("typed tags give the descriptors oneDNN gives", "[tag][onednn]") {
  std::mt19937_64 rng(7);
  std::map<std::string_view, dnnl::memory::format_tag> onednn;
  for (const auto& t : oracle::all_tags()) onednn[t.name] = t.onednn;
  for (const typed_sample& s : typed_samples) {
    INFO("tag " << s.name);
    REQUIRE(onednn.count(s.name) == 1);
    const int n = oracle::onednn_ndims(onednn[s.name]);
    for (const auto& d : dim_sets(n, rng)) {
      INFO("dims " << oracle::show(d));
      const memfmt::desc typed = s.make(d, data_type::f32);
      CHECK(oracle::difference(typed, oracle::by_tag(d, data_type::f32, onednn[s.name])) == "");
      CHECK(typed == memfmt::desc(d, data_type::f32, s.name));
    }
  }
}

TEST_CASE("two tags have equal layouts exactly when oneDNN's descriptors are equal", "[tag][onednn]") {
  // Dims larger than any block product (at most 64 per dim in oneDNN's tags) and all
  // different: every outer dim then has an extent of at least 2, so no stride is free
  // and oneDNN's equality is equality of layouts.
  const auto& tags = oracle::all_tags();
  std::map<int, std::vector<std::size_t>> by_ndims;
  for (std::size_t t = 0; t < tags.size(); ++t) by_ndims[oracle::onednn_ndims(tags[t].onednn)].push_back(t);
  const std::vector<dim> primes = {131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191};
  long equal_pairs = 0, pairs = 0;
  for (const auto& [n, members] : by_ndims) {
    std::vector<dim> d(primes.begin(), primes.begin() + n);
    if (n > 6) std::fill(d.begin() + 6, d.end(), 2);  // keep the volume inside int64
    std::vector<dnnl::memory::desc> onednn;
    std::vector<memfmt::blocking> mine;
    for (std::size_t t : members) {
      onednn.emplace_back(oracle::by_tag(d, data_type::f32, tags[t].onednn));
      mine.push_back(memfmt::parse_tag(tags[t].name).layout);
    }
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t j = 0; j < members.size(); ++j) {
        const bool same_layout = mine[i] == mine[j];
        const bool same_onednn = onednn[i] == onednn[j];
        if (same_layout != same_onednn) {
          INFO(tags[members[i]].name << " vs " << tags[members[j]].name);
          CHECK(same_layout == same_onednn);
        }
        // Names that share oneDNN's enumerator value are aliases by definition.
        if (tags[members[i]].onednn == tags[members[j]].onednn) CHECK(same_layout);
        equal_pairs += same_layout;
        ++pairs;
      }
  }
  CHECK(pairs > 987L * 100);
  CHECK(equal_pairs > 987L);  // aliases exist (nchw == abcd == oihw, ...)
}

TEST_CASE("the abstract tag of every name parses back to the same layout, and is oneDNN's abstract name",
          "[tag][onednn]") {
  const auto& tags = oracle::all_tags();
  // oneDNN spells each alias as an enumerator equal to an abstract one (nChw16c = aBcd16b):
  // that abstract name is the expected canonical text.
  std::map<dnnl::memory::format_tag, std::string_view> abstract_name;
  for (const auto& t : tags)
    if (is_abstract_name(t.name) && !abstract_name.count(t.onednn)) abstract_name[t.onednn] = t.name;
  int checked_against_onednn = 0;
  for (const auto& t : tags) {
    INFO("tag " << t.name);
    const memfmt::blocking b = memfmt::parse_tag(t.name).layout;
    const memfmt::tag_text text = memfmt::abstract_tag(b);
    const std::string_view canonical = text.view();
    CHECK(is_abstract_name(canonical));
    const memfmt::tag_parse_result again = memfmt::parse_tag(canonical);
    REQUIRE(again.ok());
    CHECK(again.layout == b);
    CHECK(again.family == -1);
    if (auto it = abstract_name.find(t.onednn); it != abstract_name.end()) {
      CHECK(canonical == it->second);
      ++checked_against_onednn;
    }
    if (is_abstract_name(t.name)) CHECK(canonical == t.name);
    // The descriptor's tag_str is the same canonical text (for dims that leave every outer
    // extent >= 2, so that the strides order all dims).
    std::vector<dim> d(static_cast<std::size_t>(b.ndims), 131);
    if (b.ndims > 6) std::fill(d.begin() + 6, d.end(), 2);
    CHECK(memfmt::desc(d, data_type::f32, t.name).tag_str() == canonical);
  }
  CHECK(checked_against_onednn > 900);
}

#else
int main() { return 77; }  // oneDNN not available: skipped
#endif
