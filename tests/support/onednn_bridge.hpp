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

#include <bit>
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
#include "memfmt/reorder/kernel/convert_scalar.hpp"

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

#if MEMFMT_ONEDNN_V3
/// oneDNN 3.x's groups of `q` (scales or zero points): `{G0, G1}` for the last two dims,
/// empty without groups; `unsupported` for a group on another dim.
template <class Q>
dnnl::memory::dims quant_groups(const memfmt::desc& src, const Q& q) {
  if (q.groups.empty()) return {};
  const int n = src.get_ndims();
  std::vector<memfmt::dim> g(static_cast<std::size_t>(n), 1);
  for (int d = 0, k = 0; d < n; ++d)
    if ((q.mask >> d & 1) != 0) g[static_cast<std::size_t>(d)] = q.groups[static_cast<std::size_t>(k++)];
  for (int d = 0; d + 2 < n; ++d)
    if (g[static_cast<std::size_t>(d)] != 1) throw unsupported("oneDNN groups the last two dims only");
  if (n < 2) throw unsupported("oneDNN's groups are for the last two of two or more dims");
  return {g[static_cast<std::size_t>(n - 2)], g[static_cast<std::size_t>(n - 1)]};
}

inline dnnl::memory::data_type dnnl_type(memfmt::scale_type t) {
  using dt = dnnl::memory::data_type;
  return t == memfmt::scale_type::f16 ? dt::f16 : t == memfmt::scale_type::bf16 ? dt::bf16
         : t == memfmt::scale_type::e8m0 ? dt::e8m0 : dt::f32;
}

inline dnnl::memory::data_type dnnl_type(memfmt::data_type t) { return memfmt::to_dnnl(t); }

/// The values of `s` stored as its type says (each exact there: a reorder checks).
inline std::vector<unsigned char> stored(const memfmt::scales& s) {
  std::vector<unsigned char> b;
  for (const float v : s.values) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    switch (s.type) {
      case memfmt::scale_type::f32: b.insert(b.end(), {static_cast<unsigned char>(bits), static_cast<unsigned char>(bits >> 8), static_cast<unsigned char>(bits >> 16), static_cast<unsigned char>(bits >> 24)}); break;
      case memfmt::scale_type::f16:
      case memfmt::scale_type::bf16: {
        const std::uint16_t h = s.type == memfmt::scale_type::f16 ? memfmt::detail::f32_to_f16_bits(v) : memfmt::detail::f32_to_bf16_bits(v);
        b.insert(b.end(), {static_cast<unsigned char>(h), static_cast<unsigned char>(h >> 8)});
        break;
      }
      case memfmt::scale_type::e8m0:  // the biased exponent; 2^-127 is 0, NaN 0xFF
        b.push_back(v != v ? 0xFF : bits == 0x00400000u ? 0 : static_cast<unsigned char>(bits >> 23));
        break;
    }
  }
  return b;
}

/// The values of `z` stored as its type says (s4 and u4 two per byte, the first low).
inline std::vector<unsigned char> stored(const memfmt::zero_points& z) {
  std::vector<unsigned char> b;
  const std::size_t size = memfmt::data_type_size(z.type);
  for (std::size_t k = 0; k < z.values.size(); ++k) {
    const auto v = static_cast<std::uint32_t>(z.values[k]);
    if (memfmt::is_sub_byte(z.type)) {
      if (k % 2 == 0) b.push_back(static_cast<unsigned char>(v & 15u));
      else b.back() = static_cast<unsigned char>(b.back() | (v & 15u) << 4);
      continue;
    }
    for (std::size_t i = 0; i < size; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
  return b;
}
#endif

#if MEMFMT_ONEDNN_V3
/// Whether oneDNN 3.x is given `z`: zero points per index, or a common one other than 0.
inline bool passed(const memfmt::zero_points& z) { return z.mask != 0 ? !z.empty() : z.common_value() != 0; }
#endif

/// oneDNN's attributes for `a`. oneDNN 2.6: output scales (combined_scales), zero
/// points and the sum, with their values; oneDNN 3.x: masks, groups and data types, the
/// values go with each execution (reorder does that). Throws `unsupported` when oneDNN
/// cannot say `a` (2.6: groups, zero points per index).
inline dnnl::primitive_attr attributes(const memfmt::desc& src, const memfmt::reorder_attr& a) {
  dnnl::primitive_attr attr;
  dnnl::post_ops ops;
#if MEMFMT_ONEDNN_V3
  try {
    for (const auto& [arg, s] : {std::pair{DNNL_ARG_SRC, &a.src_scales}, std::pair{DNNL_ARG_DST, &a.dst_scales}})
      if (!s->empty()) attr.set_scales(arg, s->mask, quant_groups(src, *s), dnnl_type(s->type));
    for (const auto& [arg, z] : {std::pair{DNNL_ARG_SRC, &a.src_zero_points}, std::pair{DNNL_ARG_DST, &a.dst_zero_points}})
      if (passed(*z))
        attr.set_zero_points(arg, z->mask, quant_groups(src, *z), dnnl_type(z->type));
  } catch (const dnnl::error& e) {
    throw unsupported(std::string("oneDNN ") + version() + " refuses the attributes: " + e.what());
  }
  if (a.sum_beta != 0.f) ops.append_sum(a.sum_beta);
#else
  if (!a.src_scales.groups.empty() || !a.dst_scales.groups.empty())
    throw unsupported("grouped scales: oneDNN 2.6 has none");
  if ((!a.src_zero_points.empty() && a.src_zero_points.mask != 0) ||
      (!a.dst_zero_points.empty() && a.dst_zero_points.mask != 0))
    throw unsupported("zero points per index: oneDNN 2.6's reorders take common ones only");
  if (!a.src_scales.empty() || !a.dst_scales.empty()) {
    auto [mask, values] = combined_scales(src, a);
    attr.set_output_scales(mask, values);
  }
  const std::int32_t src_zp = a.src_zero_points.common_value(), dst_zp = a.dst_zero_points.common_value();
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
    // the values of the scales and zero points, stored in their types: memories passed
    // at execution, which point into this object's vectors (reserved: they do not move)
    values_.reserve(4);
    const auto pass = [&](int arg, auto type, std::vector<unsigned char> bytes, std::size_t count) {
      values_.push_back(std::move(bytes));
      args_[arg] = dnnl::memory({{static_cast<dnnl::memory::dim>(count)}, dnnl_type(type), dnnl::memory::format_tag::a},
                                eng, values_.back().data());
    };
    for (const auto& [arg, s] : {std::pair{DNNL_ARG_SRC, &a.src_scales}, std::pair{DNNL_ARG_DST, &a.dst_scales}})
      if (!s->empty()) pass(DNNL_ARG_ATTR_SCALES | arg, s->type, stored(*s), s->values.size());
    for (const auto& [arg, z] : {std::pair{DNNL_ARG_SRC, &a.src_zero_points}, std::pair{DNNL_ARG_DST, &a.dst_zero_points}})
      if (passed(*z))
        pass(DNNL_ARG_ATTR_ZERO_POINTS | arg, z->type, stored(*z), z->values.size());
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
  std::vector<std::vector<unsigned char>> values_;  ///< (oneDNN 3.x) scales and zero points
};

}  // namespace memfmt_onednn
