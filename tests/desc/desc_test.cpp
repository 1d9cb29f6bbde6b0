// memfmt::desc without oneDNN: constant evaluation, tag_str and str, every error with its
// message, zero-volume and `any` descriptors, compensation sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace {

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
namespace tags = memfmt::tags;

// ---- one descriptor, at compile time, from a typed tag and from a string ----
constexpr desc typed({2, 17, 5, 4}, data_type::f32, tags::nChw16c);
constexpr desc from_string({2, 17, 5, 4}, data_type::f32, "nChw16c");
static_assert(typed == from_string);
static_assert(typed.get_ndims() == 4);
static_assert(typed.get_dims() == dims{2, 17, 5, 4});
static_assert(typed.get_padded_dims() == dims{2, 32, 5, 4});  // 17 channels pad to 32
static_assert(typed.get_strides() == dims{640, 320, 64, 16});
static_assert(typed.get_inner_nblks() == 1 && typed.get_inner_blks() == dims{16} && typed.get_inner_idxs() == dims{1});
static_assert(typed.get_size() == 2 * 32 * 5 * 4 * sizeof(float));
static_assert(typed.get_format_kind() == memfmt::format_kind::blocked);
// (1, 16, 2, 3): n 640 + C (16 / 16) * 320 + h 2 * 64 + w 3 * 16 + c 16 % 16.
static_assert(typed.offset({1, 16, 2, 3}) == 1136);
static_assert(typed.offset({1, 15, 2, 3}) == 640 + 128 + 48 + 15);
static_assert(typed.offset({0, 0, 0, 0}) == 0);
static_assert(typed.matches("nChw16c") && typed.matches("aBcd16b") && typed.matches(tags::aBcd16b));
static_assert(!typed.matches("nchw") && !typed.matches("nChw8c") && !typed.matches(tags::nhwc) && !typed.matches("abc"));
static_assert(!typed.matches("not a tag"));
// The second block of 16 channels as a view: it starts one C stride in.
constexpr desc second_block = typed.submemory_desc({2, 1, 5, 4}, {0, 16, 0, 0});
static_assert(second_block.get_submemory_offset() == 320);
static_assert(second_block.offset({1, 0, 2, 3}) == 320 + 640 + 128 + 48 + 0);
static_assert(second_block.get_size() == 0);  // oneDNN's rule for views at an offset
// nchw -> nhwc by permuting axes is the acdb layout of the permuted dims.
constexpr desc nchw({2, 3, 4, 5}, data_type::f32, tags::nchw);
static_assert(nchw.permute_axes({0, 2, 3, 1}).get_dims() == dims{2, 5, 3, 4});
static_assert(nchw.permute_axes({0, 2, 3, 1}).matches("acdb"));
static_assert(nchw.reshape({6, 20}).get_strides() == dims{20, 1});
static_assert(nchw.reshape({2, 3, 1, 20}).get_strides() == dims{60, 20, 20, 1});
static_assert(desc({2, 3}, data_type::s8, dims{1, 2}).matches("ba"));
static_assert(desc({2, 3}, data_type::s8, dims{1, 2}).get_size() == 6);
static_assert(desc({2, 0, 3}, data_type::f32, "abc").get_size() == 0);
static_assert(desc::any({2, 3}, data_type::f32).get_format_kind() == memfmt::format_kind::any);
static_assert(desc().is_zero() && desc().get_ndims() == 0 && desc().get_format_kind() == memfmt::format_kind::undef);
static_assert(desc({2, 3}, data_type::f32, "ab", true) == desc({2, 3}, data_type::f32, dims{}));
static_assert(desc({2, 3}, data_type::f32, "nchw", true).is_zero());  // rejected, allow_empty

bool contains(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

/// The message of the memfmt::error `f` throws ("" when it throws nothing).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const memfmt::error& e) {
    return e.what();
  }
  return "";
}

struct bad_input {
  std::string what;
  std::function<void()> run;                     ///< must throw memfmt::error
  std::vector<std::string_view> message_parts;  ///< the culprit, as the message must name it
  std::function<desc()> allow_empty;             ///< the same input with allow_empty, if any
};

constexpr dim big = dim{1} << 31;

