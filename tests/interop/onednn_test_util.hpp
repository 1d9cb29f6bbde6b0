// What the oneDNN interop tests share: every tag name with oneDNN's enumerator, and the
// int8 convolution whose weights carry compensation (built with either oneDNN API).
#pragma once

#include <string_view>

#include "memfmt/core/dims.hpp"
#include "memfmt/interop/onednn.hpp"
#include "onednn_bridge.hpp"

namespace memfmt_test::onednn {

struct named_tag {
  std::string_view name;
  dnnl::memory::format_tag onednn;
};

/// Every tag name memfmt knows, with oneDNN's enumerator of the same spelling.
inline const named_tag all_tags[] = {
#define MEMFMT_TAG_NAME(name) {#name, dnnl::memory::format_tag::name},
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
};

/// oneDNN's int8 convolution (s8 source, `weights` {oc, ic, kh, kw} with `format_tag::any`,
/// a 2-image source of `size` x `size` pixels, stride 1, no padding, destination of type
/// `dst`), whose weights descriptor asks for s8s8 compensation.
inline dnnl::convolution_forward::primitive_desc int8_convolution(const memfmt::dims& weights, memfmt::dim size,
                                                                  dnnl::memory::data_type dst_type) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const memfmt::dim oc = weights[0], ic = weights[1], out = size - weights[2] + 1;
  const dnnl::memory::desc src({2, ic, size, size}, dt::s8, tag::any), wei(weights.to_vector(), dt::s8, tag::any),
      dst({2, oc, out, out}, dst_type, tag::any);
#if MEMFMT_ONEDNN_V3
  return {memfmt_onednn::cpu_engine(), dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          src, wei, dst, {1, 1}, {0, 0}, {0, 0}};
#else
  return {dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          src, wei, dst, {1, 1}, {0, 0}, {0, 0}),
          memfmt_onednn::cpu_engine()};
#endif
}

}  // namespace memfmt_test::onednn
