// memfmt's reorder, memcpy of the same traffic and oneDNN's reorder, side by side in
// one process, over a suite of layout changes and conversions, at a size that fits
// in L2 and at one far beyond the last-level cache, on one thread and on all.
//
//   reorder_benchmark [--filter REGEX] [--quick] [--json PATH] [--svg PATH] ...
//
// Prints a table, writes the numbers as JSON and a bar chart as SVG (defaults:
// docs/benchmarks/reorder.{json,svg} of the source tree). See docs/benchmarks.md.
// Exits with 1 when memfmt's output differs from oneDNN's in any case.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <iterator>
#include <vector>

#include <unistd.h>

#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/plan_str.hpp"
#include "memfmt/reorder/reorder.hpp"
#include "measure.hpp"

#ifndef MEMFMT_SOURCE_DIR
#define MEMFMT_SOURCE_DIR "."
#endif

namespace {

using memfmt::data_type;
using memfmt::dims;
namespace mb = memfmt_bench;

// ------------------------------------------------------------------ the suite

/// A reorder to measure at two sizes.
struct problem {
  std::string name;  ///< e.g. "nchw->nChw16c c17"
  data_type sdt, ddt;
  std::string stag, dtag;
  dims l2;                 ///< about 256 KiB of source: inside L2
  dims dram;               ///< about 256 MiB of source: far beyond the last-level cache
  float scale = 0.f;       ///< a common source scale (0: none)
  float lo = -100.f, hi = 100.f;  ///< range of the source values
};

std::vector<problem> suite() {
  const dims act_l2{1, 64, 32, 32}, act_dram{16, 64, 256, 256};          // 256 KiB, 256 MiB of f32
  const dims wei_l2{64, 112, 3, 3}, wei_dram{2048, 3632, 3, 3};          // 252 KiB, 255 MiB
  const dims mat_l2{256, 256}, mat_dram{8192, 8192};                     // 256 KiB, 256 MiB
  const dims c17_l2{1, 17, 62, 62}, c17_dram{16, 17, 496, 496};          // 255 KiB, 255 MiB
  const dims c71_l2{1, 71, 30, 30}, c71_dram{16, 71, 243, 243};          // 250 KiB, 256 MiB
  const data_type f32 = data_type::f32, bf16 = data_type::bf16, s8 = data_type::s8;
  return {
      {"nchw->nhwc", f32, f32, "nchw", "nhwc", act_l2, act_dram},
      {"nhwc->nchw", f32, f32, "nhwc", "nchw", act_l2, act_dram},
      {"nchw->nChw8c", f32, f32, "nchw", "nChw8c", act_l2, act_dram},
      {"nchw->nChw16c", f32, f32, "nchw", "nChw16c", act_l2, act_dram},
      {"nhwc->nChw16c", f32, f32, "nhwc", "nChw16c", act_l2, act_dram},
      {"nChw8c->nChw16c", f32, f32, "nChw8c", "nChw16c", act_l2, act_dram},
      {"nChw16c->nChw8c", f32, f32, "nChw16c", "nChw8c", act_l2, act_dram},
      {"oihw->OIhw16i16o", f32, f32, "oihw", "OIhw16i16o", wei_l2, wei_dram},
      {"oihw->OIhw4i16o4i f32->s8 scale", f32, s8, "oihw", "OIhw4i16o4i", wei_l2, wei_dram, 0.5f, -300.f, 300.f},
      {"ab->BA16a64b", f32, f32, "ab", "BA16a64b", mat_l2, mat_dram},
      {"nchw f32->bf16", f32, bf16, "nchw", "nchw", act_l2, act_dram},
      {"nchw->nChw16c f32->bf16", f32, bf16, "nchw", "nChw16c", act_l2, act_dram},
      {"nchw f32->s8 scale", f32, s8, "nchw", "nchw", act_l2, act_dram, 0.5f, -300.f, 300.f},
      {"nchw->nChw16c c17", f32, f32, "nchw", "nChw16c", c17_l2, c17_dram},
      {"nChw16c->nchw c17", f32, f32, "nChw16c", "nchw", c17_l2, c17_dram},
      {"nchw->nChw16c c71", f32, f32, "nchw", "nChw16c", c71_l2, c71_dram},
      {"nhwc->nChw8c c71", f32, f32, "nhwc", "nChw8c", c71_l2, c71_dram},
  };
}

/// Dims for --quick: the L2 dims shrunk (the program is exercised, nothing is measured).
dims quick_dims(const dims& d) {
  dims q = d;
  for (int pass = 0; pass < 8 && q.product() > 4096; ++pass)
    for (int i = q.size() - 1; i >= 0 && q.product() > 4096; --i)
      if (q[i] >= 8) q[i] /= 2;
  return q;
}

std::string bytes_str(double b) {
  char buf[32];
  if (b >= 1 << 30) std::snprintf(buf, sizeof buf, "%.0f GiB", b / (1 << 30));
  else if (b >= 1 << 20) std::snprintf(buf, sizeof buf, "%.0f MiB", b / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024);
  return buf;
}

// ------------------------------------------------------------------ results

struct measured {
  mb::timing t;
  double gbps = 0;
  bool valid = false;
};

/// One case at one thread count.
struct entry {
  int threads = 1;
  measured memfmt, memcpy_, onednn;
  std::optional<bool> match;  ///< empty without oneDNN
  std::string mismatch;       ///< the first differing element, when !match
  double contention = 0;      ///< CPU time other processes used during the timing, in cores (0: none)
  int attempts = 1;           ///< timings taken (a contended one is retried)
};

struct plan_times {
  mb::timing memfmt, onednn, onednn_cached;
};

struct case_result {
  const problem* prob = nullptr;
  std::string size_class;  ///< "L2" or "DRAM"
  std::string id;          ///< what --filter matches: "<name> @<size class>"
  dims d;
  std::size_t src_bytes = 0, dst_bytes = 0, copy_bytes = 0;
  mb::plan_summary plan;
  std::vector<std::string> nests;
  std::string onednn_impl;
  plan_times plan_time;
  std::vector<entry> entries;
};

/// CPU seconds that processes other than this one have used, machine-wide, so far:
/// the non-idle time of /proc/stat minus this process's own (from /proc/self/stat).
/// Negative where /proc is missing.
double others_cpu_seconds() {
  std::ifstream st("/proc/stat");
  std::string cpu;
  unsigned long long v[10] = {};
  st >> cpu;
  for (unsigned long long& x : v) st >> x;
  if (!st || cpu != "cpu") return -1;
  // user nice system idle iowait irq softirq steal guest guest_nice; guests are inside user
  const unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  std::ifstream self("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int k = 3; k <= 15 && fields >> field; ++k) {  // fields 14 and 15 are utime and stime
    if (k == 14) utime = std::stoull(field);
    if (k == 15) stime = std::stoull(field);
  }
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  return (static_cast<double>(busy) - static_cast<double>(utime + stime)) / tick;
}

struct options {
  std::string filter;
  bool quick = false;
  bool list = false;
  bool show_plan = false;
  std::string json = std::string(MEMFMT_SOURCE_DIR) + "/docs/benchmarks/reorder.json";
  std::string svg = std::string(MEMFMT_SOURCE_DIR) + "/docs/benchmarks/reorder.svg";
  std::string markdown;  ///< the tables in Markdown, for docs/benchmarks.md ('' : not written)
  std::string note;      ///< free text recorded with the results (e.g. the commit measured)
  double min_time = 0.3;
  int min_reps = 5;
  int threads = 0;  ///< "all threads"; 0: every processor
  std::string sizes = "l2,dram";
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "reorder_benchmark: %s\n(run with --help for the options)\n", what.c_str());
  std::exit(2);
}