std::vector<bad_input> bad_inputs() {
  const desc nchw16({2, 32, 5, 4}, data_type::f32, "nChw16c");
  const desc ab({2, 4}, data_type::f32, "ab");
  const desc any = desc::any({2, 3}, data_type::f32);
  return {
      {"dims count vs tag", [] { desc({2, 3}, data_type::f32, "nchw"); }, {"nchw", "4-D", "2 dims"},
       [] { return desc({2, 3}, data_type::f32, "nchw", true); }},
      {"dims count vs typed tag", [] { desc({2, 3}, data_type::f32, tags::nchw); }, {"nchw", "4-D", "2 dims"}, {}},
      {"negative dim (tag)", [] { desc({2, -3, 4, 5}, data_type::f32, "nchw"); }, {"dim 1", "negative", "-3"},
       [] { return desc({2, -3, 4, 5}, data_type::f32, "nchw", true); }},
      {"negative dim (strides)", [] { desc({2, -3}, data_type::f32, dims{}); }, {"dim 1", "negative", "-3"},
       [] { return desc({2, -3}, data_type::f32, dims{}, true); }},
      {"negative dim (any)", [] { desc::any({-1}, data_type::f32); }, {"dim 0", "negative"}, {}},
      {"no dims", [] { desc({}, data_type::f32, dims{}); }, {"no dims"}, [] { return desc({}, data_type::f32, dims{}, true); }},
      {"undef data type", [] { desc({2}, data_type::undef, "a"); }, {"undef"},
       [] { return desc({2}, data_type::undef, "a", true); }},
      {"bytes past 2^63", [] { desc({big, big, 4}, data_type::f32, "abc"); }, {"2^63"},
       [] { return desc({big, big, 4}, data_type::f32, "abc", true); }},
      // 4 * (2^61 - 1) bytes fit; padded to a multiple of 16 they do not.
      {"padding past 2^63", [] { desc({(dim{1} << 61) - 1, 1}, data_type::f32, "Ab16a"); }, {"2^63"},
       [] { return desc({(dim{1} << 61) - 1, 1}, data_type::f32, "Ab16a", true); }},
      {"a dim past 2^62", [] { desc({(dim{1} << 62) + 1}, data_type::s8, "a"); }, {"dim 0", "overflow"},
       [] { return desc({(dim{1} << 62) + 1}, data_type::s8, "a", true); }},
      {"strides reaching past 2^63", [] { desc({2, 3}, data_type::f32, dims{dim{1} << 61, 1}); }, {"2^63"},
       [] { return desc({2, 3}, data_type::f32, dims{dim{1} << 61, 1}, true); }},
      {"overlapping strides", [] { desc({2, 3}, data_type::f32, dims{2, 1}); }, {"overlap", "stride"},
       [] { return desc({2, 3}, data_type::f32, dims{2, 1}, true); }},
      {"negative stride", [] { desc({2, 3}, data_type::f32, dims{3, -1}); }, {"stride 1", "negative", "-1"},
       [] { return desc({2, 3}, data_type::f32, dims{3, -1}, true); }},
      {"strides count", [] { desc({2, 3}, data_type::f32, dims{1}); }, {"1 strides", "2 dims"},
       [] { return desc({2, 3}, data_type::f32, dims{1}, true); }},
      {"not a permutation", [=] { ab.permute_axes({0, 0}); }, {"permutation"}, [=] { return ab.permute_axes({0, 0}, true); }},
      {"permutation of other size", [=] { ab.permute_axes({0}); }, {"permutation"}, [=] { return ab.permute_axes({0}, true); }},
      {"reshape of a blocked dim", [=] { nchw16.reshape({2, 160, 4}); }, {"reshape", "blocked"},
       [=] { return nchw16.reshape({2, 160, 4}, true); }},
      {"reshape to another volume", [=] { ab.reshape({3, 3}); }, {"reshape", "number of elements"},
       [=] { return ab.reshape({3, 3}, true); }},
      {"reshape of non-dense dims", [] { desc({2, 3}, data_type::f32, dims{4, 1}).reshape({6}); }, {"reshape", "dense"},
       [] { return desc({2, 3}, data_type::f32, dims{4, 1}).reshape({6}, true); }},
      {"reshape to dims whose product overflows", [=] { ab.reshape({dim{1} << 40, dim{1} << 40}); },
       {"reshape", "number of elements"}, [=] { return ab.reshape({dim{1} << 40, dim{1} << 40}, true); }},
      {"reshape to negative dims", [=] { ab.reshape({-2, -4}); }, {"reshape", "negative"}, [=] { return ab.reshape({-2, -4}, true); }},
      {"misaligned submemory offset", [=] { nchw16.submemory_desc({2, 8, 5, 4}, {0, 3, 0, 0}); }, {"dim 1", "offset 3", "16"},
       [=] { return nchw16.submemory_desc({2, 8, 5, 4}, {0, 3, 0, 0}, true); }},
      {"submemory of partial blocks", [=] { nchw16.submemory_desc({2, 20, 5, 4}, {0, 0, 0, 0}); }, {"dim 1", "size 20", "16"},
       [=] { return nchw16.submemory_desc({2, 20, 5, 4}, {0, 0, 0, 0}, true); }},
      {"submemory outside", [=] { ab.submemory_desc({2, 3}, {0, 2}); }, {"dim 1", "not inside"},
       [=] { return ab.submemory_desc({2, 3}, {0, 2}, true); }},
      {"submemory sizes count", [=] { ab.submemory_desc({2}, {0}); }, {"1 sizes", "2 dims"},
       [=] { return ab.submemory_desc({2}, {0}, true); }},
      {"submemory of any", [=] { any.submemory_desc({1, 1}, {0, 0}); }, {"blocked"},
       [=] { return any.submemory_desc({1, 1}, {0, 0}, true); }},
      {"offset in any", [=] { any.offset({0, 0}); }, {"blocked"}, {}},
      {"offset outside", [=] { ab.offset({2, 0}); }, {"index 2", "dim 0"}, {}},
      {"offset of negative index", [=] { ab.offset({0, -1}); }, {"index -1", "dim 1"}, {}},
      {"offset with wrong index count", [=] { ab.offset({0}); }, {"1 indices", "2 dims"}, {}},
      {"reshape of the zero desc", [] { desc().reshape({1}); }, {"zero"}, [] { return desc().reshape({1}, true); }},
      {"permute of the zero desc", [] { desc().permute_axes({}); }, {"permute"}, [] { return desc().permute_axes({}, true); }},
      {"plain of the zero desc", [] { desc().plain(); }, {"zero"}, {}},
      {"plain with a blocked tag", [=] { ab.plain("AB16a16b"); }, {"AB16a16b", "blocked"}, {}},
      {"extra on any", [=] { any.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.0f, 0}); }, {"blocked"}, {}},
      {"compensation mask past the dims", [=] { ab.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 4, 1.0f, 0}); },
       {"mask"}, {}},
  };
}

