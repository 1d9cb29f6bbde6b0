// memfmt::reorder on dnnl::memory objects (memory_traits<dnnl::memory>, from
// memfmt/interop/onednn.hpp), against oneDNN 2.6, or 3.x in interop.onednn3: between
// dnnl::memory objects of every tag name, and between a dnnl::memory and a
// memfmt::memory with scales and compensation, memfmt writes the bytes oneDNN's own
// reorder writes, padding included; what memfmt cannot use is refused by name.
#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "memfmt/interop/onednn.hpp"
#include "memfmt/memfmt.hpp"
#include "onednn_bridge.hpp"
#include "onednn_test_util.hpp"

namespace {

using Catch::Matchers::Contains;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using dnnl_md = dnnl::memory::desc;
using dnnl_tag = dnnl::memory::format_tag;

using memfmt_test::onednn::all_tags;
using memfmt_test::onednn::named_tag;

/// n dims that are no multiple of any block (so that blocked layouts have padding).
dims odd_dims(int n) {
  const dim v[] = {17, 5, 3, 2, 3, 2};
  dims d;
  for (int i = 0; i < n; ++i) d.push_back(v[i % 6]);
  return d;
}

/// A oneDNN memory of `d` on the CPU engine, every byte of its buffer `byte` (what a
/// reorder must overwrite: data and padding).
dnnl::memory filled(const desc& d, unsigned char byte) {
  dnnl::memory m(memfmt::to_dnnl(d), memfmt_onednn::cpu_engine());
  std::memset(m.get_data_handle(), byte, d.get_size());
  return m;
}

/// f32 values that every type here holds exactly or rounds alike in both libraries:
/// halves in [-60, 60], never 0 (oneDNN 2.6 turns -0 into +0 in some reorders).
void fill_values(void* data, std::size_t count) {
  auto* f = static_cast<float*>(data);
  for (std::size_t k = 0; k < count; ++k) {
    const float v = static_cast<float>(static_cast<int>((k * 37 + 11) % 241) - 120) / 2.f;
    f[k] = v == 0.f ? 0.5f : v;
  }
}

/// The first byte where two buffers differ, or -1.
long first_difference(const void* a, const void* b, std::size_t bytes) {
  const auto *x = static_cast<const unsigned char*>(a), *y = static_cast<const unsigned char*>(b);
  for (std::size_t k = 0; k < bytes; ++k)
    if (x[k] != y[k]) return static_cast<long>(k);
  return -1;
}

/// memfmt's and oneDNN's reorder from `src` into copies of `dst`: the same bytes.
void check_same_as_onednn(const dnnl::memory& src, const desc& dst) {
  dnnl::memory mine = filled(dst, 0xA5), theirs = filled(dst, 0xA5);
  const memfmt::reorder r(src, mine);
  r.execute(src, mine);
  dnnl::reorder(src, theirs).execute(memfmt_onednn::cpu_stream(), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, theirs}});
  memfmt_onednn::cpu_stream().wait();
  CHECK(first_difference(mine.get_data_handle(), theirs.get_data_handle(), dst.get_size()) == -1);
}

}  // namespace

TEST_CASE("reorders between dnnl::memory objects: every tag name, from plain f32 and back, as dnnl::reorder",
          "[interop][onednn][reorder]") {
  const data_type types[] = {data_type::f32, data_type::bf16, data_type::s8};
  int compared = 0, k = 0;
  for (const named_tag& t : all_tags) {
    const memfmt::tag_parse_result parsed = memfmt::parse_tag(t.name);
    REQUIRE(parsed.ok());
    const int n = parsed.layout.ndims;
    const dims d = odd_dims(n);
    const desc plain(d, data_type::f32, std::string("abcdefghijkl", static_cast<std::size_t>(n)));
    const desc blocked(d, types[k++ % 3], t.name);
    INFO(t.name << " " << blocked.str());
    REQUIRE(memfmt::from_dnnl(dnnl_md(d.to_vector(), memfmt::to_dnnl(blocked.get_data_type()), t.onednn)) == blocked);
    dnnl::memory src = filled(plain, 0);
    fill_values(src.get_data_handle(), static_cast<std::size_t>(plain.get_size() / 4));
    check_same_as_onednn(src, blocked);
    // and back, from what oneDNN packed
    dnnl::memory packed = filled(blocked, 0);
    dnnl::reorder(src, packed).execute(memfmt_onednn::cpu_stream(), src, packed);
    memfmt_onednn::cpu_stream().wait();
    check_same_as_onednn(packed, plain);
    ++compared;
  }
  CHECK(compared == static_cast<int>(std::size(all_tags)));
}