void print_help() {
  std::printf(
      "reorder_benchmark: memfmt::reorder vs memcpy vs oneDNN's reorder, in one process\n"
      "\n"
      "  --filter REGEX   only the cases whose id matches (ECMAScript regex, searched),\n"
      "                   ids are '<name> @L2' and '<name> @DRAM'; --list prints them\n"
      "  --quick          tiny sizes, few repetitions: checks that everything runs\n"
      "  --sizes LIST     size classes: l2, dram or l2,dram (default)\n"
      "  --threads N      the thread count of the 'all threads' runs (default: all processors)\n"
      "  --min-time S     seconds of timed runs per measurement (default 0.3)\n"
      "  --min-reps N     at least N timed runs per measurement (default 5)\n"
      "  --json PATH      write the results as JSON (default docs/benchmarks/reorder.json\n"
      "                   of the source tree; '-' or '' to skip)\n"
      "  --svg PATH       write a bar chart (default docs/benchmarks/reorder.svg; '-' to skip)\n"
      "  --markdown PATH  also write the tables in Markdown\n"
      "  --note TEXT      record TEXT with the results (e.g. the commit measured)\n"
      "  --plan           print memfmt's loop nests of every case\n"
      "  --list           print the case ids and exit\n");
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], value;
    const bool has_inline = a.rfind("--", 0) == 0 && a.find('=') != std::string::npos;
    if (has_inline) {
      value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
    }
    const auto take = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) usage_error("option " + a + " needs a value");
      return argv[++i];
    };
    const auto number = [&](const std::string& s) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0' || !(v >= 0)) usage_error("option " + a + ": '" + s + "' is not a number >= 0");
      return v;
    };
    if (a == "--help" || a == "-h") {
      print_help();
      std::exit(0);
    } else if (a == "--filter") {
      o.filter = take();
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--plan") {
      o.show_plan = true;
    } else if (a == "--json") {
      o.json = take();
    } else if (a == "--svg") {
      o.svg = take();
    } else if (a == "--markdown") {
      o.markdown = take();
    } else if (a == "--note") {
      o.note = take();
    } else if (a == "--min-time") {
      o.min_time = number(take());
    } else if (a == "--min-reps") {
      o.min_reps = static_cast<int>(number(take()));
    } else if (a == "--threads") {
      o.threads = static_cast<int>(number(take()));
    } else if (a == "--sizes") {
      o.sizes = take();
      for (char& c : o.sizes) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (o.sizes != "l2" && o.sizes != "dram" && o.sizes != "l2,dram" && o.sizes != "dram,l2")
        usage_error("--sizes: '" + o.sizes + "' is not l2, dram or l2,dram");
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  if (o.quick) {
    o.min_time = std::min(o.min_time, 0.002);
    o.min_reps = std::min(o.min_reps, 2);
  }
  if (o.threads == 0) o.threads = mb::all_threads();
  return o;
}

// ------------------------------------------------------------------ measuring

/// Times several operations in interleaved rounds of about `round_seconds` each (so that
/// drifts of clock speed, of the machine's load, or of the memory bandwidth the host
/// grants hit them alike), then reduces each to median and min. Short rounds matter on
/// a virtual machine: with 2 threads from memory, this guest's bandwidth switches
/// between about 44 and 78 GB/s for seconds at a time; in three rounds of 0.1 s per
/// operation, one switch put memcpy at 44, memfmt at 57 and oneDNN at 66 GB/s within
/// one case (nchw -> nChw8c, 256 MiB).
struct interleaved {
  struct series {
    std::vector<double> times;
    double total = 0;
  };
  static constexpr double round_seconds = 0.01;
  static constexpr std::size_t max_runs = 1000000;  ///< per operation, whatever the time asked for

  template <class... F>
  static std::vector<mb::timing> run(double min_seconds, int min_reps, F&&... f) {
    std::vector<series> s(sizeof...(F));
    const double slice = std::min(round_seconds, min_seconds);
    const auto done = [&] {
      for (const series& x : s)
        if (x.times.size() >= max_runs) return true;
      for (const series& x : s)
        if (x.total < min_seconds || static_cast<int>(x.times.size()) < min_reps) return false;
      return true;
    };
    do {
      std::size_t k = 0;
      (one(s[k++], f, slice), ...);
    } while (!done());
    std::vector<mb::timing> out;
    for (series& x : s) {
      mb::timing t;
      std::sort(x.times.begin(), x.times.end());
      t.reps = static_cast<int>(x.times.size());
      if (!x.times.empty()) {
        t.min = x.times.front();
        t.max = x.times.back();
        const std::size_t n = x.times.size();
        t.median = n % 2 == 1 ? x.times[n / 2] : 0.5 * (x.times[n / 2 - 1] + x.times[n / 2]);
      }
      out.push_back(t);
    }
    return out;
  }

  /// One round of `f`: runs adding up to `seconds` (at least one), after an untimed run
  /// when runs are short (the other operations have just taken the caches) and in the
  /// first round (page tables, thread pools).
  template <class F>
  static void one(series& s, F& f, double seconds) {
    using clock = std::chrono::steady_clock;
    constexpr double cached_run = 1e-3;  // runs shorter than this work in cache
    if (s.times.empty() || s.times.back() < cached_run) f();
    double round = 0;
    do {
      const auto t0 = clock::now();
      f();
      const double t = std::chrono::duration<double>(clock::now() - t0).count();
      s.times.push_back(t);
      s.total += t;
      round += t;
    } while (round < seconds && s.times.size() < max_runs);
  }
};

