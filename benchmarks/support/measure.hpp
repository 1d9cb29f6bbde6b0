#pragma once
// How memfmt's own programs measure reorders, so that the reorder benchmarks and the
// `memfmt reorder` tool measure the same way: threads, buffers, timing, memcpy peers,
// the plan summary, and oneDNN's version (its reorder is tests/support/onednn_bridge.hpp's,
// descriptors through memfmt/interop/onednn.hpp).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/kernel/run.hpp"
#include "memfmt/reorder/plan_str.hpp"
#include "memfmt/reorder/reorder.hpp"

#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
#include <omp.h>
#endif

#if MEMFMT_HAVE_ONEDNN
#include "memfmt/interop/onednn.hpp"
#include "onednn_bridge.hpp"
#endif

namespace memfmt_bench {

// ------------------------------------------------------------------ threads

/// The threads "all threads" means: OpenMP's processors, or 1 without OpenMP.
inline int all_threads() {
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

/// Sets the OpenMP team size that memfmt (threads = 0) and oneDNN both use: one
/// runtime serves both (with g++ both link libgomp; with clang, libomp comes first
/// in the lookup order and also provides the GOMP_ entry points oneDNN calls).
inline void set_threads(int n) {
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

// ------------------------------------------------------------------ buffers

/// A page-aligned buffer whose pages are touched once (so that page faults stay
/// out of the timings), filled with a byte pattern.
class buffer {
 public:
  buffer() = default;
  explicit buffer(std::size_t bytes, unsigned char fill = 0) : bytes_(bytes) {
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
    data_ = static_cast<unsigned char*>(::operator new(rounded, std::align_val_t{4096}));
    std::memset(data_, fill, rounded);
  }
  buffer(buffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  buffer& operator=(buffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{4096});
  }
  unsigned char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }

 private:
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A fast deterministic generator (splitmix64): filling 256 MiB must not dominate a run.
struct splitmix {
  std::uint64_t state;
  std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi), with a fractional part (ties at .5 happen too).
  float uniform(float lo, float hi) noexcept {
    return lo + (hi - lo) * static_cast<float>(next() >> 40) * 0x1p-24f;
  }
};

/// Fills the elements of `d` (padding included) with values of its type: normal
/// floats in [lo, hi) for floating-point types (no subnormals, no NaN: the
/// hardware bf16 conversion flushes subnormals), integers for integer types.
inline void fill_random(const memfmt::desc& d, unsigned char* data, float lo, float hi, std::uint64_t seed) {
  splitmix g{seed};
  const std::size_t bytes = d.get_size();
  switch (d.get_data_type()) {
    case memfmt::data_type::f32:
      for (std::size_t k = 0; k + 4 <= bytes; k += 4) {
        const float v = g.uniform(lo, hi);
        std::memcpy(data + k, &v, 4);
      }
      return;
    case memfmt::data_type::f64:
      for (std::size_t k = 0; k + 8 <= bytes; k += 8) {
        const double v = g.uniform(lo, hi);
        std::memcpy(data + k, &v, 8);
      }
      return;
    case memfmt::data_type::bf16:
    case memfmt::data_type::f16:
      for (std::size_t k = 0; k + 2 <= bytes; k += 2) {
        const float v = g.uniform(lo, hi);
        const std::uint16_t h = d.get_data_type() == memfmt::data_type::bf16 ? memfmt::detail::f32_to_bf16_bits(v)
                                                                             : memfmt::detail::f32_to_f16_bits(v);
        std::memcpy(data + k, &h, 2);
      }
      return;
    case memfmt::data_type::f8_e5m2:
      for (std::size_t k = 0; k < bytes; ++k)
        data[k] = memfmt::detail::f32_to_f8_bits<memfmt::detail::f8_format::e5m2>(g.uniform(lo, hi));
      return;
    case memfmt::data_type::f8_e4m3:
      for (std::size_t k = 0; k < bytes; ++k)
        data[k] = memfmt::detail::f32_to_f8_bits<memfmt::detail::f8_format::e4m3>(g.uniform(lo, hi));
      return;
    case memfmt::data_type::s32:
      for (std::size_t k = 0; k + 4 <= bytes; k += 4) {
        const auto v = static_cast<std::int32_t>(std::lrint(g.uniform(lo, hi)));
        std::memcpy(data + k, &v, 4);
      }
      return;
    case memfmt::data_type::s8:
      for (std::size_t k = 0; k < bytes; ++k) data[k] = static_cast<unsigned char>(static_cast<std::int8_t>(g.next() % 256 - 128));
      return;
    case memfmt::data_type::u8:
    case memfmt::data_type::s4:  // (every nibble a value)
    case memfmt::data_type::u4:
      for (std::size_t k = 0; k < bytes; ++k) data[k] = static_cast<unsigned char>(g.next());
      return;
    case memfmt::data_type::undef: return;
  }
}

// ------------------------------------------------------------------ timing

/// Per-run times of one measured operation, in seconds.
struct timing {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

/// How long and how often to repeat.
struct timing_policy {
  double min_seconds = 0.3;  ///< keep repeating until the runs add up to this...
  int min_reps = 5;          ///< ...and at least this many runs were timed
  int max_reps = 1000000;    ///< never more than this many (tiny cases)
  int warmup = 2;            ///< untimed runs first (caches, page tables, thread pools)
  int fixed_reps = 0;        ///< > 0: exactly this many timed runs, regardless of time
};

/// Times `f` run after run; returns the median and min of the per-run times.
template <class F>
timing time_runs(F&& f, const timing_policy& p) {
  using clock = std::chrono::steady_clock;
  for (int k = 0; k < p.warmup; ++k) f();
  std::vector<double> t;
  double total = 0;
  for (;;) {
    if (p.fixed_reps > 0 ? static_cast<int>(t.size()) >= p.fixed_reps
                         : (static_cast<int>(t.size()) >= p.max_reps ||
                            (total >= p.min_seconds && static_cast<int>(t.size()) >= p.min_reps)))
      break;
    const auto t0 = clock::now();
    f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    t.push_back(s);
    total += s;
  }
  timing r;
  r.reps = static_cast<int>(t.size());
  if (t.empty()) return r;
  std::sort(t.begin(), t.end());
  r.min = t.front();
  r.max = t.back();
  r.median = t.size() % 2 == 1 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
  return r;
}

/// Dims as "1x64x32x32".
inline std::string dims_str(const memfmt::dims& d) {
  std::string s;
  for (int i = 0; i < d.size(); ++i) {
    if (i > 0) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

/// GB/s (10^9 bytes per second) for `bytes` moved in `seconds`.
inline double gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds * 1e-9 : 0.0; }

// ------------------------------------------------------------------ memcpy peers

/// memcpy of `bytes`, on the calling thread or split into contiguous chunks over
/// `threads` OpenMP threads (chunk starts aligned to 4 KiB).
inline void parallel_memcpy(void* dst, const void* src, std::size_t bytes, int threads) {
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
  if (threads > 1) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
#pragma omp parallel num_threads(threads)
    {
      const std::size_t nt = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t chunk = (bytes / nt + 4095) / 4096 * 4096;
      const std::size_t begin = std::min(bytes, t * chunk), end = std::min(bytes, begin + chunk);
      if (begin < end) std::memcpy(d + begin, s + begin, end - begin);
    }
    return;
  }
#else
  (void)threads;
#endif
  std::memcpy(dst, src, bytes);
}

// ------------------------------------------------------------------ plan summary

/// Elements each kernel kind handles in a plan, and the kind that handles most.
struct plan_summary {
  static constexpr int kinds = memfmt::detail::kernel_kind_count;
  std::size_t nests = 0;
  bool elementwise = false;
  memfmt::dim elements[kinds] = {};  // indexed by kernel_kind
  std::string main_kernel;                 ///< the kind that moves the most elements
  std::string text() const {
    if (elementwise) return "element-wise";  // (plan_str says why)
    std::string s = std::to_string(nests) + (nests == 1 ? " nest:" : " nests:");
    for (int k = 0; k < kinds; ++k)
      if (elements[k] != 0)
        s += std::string(" ") + memfmt::detail::kernel_name(static_cast<memfmt::detail::kernel_kind>(k)) + "=" + std::to_string(elements[k]);
    return s;
  }
};

inline plan_summary summarize(const memfmt::reorder& r) {
  plan_summary s;
  s.elementwise = r.is_elementwise();
  s.nests = r.nests().size();
  for (const auto& p : r.nests()) {
    memfmt::dim count = 1;
    for (int i = 0; i < p.loops.nloops; ++i) count *= p.loops.loops[i].extent;
    s.elements[static_cast<int>(p.loops.kind)] += count / p.parts;  // (elements, not the units they move as)
  }
  int best = 0;
  for (int k = 1; k < plan_summary::kinds; ++k)
    if (s.elements[k] > s.elements[best]) best = k;
  s.main_kernel = s.elementwise ? "elementwise" : memfmt::detail::kernel_name(static_cast<memfmt::detail::kernel_kind>(best));
  return s;
}

/// The Highway target memfmt's kernels run on ("AVX3", "AVX2", ...).
inline std::string kernel_target_name() { return hwy::TargetName(memfmt::detail::kernel_target_now()); }

// ------------------------------------------------------------------ oneDNN

#if MEMFMT_HAVE_ONEDNN

/// oneDNN's version, "2.6.3", and what its threads are when they are not OpenMP's
/// (then set_threads does not reach them, and its one-thread runs use all of them).
inline std::string onednn_version() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  return memfmt_onednn::version();
#else
  return memfmt_onednn::version() + " (its own threads: one-thread runs use all of them)";
#endif
}

#endif  // MEMFMT_HAVE_ONEDNN

/// oneDNN's version, or "(not available)" in a build without oneDNN.
inline std::string onednn_version_or_none() {
#if MEMFMT_HAVE_ONEDNN
  return onednn_version();
#else
  return "(not available)";
#endif
}

}  // namespace memfmt_bench
