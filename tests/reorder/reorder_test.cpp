// memfmt::reorder against the element-by-element reference: every tag pair of a set of
// layouts on small shapes, every data-type pair, views, attributes, padding, guard bytes
// past the destination, thread counts, and errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../support/reference.hpp"
#include <memfmt/reorder/cache.hpp>
#include <memfmt/reorder/pass/stage.hpp>

using namespace memfmt_test;
using memfmt::reorder;
using memfmt::reorder_attr;

namespace {

constexpr std::size_t guard = 64;  // bytes after the destination that must stay untouched

// Runs the plan `r` of src -> dst with attr and the reference on the same random source
// and the same random destination (for beta), and requires identical bytes, guard included.
void check_plan(const reorder& r, const desc& src, const desc& dst, const reorder_attr& attr = {}, std::uint32_t seed = 1) {
  std::mt19937 rng(seed);
  const std::size_t src_bytes = bytes_spanned(src), dst_bytes = bytes_spanned(dst);
  // exact sizes: AddressSanitizer sees any read past the source; the guard catches writes past the destination
  std::vector<unsigned char> s(std::max<std::size_t>(src_bytes, 1)), expected(dst_bytes + guard), actual;
  fill_random(src.get_data_type(), s.data(), s.size(), rng);
  fill_random(dst.get_data_type(), expected.data(), expected.size(), rng);
  actual = expected;
  reference_reorder(src, dst, attr, s.data(), expected.data());
  r.execute(s.data(), actual.data());
  if (actual != expected) {
    std::size_t first = 0;
    while (actual[first] == expected[first]) ++first;
    FAIL("reorder " << src.str() << " " << memfmt::describe(src) << " -> " << dst.str() << " " << memfmt::describe(dst)
                    << ": first differing byte " << first << " (element " << first / memfmt::data_type_size(dst.get_data_type())
                    << "), got " << int(actual[first]) << ", expected " << int(expected[first]) << "; "
                    << r.nests().size() << " nests" << (r.is_elementwise() ? ", element-wise" : ""));
  }
}

// One random source of `src` and one garbage destination of `dst` with the reference's
// result from them (no attribute): many runs of plans are checked against it, the
// reference computed once.
struct reference_run {
  std::vector<unsigned char> source, initial, expected;
};

// Kept for the process: the session runs once per kernel target, on the same problems.
const reference_run& make_reference_run(const desc& src, const desc& dst, std::uint32_t seed) {
  static std::map<std::tuple<std::string, std::string, std::uint32_t>, reference_run> runs;
  auto [at, added] = runs.try_emplace({src.str() + memfmt::describe(src), dst.str() + memfmt::describe(dst), seed});
  if (!added) return at->second;
  std::mt19937 rng(seed);
  reference_run& run = at->second;
  run.source.resize(bytes_spanned(src));
  run.initial.resize(bytes_spanned(dst));
  fill_random(src.get_data_type(), run.source.data(), run.source.size(), rng);
  fill_random(data_type::u8, run.initial.data(), run.initial.size(), rng);
  run.expected = run.initial;
  reference_reorder(src, dst, {}, run.source.data(), run.expected.data());
  return run;
}

// Runs `r` on run.source placed `src_at` bytes past a cache line boundary into
// run.initial placed `dst_at` bytes past one (any offset: memfmt takes void pointers),
// with a line of guard bytes before the destination and `guard` bytes after it, and
// requires the reference's bytes there and the guard bytes untouched.
void check_plan_at(const reorder& r, const reference_run& run, std::size_t src_at, std::size_t dst_at,
                   std::uint32_t seed, const memfmt::parallel_for_fn* parallel_for = nullptr) {
  std::mt19937 rng(seed);
  const std::size_t src_bytes = run.source.size(), dst_bytes = run.initial.size();
  // the first line boundary at least `before` bytes into v
  const auto line_at = [](std::vector<unsigned char>& v, std::size_t before) {
    const auto at = reinterpret_cast<std::uintptr_t>(v.data()) + before;
    return before + (64 - at % 64) % 64;
  };
  std::vector<unsigned char> s(64 + src_at + src_bytes), actual(64 + 64 + dst_at + dst_bytes + guard);
  const auto garbage = static_cast<unsigned char>(rng());  // around the destination: cheap, and not zero
  for (std::size_t k = 0; k < actual.size(); ++k) actual[k] = static_cast<unsigned char>(garbage + 131 * k);
  const std::size_t from = line_at(s, 0) + src_at;
  const std::size_t to = line_at(actual, 64) + dst_at;  // in `actual` itself: its own address decides the offset
  REQUIRE(reinterpret_cast<std::uintptr_t>(s.data() + from) % 64 == src_at);
  REQUIRE(reinterpret_cast<std::uintptr_t>(actual.data() + to) % 64 == dst_at);
  std::copy(run.source.begin(), run.source.end(), s.begin() + static_cast<std::ptrdiff_t>(from));
  std::copy(run.initial.begin(), run.initial.end(), actual.begin() + static_cast<std::ptrdiff_t>(to));
  std::vector<unsigned char> expected = actual;
  std::copy(run.expected.begin(), run.expected.end(), expected.begin() + static_cast<std::ptrdiff_t>(to));
  if (parallel_for != nullptr) {
    r.execute(s.data() + from, actual.data() + to, *parallel_for);
  } else {
    r.execute(s.data() + from, actual.data() + to);
  }
  if (actual != expected) {
    std::size_t first = 0;
    while (actual[first] == expected[first]) ++first;
    FAIL("reorder " << r.get_src_desc().str() << " -> " << r.get_dst_desc().str() << ", source " << src_at
                    << " and destination " << dst_at << " bytes past a line: first differing byte " << first
                    << " (destination bytes " << to << " to " << to + dst_bytes << "), got " << int(actual[first])
                    << ", expected " << int(expected[first]));
  }
}

// The same with a new plan.
void check(const desc& src, const desc& dst, const reorder_attr& attr = {}, std::uint32_t seed = 1) {
  check_plan(reorder(src, dst, attr), src, dst, attr, seed);
}

// Runs the plan `r` of an f32 src -> dst with no attribute through a caller's
// parallel_for, and requires the reference's bytes.
void check_parallel_for(const reorder& r, const desc& src, const desc& dst, const memfmt::parallel_for_fn& parallel_for,
                        std::uint32_t seed) {
  std::vector<float> s(src.get_size() / 4);
  std::mt19937 rng(seed);
  fill_random(data_type::f32, s.data(), src.get_size(), rng);
  std::vector<unsigned char> expected(dst.get_size(), 1), actual(dst.get_size(), 2);
  reference_reorder(src, dst, {}, s.data(), expected.data());
  r.execute(s.data(), actual.data(), parallel_for);
  REQUIRE(actual == expected);
}

const char* const tags4[] = {"nchw", "nhwc", "chwn", "nChw4c", "nChw8c", "nChw16c", "NChw16n16c", "NChw32n32c",
                             "OIhw16i16o", "OIhw4i16o4i", "OIhw8i8o", "IOhw16o16i", "OIhw2i8o4i", "Acdb32a", "ABcd8b16a2b",
                             "aBCd2b4c2b", "Abcd3a", "aBcd5b", "cdba", "bacd"};

const auto& all_types = memfmt::all_data_types;

}  // namespace

TEST_CASE("every pair of layouts, small shapes, f32", "[reorder]") {
  std::mt19937 rng(7);
  for (const char* a : tags4)
    for (const char* b : tags4) {
      const dims shape{static_cast<dim>(rng() % 19 + 1), static_cast<dim>(rng() % 37 + 1), static_cast<dim>(rng() % 3 + 1),
                       static_cast<dim>(rng() % 4 + 1)};
      INFO(a << " -> " << b);
      check(desc(shape, data_type::f32, a), desc(shape, data_type::f32, b));
    }
}

TEST_CASE("every pair of data types", "[reorder]") {
  for (data_type from : all_types)
    for (data_type to : all_types) {
      INFO(memfmt::to_string(from) << " -> " << memfmt::to_string(to));
      // (s4 and u4 take even strides only)
      const bool packed = memfmt::is_sub_byte(from) || memfmt::is_sub_byte(to);
      const dims shape = packed ? dims{2, 20, 3, 6} : dims{2, 19, 3, 5}, rows = packed ? dims{68, 130} : dims{67, 130};
      check(desc(shape, from, "nchw"), desc(shape, to, "nchw"));            // contiguous
      check(desc(shape, from, "nchw"), desc(shape, to, "nChw16c"));         // transpose, padding
      check(desc(shape, from, "nChw8c"), desc(shape, to, "nhwc"));          // from padding
      check(desc(rows, from, "ab"), desc(rows, to, "ba"));                  // large 2-D transpose
      check(desc({1000}, from, "a"), desc({1000}, to, "a"));                 // long rows, vector tails
    }
}