std::string describe_mismatch(const memfmt::desc& dst, const unsigned char* a, const unsigned char* b) {
  const std::size_t esize = memfmt::data_type_size(dst.get_data_type());
  std::size_t count = 0, first = 0;
  for (std::size_t k = 0; k < dst.get_size(); k += esize)
    if (std::memcmp(a + k, b + k, esize) != 0) {
      if (count == 0) first = k;
      ++count;
    }
  std::string s = std::to_string(count) + " of " + std::to_string(dst.get_size() / esize) +
                  " elements differ; first at element " + std::to_string(first / esize) + ": memfmt ";
  const auto value = [&](const unsigned char* p) {
    char buf[64];
    switch (dst.get_data_type()) {
      case data_type::f32: {
        float v;
        std::memcpy(&v, p, 4);
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
        break;
      }
      case data_type::s8: std::snprintf(buf, sizeof buf, "%d", static_cast<int>(static_cast<signed char>(*p))); break;
      case data_type::u8: std::snprintf(buf, sizeof buf, "%d", static_cast<int>(*p)); break;
      default: {
        unsigned long long bits = 0;
        std::memcpy(&bits, p, esize);
        std::snprintf(buf, sizeof buf, "0x%llx", bits);
      }
    }
    return std::string(buf);
  };
  return s + value(a + first) + ", oneDNN " + value(b + first);
}

case_result run_case(const problem& p, const std::string& size_class, const dims& d, const options& o
#if MEMFMT_HAVE_ONEDNN
                     ,
                     const dnnl::engine& eng
#endif
) {
  case_result c;
  c.prob = &p;
  c.size_class = size_class;
  c.id = p.name + " @" + size_class;
  c.d = d;
  const memfmt::desc src(d, p.sdt, p.stag), dst(d, p.ddt, p.dtag);
  memfmt::reorder_attr attr;
  if (p.scale != 0.f) attr.src_scales = memfmt::scales{0, {p.scale}};
  c.src_bytes = src.get_size();
  c.dst_bytes = dst.get_size();
  // memcpy moves the same traffic as the reorder: reads and writes (src + dst) / 2
  c.copy_bytes = (c.src_bytes + c.dst_bytes) / 2;

  // plan creation: memfmt's constructor vs oneDNN's primitive_desc + primitive
  mb::timing_policy plan_policy;
  plan_policy.min_seconds = o.quick ? 0.002 : 0.1;
  plan_policy.min_reps = o.quick ? 3 : 101;
  plan_policy.warmup = 3;
  {
    memfmt::reorder r(src, dst, attr);
    c.plan = mb::summarize(r);
    for (const auto& n : r.nests()) c.nests.push_back(memfmt::detail::nest_str(n));
  }
  c.plan_time.memfmt = mb::time_runs([&] { memfmt::reorder r(src, dst, attr); }, plan_policy);
#if MEMFMT_HAVE_ONEDNN
  {
    const dnnl::memory::desc smd = memfmt::to_dnnl(src), dmd = memfmt::to_dnnl(dst);
    const dnnl::primitive_attr dattr = memfmt_onednn::attributes(src, attr);
    const auto create = [&] {
      dnnl::reorder::primitive_desc pd(eng, smd, eng, dmd, dattr);
      dnnl::reorder prim(pd);
    };
    const int capacity = dnnl::get_primitive_cache_capacity();
    dnnl::set_primitive_cache_capacity(0);  // every creation creates: the cost a first use pays
    c.plan_time.onednn = mb::time_runs(create, plan_policy);
    dnnl::set_primitive_cache_capacity(capacity);
    c.plan_time.onednn_cached = mb::time_runs(create, plan_policy);
  }
#endif

  mb::buffer s(c.src_bytes), out_memfmt(c.dst_bytes, 0xA5), out_onednn(c.dst_bytes, 0x5A);
  mb::buffer copy_src(c.copy_bytes, 1), copy_dst(c.copy_bytes, 2);
  mb::fill_random(src, s.data(), p.lo, p.hi, 0x5EED + c.src_bytes);

  std::vector<int> thread_counts{1};
  if (o.threads > 1) thread_counts.push_back(o.threads);
  for (int threads : thread_counts) {
    mb::set_threads(threads);
    memfmt::reorder_attr a = attr;
    a.threads = threads == 1 ? 1 : 0;
    const memfmt::reorder r(src, dst, a);
#if MEMFMT_HAVE_ONEDNN
    // created after set_threads: a oneDNN primitive takes its thread count when it is created
    memfmt_onednn::reorder dnn(src, dst, attr);
    dnn.bind(s.data(), out_onednn.data());
    c.onednn_impl = dnn.impl();
#endif
    entry e;
    e.threads = threads;
    const auto run_memfmt = [&] { r.execute(s.data(), out_memfmt.data()); };
    const auto run_memcpy = [&] { mb::parallel_memcpy(copy_dst.data(), copy_src.data(), c.copy_bytes, threads); };
#if MEMFMT_HAVE_ONEDNN
    // the outputs must agree bit for bit, padding included (both start from different garbage)
    std::memset(out_memfmt.data(), 0xA5, c.dst_bytes);
    std::memset(out_onednn.data(), 0x5A, c.dst_bytes);
    run_memfmt();
    dnn.execute();
    e.match = std::memcmp(out_memfmt.data(), out_onednn.data(), c.dst_bytes) == 0;
    if (!*e.match) {
      e.mismatch = describe_mismatch(dst, out_memfmt.data(), out_onednn.data());
      std::fprintf(stderr, "\n*** MISMATCH: %s, %d thread(s): %s\n", c.id.c_str(), threads, e.mismatch.c_str());
    }
    // timed into memfmt's destination: the same physical pages for both, so that both
    // meet the same cache set conflicts (in L2, fresh buffers of the same size run a
    // transpose 1.5x faster or slower depending on the pages they get)
    memfmt_onednn::reorder timed(src, dst, attr);
    timed.bind(s.data(), out_memfmt.data());
    const auto run_onednn = [&] { timed.execute(); };
#endif
    // Other processes on these cores distort the timings (on 2 cores, one busy core
    // stalls every 2-thread run): a timing during which they used more than 5% of a
    // core is taken again, up to 3 times, and the least disturbed one is kept.
    std::vector<mb::timing> t;
    e.contention = 1e300;
    for (int attempt = 1; attempt <= (o.quick ? 1 : 3); ++attempt) {
      const double before = others_cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
#if MEMFMT_HAVE_ONEDNN
      std::vector<mb::timing> u = interleaved::run(o.min_time, o.min_reps, run_memfmt, run_memcpy, run_onednn);
#else
      std::vector<mb::timing> u = interleaved::run(o.min_time, o.min_reps, run_memfmt, run_memcpy);
#endif
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double others = before < 0 ? 0 : std::max(0.0, (others_cpu_seconds() - before) / wall);
      if (others < e.contention) {
        e.contention = others;
        t = std::move(u);
      }
      e.attempts = attempt;
      if (e.contention <= 0.05) break;
    }
#if MEMFMT_HAVE_ONEDNN
    e.onednn = {t[2], mb::gbps(double(c.src_bytes + c.dst_bytes), t[2].median), true};
#endif
    e.memfmt = {t[0], mb::gbps(double(c.src_bytes + c.dst_bytes), t[0].median), true};
    e.memcpy_ = {t[1], mb::gbps(2.0 * double(c.copy_bytes), t[1].median), true};
    c.entries.push_back(e);
  }
  mb::set_threads(o.threads);
  return c;
}