/// Row-major order of dims sorted by decreasing stride, ties by index: the documented
/// outer order of a descriptor built from strides.
std::string expected_order(const std::vector<dim>& strides) {
  std::vector<int> order(strides.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return strides[static_cast<std::size_t>(a)] > strides[static_cast<std::size_t>(b)];
  });
  std::string s;
  for (int d : order) s += static_cast<char>('a' + d);
  return s;
}

}  // namespace

TEST_CASE("every bad input throws memfmt::error naming the culprit; allow_empty gives the zero desc", "[desc][errors]") {
  for (const bad_input& bad : bad_inputs()) {
    INFO(bad.what);
    const std::string message = error_of(bad.run);
    INFO("message: " << message);
    REQUIRE_FALSE(message.empty());
    for (std::string_view part : bad.message_parts) CHECK(contains(message, part));
    if (bad.allow_empty) {
      desc result;
      CHECK_NOTHROW(result = bad.allow_empty());
      CHECK(result.is_zero());
      CHECK(result == desc());
    }
  }
}

TEST_CASE("the largest tensors that fit in 2^63 bytes are accepted", "[desc][errors]") {
  CHECK(desc({(dim{1} << 61) - 1, 1}, data_type::f32, "ab").get_size() == (std::size_t{1} << 63) - 4);
  CHECK(desc({dim{1} << 62}, data_type::u8, "a").get_size() == std::size_t{1} << 62);
  CHECK(desc({2, 3}, data_type::u8, dims{dim{1} << 61, 1}).get_size() == std::size_t{1} << 62);
}

TEST_CASE("matches() of a tag whose padding or strides would overflow is false, without overflowing", "[desc]") {
  // Found by tests/fuzz: aB64b pads dim 1 to 64, and its strides of {2^61, 3} pass 2^63.
  CHECK_FALSE(desc({dim{1} << 61, 3}, data_type::u8, "ab").matches("aB64b"));
  // Rounding 2^63 - 1 up to a block would overflow.
  CHECK_FALSE(desc({std::numeric_limits<dim>::max()}, data_type::u8, dims{1}).matches("A16a"));
  CHECK(desc({std::numeric_limits<dim>::max()}, data_type::u8, dims{1}).matches("a"));
}

