#pragma once
/// @file
/// `memfmt::reorder`: plan once (lower both layouts to loop nests and pick kernels),
/// execute many times. Exact conversions, zero-filled padding, threads over outer loops.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#if defined(__unix__)
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif
#endif

#include "memfmt/core/error.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/memory/memory.hpp"
#include "memfmt/reorder/attr.hpp"
#include "memfmt/reorder/kernel/highway_config.hpp"
#include "memfmt/reorder/pass/chunks.hpp"
#include "memfmt/reorder/placed_nest.hpp"

// Reorders run on OpenMP threads in a program compiled with OpenMP (-fopenmp), as its
// author expects; MEMFMT_USE_OPENMP=0 keeps them on the calling thread, =1 asks for
// OpenMP explicitly (memfmt::openmp defines it).
#if !defined(MEMFMT_USE_OPENMP) && defined(_OPENMP)
#define MEMFMT_USE_OPENMP 1
#endif
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
#include <omp.h>
#endif

namespace memfmt {

/// Whether `reorder::execute` without a `parallel_for` runs on OpenMP threads
/// (see MEMFMT_USE_OPENMP above).
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
inline constexpr bool uses_openmp = true;
#else
inline constexpr bool uses_openmp = false;
#endif

namespace detail {
/// The processors online, which size the pieces a plan cuts for threads (any count
/// gives the same results).
inline dim hardware_threads() noexcept {
  static const dim threads = [] {
#if defined(_SC_NPROCESSORS_ONLN)
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<dim>(n) : dim{1};
#else
    return dim{8};
#endif
  }();
  return threads;
}
}  // namespace detail

/// Runs `body(begin, end)` over a partition of [0, count); how is up to the caller.
using parallel_for_fn = std::function<void(dim count, const std::function<void(dim begin, dim end)>& body)>;

/// A reorder from one layout and type to another, planned once.
class reorder {
 public:
  /// Reorders whose source and destination together are smaller run on one thread
  /// (see execute).
  static constexpr std::size_t serial_bytes = 64 << 10;

  /// Reorders of s4 or u4 run on bytes a region of this many of them at a time where
  /// their plan allows it (pass/chunks.hpp), of at most 16 times as many otherwise: the
  /// region and what it comes from or goes to stay in the cache.
  static constexpr dim packed_chunk = dim{1} << 16;

  /// Plans the reorder.
  /// @throws error when the descriptors differ in dims, are not concrete, the destination
  ///         overlaps itself, or an attribute does not fit
  reorder(const desc& src, const desc& dst, const reorder_attr& attr = {}) : src_(src), dst_(dst), attr_(attr) {
    check_descs();
    if (is_sub_byte(src_.get_data_type()) || is_sub_byte(dst_.get_data_type())) plan_unpacked();
    else plan();
  }
  /// Plans the reorder between the layouts of two tensor objects: `memory`, or another
  /// library's through `memory_traits` (`dnnl::memory` with memfmt/interop/onednn.hpp).
  template <memory_like Src, memory_like Dst>
  reorder(const Src& src, const Dst& dst, const reorder_attr& attr = {})
      : reorder(desc_of(src, "source"), desc_of(dst, "destination"), attr) {}

  const desc& get_src_desc() const noexcept { return src_; }
  const desc& get_dst_desc() const noexcept { return dst_; }

  /// Converts `src` into `dst`, writing zeros into dst's padding (and the compensation
  /// after dst's data when its descriptor asks for it). Threads: `attr.threads`.
  /// @throws error for a null pointer when the tensors are not empty
  void execute(const void* src, void* dst) const { execute(src, dst, default_parallel_for()); }

  /// The same, with the caller's `parallel_for` (results do not depend on it). Reorders
  /// of less than `serial_bytes` (source and destination together) run on the calling
  /// thread, without it: starting threads would take longer than the reorder.
  void execute(const void* src, void* dst, const parallel_for_fn& parallel_for) const;

  /// The same on two tensor objects, whose layouts must be the planned ones. Reads
  /// nothing but the source's data and writes nothing but the destination's.
  /// @throws error when a layout is not the planned one, or a tensor has no data
  template <memory_like Src, memory_like Dst>
  void execute(const Src& src, const Dst& dst) const {
    if (!(desc_of(src, "source") == src_) || !(desc_of(dst, "destination") == dst_))
      detail::fail("reorder::execute: the memories' descriptors are not the planned ones");
    execute(handle_of(src, "source"), handle_of(dst, "destination"));
  }