// ------------------------------------------------------------------ summary

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

bool is_plain_layout_change(const case_result& c) {
  return c.prob->sdt == data_type::f32 && c.prob->ddt == data_type::f32 && c.prob->scale == 0.f;
}

struct summary {
  double geo_vs_onednn = 0, geo_vs_onednn_1t = 0, geo_vs_onednn_all = 0;
  double min_vs_onednn = 0;
  std::string min_vs_onednn_case;
  int slower_than_onednn = 0, compared = 0;
  double min_vs_memcpy_large_1t = 0, min_vs_memcpy_large_all = 0;
  double geo_vs_memcpy_large_1t = 0, geo_vs_memcpy_large_all = 0;
  int large_layout_cases = 0, below_memcpy_target_1t = 0, below_memcpy_target_all = 0;
  double geo_plan_speedup = 0, min_plan_speedup = 0, geo_plan_speedup_cached = 0;
  int below_plan_target = 0;
  int mismatches = 0;
};

summary summarize(const std::vector<case_result>& results) {
  summary s;
  std::vector<double> all, one, many, big1, bigN, plan, plan_cached;
  s.min_vs_onednn = 1e300;
  s.min_vs_memcpy_large_1t = s.min_vs_memcpy_large_all = 1e300;
  s.min_plan_speedup = 1e300;
  for (const case_result& c : results) {
    if (c.plan_time.onednn.median > 0 && c.plan_time.memfmt.median > 0) {
      const double r = c.plan_time.onednn.median / c.plan_time.memfmt.median;
      plan.push_back(r);
      s.below_plan_target += r < 10.0;
      s.min_plan_speedup = std::min(s.min_plan_speedup, r);
      plan_cached.push_back(c.plan_time.onednn_cached.median / c.plan_time.memfmt.median);
    }
    for (const entry& e : c.entries) {
      if (e.match && !*e.match) ++s.mismatches;
      if (e.onednn.valid && e.memfmt.t.median > 0) {
        const double r = e.onednn.t.median / e.memfmt.t.median;
        all.push_back(r);
        (e.threads == 1 ? one : many).push_back(r);
        ++s.compared;
        if (r < 1.0) ++s.slower_than_onednn;
        if (r < s.min_vs_onednn) {
          s.min_vs_onednn = r;
          s.min_vs_onednn_case = c.id + (e.threads == 1 ? ", 1 thread" : ", all threads");
        }
      }
      if (c.size_class == "DRAM" && is_plain_layout_change(c)) {
        const double r = e.memfmt.gbps / e.memcpy_.gbps;
        if (e.threads == 1) {
          s.below_memcpy_target_1t += r < 0.85;
          big1.push_back(r);
          s.min_vs_memcpy_large_1t = std::min(s.min_vs_memcpy_large_1t, r);
        } else {
          s.below_memcpy_target_all += r < 0.85;
          bigN.push_back(r);
          s.min_vs_memcpy_large_all = std::min(s.min_vs_memcpy_large_all, r);
        }
      }
    }
    if (c.size_class == "DRAM" && is_plain_layout_change(c)) ++s.large_layout_cases;
  }
  s.geo_vs_onednn = geomean(all);
  s.geo_vs_onednn_1t = geomean(one);
  s.geo_vs_onednn_all = geomean(many);
  s.geo_vs_memcpy_large_1t = geomean(big1);
  s.geo_vs_memcpy_large_all = geomean(bigN);
  s.geo_plan_speedup = geomean(plan);
  s.geo_plan_speedup_cached = geomean(plan_cached);
  if (all.empty()) s.min_vs_onednn = 0;
  if (big1.empty()) s.min_vs_memcpy_large_1t = 0;
  if (bigN.empty()) s.min_vs_memcpy_large_all = 0;
  if (plan.empty()) s.min_plan_speedup = 0;
  return s;
}

// ------------------------------------------------------------------ machine

std::string first_line_with(const char* path, const char* key) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) {
      const std::size_t colon = line.find(':');
      std::string v = colon == std::string::npos ? line : line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

std::string read_trimmed(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

struct machine {
  std::string cpu, caches, compiler, kernel_target, onednn;
  int processors = 0;
  double load_before = -1, load_after = -1;  ///< 1-minute load average (other processes compete for the cores)
};

/// The 1-minute load average, or -1 where /proc/loadavg is missing.
double load_average() {
  std::ifstream f("/proc/loadavg");
  double v = -1;
  f >> v;
  return f ? v : -1;
}

machine describe_machine() {
  machine m;
  m.cpu = first_line_with("/proc/cpuinfo", "model name");
  if (m.cpu.empty()) m.cpu = "unknown CPU";
  for (int i = 0; i < 8; ++i) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_trimmed(base + "level"), type = read_trimmed(base + "type"),
                      size = read_trimmed(base + "size");
    if (level.empty() || type == "Instruction") continue;
    if (!m.caches.empty()) m.caches += ", ";
    m.caches += "L" + level + " " + size;
  }
#if defined(_SC_LEVEL3_CACHE_SIZE)
  if (m.caches.empty()) {  // no sysfs cache entries (some virtual machines): what sysconf reports
    const long sizes[] = {sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL3_CACHE_SIZE)};
    for (int level = 1; level <= 3; ++level) {
      const long bytes = sizes[level - 1];
      if (bytes <= 0) continue;
      if (!m.caches.empty()) m.caches += ", ";
      m.caches.append("L").append(std::to_string(level)).append(" ").append(std::to_string(bytes >> 10)).append("K");
    }
    if (!m.caches.empty()) m.caches += " by sysconf";
  }
#endif
  m.processors = mb::all_threads();
#if defined(__clang__)
  m.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  m.compiler = "g++ " __VERSION__;
#else
  m.compiler = "unknown compiler";
#endif
  m.kernel_target = mb::kernel_target_name();
  m.load_before = load_average();
#if MEMFMT_HAVE_ONEDNN
  m.onednn = mb::onednn_version();
#endif
  return m;
}