TEST_CASE("views: dnnl::memory objects of submemory descriptors, as dnnl::reorder", "[interop][onednn][reorder]") {
  // a whole channel block (16 to 31) of a batch of nChw16c: the handle is the parent's
  // start, the view's offset0 is in its descriptor
  const desc parent(dims{2, 40, 5, 7}, data_type::f32, "nChw16c");
  const desc view = parent.submemory_desc({1, 16, 5, 7}, {1, 16, 0, 0});
  const desc plain(dims{1, 16, 5, 7}, data_type::bf16, "nhwc");
  dnnl::memory whole = filled(parent, 0);
  fill_values(whole.get_data_handle(), static_cast<std::size_t>(parent.get_size() / 4));
  const dnnl::memory part(memfmt::to_dnnl(view), memfmt_onednn::cpu_engine(), whole.get_data_handle());
  INFO(view.str());
  check_same_as_onednn(part, plain);
  // into the view: the rest of the parent stays as it was
  dnnl::memory user = filled(plain, 0);
  dnnl::reorder(part, user).execute(memfmt_onednn::cpu_stream(), {{DNNL_ARG_FROM, part}, {DNNL_ARG_TO, user}});
  memfmt_onednn::cpu_stream().wait();
  dnnl::memory mine = filled(parent, 0xA5), theirs = filled(parent, 0xA5);
  const dnnl::memory mine_part(memfmt::to_dnnl(view), memfmt_onednn::cpu_engine(), mine.get_data_handle());
  const dnnl::memory theirs_part(memfmt::to_dnnl(view), memfmt_onednn::cpu_engine(), theirs.get_data_handle());
  memfmt::reorder(user, mine_part).execute(user, mine_part);
  dnnl::reorder(user, theirs_part)
      .execute(memfmt_onednn::cpu_stream(), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, theirs_part}});
  memfmt_onednn::cpu_stream().wait();
  CHECK(first_difference(mine.get_data_handle(), theirs.get_data_handle(), parent.get_size()) == -1);
  const auto* bytes = static_cast<const unsigned char*>(mine.get_data_handle());
  CHECK(bytes[0] == 0xA5);  // batch 0, outside the view
  CHECK(bytes[parent.get_size() - 1] == 0xA5);  // channels 32 to 39 of batch 1
}

namespace {

/// memfmt's reorder between a memfmt::memory and a dnnl::memory (either way round),
/// with attributes, against oneDNN's reorder of the same problem on the same source.
template <class Src, class Dst>
void check_mixed(const Src& src, const Dst& dst, const memfmt::reorder_attr& attr) {
  const memfmt::reorder r(src, dst, attr);
  const desc& s = r.get_src_desc();
  const desc& d = r.get_dst_desc();
  INFO(s.str() << " -> " << d.str());
  const void* src_data = memfmt::memory_traits<Src>::get_data_handle(src);
  void* dst_data = memfmt::memory_traits<Dst>::get_data_handle(dst);
  std::memset(dst_data, 0xA5, d.get_size());
  r.execute(src, dst);
  // oneDNN writes into its own buffer (2.6 allocates for the compensation three times)
  memfmt::memory theirs(d);
  std::memset(theirs.get_data_handle(), 0xA5, d.get_size());
  memfmt_onednn::reorder(s, d, attr).run(src_data, theirs.get_data_handle());
  CHECK(first_difference(dst_data, theirs.get_data_handle(), d.get_size()) == -1);
}

/// The s8 weights, with s8s8 compensation, that oneDNN's int8 convolution asks for.
dnnl_md int8_conv_weights(const dims& weights) {
  return memfmt_test::onednn::int8_convolution(weights, 9, dnnl::memory::data_type::f32).weights_desc();
}

}  // namespace

TEST_CASE("mixed: memfmt::memory to dnnl::memory and back, with scales and compensation, as oneDNN's reorder",
          "[interop][onednn][reorder]") {
  // (onednn_test.cpp, in the same program, caps oneDNN's instruction sets below those
  // whose int8 convolutions need no compensation)
  for (const dims& w : {dims{20, 3, 3, 3}, dims{64, 32, 3, 3}}) {
    // f32 oihw weights quantized into the s8 weights of an int8 convolution, a scale per
    // output channel; the compensation follows the data
    memfmt::memory user(desc(w, data_type::f32, "oihw"));
    fill_values(user.get_data_handle(), static_cast<std::size_t>(user.get_desc().get_size() / 4));
    const desc packed_desc = memfmt::from_dnnl(int8_conv_weights(w));
    INFO(packed_desc.str());
    REQUIRE((packed_desc.get_extra().flags & memfmt::extra_flags::compensation_conv_s8s8) != 0);
    // (2.6 allocates its compensation three times: get_size())
    const dnnl::memory packed(int8_conv_weights(w), memfmt_onednn::cpu_engine());
    memfmt::reorder_attr attr;
    attr.src_scales.mask = 1;
    for (dim o = 0; o < w[0]; ++o) attr.src_scales.values.push_back(1.f + static_cast<float>(o % 5) / 4.f);
    check_mixed(user, packed, attr);
    // and the packed weights (their data) back to f32 oihw, as memfmt::memory
    const desc data_only = memfmt::from_dnnl(int8_conv_weights(w)).with_extra({});
    const dnnl::memory plain_s8(memfmt::to_dnnl(data_only), memfmt_onednn::cpu_engine(), packed.get_data_handle());
    memfmt::memory back(desc(w, data_type::f32, "oihw"));
    memfmt::reorder_attr common;
    common.src_scales.values = {0.25f};
    check_mixed(plain_s8, back, common);
  }
}