  /// The nests the plan runs (for tests, benchmarks and curious users). They point into
  /// this plan (its scales and gather tables): run them only while it lives.
  /// (A reorder of s4 or u4 runs the nests of its reorder on bytes: see plan_unpacked.)
  const std::vector<detail::placed_nest>& nests() const noexcept { return bytes_ ? bytes_->nests() : plan_.nests; }
  bool is_elementwise() const noexcept { return bytes_ ? bytes_->is_elementwise() : elementwise_; }
  /// The plan as text, a line per nest (see plan_str.hpp), or one line when the reorder
  /// goes element by element; a reorder of s4 or u4 first says which side it unpacks.
  std::string plan_str() const;

 private:
  /// The most nests that run fused (lower's fuse_tiled_copies fuses pairs).
  static constexpr std::size_t max_fused = 2;

  /// The nests of a plan and the tables they point into: each nest points at its share
  /// of the combined scales and at its gather tables once, when planned or copied, so that
  /// an execution runs the planned nests as they are (a copy per call cost more than a
  /// small reorder itself).
  struct bound_nests {
    std::vector<detail::placed_nest> nests;
    std::vector<float> scales;  ///< s_src / s_dst per index of the union of both masks

    bound_nests() = default;
    bound_nests(const bound_nests& other) : nests(other.nests), scales(other.scales) { bind(); }
    bound_nests& operator=(const bound_nests& other) {
      if (this != &other) *this = bound_nests(other);  // (a throwing copy leaves *this as it was)
      return *this;
    }
    // (moves keep the vectors' buffers, so the pointers stay valid)
    bound_nests(bound_nests&&) noexcept = default;
    bound_nests& operator=(bound_nests&&) noexcept = default;
    ~bound_nests() = default;

    void bind() {
      for (detail::placed_nest& p : nests) {
        detail::nest& n = p.loops;
        // (a staged pair's move has no conversion)
        const bool moves = p.staged == detail::stage::move_to_scratch || p.staged == detail::stage::move_from_scratch;
        if (n.kind != detail::kernel_kind::zero_fill && !moves)
          n.cvt.scales = scales.empty() ? nullptr : scales.data() + p.scale_base;
        if (n.kind == detail::kernel_kind::gather) {
          n.gather_src = p.gather_src.data();
          n.gather_scale = p.gather_scale.empty() ? nullptr : p.gather_scale.data();
        }
      }
    }
  };

  /// A planned nest and where it runs in one execution's buffers.
  struct ready_nest {
    const detail::nest* loops = nullptr;
    const void* src = nullptr;
    void* dst = nullptr;
    dim count = 0;  ///< its outer iterations
  };

  ready_nest ready(const detail::placed_nest& p, const unsigned char* s, unsigned char* d) const;

  void run_ready(const ready_nest& r, dim begin, dim end) const;

  /// Iterations [begin, end) of the shared loops of a group of `size` nests (a nest alone,
  /// a fused pair, or a staged pair: `staged`) whose shared loops have `shared` iterations.
  void run_group(const std::array<ready_nest, max_fused>& group, std::size_t size, bool staged, dim shared, dim begin,
                 dim end) const;

  /// Iterations [begin, end) of a staged pair's shared loops (see pass/stage.hpp): in each, the
  /// first stage fills this thread's scratch and the second empties it.
  void run_staged(std::array<ready_nest, max_fused> pair, dim shared, dim begin, dim end) const;

  /// A side of a reorder of s4 or u4 elements, which have no byte address: the reorder
  /// runs on bytes (s8 for s4, u8 for u4) in the same layout, the packed side unpacked
  /// into scratch before and packed back, saturating, after. A value converts to s8 and
  /// then to s4 as it would to s4 (one rounding; the two saturations nest), so the result
  /// is the direct conversion's.
  struct unpacked_side {
    bool packed = false;     ///< s4 or u4
    bool is_signed = false;  ///< s4
    dim offset = 0;          ///< the first element (even: a view starts on a byte)
    dim span = 0;            ///< elements from there to past the last one the layout reaches
    bool read_back = false;  ///< the destination's old elements fill the scratch first
  };