TEST_CASE("tag_str of descriptors built from strides: the order by stride, ties by dim index", "[desc][str]") {
  CHECK(desc({2, 3, 4, 5}, data_type::f32, dims{60, 1, 15, 3}).tag_str() == "acdb");  // nhwc strides
  CHECK(desc({2, 3, 4, 5}, data_type::f32, dims{60, 20, 5, 1}).tag_str() == "abcd");
  CHECK(desc({2, 3, 4, 5}, data_type::f32, dims{1, 2, 6, 24}).tag_str() == "dcba");
  // Unit dims tie with their neighbours: the documented 1x16x1x1 examples.
  CHECK(desc({1, 16, 1, 1}, data_type::f32, dims{16, 1, 16, 16}).tag_str() == "acdb");
  CHECK(desc({1, 16, 1, 1}, data_type::f32, dims{16, 1, 1, 1}).tag_str() == "abcd");
  // Gaps do not change the order.
  CHECK(desc({2, 3}, data_type::f32, dims{1, 7}).tag_str() == "ba");
  // Blocked layouts built from tags, and after permute_axes.
  CHECK(desc({2, 17, 5, 4}, data_type::f32, "nChw16c").tag_str() == "aBcd16b");
  CHECK(desc({4, 8, 3, 3}, data_type::f32, "OIhw4i16o4i").tag_str() == "ABcd4b16a4b");
  CHECK(desc({2, 3, 4, 5}, data_type::f32, "nchw").permute_axes({0, 2, 3, 1}).tag_str() == "acdb");
  CHECK(desc({2, 32, 4, 5}, data_type::f32, "nChw16c").permute_axes({1, 0, 2, 3}).tag_str() == "bAcd16a");
  CHECK(desc::any({2, 3}, data_type::f32).tag_str() == "any");
  CHECK(desc().tag_str() == "undef");

  std::mt19937_64 rng(0x7a9);
  for (int round = 0; round < 2000; ++round) {
    const int n = std::uniform_int_distribution<int>(1, memfmt::max_ndims)(rng);
    std::vector<dim> d(static_cast<std::size_t>(n));
    for (dim& v : d) v = std::uniform_int_distribution<dim>(1, n > 6 ? 2 : 4)(rng);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<dim> s(static_cast<std::size_t>(n));
    dim next = 1;
    for (int k = n - 1; k >= 0; --k) {
      const std::size_t i = static_cast<std::size_t>(order[static_cast<std::size_t>(k)]);
      s[i] = next + std::uniform_int_distribution<dim>(0, 1)(rng);
      next = s[i] * d[i];
    }
    INFO("dims " << Catch::Detail::stringify(d) << " strides " << Catch::Detail::stringify(s));
    const desc md(d, data_type::f32, dims(s));
    CHECK(md.tag_str() == expected_order(s));
    // The printed tag names a layout this descriptor matches when it is dense.
    if (md.get_size() == static_cast<std::size_t>(dims(d).product()) * sizeof(float)) CHECK(md.matches(md.tag_str()));
  }
}

TEST_CASE("str: data type, padding and offset flags, kind, tag, extra", "[desc][str]") {
  CHECK(desc({2, 16, 3, 3}, data_type::f32, "nChw16c").str() == "f32::blocked:aBcd16b:f0");
  CHECK(desc({2, 17, 3, 3}, data_type::f32, "nChw16c").str() == "f32:p:blocked:aBcd16b:f0");
  CHECK(desc({2, 3}, data_type::s8, "ba").str() == "s8::blocked:ba:f0");
  CHECK(desc({4, 6}, data_type::bf16, "ab").submemory_desc({2, 6}, {2, 0}).str() == "bf16:o:blocked:ab:f0");
  CHECK(desc({2, 17, 3, 3}, data_type::u8, "nChw16c").submemory_desc({1, 17, 3, 3}, {1, 0, 0, 0}).str() ==
        "u8:po:blocked:aBcd16b:f0");
  CHECK(desc::any({2, 3}, data_type::f16).str() == "f16::any:any:f0");
  CHECK(desc({2, 17, 3, 3}, data_type::f64, "nChw8c").str() == "f64:p:blocked:aBcd8b:f0");
  CHECK(desc().str() == "undef::undef:undef:f0");
  const desc weights({2, 3}, data_type::s8, "ab");
  CHECK(weights.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.0f, 0}).str() == "s8::blocked:ab:f1:s8m1");
  CHECK(weights.with_extra({memfmt::extra_flags::compensation_conv_asymmetric_src, 0, 1.0f, 2}).str() ==
        "s8::blocked:ab:f8:zpm2");
}