TEST_CASE("f64 in plain and blocked layouts: exact values, zero padding over garbage", "[reorder][f64]") {
  // each element's value from its logical index, with bits below f32's precision (a
  // rounding through f32 would show), and some negative
  const auto value = [](const dims& i) {
    const double whole = static_cast<double>(((i[0] * 31 + i[1]) * 7 + i[2]) * 5 + i[3]);
    return (i[1] % 3 == 1 ? -whole : whole) + 0x1p-30 * static_cast<double>(1 + i[3]);
  };
  const dims acts{2, 19, 3, 5}, weights{20, 12, 3, 3};
  struct problem {
    dims shape;
    const char *from, *to;
  };
  for (const problem& p : {problem{acts, "nchw", "nChw8c"}, problem{acts, "nChw8c", "nchw"}, problem{acts, "nhwc", "nChw16c"},
                           problem{acts, "nChw16c", "nChw8c"}, problem{weights, "oihw", "OIhw8i8o"},
                           problem{weights, "OIhw8i8o", "oihw"}, problem{weights, "oihw", "OIhw4i16o4i"}})
    for (const auto& types : {std::pair{data_type::f64, data_type::f64}, std::pair{data_type::f64, data_type::f32},
                              std::pair{data_type::f32, data_type::f64}, std::pair{data_type::f64, data_type::s32}}) {
      const data_type from = types.first, to = types.second;
      INFO(p.from << " -> " << p.to << ", " << memfmt::to_string(from) << " -> " << memfmt::to_string(to));
      const desc src(p.shape, from, p.from), dst(p.shape, to, p.to);
      const std::size_t ssize = memfmt::data_type_size(from), dsize = memfmt::data_type_size(to);
      std::vector<unsigned char> s(src.get_size(), 0xEE), d(dst.get_size() + guard, 0xA5);  // garbage: NaN in f64 and f32
      for_each_index(p.shape, [&](const dims& i) {
        const double v = value(i);
        const float narrow = static_cast<float>(v);
        std::memcpy(&s[static_cast<std::size_t>(src.offset(i)) * ssize], from == data_type::f64 ? static_cast<const void*>(&v) : &narrow, ssize);
      });
      reorder(src, dst).execute(s.data(), d.data());
      std::vector<bool> element(dst.get_size() / dsize, false);
      std::size_t wrong = 0;
      for_each_index(p.shape, [&](const dims& i) {
        const auto at = static_cast<std::size_t>(dst.offset(i));
        element[at] = true;
        // what each conversion gives: f64 itself; f32 rounded once (the hardware's
        // conversion); f32 -> f64 the f32 exactly; s32 rounded half to even
        const double v = value(i);
        const double source = from == data_type::f64 ? v : static_cast<double>(static_cast<float>(v));
        unsigned char want[8] = {};
        if (to == data_type::f64) {
          std::memcpy(want, &source, 8);
        } else if (to == data_type::f32) {
          const float f = static_cast<float>(source);
          std::memcpy(want, &f, 4);
        } else {
          const auto n = static_cast<std::int32_t>(std::nearbyint(source));
          std::memcpy(want, &n, 4);
        }
        wrong += std::memcmp(&d[at * dsize], want, dsize) != 0;
      });
      CHECK(wrong == 0);
      std::size_t padding_written = 0;
      for (std::size_t k = 0; k < element.size(); ++k)
        if (!element[k]) padding_written += std::all_of(&d[k * dsize], &d[k * dsize] + dsize, [](unsigned char b) { return b == 0; });
      CHECK(padding_written == static_cast<std::size_t>(std::count(element.begin(), element.end(), false)));
      CHECK(std::all_of(d.end() - guard, d.end(), [](unsigned char b) { return b == 0xA5; }));
    }
}

TEST_CASE("larger random shapes and tag pairs", "[reorder]") {
  std::mt19937 rng(11);
  for (int t = 0; t < 60; ++t) {
    const char* a = tags4[rng() % std::size(tags4)];
    const char* b = tags4[rng() % std::size(tags4)];
    const data_type from = all_types[rng() % std::size(all_types)], to = all_types[rng() % std::size(all_types)];
    const dims shape{static_cast<dim>(rng() % 5 + 1), static_cast<dim>(rng() % 100 + 1), static_cast<dim>(rng() % 9 + 1),
                     static_cast<dim>(rng() % 17 + 1)};
    INFO(a << " -> " << b << " " << memfmt::to_string(from) << " -> " << memfmt::to_string(to));
    const desc src(shape, from, a, true), dst(shape, to, b, true);
    if (src.is_zero() || dst.is_zero()) {  // (s4 and u4 refuse odd strides: draw again)
      --t;
      continue;
    }
    check(src, dst, {}, static_cast<std::uint32_t>(t));
  }
}

TEST_CASE("other ranks: 1 to 6 dims and 12", "[reorder]") {
  check(desc({33}, data_type::f32, "a"), desc({33}, data_type::s8, "A16a"));
  check(desc({5, 70}, data_type::bf16, "ab"), desc({5, 70}, data_type::bf16, "BA16a64b"));
  check(desc({70, 130}, data_type::f32, "ab"), desc({70, 130}, data_type::f32, "BA16a64b"));
  check(desc({3, 17, 9}, data_type::f32, "ncw"), desc({3, 17, 9}, data_type::f32, "nCw16c"));
  check(desc({2, 17, 3, 4, 5}, data_type::f32, "ncdhw"), desc({2, 17, 3, 4, 5}, data_type::f32, "nCdhw8c"));
  check(desc({2, 17, 33, 3, 4, 5}, data_type::f32, "goidhw"), desc({2, 17, 33, 3, 4, 5}, data_type::s8, "gOIdhw4i16o4i"));
  const dims twelve{2, 1, 3, 2, 1, 2, 3, 1, 2, 2, 3, 2};
  check(desc(twelve, data_type::f32, "abcdefghijkl"), desc(twelve, data_type::f32, "lkjihgfedcba"));
  check(desc(twelve, data_type::s8, "abcdefghijkl"), desc(twelve, data_type::s8, "aBcdefghijkl4b"));
}

TEST_CASE("strided and submemory views", "[reorder]") {
  const dims shape{2, 5, 4, 3};
  // gaps between dims, both sides
  const desc gappy(shape, data_type::f32, dims{200, 40, 9, 2});
  check(gappy, desc(shape, data_type::f32, "nChw8c"));
  check(desc(shape, data_type::s8, "nhwc"), desc(shape, data_type::s8, dims{300, 1, 70, 7}));
  reorder_attr zero_points;  // applied to every element of a gapped view too
  zero_points.src_zero_points = memfmt::zero_points::common(2);
  zero_points.dst_zero_points = memfmt::zero_points::common(-4);
  check(desc(shape, data_type::u8, "nchw"), desc(shape, data_type::s32, dims{300, 1, 70, 7}), zero_points);
  check(desc(shape, data_type::u8, dims{200, 40, 9, 2}), desc(shape, data_type::f32, "nchw"), zero_points);
  // broadcast source (stride 0), also along the rows of a transpose
  check(desc(shape, data_type::f32, dims{0, 12, 3, 1}), desc(shape, data_type::f32, "nhwc"));
  check(desc({4, 3}, data_type::f32, dims{1, 0}), desc({4, 3}, data_type::f32, "aB4b"));
  check(desc({64, 3}, data_type::s32, dims{1, 0}), desc({64, 3}, data_type::s32, "BA16a64b"));
  check(desc({5, 2, 4}, data_type::bf16, dims{8, 0, 1}), desc({5, 2, 4}, data_type::bf16, "ABc16a16b"));
  // a view of channels 16..31 of a blocked tensor, into a plain tensor and back
  const desc parent({2, 40, 3, 3}, data_type::f32, "nChw16c");
  const desc view = parent.submemory_desc({2, 16, 3, 3}, {0, 16, 0, 0});
  check(view, desc({2, 16, 3, 3}, data_type::f32, "nchw"));
  check(desc({2, 16, 3, 3}, data_type::bf16, "nhwc"), view);
  check(desc({2, 16, 3, 3}, data_type::f32, "nhwc"), view);
  // the right border view owns padding: it is written as zeros
  const desc tail = parent.submemory_desc({1, 8, 3, 3}, {1, 32, 0, 0});
  check(desc({1, 8, 3, 3}, data_type::f32, "nchw"), tail);
  // channels 0..6 of a block of 16, away from the end: no padding of its own, and the
  // other channels of the block belong to the parent (oneDNN 2.6 writes them)
  const desc part_of_block = parent.submemory_desc({2, 7, 3, 3}, {0, 16, 0, 0});
  REQUIRE(part_of_block.get_padded_dims()[1] == 7);
  check(desc({2, 7, 3, 3}, data_type::f32, "nchw"), part_of_block);
  check(desc({2, 7, 3, 3}, data_type::s8, "nhwc"), part_of_block);
}

TEST_CASE("attributes: scales, zero points, sum", "[reorder][attr]") {
  const dims shape{3, 19, 2, 5};
  reorder_attr common;
  common.src_scales = {0, {0.37f}};
  check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::s8, "nChw16c"), common);
  common.dst_scales = {0, {1.9f}};
  check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::u8, "nhwc"), common);

  reorder_attr per_channel;
  per_channel.src_scales.mask = 1 << 1;
  for (int c = 0; c < 19; ++c) per_channel.src_scales.values.push_back(0.5f + 0.25f * c);
  check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::s8, "nChw16c"), per_channel);
  check(desc(shape, data_type::f32, "nhwc"), desc(shape, data_type::s8, "nChw8c"), per_channel);
  per_channel.dst_scales.mask = (1 << 0) | (1 << 1);
  for (int k = 0; k < 3 * 19; ++k) per_channel.dst_scales.values.push_back(1.f + 0.125f * (k % 7));
  check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::bf16, "NChw16n16c"), per_channel);
  reorder_attr apart;  // masked dims that are not neighbours: one scale per (n, h)
  apart.src_scales.mask = (1 << 0) | (1 << 2);
  for (int k = 0; k < 3 * 2; ++k) apart.src_scales.values.push_back(0.5f + 0.75f * k);
  check(desc(shape, data_type::f32, "nhwc"), desc(shape, data_type::s8, "nChw16c"), apart);
  check(desc(shape, data_type::bf16, "nchw"), desc(shape, data_type::f32, "nhwc"), apart);

  reorder_attr zero_points;
  zero_points.src_zero_points = memfmt::zero_points::common(3);
  zero_points.dst_zero_points = memfmt::zero_points::common(-7);
  check(desc(shape, data_type::u8, "nchw"), desc(shape, data_type::s8, "nhwc"), zero_points);
  check(desc(shape, data_type::s32, "nhwc"), desc(shape, data_type::f32, "nChw16c"), zero_points);
  // s32 with only zero points stays in integers: exact beyond 2^24, saturated
  check(desc(shape, data_type::s32, "nchw"), desc(shape, data_type::s32, "nhwc"), zero_points);
  check(desc(shape, data_type::s32, "nchw"), desc(shape, data_type::s8, "nChw16c"), zero_points);
  check(desc(shape, data_type::u8, "nchw"), desc(shape, data_type::s32, "nChw8c"), zero_points);
  check(desc({2, 3}, data_type::s32, "ab"), desc({2, 3}, data_type::s32, "AB2a3b"), zero_points);  // element-wise plan

  reorder_attr sum;
  sum.sum_beta = 0.5f;
  check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::f32, "nChw16c"), sum);
  sum.src_scales = {0, {2.f}};
  sum.dst_zero_points = memfmt::zero_points::common(1);
  check(desc(shape, data_type::s8, "nchw"), desc(shape, data_type::s8, "nchw"), sum);
}

