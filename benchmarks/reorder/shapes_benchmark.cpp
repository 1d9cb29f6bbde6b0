// shapes_benchmark: memfmt::reorder, memcpy and oneDNN's reorder side by side in one
// process on shapes and types outside the suite of reorder_benchmark: activations with
// few pixels (the 3 x 3 to 14 x 14 of late layers) to and from nChw16c, and 8- and
// 16-bit layout changes. Inside L2, one thread. `--target AVX2` (or SSE4, AVX3) runs
// memfmt's kernels for that Highway target; cap oneDNN alike with DNNL_MAX_CPU_ISA=AVX2.
// Prints a Markdown table; the figures in docs/benchmarks.md that name this program
// come from it.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "memfmt/memfmt.hpp"
#include "measure.hpp"

namespace mb = memfmt_bench;
using memfmt::data_type;
using memfmt::dims;

namespace {

struct shape_case {
  data_type type;
  const char* from;
  const char* to;
  dims size;
};

std::vector<shape_case> cases() {
  const data_type f32 = data_type::f32, bf16 = data_type::bf16, s8 = data_type::s8;
  std::vector<shape_case> all;
  for (const dims& d : {dims{1, 1024, 3, 3}, dims{1, 1024, 5, 5}, dims{1, 512, 7, 7}, dims{1, 256, 14, 14},
                        dims{1, 128, 28, 28}, dims{1, 64, 56, 56}})
    for (const auto& [from, to] : {std::pair{"nchw", "nChw16c"}, {"nChw16c", "nchw"}}) all.push_back({f32, from, to, d});
  for (const data_type t : {bf16, s8}) {
    const dims d = t == s8 ? dims{1, 256, 32, 32} : dims{1, 128, 32, 32};  // 256 KiB
    for (const auto& [from, to] :
         {std::pair{"nchw", "nhwc"}, {"nhwc", "nchw"}, {"nchw", "nChw16c"}, {"nChw16c", "nchw"}})
      all.push_back({t, from, to, d});
  }
  return all;
}

const char* type_name(data_type t) { return t == data_type::f32 ? "f32" : t == data_type::bf16 ? "bf16" : "s8"; }

/// The best of `rounds` medians of each operation, the three taking turns.
template <class... F>
std::vector<double> best_medians(int rounds, const mb::timing_policy& p, F&&... f) {
  std::vector<double> best(sizeof...(F), 1e300);
  for (int r = 0; r < rounds; ++r) {
    std::size_t k = 0;
    ((best[k] = std::min(best[k], mb::time_runs(f, p).median), ++k), ...);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string target;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
      target = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--target AVX3|AVX2|SSE4]\n", argv[0]);
      return 2;
    }
  }
  if (!target.empty()) {
    const std::int64_t t = target == "AVX3" ? HWY_AVX3 : target == "AVX2" ? HWY_AVX2 : target == "SSE4" ? HWY_SSE4 : 0;
    if (t == 0 || (hwy::SupportedTargets() & t) == 0) {
      std::fprintf(stderr, "error: target '%s' is not one of AVX3, AVX2, SSE4 that this CPU runs\n", target.c_str());
      return 2;
    }
    hwy::SetSupportedTargetsForTest(t);
  }
  mb::set_threads(1);
  mb::timing_policy policy;
  policy.min_seconds = quick ? 0.001 : 0.05;
  policy.min_reps = quick ? 1 : 5;
  const int rounds = quick ? 1 : 5;
  std::printf("memfmt kernels: %s, one thread, GB/s = (source + destination bytes) / time\n\n",
              mb::kernel_target_name().c_str());
  std::printf("| type | case | dims | memfmt GB/s | memcpy GB/s | oneDNN GB/s | memfmt / oneDNN | oneDNN impl | equal |\n");
  std::printf("| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n");
  bool all_equal = true;
  for (const shape_case& c : cases()) {
    const memfmt::desc src(c.size, c.type, c.from), dst(c.size, c.type, c.to);
    memfmt::reorder_attr attr;
    attr.threads = 1;
    const memfmt::reorder r(src, dst, attr);
    const std::size_t bytes = src.get_size() + dst.get_size();
    mb::buffer s(src.get_size()), d(dst.get_size(), 0xA5), copy_src(bytes / 2, 1), copy_dst(bytes / 2, 2);
    mb::fill_random(src, s.data(), -100.f, 100.f, 0x5EED);
    const auto run_memfmt = [&] { r.execute(s.data(), d.data()); };
    const auto run_memcpy = [&] { std::memcpy(copy_dst.data(), copy_src.data(), bytes / 2); };
    double onednn = 0;
    std::string impl = "-", equal = "-";
#if MEMFMT_HAVE_ONEDNN
    mb::buffer e(dst.get_size(), 0x5A);
    memfmt_onednn::reorder check(src, dst, attr);
    check.bind(s.data(), e.data());
    run_memfmt();
    check.execute();
    const bool same = std::memcmp(d.data(), e.data(), dst.get_size()) == 0;
    all_equal = all_equal && same;
    equal = same ? "yes" : "NO";
    impl = check.impl();
    memfmt_onednn::reorder timed(src, dst, attr);
    timed.bind(s.data(), d.data());  // the same destination pages
    const auto run_onednn = [&] { timed.execute(); };
    const std::vector<double> t = best_medians(rounds, policy, run_memfmt, run_memcpy, run_onednn);
    onednn = mb::gbps(static_cast<double>(bytes), t[2]);
#else
    const std::vector<double> t = best_medians(rounds, policy, run_memfmt, run_memcpy);
#endif
    const double ours = mb::gbps(static_cast<double>(bytes), t[0]), copy = mb::gbps(static_cast<double>(bytes), t[1]);
    std::printf("| %s | %s -> %s | %s | %.1f | %.1f | %.1f | %.2fx | %s | %s |\n", type_name(c.type), c.from, c.to,
                mb::dims_str(c.size).c_str(), ours, copy, onednn, onednn > 0 ? ours / onednn : 0.0, impl.c_str(),
                equal.c_str());
  }
  if (!all_equal) std::printf("\nMISMATCH: memfmt and oneDNN differ in a case above\n");
  return all_equal ? 0 : 1;
}