TEST_CASE("zero-volume descriptors are valid and have size 0", "[desc]") {
  for (const char* tag : {"abc", "acb", "aBc16b", "ABc4a4b", "cba"}) {
    for (const dims& d : {dims{0, 3, 5}, dims{2, 0, 5}, dims{2, 3, 0}, dims{0, 0, 0}}) {
      INFO(tag << " " << Catch::Detail::stringify(d.to_vector()));
      const desc md(d, data_type::f32, tag);
      CHECK_FALSE(md.is_zero());
      CHECK(md.get_format_kind() == memfmt::format_kind::blocked);
      CHECK(md.get_size() == 0);
      CHECK(md.has_zero_dim());
      CHECK(md.get_dims() == d);
      CHECK(md.matches(tag));
      CHECK_THROWS_AS(md.offset({0, 0, 0}), memfmt::error);  // there is no element
      CHECK(md.submemory_desc(d, {0, 0, 0}) == md);
      CHECK(md.permute_axes({2, 1, 0}).get_size() == 0);
    }
  }
  CHECK(desc({3, 0}, data_type::f32, dims{}).get_size() == 0);
  CHECK(desc({3, 0}, data_type::f32, dims{0, 1}).get_size() == 0);
  CHECK(desc::any({0, 4}, data_type::f32).get_size() == 0);
  // A box of size 0 inside a non-empty tensor is itself empty.
  CHECK(desc({4, 4}, data_type::f32, "ab").submemory_desc({0, 4}, {4, 0}).get_size() == 0);
}

TEST_CASE("desc::any: dims and type only", "[desc]") {
  const desc a = desc::any({2, 3, 4}, data_type::s8);
  CHECK(a.get_format_kind() == memfmt::format_kind::any);
  CHECK(a.get_dims() == dims{2, 3, 4});
  CHECK(a.get_padded_dims() == dims{2, 3, 4});
  CHECK(a.get_data_type() == data_type::s8);
  CHECK(a.get_size() == 0);
  CHECK_FALSE(a.matches("abc"));
  CHECK(a == desc::any({2, 3, 4}, data_type::s8));
  CHECK_FALSE(a == desc::any({2, 3, 4}, data_type::u8));
  CHECK_FALSE(a == desc({2, 3, 4}, data_type::s8, "abc"));
  CHECK(a.reshape({6, 4}) == desc::any({6, 4}, data_type::s8));
  CHECK(a.permute_axes({2, 0, 1}) == desc::any({3, 4, 2}, data_type::s8));
}

TEST_CASE("plain(): the dense unblocked descriptor of the same dims", "[desc]") {
  const desc blocked({2, 17, 5, 4}, data_type::f32, "nChw16c");
  CHECK(blocked.plain() == desc({2, 17, 5, 4}, data_type::f32, "abcd"));
  CHECK(blocked.plain("nhwc") == desc({2, 17, 5, 4}, data_type::f32, "acdb"));
  CHECK(blocked.plain().get_size() == 2 * 17 * 5 * 4 * sizeof(float));
}

TEST_CASE("compensation is counted once after the data, padded to 4 bytes", "[desc]") {
  // docs/desc.md: a 2x3 s8 tensor with s8s8 compensation per dim 0 takes 16 bytes
  // (6 data bytes padded to 8, then 2 s32 values).
  const desc weights({2, 3}, data_type::s8, "ab");
  const desc s8s8 = weights.with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.0f, 0});
  CHECK(s8s8.get_size() == 16);
  CHECK(s8s8.get_data_size() == 8);
  CHECK(s8s8.get_compensation_size() == 8);
  // Both buffers: per dim 1 (3 values) and per dims 0 and 1 (6 values).
  const desc both = weights.with_extra({memfmt::extra_flags::compensation_conv_s8s8 |
                                            memfmt::extra_flags::compensation_conv_asymmetric_src,
                                        2, 1.0f, 3});
  CHECK(both.get_size() == 8 + 3 * 4 + 6 * 4);
  CHECK_FALSE(both == weights);
  CHECK_THROWS_WITH(s8s8.reshape({6}), Catch::Contains("compensation"));
  CHECK(s8s8.reshape({6}, true).is_zero());
  CHECK_THROWS_WITH(s8s8.permute_axes({1, 0}), Catch::Contains("compensation"));
}

TEST_CASE("descriptors of every data type", "[desc]") {
  for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16, data_type::s32, data_type::s8, data_type::u8}) {
    const desc md({3, 5}, dt, "ab");
    CHECK(md.get_size() == 15 * memfmt::data_type_size(dt));
    CHECK(md.get_data_type() == dt);
  }
}

TEST_CASE("dense strides of a zero-volume tensor that would overflow are rejected", "[desc][errors]") {
  const memfmt::dims huge{0, memfmt::dim{1} << 40, memfmt::dim{1} << 40};
  REQUIRE_THROWS_WITH(memfmt::desc(huge, memfmt::data_type::f32, memfmt::dims{}), Catch::Contains("overflow"));
  REQUIRE(memfmt::desc(huge, memfmt::data_type::f32, memfmt::dims{}, true).is_zero());
}