  void plan_unpacked();

  void execute_unpacked(const unsigned char* src, unsigned char* dst, const parallel_for_fn& parallel_for) const;

  /// The same a chunk of the packed side at a time (chunks_), through a scratch of a chunk.
  void execute_chunks(const unsigned char* src, unsigned char* dst, const parallel_for_fn& parallel_for) const;

  /// The descriptor and the data of a tensor object, errors said to be the `role`'s.
  template <memory_like T>
  static desc desc_of(const T& m, const char* role) {
    try {
      return memory_traits<T>::get_desc(m);
    } catch (const error& e) {
      detail::fail("reorder: the ", role, ": ", e.what());
    }
  }
  template <memory_like T>
  static void* handle_of(const T& m, const char* role) {
    try {
      return memory_traits<T>::get_data_handle(m);
    } catch (const error& e) {
      detail::fail("reorder::execute: the ", role, ": ", e.what());
    }
  }

  /// Iterations of the first `loops` loops of `n`.
  static dim shared_iterations(const detail::nest& n, int loops);

  void check_descs() const;

  /// That `q` (scales or zero points) names dims the tensor has, with groups that divide
  /// them and one value per group.
  template <class Q>
  void check_layout(const Q& q, const char* what) const;

  /// That each scale is a value of its stated type.
  static void check_values(const scales& s, const char* which);

  /// That each zero point lies in the range of its stated type.
  static void check_values(const zero_points& z, const char* which);

  /// Per dim, the group size of `q` along it: 1 where it is not masked or not grouped.
  template <class Q>
  dims value_groups(const Q& q) const;

  /// Per dim, the stride of `q.values` along its groups (row-major over the masked dims'
  /// groups), 0 where it is not masked: element `i` takes `values[sum(i[d] / groups[d] *
  /// strides[d])]`.
  template <class Q>
  dims value_strides(const Q& q) const;

  /// Per dim, the stride of its groups (`groups[d]` indices each) in a table over
  /// `mask`, row-major; 0 for dims outside the mask. `count`, if given: the table's entries.
  dims group_strides(int mask, const dims& groups, dim* count = nullptr) const;

  static bool per_index(const zero_points& z) noexcept { return z.mask != 0 && !z.empty(); }

  /// How plan() holds the conversion's values per index (the rest is in the conversion).
  struct value_plan {
    int mask = 0;                    ///< the union of the masks that index the tables
    bool scale_table = false;        ///< s_src / s_dst per index (combine_scales)
    bool beta_table = false;         ///< beta / s_dst per index (per_index_betas)
    bool zero_point_tables = false;  ///< zero points per index (tabulate_zero_points)
    bool tabled = false;             ///< ... which the kernels read after the factors
  };

  /// The conversion of the attributes, common values folded into alpha and beta, and in
  /// `v` the tables the values per index need. Sets integer_zero_points_.
  detail::conversion plan_values(value_plan& v);

  /// Fills the tables of `v` over value_groups_ (plan_.scales, sum_betas_, the zero
  /// point tables, `cvt`'s count of them); returns the strides of the tables' entries.
  dims tabulate(const value_plan& v, detail::conversion& cvt);

  /// The descriptors lowered to nests, or none and elementwise_ set (with why); the value
  /// groups coarsened to single indices where the groups do not nest with the blocks.
  std::vector<detail::placed_nest> lower_nests(const value_plan& v, detail::conversion& cvt, dims& scale_strides);

  void plan();

  /// Calls `f(k, i, j)` for each entry `k` of a table over `mask` (row-major over the
  /// groups value_groups_ cuts its dims into, the last fastest), with `i` and `j` the
  /// indices of `a`'s and `b`'s values there (scales or zero points; 0 for those that are
  /// absent). @pre `mask` holds both masks; value_groups_ divides their groups
  template <class A, class B, class F>
  void for_each_value_index(int mask, const A& a, const B& b, F&& f) const;

  /// The number of entries of a table over `mask`: one per group of value_groups_.
  dim masked_count(int mask) const;

  /// Per dim of `mask`, the largest group that the groups of every attribute over it
  /// are made of (their gcd); 1 elsewhere.
  dims shared_groups(int mask) const;