// ------------------------------------------------------------------ output

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_table(const std::vector<case_result>& results, bool have_onednn) {
  std::printf("\n%-34s %-5s %-4s %10s %10s %10s %9s %9s  %-6s %s\n", "case", "size", "thr", "memfmt", "memcpy",
              "oneDNN", "mf/memcpy", "mf/oneDNN", "match", "memfmt kernel / oneDNN impl");
  std::printf("%-34s %-5s %-4s %10s %10s %10s %9s %9s\n", "", "", "", "GB/s", "GB/s", "GB/s", "", "(speedup)");
  for (const case_result& c : results)
    for (const entry& e : c.entries) {
      const std::string one = have_onednn ? fmt("%10.2f", e.onednn.gbps) : std::string(10, '-');
      const std::string ratio = have_onednn ? fmt("%8.2fx", e.onednn.t.median / e.memfmt.t.median) : "        -";
      const char* match = !e.match ? "-" : *e.match ? "yes" : "NO";
      const std::string busy = e.contention > 0.05 ? fmt("  (others used %.2f cores)", e.contention) : "";
      std::printf("%-34s %-5s %-4d %10.2f %10.2f %s %8.0f%% %s  %-6s %s / %s%s\n", c.prob->name.c_str(),
                  c.size_class.c_str(), e.threads, e.memfmt.gbps, e.memcpy_.gbps, one.c_str(),
                  100.0 * e.memfmt.gbps / e.memcpy_.gbps, ratio.c_str(), match, c.plan.main_kernel.c_str(),
                  have_onednn ? c.onednn_impl.c_str() : "-", busy.c_str());
    }
}

void print_plan_table(const std::vector<case_result>& results, bool have_onednn) {
  std::printf("\nplan creation (median per plan)\n%-34s %-5s %12s %14s %14s %9s\n", "case", "size", "memfmt us",
              "oneDNN us", "oneDNN us", "speedup");
  std::printf("%-34s %-5s %12s %14s %14s\n", "", "", "", "(no cache)", "(cache hit)");
  for (const case_result& c : results) {
    const double m = c.plan_time.memfmt.median * 1e6;
    if (have_onednn)
      std::printf("%-34s %-5s %12.2f %14.2f %14.2f %8.1fx\n", c.prob->name.c_str(), c.size_class.c_str(), m,
                  c.plan_time.onednn.median * 1e6, c.plan_time.onednn_cached.median * 1e6,
                  c.plan_time.onednn.median / c.plan_time.memfmt.median);
    else
      std::printf("%-34s %-5s %12.2f %14s %14s %9s\n", c.prob->name.c_str(), c.size_class.c_str(), m, "-", "-", "-");
  }
}

const char* verdict(bool ok) { return ok ? "MET" : "NOT MET"; }

void print_summary(const summary& s, bool have_onednn, bool any_large) {
  std::printf("\nsummary\n");
  if (any_large && s.large_layout_cases > 0) {
    std::printf("  large f32 layout changes (%d cases), memfmt / memcpy throughput:\n", s.large_layout_cases);
    std::printf("    1 thread:    geomean %.0f%%, worst %.0f%%, %d below 85%%   target >= 85%% in every case: %s\n",
                100 * s.geo_vs_memcpy_large_1t, 100 * s.min_vs_memcpy_large_1t, s.below_memcpy_target_1t,
                verdict(s.below_memcpy_target_1t == 0));
    if (s.geo_vs_memcpy_large_all > 0)
      std::printf("    all threads: geomean %.0f%%, worst %.0f%%, %d below 85%%   target >= 85%% in every case: %s\n",
                  100 * s.geo_vs_memcpy_large_all, 100 * s.min_vs_memcpy_large_all, s.below_memcpy_target_all,
                  verdict(s.below_memcpy_target_all == 0));
  }
  if (!have_onednn) {
    std::printf("  oneDNN was not available at build time: no comparison with oneDNN\n");
    return;
  }
  std::printf("  memfmt vs oneDNN %s, speedup (oneDNN time / memfmt time) over %d measurements:\n",
              mb::onednn_version_or_none().c_str(), s.compared);
  std::printf("    geomean %.2fx (1 thread %.2fx, all threads %.2fx)   target >= 1.5x: %s\n", s.geo_vs_onednn,
              s.geo_vs_onednn_1t, s.geo_vs_onednn_all, verdict(s.geo_vs_onednn >= 1.5));
  std::printf("    slower than oneDNN: %d; worst %.2fx (%s)   target none slower: %s\n", s.slower_than_onednn,
              s.min_vs_onednn, s.min_vs_onednn_case.c_str(), verdict(s.slower_than_onednn == 0));
  std::printf("  plan creation, oneDNN (primitive_desc + primitive, cache off) / memfmt (constructor):\n");
  std::printf("    geomean %.1fx, worst %.1fx, %d below 10x   target >= 10x: geomean %s, every case %s\n",
              s.geo_plan_speedup, s.min_plan_speedup, s.below_plan_target, verdict(s.geo_plan_speedup >= 10),
              verdict(s.below_plan_target == 0));
  std::printf("    (against a hit in oneDNN's primitive cache: geomean %.1fx)\n", s.geo_plan_speedup_cached);
  if (s.mismatches > 0)
    std::printf("  *** %d MISMATCHES between memfmt and oneDNN (see above) ***\n", s.mismatches);
  else
    std::printf("  outputs: memfmt == oneDNN bit for bit in every case\n");
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    switch (ch) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          r += buf;
        } else {
          r += ch;
        }
    }
  }
  return "\"" + r + "\"";
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string json_timing(const mb::timing& t) {
  return "{\"median_s\": " + json_num(t.median) + ", \"min_s\": " + json_num(t.min) + ", \"max_s\": " +
         json_num(t.max) + ", \"reps\": " + std::to_string(t.reps) + "}";
}

std::string json_measured(const measured& m) {
  if (!m.valid) return "null";
  return "{\"gbps\": " + json_num(m.gbps) + ", \"time\": " + json_timing(m.t) + "}";
}