TEST_CASE("sum with destination scales: dst = (s_src * x + beta * dst) / s_dst, per index too",
          "[reorder][attr]") {
  // Against the contract itself, not the reference's arithmetic: powers of two and small
  // integers, so that every step is exact in f32 and the formula has one answer.
  const dims shape{2, 3, 4, 5};
  const desc src(shape, data_type::f32, "nchw"), dst(shape, data_type::f32, "nhwc");
  std::vector<float> in(static_cast<std::size_t>(src.get_size() / 4)), old(static_cast<std::size_t>(dst.get_size() / 4));
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>(static_cast<int>(k % 13) - 6);
  for (std::size_t k = 0; k < old.size(); ++k) old[k] = static_cast<float>(static_cast<int>(k % 7) - 3);
  const float dst_scales_per_channel[] = {0.5f, 2.f, 4.f};
  for (const bool per_channel : {false, true}) {
    for (const bool per_channel_src : {false, true}) {
      reorder_attr attr;
      attr.sum_beta = 0.5f;
      attr.src_zero_points = {};
      attr.dst_zero_points = {};
      attr.src_scales = per_channel_src ? memfmt::scales{1 << 1, {2.f, 0.25f, 1.f}} : memfmt::scales{0, {2.f}};
      attr.dst_scales = per_channel ? memfmt::scales{1 << 1, {0.5f, 2.f, 4.f}} : memfmt::scales{0, {4.f}};
      std::vector<float> out = old;
      reorder(src, dst, attr).execute(in.data(), out.data());
      for_each_index(shape, [&](const dims& i) {
        const float s_src = attr.src_scales.values[per_channel_src ? static_cast<std::size_t>(i[1]) : 0];
        const float s_dst = per_channel ? dst_scales_per_channel[i[1]] : 4.f;
        const double x = in[static_cast<std::size_t>(src.offset(i))];
        const double before = old[static_cast<std::size_t>(dst.offset(i))];
        const double expected = (s_src * x + 0.5 * before) / s_dst;
        INFO("per-channel dst scales " << per_channel << ", src scales " << per_channel_src << ", index " << i[0]
                                       << ' ' << i[1] << ' ' << i[2] << ' ' << i[3]);
        CHECK(out[static_cast<std::size_t>(dst.offset(i))] == static_cast<float>(expected));
      });
    }
  }
}

// The compensation after the data, recomputed from the quantized weights the reorder
// wrote: per index of the mask (row-major over the padded masked dims), -128 * sum for
// s8s8 and -sum for zero points, over every layout (also those oneDNN 2.6 gets wrong).
TEST_CASE("weights compensation in any layout", "[reorder][compensation]") {
  struct weights {
    dims shape;
    const char* src_tag;
    const char* dst_tag;
    int mask;
  };
  const weights cases[] = {{{19, 5, 3, 2}, "oihw", "iohw", 1 << 0},
                           {{19, 5, 3, 2}, "oihw", "ihwo", 1 << 0},
                           {{33, 21, 3, 3}, "oihw", "OIhw4i16o4i", 1 << 0},
                           {{3, 2, 5, 3, 3}, "goihw", "Goihw8g", (1 << 0) | (1 << 1)},
                           {{2, 17, 5, 2, 2}, "goihw", "gOIhw16i16o", (1 << 0) | (1 << 1)}};
  using memfmt::extra_flags::compensation_conv_asymmetric_src;
  using memfmt::extra_flags::compensation_conv_s8s8;
  for (const weights& w : cases)
    for (std::uint32_t flags : {compensation_conv_s8s8, compensation_conv_asymmetric_src,
                                compensation_conv_s8s8 | compensation_conv_asymmetric_src | memfmt::extra_flags::scale_adjust}) {
      const desc src(w.shape, data_type::f32, w.src_tag);
      const desc dst = desc(w.shape, data_type::s8, w.dst_tag).with_extra(weights_extra(flags, w.mask));
      INFO(w.dst_tag << " flags " << flags);
      reorder_attr attr;
      attr.src_scales = {0, {30.f}};
      std::mt19937 rng(3);
      std::vector<float> s(src.get_size() / 4);
      std::uniform_real_distribution<float> value(-3.f, 3.f);  // mostly inside s8 once scaled: real sums
      for (float& v : s) v = value(rng);
      std::vector<unsigned char> out(dst.get_size(), 0xCD), data(dst.get_size(), 0xCD);
      reorder(src, dst, attr).execute(s.data(), out.data());
      reference_reorder(src, dst, attr, s.data(), data.data());
      CHECK(std::equal(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(dst.get_data_size()), out.begin()));
      const std::size_t count = dst.masked_volume(w.mask);
      std::vector<std::int64_t> sums(count, 0);
      for_each_index(w.shape, [&](const dims& i) {
        sums[static_cast<std::size_t>(masked_row_major(dst.get_padded_dims(), i, w.mask))] +=
            static_cast<std::int8_t>(out[static_cast<std::size_t>(dst.offset(i))]);
      });
      std::vector<std::int32_t> expected;
      if ((flags & compensation_conv_s8s8) != 0)
        for (std::int64_t sum : sums) expected.push_back(static_cast<std::int32_t>(-128 * sum));
      if ((flags & compensation_conv_asymmetric_src) != 0)
        for (std::int64_t sum : sums) expected.push_back(static_cast<std::int32_t>(-sum));
      REQUIRE(dst.get_compensation_size() == expected.size() * 4);
      std::vector<std::int32_t> written(expected.size());
      std::memcpy(written.data(), out.data() + dst.get_data_size(), written.size() * 4);
      CHECK(written == expected);
      // a destination at an odd address: the same bytes (the s32 values are not aligned)
      std::vector<unsigned char> odd(dst.get_size() + 1, 0xCD);
      reorder(src, dst, attr).execute(s.data(), odd.data() + 1);
      CHECK(std::equal(out.begin(), out.end(), odd.begin() + 1));
    }
}

// The reference's own compensation, on weights small enough to sum by hand: 2 output
// channels x 3 input channels, f32 {1, 2, -4} and {100, 50, -3} times 2 into s8 ba
// (200 saturates to 127), or times 2 * 0.5 with scale_adjust.
TEST_CASE("the reference writes the compensation of the quantized weights", "[reorder][compensation]") {
  using namespace memfmt::extra_flags;
  const float weights[] = {1.f, 2.f, -4.f, 100.f, 50.f, -3.f};
  const desc src({2, 3}, data_type::f32, "ab");
  reorder_attr attr;
  attr.src_scales = {0, {2.f}};
  struct expectation {
    std::uint32_t flags;
    std::vector<std::int8_t> data;        // in ba order: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2)
    std::vector<std::int32_t> compensation;  // s8s8 per output channel, then zero point
  };
  const expectation cases[] = {
      {compensation_conv_s8s8 | compensation_conv_asymmetric_src, {2, 127, 4, 100, -8, -6}, {256, -28288, 2, -221}},
      {compensation_conv_s8s8 | compensation_conv_asymmetric_src | scale_adjust, {1, 100, 2, 50, -4, -3},
       {128, -18816, 1, -147}},
      {compensation_conv_asymmetric_src, {2, 127, 4, 100, -8, -6}, {2, -221}}};
  for (const expectation& e : cases) {
    const desc dst = desc({2, 3}, data_type::s8, "ba").with_extra(weights_extra(e.flags, 1));
    INFO("flags " << e.flags);
    REQUIRE(dst.get_compensation_size() == e.compensation.size() * 4);
    std::vector<unsigned char> out(dst.get_size(), 0xCD);
    reference_reorder(src, dst, attr, weights, out.data());
    std::vector<std::int8_t> data(6);
    std::memcpy(data.data(), out.data(), 6);
    CHECK(data == e.data);
    std::vector<std::int32_t> written(e.compensation.size());
    std::memcpy(written.data(), out.data() + dst.get_data_size(), written.size() * 4);
    CHECK(written == e.compensation);
  }
}

TEST_CASE("s32 zero points with scales whose factor is 1 stay exact beyond 2^24", "[reorder][attr]") {
  // 2^24 + 1 and its neighbours are not floats: through f32 they would round to even
  const std::int32_t in[] = {16777217, -16777219, 2147483600, -2147483000};
  const std::int32_t expected[] = {16777217 + 120 + 5, -16777219 + 120 + 5, 2147483647, -2147483000 + 125};
  const desc d({4}, data_type::s32, "a");
  for (const auto& [s_src, s_dst] : {std::pair{1.f, 1.f}, std::pair{2.f, 2.f}, std::pair{0.375f, 0.375f}}) {
    reorder_attr attr;
    attr.src_zero_points = memfmt::zero_points::common(-120);
    attr.dst_zero_points = memfmt::zero_points::common(5);
    attr.src_scales = {0, {s_src}};
    if (s_dst != 1.f) attr.dst_scales = {0, {s_dst}};
    std::int32_t out[4] = {};
    reorder(d, d, attr).execute(in, out);
    INFO("scales " << s_src << " / " << s_dst);
    CHECK(std::equal(std::begin(out), std::end(out), std::begin(expected)));
  }
}

TEST_CASE("plans whose kernels own three or more loops", "[reorder][plan]") {
  // Shapes that make the kernels own a third loop (a copy of short rows whose loop
  // around them is short; a transpose whose columns span two loops: the 3x3 of oihw),
  // or a gather block of several loops; plain, converting and on the integer path.
  reorder_attr zero_points;
  zero_points.src_zero_points = memfmt::zero_points::common(3);
  const dims weights{32, 32, 3, 3}, activations{1, 32, 3, 3};
  for (const reorder_attr& attr : {reorder_attr{}, zero_points}) {
    check(desc(weights, data_type::s8, "oihw"), desc(weights, data_type::s32, "hwio"), attr);
    check(desc(weights, data_type::f32, "oihw"), desc(weights, data_type::f32, "OIhw16i16o"), attr);
    check(desc(activations, data_type::s8, "nChw16c"), desc(activations, data_type::s32, "nChw8c"), attr);
    check(desc({2, 2, 2, 4}, data_type::s32, "dcba"), desc({2, 2, 2, 4}, data_type::s32, "abcd"), attr);
  }
  // padding written with the rows it follows: partial channel blocks of every width
  for (const dim channels : {1, 7, 9, 15, 17, 71})
    for (const char* tag : {"nChw8c", "nChw16c"}) {
      const dims shape{2, channels, 5, 3};
      check(desc(shape, data_type::f32, "nchw"), desc(shape, data_type::f32, tag));
      check(desc(shape, data_type::f32, "nhwc"), desc(shape, data_type::bf16, tag));
      check(desc(shape, data_type::u8, "nhwc"), desc(shape, data_type::s32, tag), zero_points);
    }
}

