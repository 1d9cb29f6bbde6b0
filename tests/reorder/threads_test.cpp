// Reorders on threads, against the element-by-element reference: plans cut for several
// threads and run by a std::thread parallel_for (which ThreadSanitizer sees, unlike an
// uninstrumented OpenMP runtime), and one plan executed by several threads at once.
// Built and run in every configuration and, with -fsanitize=thread, in the tsan one.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "../support/reference.hpp"

using namespace memfmt_test;
using memfmt::reorder;
using memfmt::reorder_attr;

namespace {

/// A parallel_for that runs [0, count) in `threads` contiguous chunks, one std::thread each.
memfmt::parallel_for_fn thread_parallel_for(int threads) {
  return [threads](dim count, const std::function<void(dim, dim)>& body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      const dim begin = count * t / threads, end = count * (t + 1) / threads;
      if (begin < end) pool.emplace_back([&body, begin, end] { body(begin, end); });
    }
    for (std::thread& th : pool) th.join();
  };
}

/// A source of `src` with random values, and the reference's destination bytes of
/// src -> dst from a garbage destination (`garbage` in every byte, padding included).
struct problem {
  std::vector<unsigned char> source, expected;
};

problem make_problem(const desc& src, const desc& dst, const reorder_attr& attr, unsigned char garbage,
                     std::uint32_t seed) {
  problem p;
  std::mt19937 rng(seed);
  p.source.resize(src.get_size());
  fill_random(src.get_data_type(), p.source.data(), p.source.size(), rng);
  p.expected.assign(dst.get_size(), garbage);
  reference_reorder(src, dst, attr, p.source.data(), p.expected.data());
  return p;
}

// Large enough to be cut for threads (well over reorder::serial_bytes): transposes, a
// copy with padding, conversions, a double-blocked weights layout.
const std::tuple<dims, data_type, const char*, data_type, const char*> cases[] = {
    {{2, 64, 32, 32}, data_type::f32, "nchw", data_type::f32, "nhwc"},
    {{2, 17, 62, 62}, data_type::f32, "nchw", data_type::bf16, "nChw16c"},
    {{2, 71, 30, 30}, data_type::bf16, "nChw16c", data_type::f32, "nchw"},
    {{3, 24, 40, 40}, data_type::s8, "nChw8c", data_type::s8, "nChw16c"},
    {{96, 80, 3, 3}, data_type::f32, "oihw", data_type::s8, "OIhw4i16o4i"},
};

}  // namespace

TEST_CASE("plans cut for threads give the reference's bytes on std::threads", "[reorder][threads]") {
  for (const auto& [shape, from, from_tag, to, to_tag] : cases)
    for (const int threads : {2, 3, 4}) {
      const desc src(shape, from, from_tag), dst(shape, to, to_tag);
      reorder_attr attr;
      attr.threads = threads;
      const reorder r(src, dst, attr);
      INFO(src.str() << " -> " << dst.str() << ", " << threads << " threads");
      const problem p = make_problem(src, dst, attr, 0xA5, 3);
      std::vector<unsigned char> actual(dst.get_size(), 0xA5);
      r.execute(p.source.data(), actual.data(), thread_parallel_for(threads));
      REQUIRE(actual == p.expected);
    }
}

TEST_CASE("one plan executed by several threads at once", "[reorder][threads]") {
  for (const auto& [shape, from, from_tag, to, to_tag] : cases) {
    const desc src(shape, from, from_tag), dst(shape, to, to_tag);
    reorder_attr attr;
    attr.threads = 2;
    const reorder r(src, dst, attr);  // shared, const: execute is thread-safe
    INFO(src.str() << " -> " << dst.str());
    constexpr int callers = 4;
    std::vector<problem> problems;
    std::vector<std::vector<unsigned char>> results;
    for (int k = 0; k < callers; ++k) {
      problems.push_back(make_problem(src, dst, attr, static_cast<unsigned char>(0x11 * k), static_cast<std::uint32_t>(k)));
      results.emplace_back(dst.get_size(), static_cast<unsigned char>(0x11 * k));
    }
    std::vector<std::thread> pool;
    for (int k = 0; k < callers; ++k)
      pool.emplace_back([&, k] {
        // half of them cut the plan for their own threads, half run it whole
        if (k % 2 == 0) {
          r.execute(problems[k].source.data(), results[k].data(), thread_parallel_for(2));
        } else {
          r.execute(problems[k].source.data(), results[k].data(), nullptr);
        }
      });
    for (std::thread& th : pool) th.join();
    for (int k = 0; k < callers; ++k) {
      INFO("caller " << k);
      REQUIRE(results[k] == problems[k].expected);
    }
  }
}
