// memfmt's reorder problems in oneDNN's terms: one source for the oracle tests, the
// reorder benchmark and the `memfmt reorder` tool, compiled against oneDNN 2.6
// (Debian's libdnnl-dev) or oneDNN 3.x (PyPI's onednn-devel). Descriptors cross through
// the library's bridge, memfmt/interop/onednn.hpp; the two versions differ in how
// scales and zero points are passed:
//
//   oneDNN 2.6                                   oneDNN 3.x
//   one output scale s_src / s_dst per index      src and dst scales, each with its mask,
//   (set_output_scales), sum scale beta / s_dst   given at execution (DNNL_ARG_ATTR_SCALES)
//   zero points given with the attributes         zero points given at execution
//
// Both compute the same reorder for the same memfmt::reorder_attr, up to the rounding
// order of each version (docs/reorder.md).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memfmt/desc/desc.hpp"
#include "memfmt/interop/onednn.hpp"
#include "memfmt/reorder/attr.hpp"

namespace memfmt_onednn {

/// Thrown when oneDNN has no reorder for a problem, or when this version's API cannot
/// say its attributes (oneDNN 2.6: a sum with a destination scale per index).
struct unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// oneDNN's version, "2.6.3".
inline std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

/// Whether oneDNN runs with AVX-512 (its avx512_core or more): its CPU reorders convert
/// more type pairs then (oneDNN 3.x: bf16 and f16 to and from each other and s32, u8 ->
/// f16), so the tests' floors of problems compared depend on it.
inline bool has_avx512() {
  return static_cast<int>(dnnl::get_effective_cpu_isa()) >= static_cast<int>(dnnl::cpu_isa::avx512_core);
}

// the descriptors and data types in oneDNN's terms: the library's bridge
using memfmt::to_dnnl;

/// The CPU engine and a stream of it, made once. PyPI's oneDNN 3.x runs its CPU engine
/// on SYCL, whose CPU device is the OpenCL CPU runtime installed beside it; that
/// package's ICD file names a placeholder path (pip does not run its post-install
/// script), so the OpenCL loader is pointed at the library itself, unless the
/// environment already says where it is.
inline dnnl::engine& cpu_engine() {
  static dnnl::engine engine = [] {
#ifdef MEMFMT_ONEDNN_OPENCL_CPU_RUNTIME
    setenv("OCL_ICD_FILENAMES", MEMFMT_ONEDNN_OPENCL_CPU_RUNTIME, 0);
#endif
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

inline dnnl::stream& cpu_stream() {
  static dnnl::stream stream(cpu_engine());
  return stream;
}

/// The scales of `a` combined as memfmt combines them: s_src / s_dst per index of the
/// union of the masks (oneDNN 2.6's one output scale).
inline std::pair<int, std::vector<float>> combined_scales(const memfmt::desc& src, const memfmt::reorder_attr& a) {
  const int smask = a.src_scales.empty() ? 0 : a.src_scales.mask, dmask = a.dst_scales.empty() ? 0 : a.dst_scales.mask;
  const int mask = smask | dmask, n = src.get_ndims();
  const memfmt::dims dims = src.get_dims();
  // row-major strides over the dims of a mask (fixed capacity: no allocation)
  const auto row_major = [&](int m, memfmt::dim* count) {
    memfmt::dims st = memfmt::dims::filled(n, 0);
    memfmt::dim stride = 1;
    for (int d = n - 1; d >= 0; --d)
      if ((m >> d & 1) != 0) {
        st[d] = stride;
        stride *= dims[d];
      }
    if (count != nullptr) *count = stride;
    return st;
  };
  memfmt::dim count = 1;
  const memfmt::dims all = row_major(mask, &count), ss = row_major(smask, nullptr), ds = row_major(dmask, nullptr);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (memfmt::dim k = 0; k < count; ++k) {
    memfmt::dim rest = k, si = 0, di = 0;
    for (int d = 0; d < n; ++d) {
      if (all[d] == 0) continue;
      const memfmt::dim i = rest / all[d];
      rest %= all[d];
      si += i * ss[d];
      di += i * ds[d];
    }
    const float s = a.src_scales.empty() ? 1.f : a.src_scales.values[static_cast<std::size_t>(si)];
    const float t = a.dst_scales.empty() ? 1.f : a.dst_scales.values[static_cast<std::size_t>(di)];
    v[static_cast<std::size_t>(k)] = t == 1.f ? s : s / t;
  }
  return {mask, v};
}

/// oneDNN's attributes for `a`. oneDNN 2.6: output scales (combined_scales), zero
/// points and the sum, with their values; oneDNN 3.x: the masks only, the values go
/// with each execution (reorder does that). Throws `unsupported` when oneDNN 2.6
/// cannot say `a`, and for grouped scales.
inline dnnl::primitive_attr attributes(const memfmt::desc& src, const memfmt::reorder_attr& a) {
  // (3.x's grouped scales go with memory arguments this bridge does not write)
  if (!a.src_scales.groups.empty() || !a.dst_scales.groups.empty())
    throw unsupported("grouped scales: the bridge passes per-index scales only");
  if ((!a.src_zero_points.empty() && a.src_zero_points.mask != 0) ||
      (!a.dst_zero_points.empty() && a.dst_zero_points.mask != 0))
    throw unsupported("zero points per index: the bridge passes common ones only");
  const std::int32_t src_zp = a.src_zero_points.common_value(), dst_zp = a.dst_zero_points.common_value();
  dnnl::primitive_attr attr;
  dnnl::post_ops ops;
#if MEMFMT_ONEDNN_V3
  (void)src;
  if (!a.src_scales.empty()) attr.set_scales_mask(DNNL_ARG_SRC, a.src_scales.mask);
  if (!a.dst_scales.empty()) attr.set_scales_mask(DNNL_ARG_DST, a.dst_scales.mask);
  if (src_zp != 0) attr.set_zero_points_mask(DNNL_ARG_SRC, 0);
  if (dst_zp != 0) attr.set_zero_points_mask(DNNL_ARG_DST, 0);
  if (a.sum_beta != 0.f) ops.append_sum(a.sum_beta);
#else
  if (!a.src_scales.empty() || !a.dst_scales.empty()) {
    auto [mask, values] = combined_scales(src, a);
    attr.set_output_scales(mask, values);
  }
  if (src_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {src_zp});
  if (dst_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {dst_zp});
  if (a.sum_beta != 0.f) {
    // memfmt divides beta * dst by s_dst too: oneDNN 2.6's sum scale is beta / s_dst
    if (!a.dst_scales.empty() && a.dst_scales.mask != 0)
      throw unsupported("oneDNN 2.6's sum has one scale: no beta / s_dst per index");
    ops.append_sum(a.dst_scales.empty() ? a.sum_beta : a.sum_beta / a.dst_scales.values[0]);
  }
#endif
  if (ops.len() > 0) attr.set_post_ops(ops);
  return attr;
}

/// oneDNN's reorder of memfmt's problem (src, dst, attributes), on cpu_engine(). The
/// attributes' values are copied: `a` need not outlive it.
class reorder {
  static dnnl::memory::desc md_of(const memfmt::desc& d) {
    try {
      return to_dnnl(d);
    } catch (const memfmt::error& e) {
      throw unsupported(e.what());
    }
  }

 public:
  /// Throws `unsupported` when oneDNN has no such reorder or cannot say `a` (or a
  /// descriptor: oneDNN 2.x has no f8 types).
  reorder(const memfmt::desc& src, const memfmt::desc& dst, const memfmt::reorder_attr& a)
      : src_md_(md_of(src)), dst_md_(md_of(dst)) {
    dnnl::engine& eng = cpu_engine();
#if MEMFMT_ONEDNN_V3
    // the values of the scales and zero points: memories passed at execution, which
    // point into this object's vectors (reserved: they do not move)
    scales_.reserve(2);
    zero_points_.reserve(2);
    const auto scales = [&](int arg, const memfmt::scales& v) {
      if (v.empty()) return;
      scales_.push_back(v.values);
      const auto n = static_cast<dnnl::memory::dim>(v.values.size());
      args_[DNNL_ARG_ATTR_SCALES | arg] =
          dnnl::memory({{n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a}, eng, scales_.back().data());
    };
    const auto zero_point = [&](int arg, std::int32_t zp) {
      if (zp == 0) return;
      zero_points_.push_back(zp);
      args_[DNNL_ARG_ATTR_ZERO_POINTS | arg] =
          dnnl::memory({{1}, dnnl::memory::data_type::s32, dnnl::memory::format_tag::a}, eng, &zero_points_.back());
    };
    scales(DNNL_ARG_SRC, a.src_scales);
    scales(DNNL_ARG_DST, a.dst_scales);
    zero_point(DNNL_ARG_SRC, a.src_zero_points.common_value());
    zero_point(DNNL_ARG_DST, a.dst_zero_points.common_value());
#endif
    const dnnl::primitive_attr attr = attributes(src, a);
    try {
      prim_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng, src_md_, eng, dst_md_, attr));
    } catch (const dnnl::error& e) {
      throw unsupported(std::string("oneDNN ") + version() + " has no such reorder: " + e.what());
    }
  }

  /// Sets the buffers the next execute() reads and writes (dst is read too, by a sum).
  void bind(const void* src, void* dst) {
    args_[DNNL_ARG_FROM] = dnnl::memory(src_md_, cpu_engine(), const_cast<void*>(src));
    args_[DNNL_ARG_TO] = dnnl::memory(dst_md_, cpu_engine(), dst);
  }

  /// Runs the reorder on the bound buffers and waits for it.
  void execute() {
    prim_.execute(cpu_stream(), args_);
    cpu_stream().wait();
  }

  void run(const void* src, void* dst) {
    bind(src, dst);
    execute();
  }

  /// The implementation oneDNN picked ("jit:uni", "simple:any", ...).
  std::string impl() const {
    const char* name = nullptr;
    dnnl_primitive_desc_query(prim_.get_primitive_desc(), dnnl_query_impl_info_str, 0, &name);
    return name != nullptr ? name : "?";
  }

  const dnnl::memory::desc& dst_desc() const { return dst_md_; }

  // the argument memories point into this object's own vectors
  reorder(const reorder&) = delete;
  reorder& operator=(const reorder&) = delete;

 private:
  dnnl::memory::desc src_md_, dst_md_;
  dnnl::reorder prim_;
  std::unordered_map<int, dnnl::memory> args_;
  std::vector<std::vector<float>> scales_;
  std::vector<std::int32_t> zero_points_;
};

}  // namespace memfmt_onednn