bool write_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) {
    std::fprintf(stderr, "reorder_benchmark: cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

std::string to_json(const std::vector<case_result>& results, const summary& s, const machine& m, const options& o,
                    const std::string& command) {
  std::ostringstream j;
  j << "{\n  \"benchmark\": \"memfmt reorder\",\n  \"command\": " << json_escape(command) << ",\n";
  j << "  \"quick\": " << (o.quick ? "true" : "false") << ",\n";
  j << "  \"note\": " << json_escape(o.note) << ",\n";
  j << "  \"machine\": {\"cpu\": " << json_escape(m.cpu) << ", \"processors\": " << m.processors
    << ", \"caches\": " << json_escape(m.caches) << ", \"compiler\": " << json_escape(m.compiler)
    << ", \"memfmt_kernel_target\": " << json_escape(m.kernel_target)
    << ", \"onednn\": " << (m.onednn.empty() ? "null" : json_escape(m.onednn))
    << ", \"load_average_before\": " << json_num(m.load_before) << ", \"load_average_after\": " << json_num(m.load_after)
    << "},\n";
  j << "  \"method\": {\"min_time_s\": " << json_num(o.min_time) << ", \"min_reps\": " << o.min_reps
    << ", \"round_s\": " << json_num(interleaved::round_seconds)
    << ", \"statistic\": \"median of per-run times\", \"gbps\": \"(src bytes + dst bytes) / time; memcpy: 2 * copied "
       "bytes / time, copying (src + dst) / 2 bytes\"},\n";
  j << "  \"cases\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const case_result& c = results[i];
    j << "    {\"id\": " << json_escape(c.id) << ", \"name\": " << json_escape(c.prob->name)
      << ", \"size_class\": " << json_escape(c.size_class) << ",\n     \"src\": "
      << json_escape(std::string(memfmt::to_string(c.prob->sdt)) + " " + c.prob->stag)
      << ", \"dst\": " << json_escape(std::string(memfmt::to_string(c.prob->ddt)) + " " + c.prob->dtag)
      << ", \"dims\": " << json_escape(mb::dims_str(c.d)) << ", \"src_scale\": " << json_num(c.prob->scale)
      << ", \"src_bytes\": " << c.src_bytes << ", \"dst_bytes\": " << c.dst_bytes
      << ", \"memcpy_bytes\": " << c.copy_bytes << ",\n     \"memfmt_plan\": {\"summary\": " << json_escape(c.plan.text())
      << ", \"main_kernel\": " << json_escape(c.plan.main_kernel) << ", \"nests\": [";
    for (std::size_t k = 0; k < c.nests.size(); ++k) j << (k ? ", " : "") << json_escape(c.nests[k]);
    j << "]},\n     \"onednn_impl\": " << (c.onednn_impl.empty() ? "null" : json_escape(c.onednn_impl))
      << ",\n     \"plan_creation\": {\"memfmt\": " << json_timing(c.plan_time.memfmt);
    if (!m.onednn.empty())
      j << ", \"onednn_no_cache\": " << json_timing(c.plan_time.onednn)
        << ", \"onednn_cache_hit\": " << json_timing(c.plan_time.onednn_cached)
        << ", \"speedup\": " << json_num(c.plan_time.onednn.median / c.plan_time.memfmt.median);
    j << "},\n     \"runs\": [\n";
    for (std::size_t k = 0; k < c.entries.size(); ++k) {
      const entry& e = c.entries[k];
      j << "       {\"threads\": " << e.threads << ", \"memfmt\": " << json_measured(e.memfmt)
        << ",\n        \"memcpy\": " << json_measured(e.memcpy_) << ",\n        \"onednn\": " << json_measured(e.onednn)
        << ",\n        \"memfmt_vs_memcpy\": " << json_num(e.memfmt.gbps / e.memcpy_.gbps)
        << ", \"memfmt_vs_onednn\": "
        << (e.onednn.valid ? json_num(e.onednn.t.median / e.memfmt.t.median) : std::string("null"))
        << ", \"matches_onednn\": " << (!e.match ? "null" : *e.match ? "true" : "false");
      j << ", \"others_cpu_cores\": " << json_num(e.contention) << ", \"attempts\": " << e.attempts;
      if (e.match && !*e.match) j << ", \"mismatch\": " << json_escape(e.mismatch);
      j << "}" << (k + 1 < c.entries.size() ? "," : "") << "\n";
    }
    j << "     ]}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  j << "  ],\n  \"summary\": {\n";
  j << "    \"large_f32_layout_changes\": {\"cases\": " << s.large_layout_cases
    << ", \"memfmt_vs_memcpy_1_thread\": {\"geomean\": " << json_num(s.geo_vs_memcpy_large_1t)
    << ", \"worst\": " << json_num(s.min_vs_memcpy_large_1t) << ", \"below_target\": " << s.below_memcpy_target_1t << "}"
    << ", \"memfmt_vs_memcpy_all_threads\": {\"geomean\": " << json_num(s.geo_vs_memcpy_large_all)
    << ", \"worst\": " << json_num(s.min_vs_memcpy_large_all) << ", \"below_target\": " << s.below_memcpy_target_all
    << "}, \"target\": 0.85},\n";
  if (!m.onednn.empty()) {
    j << "    \"memfmt_vs_onednn\": {\"geomean\": " << json_num(s.geo_vs_onednn)
      << ", \"geomean_1_thread\": " << json_num(s.geo_vs_onednn_1t)
      << ", \"geomean_all_threads\": " << json_num(s.geo_vs_onednn_all) << ", \"worst\": " << json_num(s.min_vs_onednn)
      << ", \"worst_case\": " << json_escape(s.min_vs_onednn_case) << ", \"slower_than_onednn\": " << s.slower_than_onednn
      << ", \"measurements\": " << s.compared << ", \"target_geomean\": 1.5},\n";
    j << "    \"plan_creation_speedup\": {\"geomean\": " << json_num(s.geo_plan_speedup)
      << ", \"worst\": " << json_num(s.min_plan_speedup) << ", \"below_target\": " << s.below_plan_target
      << ", \"geomean_vs_cache_hit\": "
      << json_num(s.geo_plan_speedup_cached) << ", \"target\": 10},\n";
  } else {
    j << "    \"memfmt_vs_onednn\": null,\n    \"plan_creation_speedup\": null,\n";
  }
  j << "    \"mismatches\": " << s.mismatches << "\n  }\n}\n";
  return j.str();
}

std::string xml_escape(const std::string& s) {
  std::string r;
  for (char ch : s) {
    switch (ch) {
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '&': r += "&amp;"; break;
      case '"': r += "&quot;"; break;
      default: r += ch;
    }
  }
  return r;
}

/// A round axis maximum for values up to `v`: 1, 2, 2.5 or 5 times a power of ten.
double nice_max(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

/// A bar chart: one row per problem, one panel per (size class, threads), three bars
/// per row and panel (memfmt, memcpy, oneDNN), each panel with its own GB/s axis.
std::string to_svg(const std::vector<case_result>& results, const machine& m, bool have_onednn) {
  std::vector<std::string> rows;  // problem names in suite order
  std::vector<std::pair<std::string, int>> panels;
  for (const case_result& c : results) {
    if (std::find(rows.begin(), rows.end(), c.prob->name) == rows.end()) rows.push_back(c.prob->name);
    for (const entry& e : c.entries) {
      const std::pair<std::string, int> key{c.size_class, e.threads};
      if (std::find(panels.begin(), panels.end(), key) == panels.end()) panels.push_back(key);
    }
  }
  std::sort(panels.begin(), panels.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first == "L2" : a.second < b.second;
  });
  const int label_w = 230, panel_w = 250, gap = 20, bar_h = 6, row_h = 3 * bar_h + 8, top = 78, axis_h = 28;
  const int width = label_w + static_cast<int>(panels.size()) * (panel_w + gap) + 10;
  const int height = top + static_cast<int>(rows.size()) * row_h + axis_h + 10;
  const char* colors[3] = {"#1f77b4", "#9a9a9a", "#ff7f0e"};
  const char* names[3] = {"memfmt", "memcpy (same traffic)", have_onednn ? "oneDNN" : "oneDNN (not available)"};

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">memfmt::reorder vs memcpy vs oneDNN "
    << xml_escape(m.onednn.empty() ? "" : m.onednn) << " reorder, GB/s (bytes read + written per second)</text>\n";
  s << "<text x=\"10\" y=\"34\" fill=\"#555\">" << xml_escape(m.cpu + ", " + std::to_string(m.processors) +
                                                                " processors, " + m.caches + "; " + m.compiler +
                                                                "; memfmt kernels: " + m.kernel_target)
    << "</text>\n";
  for (int k = 0; k < 3; ++k) {
    const int x = 10 + k * 190;
    s << "<rect x=\"" << x << "\" y=\"42\" width=\"12\" height=\"10\" fill=\"" << colors[k] << "\"/><text x=\""
      << x + 16 << "\" y=\"51\">" << xml_escape(names[k]) << "</text>\n";
  }
  for (std::size_t pi = 0; pi < panels.size(); ++pi) {
    const int x0 = label_w + static_cast<int>(pi) * (panel_w + gap);
    double vmax = 0;
    for (const case_result& c : results)
      if (c.size_class == panels[pi].first)
        for (const entry& e : c.entries)
          if (e.threads == panels[pi].second)
            vmax = std::max({vmax, e.memfmt.gbps, e.memcpy_.gbps, e.onednn.valid ? e.onednn.gbps : 0.0});
    const double axis = nice_max(vmax);
    // round tick labels: 2 * 10^k in 4 steps of 0.5 * 10^k, the others (1, 2.5, 5, 10) in 5 steps
    const double mantissa = axis / std::pow(10.0, std::floor(std::log10(axis)));
    const int ticks = std::fabs(mantissa - 2.0) < 1e-9 ? 4 : 5;
    const std::string title = (panels[pi].first == "L2" ? "in L2, " : "beyond LLC, ") +
                              (panels[pi].second == 1 ? std::string("1 thread")
                                                      : std::to_string(panels[pi].second) + " threads");
    s << "<text x=\"" << x0 + panel_w / 2 << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\" font-weight=\"bold\">"
      << xml_escape(title) << "</text>\n";
    const int y_axis = top + static_cast<int>(rows.size()) * row_h;
    for (int t = 0; t <= ticks; ++t) {
      const int x = x0 + panel_w * t / ticks;
      s << "<line x1=\"" << x << "\" y1=\"" << top - 2 << "\" x2=\"" << x << "\" y2=\"" << y_axis
        << "\" stroke=\"#ddd\"/>\n";
      s << "<text x=\"" << x << "\" y=\"" << y_axis + 13 << "\" text-anchor=\"middle\" fill=\"#555\">"
        << fmt("%g", axis * t / ticks) << "</text>\n";
    }
    s << "<text x=\"" << x0 + panel_w / 2 << "\" y=\"" << y_axis + 26 << "\" text-anchor=\"middle\" fill=\"#555\">GB/s</text>\n";
    for (std::size_t ri = 0; ri < rows.size(); ++ri) {
      const case_result* c = nullptr;
      for (const case_result& x : results)
        if (x.prob->name == rows[ri] && x.size_class == panels[pi].first) c = &x;
      if (c == nullptr) continue;
      for (const entry& e : c->entries) {
        if (e.threads != panels[pi].second) continue;
        const double v[3] = {e.memfmt.gbps, e.memcpy_.gbps, e.onednn.valid ? e.onednn.gbps : 0.0};
        for (int k = 0; k < 3; ++k) {
          const int y = top + static_cast<int>(ri) * row_h + k * bar_h;
          const double w = panel_w * v[k] / axis;
          s << "<rect x=\"" << x0 << "\" y=\"" << y << "\" width=\"" << fmt("%.1f", w) << "\" height=\"" << bar_h - 1
            << "\" fill=\"" << colors[k] << "\"><title>" << xml_escape(c->id) << ", " << e.threads << " thread(s), "
            << names[k] << ": " << fmt("%.2f", v[k]) << " GB/s</title></rect>\n";
        }
        if (e.onednn.valid && e.match && !*e.match)
          s << "<text x=\"" << x0 + 2 << "\" y=\"" << top + static_cast<int>(ri) * row_h + 3 * bar_h
            << "\" fill=\"red\" font-weight=\"bold\">MISMATCH</text>\n";
      }
    }
  }
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    const int y = top + static_cast<int>(ri) * row_h + (3 * bar_h) / 2 + 4;
    s << "<text x=\"" << label_w - 8 << "\" y=\"" << y << "\" text-anchor=\"end\">" << xml_escape(rows[ri])
      << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

/// The tables in Markdown: per measurement, then plan creation.
std::string to_markdown(const std::vector<case_result>& results, const summary& s, const machine& m, bool have_onednn) {
  std::ostringstream t;
  t << "| case | size | threads | memfmt GB/s | memcpy GB/s | oneDNN GB/s | memfmt / memcpy | memfmt speedup over oneDNN "
       "| memfmt kernel | oneDNN impl | equal |\n";
  t << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n";
  for (const case_result& c : results)
    for (const entry& e : c.entries) {
      const double speedup = have_onednn ? e.onednn.t.median / e.memfmt.t.median : 0;
      t << "| " << c.prob->name << (e.contention > 0.05 ? fmt(" (others used %.2f cores)", e.contention) : "") << " | "
        << c.size_class << " | " << e.threads << " | " << fmt("%.2f", e.memfmt.gbps)
        << " | " << fmt("%.2f", e.memcpy_.gbps) << " | " << (have_onednn ? fmt("%.2f", e.onednn.gbps) : "-") << " | "
        << fmt("%.0f%%", 100 * e.memfmt.gbps / e.memcpy_.gbps) << " | "
        << (have_onednn ? (speedup < 1 ? "**" + fmt("%.2fx", speedup) + "**" : fmt("%.2fx", speedup)) : "-") << " | "
        << c.plan.main_kernel << " | " << (have_onednn ? c.onednn_impl : "-") << " | "
        << (!e.match ? "-" : *e.match ? "yes" : "**NO**") << " |\n";
    }
  t << "\n| case | size | memfmt plan (us) | oneDNN, no cache (us) | oneDNN, cache hit (us) | speedup |\n";
  t << "| --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const case_result& c : results) {
    t << "| " << c.prob->name << " | " << c.size_class << " | " << fmt("%.2f", c.plan_time.memfmt.median * 1e6) << " | ";
    if (have_onednn)
      t << fmt("%.2f", c.plan_time.onednn.median * 1e6) << " | " << fmt("%.2f", c.plan_time.onednn_cached.median * 1e6)
        << " | " << fmt("%.1fx", c.plan_time.onednn.median / c.plan_time.memfmt.median) << " |\n";
    else
      t << "- | - | - |\n";
  }
  t << "\n" << m.cpu << ", " << m.processors << " processors (" << m.caches << "); " << m.compiler
    << "; memfmt kernels " << m.kernel_target << "; oneDNN " << (m.onednn.empty() ? "not available" : m.onednn)
    << "; load average " << fmt("%.2f", m.load_before) << " before, " << fmt("%.2f", m.load_after) << " after.\n";
  if (have_onednn)
    t << "Geometric mean of the speedup over oneDNN: " << fmt("%.2fx", s.geo_vs_onednn) << " (1 thread "
      << fmt("%.2fx", s.geo_vs_onednn_1t) << ", all threads " << fmt("%.2fx", s.geo_vs_onednn_all) << "); slower than oneDNN in "
      << s.slower_than_onednn << " of " << s.compared << " measurements; plan creation " << fmt("%.1fx", s.geo_plan_speedup)
      << " faster (geomean).\n";
  return t.str();
}

std::string command_line(int argc, char** argv) {
  std::string s = "reorder_benchmark";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

}  // namespace

int main(int argc, char** argv) try {
  const options o = parse_options(argc, argv);
  std::optional<std::regex> filter;
  try {
    if (!o.filter.empty()) filter.emplace(o.filter);
  } catch (const std::regex_error& e) {
    usage_error("--filter: '" + o.filter + "' is not a valid regular expression (" + e.what() + ")");
  }
  const std::vector<problem> problems = suite();
  const bool want_l2 = o.sizes.find("l2") != std::string::npos, want_dram = o.sizes.find("dram") != std::string::npos;

  struct planned {
    const problem* p;
    std::string size_class;
    dims d;
  };
  std::vector<planned> todo;
  for (const problem& p : problems) {
    // --quick keeps one tiny size per problem: the L2 dims shrunk
    if (o.quick) {
      if (want_l2 || want_dram) todo.push_back({&p, "L2", quick_dims(p.l2)});
      continue;
    }
    if (want_l2) todo.push_back({&p, "L2", p.l2});
    if (want_dram) todo.push_back({&p, "DRAM", p.dram});
  }
  std::erase_if(todo, [&](const planned& t) {
    return filter && !std::regex_search(t.p->name + " @" + t.size_class, *filter);
  });
  if (o.list) {
    for (const planned& t : todo) std::printf("%s @%s  (%s)\n", t.p->name.c_str(), t.size_class.c_str(), mb::dims_str(t.d).c_str());
    return 0;
  }
  if (todo.empty()) usage_error("no case matches --filter '" + o.filter + "' (--list shows the cases)");

  machine m = describe_machine();
  const bool have_onednn = MEMFMT_HAVE_ONEDNN != 0;
  std::printf("memfmt reorder benchmark%s\n", o.quick ? " (--quick: tiny sizes, few runs; nothing is measured)" : "");
  std::printf("  machine:  %s, %d processors, %s\n", m.cpu.c_str(), m.processors, m.caches.c_str());
  std::printf("  compiler: %s; memfmt kernels: %s\n", m.compiler.c_str(), m.kernel_target.c_str());
  if (have_onednn)
    std::printf("  oneDNN:   %s\n", m.onednn.c_str());
  else
    std::printf("  oneDNN:   not available (built without it): only memfmt and memcpy are measured\n");
  if (!o.note.empty()) std::printf("  note:     %s\n", o.note.c_str());
  std::printf("  method:   median of per-run times, >= %.3g s and >= %d runs per measurement in interleaved rounds of %.3g s;\n"
              "            GB/s = (src + dst bytes) / time; memcpy copies (src + dst) / 2 bytes; threads: 1 and %d\n",
              o.min_time, o.min_reps, interleaved::round_seconds, o.threads);
  if (m.load_before > 0.5 && !o.quick)
    std::printf("  WARNING:  load average %.2f: other processes compete for the cores, the numbers will be noisy\n",
                m.load_before);
  std::fflush(stdout);

#if MEMFMT_HAVE_ONEDNN
  const dnnl::engine& eng = memfmt_onednn::cpu_engine();
#endif
  std::vector<case_result> results;
  for (const planned& t : todo) {
    std::printf("  %-34s @%-4s %-16s ...", t.p->name.c_str(), t.size_class.c_str(), mb::dims_str(t.d).c_str());
    std::fflush(stdout);
#if MEMFMT_HAVE_ONEDNN
    results.push_back(run_case(*t.p, t.size_class, t.d, o, eng));
#else
    results.push_back(run_case(*t.p, t.size_class, t.d, o));
#endif
    const case_result& c = results.back();
    std::printf(" %s -> %s, memfmt %s", bytes_str(double(c.src_bytes)).c_str(), bytes_str(double(c.dst_bytes)).c_str(),
                c.plan.text().c_str());
    for (const entry& e : c.entries)
      if (e.match && !*e.match) std::printf("  MISMATCH (%d thread(s))", e.threads);
    std::printf("\n");
    if (o.show_plan)
      for (const std::string& n : c.nests) std::printf("      %s\n", n.c_str());
    std::fflush(stdout);
  }

  m.load_after = load_average();
  const summary s = summarize(results);
  print_table(results, have_onednn);
  print_plan_table(results, have_onednn);
  print_summary(s, have_onednn, std::any_of(results.begin(), results.end(), [](const case_result& c) {
                  return c.size_class == "DRAM";
                }));
  std::printf("  load average (1 min): %.2f before the run, %.2f after\n", m.load_before, m.load_after);
  int contended = 0, measurements = 0;
  for (const case_result& c : results)
    for (const entry& e : c.entries) {
      ++measurements;
      contended += e.contention > 0.05;
    }
  std::printf("  other processes used more than 5%% of a core during %d of %d measurements (after up to 3 attempts)\n",
              contended, measurements);
  bool ok = true;
  if (!o.json.empty() && o.json != "-") ok = write_file(o.json, to_json(results, s, m, o, command_line(argc, argv))) && ok;
  if (!o.svg.empty() && o.svg != "-") ok = write_file(o.svg, to_svg(results, m, have_onednn)) && ok;
  if (!o.markdown.empty() && o.markdown != "-")
    ok = write_file(o.markdown, to_markdown(results, s, m, have_onednn)) && ok;
  if (s.mismatches > 0) {
    std::fprintf(stderr, "reorder_benchmark: %d measurement(s) where memfmt's output differs from oneDNN's\n",
                 s.mismatches);
    return 1;
  }
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "reorder_benchmark: error: %s\n", e.what());
  return 1;
}