TEST_CASE("dnnl::memory objects memfmt cannot use are refused by name", "[interop][onednn][reorder]") {
  using dt = dnnl::memory::data_type;
  dnnl::engine& eng = memfmt_onednn::cpu_engine();
  const desc nchw(dims{2, 17, 5, 4}, data_type::f32, "nchw"), blocked(dims{2, 17, 5, 4}, data_type::f32, "nChw8c");
  const dnnl::memory src(memfmt::to_dnnl(nchw), eng), dst(memfmt::to_dnnl(blocked), eng);
  // an empty memory object
  CHECK_THROWS_WITH(memfmt::reorder(dnnl::memory(), dst),
                    Contains("reorder: the source: an empty dnnl::memory (no descriptor, no engine, no data)"));
  const memfmt::reorder r(src, dst);
  CHECK_THROWS_WITH(r.execute(src, dnnl::memory()), Contains("reorder: the destination: an empty dnnl::memory"));
  // a memory without data
  const dnnl::memory no_data(memfmt::to_dnnl(blocked), eng, DNNL_MEMORY_NONE);
  CHECK_THROWS_WITH(r.execute(src, no_data),
                    Contains("reorder::execute: the destination: dnnl::memory without data (DNNL_MEMORY_NONE) for "
                             "f32:p:blocked:aBcd8b:f0"));
  // ... which a tensor without elements needs not
  const desc empty(dims{2, 0, 5, 4}, data_type::f32, "nChw8c");
  const dnnl::memory none(memfmt::to_dnnl(empty), eng, DNNL_MEMORY_NONE);
  CHECK_NOTHROW(memfmt::reorder(none, none).execute(none, none));
  // a memory whose layout is not the planned one
  CHECK_THROWS_WITH(r.execute(dst, dst), Contains("not the planned ones"));
  // the zero descriptor
  const dnnl::memory zero(dnnl_md(), eng, DNNL_MEMORY_NONE);
  CHECK_THROWS_WITH(memfmt::reorder(zero, dst), Contains("the source descriptor is the zero descriptor"));
  // a layout from_dnnl refuses: its error, said to be the destination's
  // (a negative stride on a unit dim, which oneDNN accepts)
  const dnnl::memory negative_stride(dnnl_md({1, 3}, dt::f32, {-1, 1}), eng);
  const dnnl::memory plain(dnnl_md({1, 3}, dt::f32, dnnl_tag::ab), eng);
  CHECK_THROWS_WITH(memfmt::reorder(plain, negative_stride),
                    Contains("reorder: the destination: from_dnnl:") && Contains("stride 0 is negative"));
  // memory of another device (no GPU here: the check the traits make, on a GPU engine's kind)
  CHECK_THROWS_WITH(memfmt::detail::onednn::check_cpu_engine(dnnl::engine::kind::gpu),
                    Contains("dnnl::memory of a gpu engine: memfmt reorders host memory"));
  CHECK_NOTHROW(memfmt::detail::onednn::check_cpu_engine(dnnl::engine::kind::cpu));
  if (dnnl::engine::get_count(dnnl::engine::kind::gpu) > 0) {
    const dnnl::memory on_gpu(memfmt::to_dnnl(blocked), dnnl::engine(dnnl::engine::kind::gpu, 0));
    CHECK_THROWS_WITH(r.execute(src, on_gpu), Contains("the destination: dnnl::memory of a gpu engine"));
  }
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL
  // a SYCL buffer on the CPU engine: its handle is the buffer object, not the data
  dnnl_memory_t buffer_c = nullptr;
  const dnnl_md buffer_md = memfmt::to_dnnl(blocked);
  REQUIRE(dnnl_sycl_interop_memory_create(&buffer_c, buffer_md.get(), eng.get(), dnnl_sycl_interop_buffer,
                                          DNNL_MEMORY_ALLOCATE) == dnnl_success);
  const dnnl::memory buffer(buffer_c);
  CHECK_THROWS_WITH(r.execute(src, buffer), Contains("the destination: dnnl::memory of a SYCL buffer"));
#endif
}

#endif  // (without oneDNN, onednn_test.cpp's main reports the test skipped)
