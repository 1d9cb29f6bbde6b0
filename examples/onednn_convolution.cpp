// A oneDNN convolution whose inputs memfmt packs.
//
// The convolution is created with format_tag::any, so that oneDNN chooses the layouts of
// its source and weights (blocked ones, such as nChw8c and OIhw8i8o on AVX2);
// memfmt::from_dnnl reads them, and memfmt::reorder packs the user's plain nchw source
// and oihw weights into them, from dnnl::memory to dnnl::memory. The same convolution
// fed by oneDNN's own reorders must get the same bytes (padding zeros and compensation
// included) and compute the same output, bit for bit:
//   - f32: 3 -> 20 channels (no multiple of a block: the layouts have padding) and
//     32 -> 64 channels, 3x3 kernels;
//   - int8: an s8 source (one scale) and s8 weights (a scale per output channel) for an
//     f32 output, where oneDNN's weights layout asks for the s8s8 compensation (and,
//     on CPUs without VNNI, weights halved: scale_adjust 0.5), which memfmt writes too.
// Written for oneDNN 2.x (the tests build it with Debian's 2.6). Returns 1 and prints
// what differs on failure.

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include <memfmt/interop/onednn.hpp>
#include <memfmt/memfmt.hpp>

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

dnnl::engine engine(dnnl::engine::kind::cpu, 0);
dnnl::stream stream(engine);

/// A 2-D convolution: batch, input and output channels, image height and width, and a
/// square kernel (stride 1, padding k / 2: the output is as large as the input).
struct problem {
  const char* name;
  memory::dim n, ic, oc, h, w, k;
};

/// Deterministic values in [-scale, scale] in an f32 memory.
void fill(const memory& m, float scale) {
  auto* f = static_cast<float*>(m.get_data_handle());
  const std::size_t count = m.get_desc().get_size() / sizeof(float);
  for (std::size_t i = 0; i < count; ++i) f[i] = scale * (static_cast<float>(i * 7919 % 2001) / 1000.f - 1.f);
}

/// The user's tensors, as a program has them: f32 source in nchw, weights in oihw.
struct user_tensors {
  memory src, wei;
};

user_tensors user_data(const problem& p) {
  const user_tensors user{memory({{p.n, p.ic, p.h, p.w}, dt::f32, tag::nchw}, engine),
                          memory({{p.oc, p.ic, p.k, p.k}, dt::f32, tag::oihw}, engine)};
  fill(user.src, 1.f);
  fill(user.wei, 0.25f);
  return user;
}

/// The convolution, with the layouts oneDNN prefers for these types and attributes.
dnnl::convolution_forward::primitive_desc convolution(const problem& p, dt src_type, dt wei_type,
                                                      const dnnl::primitive_attr& attr) {
  const memory::desc src({p.n, p.ic, p.h, p.w}, src_type, tag::any);
  const memory::desc wei({p.oc, p.ic, p.k, p.k}, wei_type, tag::any);
  const memory::desc dst({p.n, p.oc, p.h, p.w}, dt::f32, tag::any);
  const memory::dims pad{p.k / 2, p.k / 2};
  const dnnl::convolution_forward::desc conv(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             src, wei, dst, {1, 1}, pad, pad);
  return {conv, attr, engine};
}

/// A new memory of `md` whose every byte is 0xA5 (not 0, so that comparing the packed
/// memories also shows that each reorder wrote the zeros of the padding).
memory marked(const memory::desc& md) {
  memory m(md, engine);
  std::memset(m.get_data_handle(), 0xA5, md.get_size());
  return m;
}

/// memfmt packs `user` into a new memory of the layout oneDNN wants, scaled by `attr`:
/// the data, zeros in the padding, and the compensation if the layout asks for it.
memory pack_with_memfmt(const memory& user, const memory::desc& wanted, const memfmt::reorder_attr& attr) {
  const memory packed = marked(wanted);
  const memfmt::reorder r(user, packed, attr);  // plans from memfmt::from_dnnl of both layouts
  r.execute(user, packed);
  return packed;
}

/// oneDNN packs the same with its own reorder (`attr`: its output scales).
memory pack_with_onednn(const memory& user, const memory::desc& wanted, const dnnl::primitive_attr& attr) {
  const memory packed = marked(wanted);
  dnnl::reorder(dnnl::reorder::primitive_desc(engine, user.get_desc(), engine, wanted, attr))
      .execute(stream, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, packed}});
  stream.wait();
  return packed;
}

/// Runs the convolution on packed inputs and returns its output.
memory convolve(const dnnl::convolution_forward::primitive_desc& pd, const memory& src, const memory& wei) {
  memory dst(pd.dst_desc(), engine);
  dnnl::convolution_forward(pd).execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  stream.wait();
  return dst;
}