TEST_CASE("channel blocks of many pixels: the blocks inside the pixels, unless rows are short and blocks many",
          "[reorder][plan]") {
  // nhwc -> nChw{8,16}c over 48 x 48 pixels (more than a tile): the copy's rows are a
  // channel block of one pixel; K walks the blocks, J the pixels
  const dims shape{2, 32, 48, 48};
  const dim pixels = 48 * 48;
  const auto copy_nest = [](const memfmt::reorder& r) {
    REQUIRE(r.nests().size() == 1);
    const memfmt::detail::nest& n = r.nests()[0].loops;
    REQUIRE(n.kind == memfmt::detail::kernel_kind::copy);
    REQUIRE(n.nloops >= 3);
    return n;
  };
  {  // rows of 64 bytes: the blocks of a pixel one after the other, the pixels in order
    const desc src(shape, data_type::f32, "nhwc"), dst(shape, data_type::f32, "nChw16c");
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == 16);
    CHECK(n.loops[n.nloops - 2].dst_stride == 16 * pixels);  // K inside
    CHECK(n.loops[n.nloops - 3].src_stride == 32);            // J around it
    check(src, dst);
  }
  for (const auto& [type, tag, block] : {std::tuple{data_type::f32, "nChw8c", dim{8}}, std::tuple{data_type::bf16, "nChw16c", dim{16}}}) {
    // rows of 32 bytes, few blocks: tiles of pixels, the blocks inside each pixel, all
    // three owned by the kernel (it fills a line of each block's plane from two pixels)
    const desc src(shape, data_type::f32, "nhwc"), dst(shape, type, tag);
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == block);
    CHECK(n.loops[n.nloops - 2].dst_stride == block * pixels);  // K inside
    CHECK(n.loops[n.nloops - 3].dst_stride == block);           // a tile of pixels around it
    CHECK(n.loops[n.nloops - 3].extent < pixels);
    CHECK(n.owned_loops() == 3);
    check(src, dst);
  }
  {
    // rows of 32 bytes, more than a tile of pixels but no tile that divides them (127 x 127):
    // K stays outside, where threads can share it out
    const dims odd{1, 32, 127, 127};
    const desc src(odd, data_type::f32, "nhwc"), dst(odd, data_type::f32, "nChw8c");
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == 8);
    CHECK(n.loops[n.nloops - 2].dst_stride == 8);  // the pixels
    CHECK(n.loops[n.nloops - 3].dst_stride == 8 * 127 * 127);  // K around them
    check(src, dst);
  }
  {
    // rows of 32 bytes, as many blocks as the kernel would not own: K passes over tiles
    const dims wide{1, 8 * memfmt::detail::nest::few_rows, 48, 48};
    const desc src(wide, data_type::f32, "nhwc"), dst(wide, data_type::f32, "nChw8c");
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == 8);
    CHECK(n.loops[n.nloops - 2].dst_stride == 8);  // a tile of pixels
    CHECK(n.loops[n.nloops - 2].extent < pixels);
    CHECK(n.loops[n.nloops - 3].dst_stride == 8 * pixels);  // K around the tile
    check(src, dst);
  }
  // few pixels (a tile's worth, in cache): rows of whole lines still go in source order,
  // a whole source row at a time, however many lines a row is; shorter rows too
  const dims few{1, 64, 8, 8};
  for (const auto& [tag, block] : {std::pair{"nChw16c", dim{16}}, std::pair{"nChw8c", dim{8}}}) {
    const desc src(few, data_type::f32, "nhwc"), dst(few, data_type::f32, tag);
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == block);
    CHECK(n.loops[n.nloops - 2].dst_stride == block * 64);  // K inside
    check(src, dst);
  }
  {
    const dims matrix{64, 256};
    const desc a(matrix, data_type::f32, "ab"), b(matrix, data_type::f32, "BA16a64b");
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(a, b));
    CHECK(n.loops[n.nloops - 1].extent == 64);
    CHECK(n.loops[n.nloops - 2].src_stride == 64);  // the blocks of b inside the rows of a
    CHECK(n.loops[n.nloops - 3].src_stride == 256);
    check(a, b);
  }
  {
    // nChw16c -> nChw8c: each 16-channel row of the source is two rows of the destination,
    // both taken while the row is read
    const desc src(shape, data_type::f32, "nChw16c"), dst(shape, data_type::f32, "nChw8c");
    const memfmt::detail::nest n = copy_nest(memfmt::reorder(src, dst));
    CHECK(n.loops[n.nloops - 1].extent == 8);
    CHECK(n.loops[n.nloops - 2].extent == 2);
    CHECK(n.loops[n.nloops - 2].src_stride == 8);
    CHECK(n.owned_loops() == 3);
    check(src, dst);
  }
}

TEST_CASE("a partial channel block runs tile by tile with the tiled copy of the full blocks",
          "[reorder][plan]") {
  // nhwc -> nChw8c with 8 k + r channels over 48 x 48 pixels: the full blocks are one copy
  // in tiles of pixels; the last block's copy reads the same pixels, so it takes the same
  // tiles and runs fused with it. Checked by value for several thread counts and for a
  // caller's parallel_for that cuts the shared tiles into uneven chunks.
  // (131 channels: 16 full blocks, more than the kernel owns, so they pass over the tiles)
  // The plan fuses when there are at least 4 shared tiles per hardware thread.
  const dim threads = memfmt::detail::hardware_threads();
  for (const dim channels : {19, 31, 71, 131}) {
    // 12 (4) images x 4 tiles, more on a machine of more than 12 (4) threads: enough to
    // share among threads
    const dims shape{std::max<dim>(channels > 100 ? 4 : 12, threads), channels, 48, 48};
    for (const data_type type : {data_type::f32, data_type::bf16}) {
      INFO(channels << " channels, " << memfmt::to_string(type));
      const desc src(shape, data_type::f32, "nhwc"), dst(shape, type, "nChw8c");
      const memfmt::reorder r(src, dst);
      REQUIRE(r.nests().size() == 2);
      const memfmt::detail::placed_nest &tiled = r.nests()[0], &rest = r.nests()[1];
      REQUIRE(rest.fused_loops == 2);  // the images and the tiles
      for (int k = 0; k < rest.fused_loops; ++k) {
        CHECK(rest.loops.loops[k].extent == tiled.loops.loops[k].extent);
        CHECK(rest.loops.loops[k].src_stride == tiled.loops.loops[k].src_stride);
        CHECK(rest.loops.loops[k].dst_stride == tiled.loops.loops[k].dst_stride);
      }
      CHECK(rest.loops.loops[rest.loops.nloops - 1].extent == channels % 8);
      CHECK(rest.loops.zero_tail == 8 - channels % 8);
      const reference_run& run = make_reference_run(src, dst, 5);  // one reference for every run below
      for (const int threads : {1, 2, 3}) {
        reorder_attr attr;
        attr.threads = threads;
        check_plan_at(reorder(src, dst, attr), run, 0, 0, static_cast<std::uint32_t>(threads));
      }
      // uneven chunks
      const memfmt::parallel_for_fn uneven = [](dim count, const std::function<void(dim, dim)>& body) {
        for (dim begin = 0, step = 1; begin < count; begin += step++) body(begin, std::min(count, begin + step));
      };
      check_plan_at(r, run, 0, 0, 4, &uneven);
    }
  }
}

TEST_CASE("weights blocks that interleave a few input channels per output channel", "[reorder][plan]") {
  // 4i16o4i, 8i16o2i and the like: the innermost block (2 or 4 i) is interleaved with o,
  // as tiles of units of 2 or 4 i; a conversion first converts blocks of the source into a
  // scratch, in source order. Partial blocks (o, i not multiples of 16) and
  // per-output-channel scales included.
  reorder_attr per_o;
  per_o.src_scales = memfmt::scales{1, std::vector<float>(35, 0.25f)};
  per_o.src_scales.values[3] = -3.f;
  for (const auto& [type, tag] : {std::tuple{data_type::s8, "OIhw4i16o4i"}, std::tuple{data_type::bf16, "OIhw8i16o2i"},
                                  std::tuple{data_type::f32, "OIhw4i16o4i"}, std::tuple{data_type::u8, "OIhw2i8o4i"}}) {
    for (const dims& shape : {dims{32, 48, 3, 3}, dims{35, 37, 1, 1}, dims{35, 19, 5, 3}}) {
      INFO(tag << " " << memfmt::to_string(type) << " " << shape[0] << "x" << shape[1] << "x" << shape[2] << "x" << shape[3]);
      const desc src(shape, data_type::f32, "oihw"), dst(shape, type, tag);
      const memfmt::reorder r(src, dst);
      // (4-byte elements without arithmetic: tiles whose rows are o x r, or, in 1 x 1
      // kernels, where the r input channels are contiguous in both, of units of 4 i;
      // other types in 1 x 1 kernels: a copy of short rows)
      using memfmt::detail::kernel_kind;
      using memfmt::detail::stage;
      const bool plain = type == data_type::f32, one_by_one = shape[2] * shape[3] == 1;
      CHECK(r.nests()[0].loops.kind == (plain ? kernel_kind::tile : kernel_kind::copy));
      if (plain) CHECK(r.nests()[0].staged == stage::none);
      if (!plain && !one_by_one) {
        CHECK(r.nests()[0].staged == stage::convert_to_scratch);
        CHECK(r.nests()[1].loops.kind == kernel_kind::tile);
      }
      check(src, dst);
      if (shape[0] == 35) check(src, dst, per_o);
    }
  }
}