  /// The zero point tables after the factors in plan_.scales (factors of 1 when the
  /// scales are common, held in the conversion's alpha), as f32, which is how the
  /// arithmetic takes a zero point.
  void append_zero_point_tables(detail::conversion& cvt);

  /// zp_src and zp_dst per index of `mask`, the union of all masks.
  void tabulate_zero_points(int mask);

  /// s_src / s_dst per index of the union `mask` of both masks.
  void combine_scales(int mask);

  /// beta / s_dst per index of the union `mask` of both scales' masks (indexed as
  /// combine_scales indexes plan_.scales).
  std::vector<float> per_index_betas(int mask) const;

  static std::int64_t load_integer(data_type dt, const unsigned char* p) noexcept;

  /// `to = saturate(from - zp_src + zp_dst)` in 64-bit integers, the zero points `c`'s.
  static void convert_integer(const detail::conversion& c, const unsigned char* from, unsigned char* to);

  /// convert_integer with the plan's zero points, for the loops a kernel would own (a
  /// gather block through its table).
  void run_integer_nest(const detail::nest& n, const void* src, void* dst, dim begin, dim end) const;

  /// For blockings that do not nest (e.g. blocks of 3 and 4): element by element.
  void run_elementwise(const unsigned char* src, unsigned char* dst) const;

  /// oneDNN's weights compensation: per index of the mask, -128 * sum (s8s8) and
  /// -sum (zero points) of the quantized weights, stored as s32 after the data.
  void write_compensation(unsigned char* dst) const;

  parallel_for_fn default_parallel_for() const {
#if defined(MEMFMT_USE_OPENMP) && MEMFMT_USE_OPENMP
    if (attr_.threads == 1) return nullptr;
    const int threads = attr_.threads == 0 ? omp_get_max_threads() : attr_.threads;
    if (threads <= 1) return nullptr;
    return [threads](dim count, const std::function<void(dim, dim)>& body) {
#pragma omp parallel num_threads(threads)
      {
        const dim t = omp_get_thread_num(), nt = omp_get_num_threads();
        const dim begin = count * t / nt, end = count * (t + 1) / nt;
        if (begin < end) body(begin, end);
      }
    };
#else
    return nullptr;
#endif
  }

  desc src_, dst_;
  reorder_attr attr_;
  dim src_size_ = 0, dst_size_ = 0;
  bool elementwise_ = false;
  const char* elementwise_why_ = "";  ///< (plan_str) why the plan is element-wise
  bool integer_zero_points_ = false;
  bool serial_ = false;  ///< small enough to run on the calling thread (serial_bytes)
  bound_nests plan_;
  detail::conversion cvt_;
  dims scale_strides_;
  /// Per dim, how many consecutive indices share an entry of the tables (plan_.scales,
  /// sum_betas_, the zero point tables): the groups every attribute is made of
  dims value_groups_;
  /// beta / s_dst per index of scale_strides_, with per-index destination scales and a
  /// sum (element-wise plans only); empty otherwise (the conversion's beta holds it)
  std::vector<float> sum_betas_;
  /// zp_src and zp_dst per index of scale_strides_, with zero points per index
  /// (element-wise plans only); empty otherwise (the conversion holds them)
  std::vector<std::int32_t> src_zero_point_table_, dst_zero_point_table_;
  /// With s4 or u4: the reorder on bytes that runs this one, and how each side gets there
  std::shared_ptr<const reorder> bytes_;
  unpacked_side src_side_, dst_side_;
  /// The packed side's chunks, when one side is packed and the plan on bytes has them
  detail::side_chunks chunks_;
};

}  // namespace memfmt

// The definitions of the planning and execution above: in every translation unit
// (header-only), or, with MEMFMT_KERNELS_EXTERN, in the one that defines
// MEMFMT_KERNELS_IMPLEMENTATION or MEMFMT_REORDER_IMPLEMENTATION (see reorder_impl.hpp).
#if !defined(MEMFMT_KERNELS_EXTERN) || defined(MEMFMT_KERNELS_IMPLEMENTATION) || \
    defined(MEMFMT_REORDER_IMPLEMENTATION)
#include "memfmt/reorder/reorder_impl.hpp"
#endif