/// Whether memfmt's and oneDNN's memories hold the same bytes, over memfmt's size of
/// the layout (oneDNN 2.6's get_size() counts a compensation buffer three times; it
/// writes it once). Says which, or where they first differ.
bool same_bytes(const char* what, const memory& ours, const memory& theirs) {
  const memfmt::desc layout = memfmt::from_dnnl(ours.get_desc());
  const auto* a = static_cast<const unsigned char*>(ours.get_data_handle());
  const auto* b = static_cast<const unsigned char*>(theirs.get_data_handle());
  for (std::size_t i = 0; i < layout.get_size(); ++i)
    if (a[i] != b[i]) {
      std::printf("  FAILED: %s (%s) differ at byte %zu of the %s: memfmt 0x%02x, oneDNN 0x%02x\n", what,
                  layout.str().c_str(), i, i < layout.get_data_size() ? "data" : "compensation", a[i], b[i]);
      return false;
    }
  std::printf("  %-8s %-38s %6zu bytes, identical\n", what, layout.str().c_str(), layout.get_size());
  return true;
}

/// Packs with memfmt and with oneDNN, runs the convolution on each, compares all.
bool compare(const dnnl::convolution_forward::primitive_desc& pd, const user_tensors& user,
             const memfmt::reorder_attr& src_attr, const memfmt::reorder_attr& wei_attr,
             const dnnl::primitive_attr& src_attr_onednn, const dnnl::primitive_attr& wei_attr_onednn) {
  const memory src_ours = pack_with_memfmt(user.src, pd.src_desc(), src_attr);
  const memory wei_ours = pack_with_memfmt(user.wei, pd.weights_desc(), wei_attr);
  const memory src_theirs = pack_with_onednn(user.src, pd.src_desc(), src_attr_onednn);
  const memory wei_theirs = pack_with_onednn(user.wei, pd.weights_desc(), wei_attr_onednn);
  bool ok = same_bytes("source", src_ours, src_theirs);
  ok = same_bytes("weights", wei_ours, wei_theirs) && ok;
  return same_bytes("output", convolve(pd, src_ours, wei_ours), convolve(pd, src_theirs, wei_theirs)) && ok;
}

/// f32: the layouts oneDNN prefers, packed without scaling.
bool check_f32(const problem& p) {
  const auto pd = convolution(p, dt::f32, dt::f32, {});
  std::printf("%s, f32 (%s):\n", p.name, pd.impl_info_str());
  return compare(pd, user_data(p), {}, {}, {}, {});
}

/// The largest magnitude among `count` floats from `v`.
float max_abs(const float* v, std::size_t count) {
  float m = 0.f;
  for (std::size_t i = 0; i < count; ++i) m = std::max(m, std::fabs(v[i]));
  return m;
}

/// int8: the source quantized to s8 with one scale, the weights with a scale per
/// output channel (the largest magnitude becomes 127); the convolution multiplies its
/// s32 sums back by the inverse of both, per output channel, into f32.
bool check_int8(const problem& p) {
  const user_tensors user = user_data(p);
  const auto* src = static_cast<const float*>(user.src.get_data_handle());
  const auto* wei = static_cast<const float*>(user.wei.get_data_handle());
  const std::size_t per_oc = static_cast<std::size_t>(p.ic * p.k * p.k);
  const float src_scale = 127.f / max_abs(src, static_cast<std::size_t>(p.n * p.ic * p.h * p.w));
  std::vector<float> wei_scales, out_scales;
  for (memory::dim o = 0; o < p.oc; ++o) {
    wei_scales.push_back(127.f / max_abs(wei + o * per_oc, per_oc));
    out_scales.push_back(1.f / (src_scale * wei_scales.back()));
  }
  dnnl::primitive_attr conv_attr;
  conv_attr.set_output_scales(1 << 1, out_scales);  // per output channel: dim 1 of the output
  const auto pd = convolution(p, dt::s8, dt::s8, conv_attr);
  std::printf("%s, int8 (%s):\n", p.name, pd.impl_info_str());

  // memfmt: a source scale, common (mask 0) or per output channel (mask 1: dim 0, o)
  memfmt::reorder_attr src_attr, wei_attr;
  src_attr.src_scales = {0, {src_scale}};
  wei_attr.src_scales = {1, wei_scales};
  // oneDNN 2.x: the same factors as its reorders' output scales
  dnnl::primitive_attr src_attr_onednn, wei_attr_onednn;
  src_attr_onednn.set_output_scales(0, {src_scale});
  wei_attr_onednn.set_output_scales(1, wei_scales);
  return compare(pd, user, src_attr, wei_attr, src_attr_onednn, wei_attr_onednn);
}

}  // namespace

int main() {
  const problem problems[] = {
      {"3 -> 20 channels, 3x3 (a first layer: padded channel blocks)", 2, 3, 20, 13, 11, 3},
      {"32 -> 64 channels, 3x3", 2, 32, 64, 14, 14, 3},
  };
  try {
    bool ok = true;
    for (const problem& p : problems) {
      ok = check_f32(p) && ok;
      ok = check_int8(p) && ok;
    }
    std::printf(ok ? "memfmt and oneDNN packed the same bytes; the convolutions computed the same outputs\n"
                   : "FAILED: memfmt and oneDNN differ (above)\n");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {  // memfmt::error, dnnl::error
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
}