TEST_CASE("tiles: whole vectors in and out, whichever loops give the rows", "[reorder][plan]") {
  // Plain copies whose destination runs are short or come from several loops go as
  // tiles of units: the plan's tile nests, then the results.
  using memfmt::detail::kernel_kind;
  struct expect {
    int unit, row_loops, column_loops;
  };
  const auto tiles_of = [](const reorder& r) {
    std::vector<expect> found;
    for (const auto& p : r.nests())
      if (p.loops.kind == kernel_kind::tile)
        found.push_back({p.loops.tile_unit, p.loops.tile_row_loops, p.loops.tile_column_loops});
    return found;
  };
  // (planned for one thread: with more, outer loops stay outer for the threads to share)
  reorder_attr one_thread;
  one_thread.threads = 1;
  const auto planned = [&](const desc& src, const desc& dst, expect e) {
    INFO(src.str() << " -> " << dst.str());
    const std::vector<expect> found = tiles_of(reorder(src, dst, one_thread));
    REQUIRE_FALSE(found.empty());
    CHECK(found[0].unit == e.unit);
    CHECK(found[0].row_loops == e.row_loops);
    CHECK(found[0].column_loops == e.column_loops);
    check(src, dst);
  };
  const data_type f32 = data_type::f32, s32 = data_type::s32;
  // rows of 4 input x 16 output channels, and the 4 such blocks of 4 input channels
  // outside them (the next loop out, dense after them in dst); columns h x w
  planned(desc({32, 48, 3, 3}, f32, "oihw"), desc({32, 48, 3, 3}, f32, "OIhw4i16o4i"), {1, 3, 1});
  // rows of 16 output channels; columns h x w, then the input channels after them
  planned(desc({32, 32, 3, 3}, s32, "oihw"), desc({32, 32, 3, 3}, s32, "OIhw16i16o"), {1, 1, 2});
  // units of 2 elements, rows of 32 of them; columns: 8 pairs of b, and the blocks of b
  // after them (dense in both: one loop)
  planned(desc({64, 96}, f32, "ab"), desc({64, 96}, f32, "AB8b32a2b"), {2, 1, 1});
  // partial blocks: the padding after each run of input channels as rows of zeros
  planned(desc({35, 19, 5, 3}, f32, "oihw"), desc({35, 19, 5, 3}, f32, "OIhw8i16o2i"), {1, 3, 1});
  // (and the last input channel alone, before 15 zeros: rows of one element each; the
  // 16 output channels of a block rows too)
  const desc goihw({2, 20, 17, 3, 3}, f32, "goihw"), blocked({2, 20, 17, 3, 3}, f32, "gOIhw16o16i");
  planned(goihw, blocked, {1, 2, 1});
  const reorder grouped(goihw, blocked);
  for (const auto& p : grouped.nests())
    CHECK((p.loops.kind == kernel_kind::tile || p.loops.kind == kernel_kind::zero_fill));
  // elements of 2 and 1 bytes ride in 32-bit lanes: rows of 4 x 4 channels, and units
  // of 4 s8 (4 b) with rows of 64 a
  planned(desc({32, 45, 3, 3}, data_type::s8, "oihw"), desc({32, 45, 3, 3}, data_type::s8, "OIhw4o4i"), {1, 2, 1});
  planned(desc({128, 64}, data_type::u8, "ab"), desc({128, 64}, data_type::u8, "AB16b64a4b"), {4, 1, 1});
  // units spread in the destination, packed from 2 or 4 source elements 9 apart (2 or 4
  // input channels): rows of 16 output channels by the 8 or 4 units of a block of input
  // ones, columns h x w
  const data_type bf16 = data_type::bf16, s8 = data_type::s8, u8 = data_type::u8;
  planned(desc({32, 48, 3, 3}, bf16, "oihw"), desc({32, 48, 3, 3}, bf16, "OIhw8i16o2i"), {2, 2, 1});
  planned(desc({35, 37, 3, 3}, s8, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), {4, 2, 1});
  planned(desc({2, 20, 17, 3, 3}, s8, "goihw"), desc({2, 20, 17, 3, 3}, s8, "gOIhw2i8o4i"), {4, 2, 1});
  // ... and unpacked into them: columns first (16 output channels, dense in the
  // source from unit to unit), then the rows (h x w, dense in the destination)
  planned(desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), desc({35, 37, 3, 3}, s8, "oihw"), {4, 1, 1});
  planned(desc({32, 48, 3, 3}, bf16, "OIhw8i16o2i"), desc({32, 48, 3, 3}, bf16, "oihw"), {2, 1, 1});
  check(desc({35, 19, 3, 3}, bf16, "OIhw8i16o2i"), desc({35, 19, 3, 3}, bf16, "oihw"));
  // a loop dense on both sides at unit level: no rows, no transpose (4 a packed along
  // 16 b, and along the blocks of b that go on along the plain side's rows; unpacked
  // likewise; 2 b of u8 along 16 c, 171 c in all)
  planned(desc({384, 171}, s8, "ab"), desc({384, 171}, s8, "BA16a16b4a"), {4, 0, 2});
  planned(desc({256, 96}, s8, "BA4b8a16b4a"), desc({256, 96}, s8, "ab"), {4, 0, 2});
  planned(desc({4, 96, 171}, u8, "aCB16c2b"), desc({4, 96, 171}, u8, "abc"), {2, 0, 2});
  planned(desc({4, 96, 171}, u8, "abc"), desc({4, 96, 171}, u8, "aCB16c2b"), {2, 0, 2});
  // transposed units of 2 s8 (2 i, rows of 16 o), straight units of 2 bf16 (2 a)
  planned(desc({35, 37, 3, 3}, s8, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw8i16o2i"), {2, 2, 1});
  planned(desc({384, 171}, bf16, "ab"), desc({384, 171}, bf16, "BA16a16b2a"), {2, 0, 2});
  // units of 8 bytes (4 bf16, 8 s8) ride in 64-bit lanes: 8 x 8 tiles, or straight
  planned(desc({35, 37, 3, 3}, s8, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw8o8i"), {8, 1, 1});
  planned(desc({384, 171}, bf16, "ab"), desc({384, 171}, bf16, "BA16a16b4a"), {4, 0, 2});
  planned(desc({384, 171}, bf16, "BA16b4a"), desc({384, 171}, bf16, "ab"), {4, 0, 2});
  planned(desc({100, 37}, s8, "ab"), desc({100, 37}, s8, "BA16b8a"), {8, 0, 2});
  planned(desc({35, 37, 3, 3}, bf16, "oihw"), desc({35, 37, 3, 3}, bf16, "OIhw16i16o4i"), {4, 2, 1});
  // (unpacked units of 8 bytes come after single elements: columns 4 i x 16 o, dense in
  // the source, rows the 9 h x w)
  planned(desc({35, 37, 3, 3}, bf16, "OIhw16i16o4i"), desc({35, 37, 3, 3}, bf16, "oihw"), {1, 1, 2});
  // units of 16 bytes (4 f32) go as 128-bit blocks: rows of 16 output channels, columns
  // the blocks of 4 input channels (14 full, then the partial one's copy); unpacked
  // likewise; rows of 8 a of ab, columns 42 blocks of 4 b
  planned(desc({128, 57, 3, 3}, f32, "ohwi"), desc({128, 57, 3, 3}, f32, "OhwI16o4i"), {4, 1, 1});
  planned(desc({128, 57, 3, 3}, f32, "OhwI16o4i"), desc({128, 57, 3, 3}, f32, "ohwi"), {4, 1, 1});
  planned(desc({384, 171}, s32, "ab"), desc({384, 171}, s32, "AB8a4b"), {4, 1, 1});
  // (13 blocks of 4 input channels: a partial tile on AVX2 too, as columns and as rows)
  planned(desc({128, 53, 3, 3}, f32, "ohwi"), desc({128, 53, 3, 3}, f32, "OhwI16o4i"), {4, 1, 1});
  planned(desc({128, 53, 3, 3}, f32, "OhwI16o4i"), desc({128, 53, 3, 3}, f32, "ohwi"), {4, 1, 1});
  // a loop of more rows than a tile holds, cut into runs that fit: the 576 pairs and 288
  // quads of input channels of a row of output channels (9 pixels x 64 or 32) in runs
  // of 192 and 144, and 450 pairs in runs of 225
  planned(desc({64, 128, 3, 3}, bf16, "OhwI32o2i"), desc({64, 128, 3, 3}, bf16, "ohwi"), {2, 1, 1});
  planned(desc({64, 128, 3, 3}, s8, "OhwI32o4i"), desc({64, 128, 3, 3}, s8, "ohwi"), {4, 1, 1});
  planned(desc({64, 100, 3, 3}, bf16, "OhwI32o2i"), desc({64, 100, 3, 3}, bf16, "ohwi"), {2, 1, 1});
  // a view of the source at an offset, with gaps
  const desc parent({40, 48, 3, 3}, f32, "oihw");
  const desc part = parent.submemory_desc({32, 32, 3, 3}, {8, 16, 0, 0});
  planned(part, desc({32, 32, 3, 3}, f32, "OIhw4i16o4i"), {1, 3, 1});
  // a lone loop of rows against long columns stays a transpose
  CHECK(tiles_of(reorder(desc({2, 32, 8, 8}, f32, "nchw"), desc({2, 32, 8, 8}, f32, "nChw16c"))).empty());
  // conversions and scales are not the tiles' own work: they take a stage of their own
  // (next test)
  reorder_attr scaled;
  scaled.src_scales = memfmt::scales{0, {0.5f}};
  check(desc({32, 48, 3, 3}, f32, "oihw"), desc({32, 48, 3, 3}, f32, "OIhw4i16o4i"), scaled);
  const reorder converting(desc({32, 48, 3, 3}, f32, "oihw"), desc({32, 48, 3, 3}, data_type::bf16, "OIhw8i16o2i"));
  for (const auto& p : converting.nests())
    CHECK((p.loops.kind != kernel_kind::tile || p.staged != memfmt::detail::stage::none));
}

TEST_CASE("conversions whose layout change runs as tiles go in two stages through a scratch", "[reorder][plan]") {
  // The conversion runs in the order of the side it reads (or writes) contiguously, into
  // (or out of) a thread's scratch; the layout change runs as tiles of the narrower type.
  // The plan's pairs, then the results: with scales, zero points, a sum, padding, a view,
  // one thread and two, and chunks run one at a time in reverse order.
  using memfmt::detail::kernel_kind;
  using memfmt::detail::stage;
  const data_type f32 = data_type::f32, bf16 = data_type::bf16, s8 = data_type::s8, u8 = data_type::u8;
  const auto staged = [&](const desc& src, const desc& dst, const reorder_attr& attr, stage first, kernel_kind first_kind,
                          kernel_kind second_kind) {
    INFO(src.str() << " -> " << dst.str());
    for (const int threads : {1, 2}) {
      reorder_attr a = attr;
      a.threads = threads;
      const reorder r(src, dst, a);
      INFO(r.plan_str());
      const auto& nests = r.nests();
      int pairs = 0;
      for (std::size_t k = 0; k < nests.size(); ++k) {
        if (nests[k].staged != stage::convert_to_scratch && nests[k].staged != stage::move_to_scratch) continue;
        ++pairs;
        REQUIRE(k + 1 < nests.size());
        const memfmt::detail::placed_nest &p = nests[k], &q = nests[k + 1];
        CHECK(q.staged == (first == stage::convert_to_scratch ? stage::move_from_scratch : stage::convert_from_scratch));
        if (pairs == 1) {  // (the plan's first pair: the bulk of the tensor; the rest, partial blocks)
          CHECK(p.staged == first);
          CHECK(p.loops.kind == first_kind);
          CHECK(q.loops.kind == second_kind);
        }
        REQUIRE(q.fused_loops >= 1);
        // the shared loops have equal extents; the rest of each stage fits the scratch
        dim block_first = 1, block_second = 1;
        for (int i = 0; i < p.loops.nloops; ++i)
          if (i < q.fused_loops) {
            CHECK(p.loops.loops[i].extent == q.loops.loops[i].extent);
          } else {
            block_first *= p.loops.loops[i].extent;
          }
        for (int i = q.fused_loops; i < q.loops.nloops; ++i) block_second *= q.loops.loops[i].extent;
        CHECK(block_first == block_second);
        const data_type scratch_type = first == stage::convert_to_scratch ? dst.get_data_type() : src.get_data_type();
        INFO("block " << block_first << " of " << memfmt::to_string(scratch_type));
        CHECK(block_first * static_cast<dim>(memfmt::data_type_size(scratch_type)) <= memfmt::detail::stage_bytes);
      }
      CHECK(pairs >= 1);
      check_plan(r, src, dst, a, static_cast<std::uint32_t>(threads));
      const reference_run& run = make_reference_run(src, dst, 7);
      if (attr.src_scales.empty() && attr.sum_beta == 0.f && attr.src_zero_points.empty() && attr.dst_zero_points.empty()) {
        const memfmt::parallel_for_fn reverse = [](dim count, const std::function<void(dim, dim)>& body) {
          for (dim k = count - 1; k >= 0; --k) body(k, k + 1);
        };
        check_plan_at(r, run, 0, 0, 5, &reverse);
      }
    }
  };
  reorder_attr none, per_input, per_output, sum, zero_points;
  per_input.src_scales = memfmt::scales{2, std::vector<float>(171, 0.f)};
  for (std::size_t k = 0; k < 171; ++k) per_input.src_scales.values[k] = 0.25f + 0.125f * static_cast<float>(k % 13);
  // f32 -> s8, a scale per input channel: rows of 32 input channels converted into the
  // scratch, tiles of 2-byte units (2 i) out of it
  staged(desc({384, 171}, f32, "ab"), desc({384, 171}, s8, "OI16i64o2i"), per_input, stage::convert_to_scratch,
         kernel_kind::copy, kernel_kind::tile);
  per_output.src_scales = memfmt::scales{1, std::vector<float>(35, 0.f)};
  for (std::size_t k = 0; k < 35; ++k) per_output.src_scales.values[k] = k % 5 == 0 ? 1e-3f : 1.f + static_cast<float>(k);
  staged(desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), per_output, stage::convert_to_scratch,
         kernel_kind::copy, kernel_kind::tile);
  // f32 -> bf16 into 2 i (rounded to nearest even), and zero points into u8
  staged(desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, bf16, "OIhw8i16o2i"), none, stage::convert_to_scratch,
         kernel_kind::copy, kernel_kind::tile);
  zero_points.dst_zero_points = memfmt::zero_points::common(7);
  zero_points.src_zero_points = memfmt::zero_points::common(-3);
  staged(desc({2, 20, 17, 3, 3}, f32, "goihw"), desc({2, 20, 17, 3, 3}, u8, "gOIhw2i8o4i"), zero_points,
         stage::convert_to_scratch, kernel_kind::copy, kernel_kind::tile);
  // the other way, the scratch in the narrower source type: tiles into it in destination
  // order, then the conversion out of it
  staged(desc({35, 37, 3, 3}, s8, "OIhw4i16o4i"), desc({35, 37, 3, 3}, f32, "oihw"), per_output, stage::move_to_scratch,
         kernel_kind::tile, kernel_kind::copy);
  staged(desc({35, 37, 3, 3}, bf16, "OIhw8i16o2i"), desc({35, 37, 3, 3}, f32, "oihw"), per_output, stage::move_to_scratch,
         kernel_kind::tile, kernel_kind::copy);
  // a sum reads the destination: the conversion goes last, even into a narrower type
  sum.sum_beta = 0.5f;
  staged(desc({35, 37, 3, 3}, f32, "oihw"), desc({35, 37, 3, 3}, bf16, "OIhw8i16o2i"), sum, stage::move_to_scratch,
         kernel_kind::tile, kernel_kind::copy);
  // a view of the source with gaps
  const desc parent({40, 48, 3, 3}, f32, "oihw");
  staged(parent.submemory_desc({32, 32, 3, 3}, {8, 16, 0, 0}), desc({32, 32, 3, 3}, s8, "OIhw4i16o4i"), none,
         stage::convert_to_scratch, kernel_kind::copy, kernel_kind::tile);
  // rows of 4 i, back to back in the source but too short for the copy kernel to run on
  staged(desc({35, 37, 3, 3}, f32, "ohwi"), desc({35, 37, 3, 3}, s8, "OhwI16o4i"), per_output, stage::convert_to_scratch,
         kernel_kind::copy, kernel_kind::tile);
  // where the one pass is as fast, it stays: rows of 8 back to back, which the copy
  // kernel converts as one long row, and tiles of 8 x 8 or more with no scale
  const auto single_pass = [&](const desc& src, const desc& dst) {
    INFO(src.str() << " -> " << dst.str());
    const reorder r(src, dst);
    for (const auto& p : r.nests()) CHECK(p.staged == stage::none);
    check_plan(r, src, dst);
  };
  single_pass(desc({1, 96, 28, 28}, f32, "nChw8c"), desc({1, 96, 28, 28}, s8, "nChw16c"));
  single_pass(desc({1, 96, 28, 28}, f32, "nChw8c"), desc({1, 96, 28, 28}, s8, "nchw"));
  // zeros after long destination runs (992 of 1024): blocks never cut a run short, for
  // any thread count, in any order of the chunks (each run's zeros follow it whole)
  {
    const desc src({64, 992}, s8, "Ab4a"), dst({64, 992}, f32, "aB1024b");
    const memfmt::parallel_for_fn reverse = [](dim count, const std::function<void(dim, dim)>& body) {
      for (dim k = count - 1; k >= 0; --k) body(k, k + 1);
    };
    for (const int threads : {1, 2, 6, 8}) {
      INFO(threads << " threads");
      reorder_attr a;
      a.threads = threads;
      const reorder r(src, dst, a);
      INFO(r.plan_str());
      check_plan(r, src, dst, a);
      check_plan_at(r, make_reference_run(src, dst, 9), 0, 0, 9, &reverse);
    }
  }
  // long columns: the tile kernel's own loops are cut to the scratch (whole tiles of 16)
  staged(desc({1024, 512}, f32, "ab"), desc({1024, 512}, s8, "BA16a64b4a"), none, stage::convert_to_scratch,
         kernel_kind::copy, kernel_kind::tile);
}

TEST_CASE("tiles share their columns out among threads when their outer loops are few", "[reorder][plan]") {
  // u8 nchw -> nhwc with 4 channels: 4 planes packed straight through into pixels, one
  // column loop of 512 x 512 pixels that the kernel owns. Two threads get 8 pieces of
  // whole tiles (16 pixels) or more; one thread gets none.
  using memfmt::detail::kernel_kind;
  const desc src({1, 4, 512, 512}, data_type::u8, "nchw"), dst({1, 4, 512, 512}, data_type::u8, "nhwc");
  for (const int threads : {1, 2}) {
    reorder_attr attr;
    attr.threads = threads;
    const reorder r(src, dst, attr);
    REQUIRE(r.nests().size() == 1);
    const memfmt::detail::nest& n = r.nests()[0].loops;
    REQUIRE(n.kind == kernel_kind::tile);
    CHECK(n.tile_row_loops == 0);
    const dim columns = n.loops[n.nloops - 2].extent;
    if (threads == 1) {
      CHECK(n.outer_count() == 1);
    } else {
      CHECK(n.outer_count() >= 8);
      CHECK(columns % 16 == 0);
    }
    CHECK(n.outer_count() * columns == 512 * 512);
    check(src, dst, attr);
  }
}

TEST_CASE("tiles whose columns come in runs share them out among threads, down to a run per piece (s8 ab <-> "
          "BA4b8a8b4a, ab -> BA16a16b4a)",
          "[reorder][plan]") {
  // Few outer iterations: a split for threads cuts the outermost column loop (64 x 512
  // BA4b8a8b4a at 64 threads: down to one block of 32 b per piece, a loop of extent 1),
  // while the run inside stays whole.
  using memfmt::detail::kernel_kind;
  const data_type s8 = data_type::s8;
  const desc plain({64, 512}, s8, "ab"), blocked({64, 512}, s8, "BA4b8a8b4a");
  const desc row({64, 8192}, s8, "ab"), blocked16({64, 8192}, s8, "BA16a16b4a");
  for (const auto& [src, dst] : {std::pair{plain, blocked}, std::pair{blocked, plain}, std::pair{row, blocked16}})
    for (const int threads : {1, 2, 64}) {
      INFO(src.str() << " -> " << dst.str() << ", " << threads << " threads");
      reorder_attr attr;
      attr.threads = threads;
      const reorder r(src, dst, attr);
      REQUIRE(r.nests().size() == 1);
      const memfmt::detail::nest& n = r.nests()[0].loops;
      REQUIRE(n.kind == kernel_kind::tile);
      CHECK(n.tile_row_loops == 0);
      CHECK(n.tile_column_loops >= 2);
      if (threads == 64) CHECK(n.outer_count() >= 32);
      check(src, dst, attr);
    }
}

TEST_CASE("plan_str: a line per nest, the kernel's loops after a bar, by role for tiles", "[reorder][plan]") {
  // s8 ab -> BA16a16b4a, 384 x 171: 4 rows of a (171 apart in the source) packed along
  // 16 b and the 10 whole blocks of b, then the last block of b (11 wide), then the
  // padding zeros of that block (5 b x 64 a per block of a).
  const reorder r(desc({384, 171}, data_type::s8, "ab"), desc({384, 171}, data_type::s8, "BA16a16b4a"));
  const std::string plan = r.plan_str();
  INFO(plan);
  CHECK(plan ==
        "tile @src+0 dst+0: 96(684,64) | columns 10(16,6144) 16(1,4) unit 4(171,1)\n"
        "tile @src+160 dst+61440: 96(684,64) | columns 11(1,4) unit 4(171,1)\n"
        "zero_fill @src+0 dst+61484: | 96(0,64) 20(0,1)\n");
  CHECK(std::count(plan.begin(), plan.end(), '\n') == static_cast<long>(r.nests().size()));
  // rows of 8 units by 16 output channels, columns h x w, units of 2 input channels 9
  // apart (one thread: with more, the 8 units stay outer for the threads to share)
  reorder_attr one_thread;
  one_thread.threads = 1;
  const reorder w(desc({32, 48, 3, 3}, data_type::bf16, "oihw"), desc({32, 48, 3, 3}, data_type::bf16, "OIhw8i16o2i"),
                  one_thread);
  CHECK(w.plan_str().find("| rows 8(18,32) 16(432,2) columns 9(1,256) unit 2(9,1)") != std::string::npos);
}

TEST_CASE("tiles from memory: the source's lines are finished while they are in cache", "[reorder][plan]") {
  // s8 ab -> BA16a64b4a, 2048 x 2048 (8 MiB in all): blocks of 4 rows x 64 bytes. In
  // destination order, a strip of 64 bytes would go down every row before the next
  // strip read the rest of their lines; the strips (source stride 64) go inside chunks
  // of the rows instead: 4 groups of 4 rows, 16 rows read at a time.
  using memfmt::detail::kernel_kind;
  const desc src({2048, 2048}, data_type::s8, "ab"), dst({2048, 2048}, data_type::s8, "BA16a64b4a");
  const reorder r(src, dst);
  REQUIRE(r.nests().size() == 1);
  const memfmt::detail::nest& n = r.nests()[0].loops;
  REQUIRE(n.kind == kernel_kind::tile);
  REQUIRE(n.nloops - n.owned_loops() == 3);
  CHECK(n.loops[0].extent == 128);  // chunks of rows
  CHECK(n.loops[0].src_stride == 4 * 4 * 2048);
  CHECK(n.loops[1].extent == 32);  // strips
  CHECK(n.loops[1].src_stride == 64);
  CHECK(n.loops[2].extent == 4);  // groups of 4 rows in a chunk
  CHECK(n.loops[2].src_stride == 4 * 2048);
  check(src, dst);
  // with blocks of 16 columns, the strips join the columns: a call reads 4 whole rows
  const desc dst16({2048, 2048}, data_type::s8, "BA16a16b4a");
  const reorder r16(src, dst16);
  REQUIRE(r16.nests().size() == 1);
  const memfmt::detail::nest& n16 = r16.nests()[0].loops;
  REQUIRE(n16.nloops - n16.owned_loops() == 1);
  CHECK(n16.loops[0].src_stride == 4 * 2048);
  // the way back writes the rows (streamed, no limit of 16): chunks of 32 groups, 32
  // strips x 32 blocks of 256 bytes, 256 KiB at a time; with blocks of 16 columns, 4
  // whole rows a call
  const reorder back(dst, src);
  REQUIRE(back.nests().size() == 1);
  const memfmt::detail::nest& b = back.nests()[0].loops;
  REQUIRE(b.nloops - b.owned_loops() == 3);
  CHECK(b.loops[0].extent == 16);
  CHECK(b.loops[1].extent == 32);
  CHECK(b.loops[1].dst_stride == 64);
  CHECK(b.loops[2].extent == 32);
  CHECK(b.loops[2].dst_stride == 4 * 2048);
  const reorder back16(dst16, src);
  REQUIRE(back16.nests().size() == 1);
  const memfmt::detail::nest& b16 = back16.nests()[0].loops;
  REQUIRE(b16.nloops - b16.owned_loops() == 1);
  CHECK(b16.loops[0].dst_stride == 4 * 2048);
  check(src, dst16);
  check(dst, src);
  check(dst16, src);
  // below the threshold: destination order (the strips outermost)
  const desc small_src({512, 512}, data_type::s8, "ab"), small_dst({512, 512}, data_type::s8, "BA16a64b4a");
  const reorder small(small_src, small_dst);
  const memfmt::detail::nest& m = small.nests()[0].loops;
  REQUIRE(m.nloops - m.owned_loops() == 2);
  CHECK(m.loops[0].src_stride == 64);
}

TEST_CASE("streaming stores once source and destination together outgrow the cache", "[reorder][plan]") {
  // f32 -> s8: the destination is a quarter of the source. A destination that alone fits
  // the last-level cache still streams when the source's pass would evict it; a reorder
  // that fits as a whole does not. (Plans only: nothing this large is allocated.)
  const auto llc = static_cast<dim>(memfmt::detail::last_level_cache_bytes());
  const auto streams = [](dim elements) {
    const desc src({elements}, data_type::f32, "a"), dst({elements}, data_type::s8, "a");
    return memfmt::reorder(src, dst).nests()[0].loops.stream_stores;
  };
  CHECK(streams(llc / 4));       // src + dst = 1.25 x the cache, dst = 0.25 x
  CHECK_FALSE(streams(llc / 8));  // src + dst = 0.625 x the cache
}

TEST_CASE("copies and moves of a plan run as the plan did, after it is gone", "[reorder]") {
  // A plan points its nests at its own scales and gather tables; a copy must point at
  // its own: checked by address, and by running copies whose original is destroyed
  // (AddressSanitizer sees a read of freed tables).
  const dims shape{3, 19, 2, 5};
  reorder_attr per_channel;
  per_channel.src_scales.mask = 1 << 1;
  for (int c = 0; c < 19; ++c) per_channel.src_scales.values.push_back(0.5f + 0.25f * c);
  struct planned {
    desc src, dst;
    reorder_attr attr;
  };
  const planned cases[] = {
      {desc(shape, data_type::f32, "nchw"), desc(shape, data_type::s8, "nChw16c"), per_channel},
      {desc(shape, data_type::f32, "nhwc"), desc(shape, data_type::u8, "nChw4c"), per_channel},
      {desc(shape, data_type::f32, "nchw"), desc(shape, data_type::s8, "aBcd2b"), per_channel},  // staged
      // (a single image: blocks too small to stage, gathers)
      {desc({1, 19, 2, 5}, data_type::f32, "nchw"), desc({1, 19, 2, 5}, data_type::s8, "aBcd2b"), per_channel},
      {desc({2, 2, 2, 4}, data_type::f32, "dcba"), desc({2, 2, 2, 4}, data_type::f32, "abcd"), {}},
  };
  // every nest of `r` points into r's own tables, none into `other`'s
  const auto owns_its_tables = [](const reorder& r, const reorder& other) {
    for (std::size_t k = 0; k < r.nests().size(); ++k) {
      const memfmt::detail::placed_nest &p = r.nests()[k], &q = other.nests()[k];
      if (p.loops.kind == memfmt::detail::kernel_kind::gather &&
          (p.loops.gather_src != p.gather_src.data() ||
           p.loops.gather_scale != (p.gather_scale.empty() ? nullptr : p.gather_scale.data())))
        return false;
      if (p.loops.cvt.scales != nullptr && p.loops.cvt.scales == q.loops.cvt.scales) return false;
    }
    return true;
  };
  bool gathers = false, scales = false;
  for (const planned& c : cases) {
    INFO(c.src.str() << " -> " << c.dst.str());
    auto original = std::make_unique<reorder>(c.src, c.dst, c.attr);
    for (const auto& p : original->nests()) {
      gathers = gathers || p.loops.kind == memfmt::detail::kernel_kind::gather;
      scales = scales || p.loops.cvt.scales != nullptr;
    }
    const reorder copied(*original);
    reorder assigned(c.dst, c.dst);
    assigned = *original;
    CHECK(owns_its_tables(copied, *original));
    CHECK(owns_its_tables(assigned, *original));
    original.reset();
    check_plan(copied, c.src, c.dst, c.attr);
    check_plan(assigned, c.src, c.dst, c.attr);
    reorder moved(std::move(assigned));
    check_plan(moved, c.src, c.dst, c.attr);
    reorder move_assigned(c.dst, c.dst);
    move_assigned = std::move(moved);
    check_plan(move_assigned, c.src, c.dst, c.attr);
  }
  CHECK(gathers);  // the tables of a gather are covered
  CHECK(scales);   // and per-channel scales
}

TEST_CASE("results do not depend on threads", "[reorder][threads]") {
  const desc src({4, 71, 9, 9}, data_type::f32, "nchw"), dst({4, 71, 9, 9}, data_type::bf16, "nChw16c");
  std::vector<float> s(src.get_size() / 4);
  std::mt19937 rng(3);
  fill_random(data_type::f32, s.data(), src.get_size(), rng);
  std::vector<unsigned char> one(dst.get_size(), 1), many(dst.get_size(), 2), custom(dst.get_size(), 3);
  reorder_attr single;
  single.threads = 1;
  reorder(src, dst, single).execute(s.data(), one.data());
  reorder_attr all;
  all.threads = 0;
  reorder(src, dst, all).execute(s.data(), many.data());
  // a caller's parallel_for that runs chunks in reverse order, one element at a time
  reorder(src, dst).execute(s.data(), custom.data(), [](dim count, const std::function<void(dim, dim)>& body) {
    for (dim k = count - 1; k >= 0; --k) body(k, k + 1);
  });
  REQUIRE(one == many);
  REQUIRE(one == custom);
}

TEST_CASE("reorders of less than serial_bytes run on the calling thread, larger ones through parallel_for",
          "[reorder][threads]") {
  // nchw -> nhwc, an image per outer iteration: 2 x 8 KiB and 2 x 16 KiB (under 64 KiB),
  // 2 x 256 KiB
  for (const dims& shape : {dims{4, 8, 8, 8}, dims{2, 16, 16, 8}, dims{4, 64, 16, 16}}) {
    const desc src(shape, data_type::f32, "nchw"), dst(shape, data_type::f32, "nhwc");
    reorder_attr attr;
    attr.threads = 2;
    const reorder r(src, dst, attr);
    int calls = 0;
    check_parallel_for(r, src, dst, [&calls](dim count, const std::function<void(dim, dim)>& body) {
      ++calls;
      body(0, count);
    }, 5);
    INFO(src.get_size() + dst.get_size() << " bytes");
    CHECK((calls > 0) == (src.get_size() + dst.get_size() >= reorder::serial_bytes));
  }
}

TEST_CASE("a plan is cut into pieces for the threads it names", "[reorder][threads]") {
  // large enough to be shared: transposes (one whose rows are followed by padding), a
  // copy with padding, a tiled copy with the partial block fused to it; each against the
  // reference, also with a caller's parallel_for that runs the pieces one by one in reverse
  const std::tuple<dims, const char*, const char*> cases[] = {
      {{1, 64, 32, 32}, "nhwc", "nchw"},     {{1, 64, 32, 32}, "nchw", "nhwc"},     {{1, 17, 62, 62}, "nchw", "nChw16c"},
      {{1, 17, 62, 62}, "nChw16c", "nchw"},  {{1, 71, 30, 30}, "nhwc", "nChw8c"},   {{1, 71, 30, 30}, "nchw", "nChw16c"},
      {{3, 24, 40, 40}, "nChw8c", "nChw16c"}, {{1, 48, 62, 62}, "nchw", "aBcd64b"}};
  for (const auto& [shape, from, to] : cases)
    for (const int threads : {1, 2, 3, 8}) {
      const desc src(shape, data_type::f32, from), dst(shape, data_type::f32, to);
      reorder_attr attr;
      attr.threads = threads;
      const reorder r(src, dst, attr);
      INFO(from << " -> " << to << ", " << threads << " threads");
      // the first nest holds most of the work: cut for threads (into a piece each at least,
      // up to 3 threads with these shapes), and not for one
      reorder_attr one;
      one.threads = 1;
      const reorder single(src, dst, one);
      const memfmt::detail::nest& uncut = single.nests()[0].loops;
      const memfmt::detail::nest& cut = r.nests()[0].loops;
      if (threads > 1) CHECK(cut.nloops > uncut.nloops);
      if (threads > 1 && threads <= 3) CHECK(cut.outer_count() >= threads);
      check_plan(r, src, dst, attr);
      check_parallel_for(r, src, dst, [](dim count, const std::function<void(dim, dim)>& body) {
        for (dim k = count - 1; k >= 0; --k) body(k, k + 1);
      }, 7);
    }
}

TEST_CASE("buffers that start anywhere in a cache line", "[reorder]") {
  // Every kernel kind (copy with and without padding, transposes whole and partial,
  // stacked tiles, tiles by row group over planes of 4 KiB, runs of source rows, bands,
  // gather, interleave, strided, zero fill, the fused partial block), one and two
  // threads (the two 64 x 32 x 32 transposes split for them), at offsets that split
  // elements, vectors and lines, on one side or both.
  const auto tagged = [](dims shape, data_type from, data_type to, const char* a, const char* b) {
    return std::pair<desc, desc>(desc(shape, from, a), desc(shape, to, b));
  };
  const std::pair<desc, desc> cases[] = {
      tagged({1, 64, 32, 32}, data_type::f32, data_type::f32, "nhwc", "nchw"),
      tagged({1, 64, 32, 32}, data_type::f32, data_type::f32, "nchw", "nhwc"),
      tagged({1, 24, 30, 30}, data_type::f32, data_type::f32, "nChw8c", "nchw"),
      tagged({1, 40, 17, 18}, data_type::f32, data_type::f32, "nchw", "nChw16c"),
      tagged({1, 40, 32, 32}, data_type::f32, data_type::f32, "nchw", "nChw16c"),  // planes of 4 KiB
      tagged({1, 17, 20, 20}, data_type::bf16, data_type::bf16, "nChw16c", "nchw"),
      tagged({4, 19, 48, 48}, data_type::f32, data_type::f32, "nhwc", "nChw8c"),
      tagged({2, 24, 9, 9}, data_type::f32, data_type::f32, "nChw8c", "nChw16c"),
      tagged({70, 130}, data_type::f32, data_type::f32, "ab", "BA16a64b"),
      tagged({64, 112, 3, 3}, data_type::f32, data_type::s8, "oihw", "OIhw4i16o4i"),
      tagged({48, 40, 3, 3}, data_type::f32, data_type::f32, "oihw", "OIhw16i16o"),
      tagged({3, 5, 7, 9}, data_type::u8, data_type::f32, "nchw", "cdba"),
      tagged({4000}, data_type::f32, data_type::bf16, "a", "a"),
      tagged({2, 33, 5, 5}, data_type::s8, data_type::s8, "nhwc", "nChw4c"),
      {desc({2, 5, 4, 3}, data_type::f32, dims{200, 40, 9, 2}), desc({2, 5, 4, 3}, data_type::f32, "nChw8c")}};
  const std::size_t offsets[] = {0, 1, 2, 4, 16, 36, 60, 63};
  std::uint32_t seed = 0;
  for (const auto& [src, dst] : cases) {
    const reference_run& run = make_reference_run(src, dst, ++seed);  // one reference for every offset
    for (const int threads : {1, 2}) {
      reorder_attr attr;
      attr.threads = threads;
      const reorder r(src, dst, attr);
      for (const std::size_t src_at : offsets)
        for (const std::size_t dst_at : offsets) {
          if (src_at != dst_at && src_at != 0 && dst_at != 0) continue;  // one side off, or both alike
          check_plan_at(r, run, src_at, dst_at, ++seed);
        }
    }
  }
}

TEST_CASE("zero-volume tensors touch nothing", "[reorder]") {
  const desc src({2, 0, 3}, data_type::f32, "abc"), dst({2, 0, 3}, data_type::s8, "acb");
  const reorder r(src, dst);
  r.execute(nullptr, nullptr);  // no element: no pointer is read
  unsigned char sentinel = 0x5A;
  r.execute(&sentinel, &sentinel);
  REQUIRE(sentinel == 0x5A);
  // blocks that do not nest (3 and 4) make a plan element-wise, whichever dim is empty
  CHECK(reorder(desc({0, 12}, data_type::f32, "aB3b"), desc({0, 12}, data_type::f32, "aB4b")).is_elementwise());
  CHECK(reorder(desc({12, 0}, data_type::f32, "Ab3a"), desc({12, 0}, data_type::f32, "Ab4a")).is_elementwise());
}

TEST_CASE("bad input is rejected at plan time with a clear error", "[reorder][errors]") {
  const desc a({2, 3, 4, 5}, data_type::f32, "nchw");
  REQUIRE_THROWS_WITH(reorder(a, desc({2, 3, 4, 6}, data_type::f32, "nchw")), Catch::Contains("dims differ"));
  REQUIRE_THROWS_WITH(reorder(a, desc::any({2, 3, 4, 5}, data_type::f32)), Catch::Contains("format_kind::any"));
  REQUIRE_THROWS_WITH(reorder(desc(), a), Catch::Contains("zero descriptor"));
  REQUIRE_THROWS_WITH(reorder(a, desc({2, 3, 4, 5}, data_type::f32, dims{60, 20, 0, 1})), Catch::Contains("stride 0"));
  reorder_attr wrong;
  wrong.src_scales = {1 << 1, {1.f, 2.f}};
  REQUIRE_THROWS_WITH(reorder(a, a, wrong), Catch::Contains("need 3 values"));
  wrong.src_scales = {1 << 5, {1.f}};
  REQUIRE_THROWS_WITH(reorder(a, a, wrong), Catch::Contains("mask"));
  // compensation follows the data of a whole buffer, which a view at an offset is not
  const desc weights = desc({4, 8}, data_type::s8, "ab").with_extra(weights_extra(memfmt::extra_flags::compensation_conv_s8s8, 1));
  REQUIRE_THROWS_WITH(reorder(desc({2, 8}, data_type::f32, "ab"), weights.submemory_desc({2, 8}, {2, 0})),
                      Catch::Contains("view at offset 16"));
  // compensation sums 8-bit integer weights
  for (const data_type dt : {data_type::f32, data_type::s32, data_type::f8_e4m3})
    REQUIRE_THROWS_WITH(reorder(desc({4, 8}, data_type::f32, "ab"),
                                desc({4, 8}, dt, "ab").with_extra(weights_extra(memfmt::extra_flags::compensation_conv_s8s8, 1))),
                        Catch::Contains("sums s8 or u8 weights, but holds " + std::string(memfmt::to_string(dt))));
  const reorder r(a, a);
  float buffer[120] = {};
  REQUIRE_THROWS_WITH(r.execute(nullptr, buffer), Catch::Contains("null source"));
  REQUIRE_THROWS_WITH(r.execute(buffer, nullptr), Catch::Contains("null destination"));
}

TEST_CASE("memory-to-memory reorders", "[reorder]") {
  const desc src({2, 17, 3, 3}, data_type::f32, "nchw"), dst({2, 17, 3, 3}, data_type::f32, "nChw16c");
  memfmt::memory from(src), to(dst);
  for_each_index(src.get_dims(), [&](const dims& i) { from.at<float>(i) = static_cast<float>(i[1] * 10 + i[3]); });
  reorder(from, to).execute(from, to);
  for_each_index(src.get_dims(), [&](const dims& i) { REQUIRE(to.at<float>(i) == static_cast<float>(i[1] * 10 + i[3])); });
  REQUIRE_THROWS_WITH(reorder(from, to).execute(to, from), Catch::Contains("not the planned ones"));
}
