// memfmt/interop/onednn.hpp against oneDNN (2.6, or 3.x in interop.onednn3): to_dnnl
// gives the descriptor oneDNN builds itself (from a tag, strides, submemory_desc, a
// convolution's weights), from_dnnl gives the one memfmt builds itself, both round trips
// keep every field, and what memfmt cannot express is refused by name.
#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfmt/interop/onednn.hpp"
#include "onednn_bridge.hpp"  // (cpu_engine: oneDNN 3.x from PyPI runs its CPU engine on SYCL)
#include "onednn_test_util.hpp"

namespace {

using Catch::Matchers::Contains;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::from_dnnl;
using memfmt::to_dnnl;
using dnnl_md = dnnl::memory::desc;
using dnnl_tag = dnnl::memory::format_tag;
using dnnl_dims = dnnl::memory::dims;

using memfmt_test::onednn::all_tags;
using memfmt_test::onednn::named_tag;

constexpr data_type all_types[] = {data_type::f32, data_type::bf16, data_type::f16,
                                   data_type::s32, data_type::s8,   data_type::u8};

/// Every field of a oneDNN descriptor, read with oneDNN's own API (2.x: the public struct,
/// 3.x: the getters), for comparisons stricter than oneDNN's ==, which skips the strides
/// of unit dims.
struct their_fields {
  int ndims = 0;
  int dt = 0, kind = 0;
  std::vector<dim> dims, padded, padded_offsets, strides, inner_blks, inner_idxs;
  dim offset0 = 0;
  bool operator==(const their_fields&) const = default;
};

their_fields fields_of(const dnnl_md& md) {
  their_fields f;
#if MEMFMT_ONEDNN_V3
  f.ndims = md.get_ndims();
  f.dt = static_cast<int>(md.get_data_type());
  f.kind = static_cast<int>(md.get_format_kind());
  f.dims = md.get_dims();
  f.padded = md.get_padded_dims();
  f.padded_offsets = md.get_padded_offsets();
  f.offset0 = md.get_submemory_offset();
  if (md.get_format_kind() == dnnl::memory::format_kind::blocked) {
    f.strides = md.get_strides();
    f.inner_blks = md.get_inner_blks();
    f.inner_idxs = md.get_inner_idxs();
  }
#else
  const dnnl_memory_desc_t& c = md.data;
  f.ndims = c.ndims;
  f.dt = c.data_type;
  f.kind = c.format_kind;
  f.dims.assign(c.dims, c.dims + c.ndims);
  f.padded.assign(c.padded_dims, c.padded_dims + c.ndims);
  f.padded_offsets.assign(c.padded_offsets, c.padded_offsets + c.ndims);
  f.offset0 = c.offset0;
  if (c.format_kind == dnnl_blocked) {
    const dnnl_blocking_desc_t& b = c.format_desc.blocking;
    f.strides.assign(b.strides, b.strides + c.ndims);
    f.inner_blks.assign(b.inner_blks, b.inner_blks + b.inner_nblks);
    f.inner_idxs.assign(b.inner_idxs, b.inner_idxs + b.inner_nblks);
  }
#endif
  return f;
}

/// True when two memfmt descriptors agree in every field, strides of unit dims included.
bool same_fields(const desc& a, const desc& b) {
  if (a.get_format_kind() != memfmt::format_kind::blocked || b.get_format_kind() != memfmt::format_kind::blocked)
    return a.get_format_kind() == b.get_format_kind() && a.get_dims() == b.get_dims() &&
           a.get_data_type() == b.get_data_type();
  const memfmt::desc_fields x = a.fields(), y = b.fields();
  return a.get_format_kind() == b.get_format_kind() && x.logical == y.logical && x.dt == y.dt &&
         x.padded == y.padded && x.padded_offsets == y.padded_offsets && x.offset0 == y.offset0 &&
         x.strides == y.strides && x.inner_blks == y.inner_blks && x.inner_idxs == y.inner_idxs && x.extra == y.extra;
}

/// Both round trips, field for field: memfmt -> oneDNN -> memfmt, oneDNN -> memfmt -> oneDNN.
void check_round_trips(const desc& ours, const dnnl_md& theirs) {
  const desc back = from_dnnl(to_dnnl(ours));
  CHECK(back == ours);
  CHECK(same_fields(back, ours));
  const dnnl_md there_and_back = to_dnnl(from_dnnl(theirs));
  CHECK(there_and_back == theirs);
  CHECK(fields_of(there_and_back) == fields_of(theirs));
}

/// memfmt's and oneDNN's own descriptors of the same thing: each bridge direction gives
/// the other's, and both round trips keep every field.
void check_twins(const desc& ours, const dnnl_md& theirs) {
  CHECK(to_dnnl(ours) == theirs);
  CHECK(fields_of(to_dnnl(ours)) == fields_of(theirs));
  const desc mine = from_dnnl(theirs);
  CHECK(mine == ours);
  CHECK(same_fields(mine, ours));
  CHECK(mine.get_size() == ours.get_size());
  check_round_trips(ours, theirs);
}

/// Dim sets for an n-D tag: all ones; dims that are no multiple of any block; multiples
/// of every block (64); a zero dim.
std::vector<dims> dim_sets(int n) {
  const dim odd[] = {17, 5, 3, 7, 2, 9}, round[] = {128, 64, 64, 32};
  std::vector<dims> sets(4);
  for (int i = 0; i < n; ++i) {
    sets[0].push_back(1);
    sets[1].push_back(odd[i % 6]);
    sets[2].push_back(i < 4 ? round[i] : 2);
    sets[3].push_back(i == 0 ? 0 : 3);
  }
  return sets;
}

std::string show(const dims& d) {
  std::string s;
  for (dim v : d) {
    if (!s.empty()) s += 'x';
    s += std::to_string(v);
  }
  return s;
}

/// The instruction sets oneDNN may use in this program, capped in static initialisation,
/// before oneDNN generates any code. oneDNN's int8 convolutions on CPUs with s8 x s8 dot
/// products (AVX-VNNI-INT8, AMX) need no s8s8 compensation; below those, every x86 int8
/// kernel asks for it. Both versions pack RNN weights (format_kind::rnn_packed in 2.6,
/// opaque in 3.x) only where their brgemm RNN kernels do not run: in 2.6 those take int8
/// from AVX-512 VNNI on, in 3.x from AVX on.
const dnnl::status isa_capped =
    dnnl::set_max_cpu_isa(MEMFMT_ONEDNN_V3 ? dnnl::cpu_isa::sse41 : dnnl::cpu_isa::avx512_core);

}  // namespace

TEST_CASE("every tag name, several dim sets: to_dnnl and from_dnnl give oneDNN's and memfmt's own descriptors",
          "[interop][onednn]") {
  std::printf("oneDNN %s\n", memfmt_onednn::version().c_str());
  int compared = 0, k = 0;
  for (const named_tag& t : all_tags) {
    const memfmt::tag_parse_result parsed = memfmt::parse_tag(t.name);
    REQUIRE(parsed.ok());
    const data_type dt = all_types[k++ % 6];
    for (const dims& d : dim_sets(parsed.layout.ndims)) {
      INFO(t.name << " " << show(d) << " " << memfmt::to_string(dt));
      const desc ours(d, dt, t.name);
      const dnnl_md theirs(d.to_vector(), to_dnnl(dt), t.onednn);
      check_twins(ours, theirs);
      ++compared;
    }
  }
  CHECK(compared == 4 * static_cast<int>(std::size(all_tags)));
}

TEST_CASE("strided descriptors", "[interop][onednn]") {
  struct strided {
    dims d, strides;
  };
  const strided cases[] = {
      {{5, 19, 3, 7}, {2000, 1, 600, 20}},  // gaps
      {{4, 6}, {1, 4}},                      // column-major
      {{3, 1, 8}, {8, 77, 1}},               // a unit dim's stride is anything
      {{4, 5}, {0, 1}},                      // broadcast along dim 0
      {{2, 0, 3}, {5, 5, 5}},                // no element: any strides
      {{7}, {3}},
  };
  for (const strided& c : cases) {
    INFO(show(c.d) << " strides " << show(c.strides));
    check_twins(desc(c.d, data_type::u8, c.strides), dnnl_md(c.d.to_vector(), dnnl::memory::data_type::u8,
                                                              c.strides.to_vector()));
  }
}

TEST_CASE("views: submemory descriptors, with their offset0 and padded dims", "[interop][onednn]") {
  struct view {
    const char* tag;
    dnnl_tag onednn;
    dims parent, sizes, offsets;
  };
  const view cases[] = {
      // reaches the end of its parent: padded dims are not its dims
      {"nChw16c", dnnl_tag::nChw16c, {36, 40, 5, 7}, {20, 24, 2, 7}, {16, 16, 1, 0}},
      // less than one block, inside the parent: padded dims are its dims
      {"nChw16c", dnnl_tag::nChw16c, {2, 40, 5, 7}, {1, 5, 5, 7}, {1, 16, 0, 0}},
      {"OIhw4i16o4i", dnnl_tag::OIhw4i16o4i, {50, 40, 3, 3}, {18, 8, 3, 1}, {32, 32, 0, 2}},
      {"nhwc", dnnl_tag::nhwc, {4, 10, 6, 6}, {2, 3, 4, 5}, {1, 7, 2, 1}},
      {"abc", dnnl_tag::abc, {9, 8, 7}, {0, 8, 7}, {4, 0, 0}},
  };
  for (const view& c : cases) {
    INFO(c.tag << " " << show(c.parent) << " view " << show(c.sizes) << " at " << show(c.offsets));
    const desc ours = desc(c.parent, data_type::bf16, c.tag).submemory_desc(c.sizes, c.offsets);
    const dnnl_md theirs = dnnl_md(c.parent.to_vector(), dnnl::memory::data_type::bf16, c.onednn)
                               .submemory_desc(c.sizes.to_vector(), c.offsets.to_vector());
    REQUIRE(fields_of(theirs).offset0 == ours.get_submemory_offset());
    check_twins(ours, theirs);
  }
}

TEST_CASE("padded offsets cross both ways", "[interop][onednn]") {
  // no constructor of either library makes them; the bridge must carry them all the same
  memfmt::desc_fields f = desc(dims{2, 10, 3, 3}, data_type::f32, "nChw16c").fields();
  f.padded_offsets = dims{0, 3, 0, 0};
  const desc ours = desc::from_fields(f);
  const dnnl_md theirs = to_dnnl(ours);
  CHECK(fields_of(theirs).padded_offsets == std::vector<dim>{0, 3, 0, 0});
  CHECK(fields_of(theirs).padded == std::vector<dim>{2, 16, 3, 3});
  check_round_trips(ours, theirs);
}

TEST_CASE("format_kind::any and the zero descriptor", "[interop][onednn]") {
  for (const dims& d : {dims{2, 17, 5, 4}, dims{3}, dims{4, 0, 2}}) {
    INFO(show(d));
    check_twins(desc::any(d, data_type::s8), dnnl_md(d.to_vector(), dnnl::memory::data_type::s8, dnnl_tag::any));
  }
  CHECK(to_dnnl(desc()) == dnnl_md());
  CHECK(fields_of(to_dnnl(desc())).ndims == 0);
  const desc zero = from_dnnl(dnnl_md());
  CHECK(zero.is_zero());
  CHECK(zero.get_format_kind() == memfmt::format_kind::undef);
  CHECK(zero == desc());
}

TEST_CASE("data types", "[interop][onednn]") {
  using dnnl_dt = dnnl::memory::data_type;
  const std::pair<data_type, dnnl_dt> pairs[] = {{data_type::undef, dnnl_dt::undef}, {data_type::f16, dnnl_dt::f16},
                                                 {data_type::bf16, dnnl_dt::bf16},   {data_type::f32, dnnl_dt::f32},
                                                 {data_type::s32, dnnl_dt::s32},     {data_type::s8, dnnl_dt::s8},
                                                 {data_type::u8, dnnl_dt::u8}};
  for (const auto& [ours, theirs] : pairs) {
    CHECK(to_dnnl(ours) == theirs);
    CHECK(from_dnnl(theirs) == ours);
  }
#if MEMFMT_ONEDNN_V3
  for (const auto& [ours, theirs] : {std::pair{data_type::f8_e5m2, dnnl_dt::f8_e5m2}, std::pair{data_type::f8_e4m3, dnnl_dt::f8_e4m3},
                                     std::pair{data_type::f64, dnnl_dt::f64}}) {
    CHECK(to_dnnl(ours) == theirs);
    CHECK(from_dnnl(theirs) == ours);
    check_twins(desc(dims{2, 20, 3, 3}, ours, "nChw16c"), dnnl_md({2, 20, 3, 3}, theirs, dnnl_tag::nChw16c));
  }
  for (const auto& [ours, theirs] : {std::pair{data_type::s4, dnnl_dt::s4}, std::pair{data_type::u4, dnnl_dt::u4}}) {
    CHECK(to_dnnl(ours) == theirs);
    CHECK(from_dnnl(theirs) == ours);
    check_twins(desc(dims{2, 20, 3, 3}, ours, "nChw16c"), dnnl_md({2, 20, 3, 3}, theirs, dnnl_tag::nChw16c));
    check_twins(desc(dims{17, 34}, ours, "ab"), dnnl_md({17, 34}, theirs, dnnl_tag::ab));
  }
  CHECK_THROWS_WITH(from_dnnl(dnnl_dt::e8m0), Contains("e8m0") && Contains("no memfmt counterpart"));
  CHECK_THROWS_AS(from_dnnl(dnnl_md({2, 3}, dnnl_dt::e8m0, dnnl_tag::ab)), memfmt::error);
#else
  // oneDNN 2.x has no f8 and no f64: refused by name, in both the type and a descriptor
  CHECK_THROWS_WITH(to_dnnl(data_type::f8_e5m2), Contains("has no data type f8_e5m2"));
  CHECK_THROWS_WITH(to_dnnl(desc(dims{2, 3}, data_type::f8_e4m3, "ab")), Contains("has no data type f8_e4m3"));
  CHECK_THROWS_WITH(to_dnnl(data_type::f64), Contains("has no data type f64"));
  CHECK_THROWS_WITH(to_dnnl(desc(dims{2, 3}, data_type::f64, "ab")), Contains("has no data type f64"));
  CHECK_THROWS_WITH(to_dnnl(desc(dims{2, 4}, data_type::u4, "ab")), Contains("has no data type u4"));
#endif
}

namespace {

/// Weights with extra information, memfmt's and oneDNN's: oneDNN's size counts the
/// compensation (oneDNN 2.6 counts one buffer three times, docs/desc.md, and two buffers
/// its own way: not checked there).
void check_extra(const memfmt::extra_info& e) {
  const desc ours = desc(dims{32, 19, 3, 3}, data_type::s8, "OIhw4i16o4i").with_extra(e);
  INFO(ours.str());
  const dnnl_md theirs = to_dnnl(ours);
  using namespace memfmt::extra_flags;
  const bool both = (e.flags & compensation_conv_s8s8) != 0 && (e.flags & compensation_conv_asymmetric_src) != 0;
  if (MEMFMT_ONEDNN_V3 || !both)
    CHECK(theirs.get_size() == ours.get_data_size() + (MEMFMT_ONEDNN_V3 ? 1 : 3) * ours.get_compensation_size());
  // oneDNN sees compensation: it is not the plain descriptor of the same layout
  CHECK_FALSE(theirs == dnnl_md({32, 19, 3, 3}, dnnl::memory::data_type::s8, dnnl_tag::OIhw4i16o4i));
  check_round_trips(ours, theirs);
  CHECK(from_dnnl(theirs).get_extra() == e);
}

}  // namespace

TEST_CASE("compensation: the extra flags and masks cross both ways", "[interop][onednn]") {
  using namespace memfmt::extra_flags;
  check_extra({compensation_conv_s8s8, 1, 1.0f, 0});
  check_extra({compensation_conv_asymmetric_src, 0, 1.0f, 3});
  check_extra({compensation_conv_s8s8 | scale_adjust | compensation_conv_asymmetric_src, 3, 0.5f, 1});
}

TEST_CASE("masks and scale_adjust without their flag: dropped, and the round trip keeps the descriptor",
          "[interop][onednn]") {
  const desc plain(dims{4, 8}, data_type::s8, "ab");
  const desc d = plain.with_extra({memfmt::extra_flags::none, 1, 0.5f, 2});
  CHECK(d.get_extra() == memfmt::extra_info{});
  CHECK(d == plain);
  CHECK(from_dnnl(to_dnnl(d)) == d);
  CHECK(to_dnnl(d) == to_dnnl(plain));
  // with its flag, scale_adjust crosses
  const desc adjusted = plain.with_extra({memfmt::extra_flags::scale_adjust, 1, 0.5f, 2});
  CHECK(adjusted.get_extra() == memfmt::extra_info{memfmt::extra_flags::scale_adjust, 0, 0.5f, 0});
  CHECK(from_dnnl(to_dnnl(adjusted)) == adjusted);
  CHECK_FALSE(to_dnnl(adjusted) == to_dnnl(plain));
}

TEST_CASE("compensation that oneDNN puts on a convolution's s8 weights", "[interop][onednn]") {
  // an int8 convolution with s8 source asks for weights with s8s8 compensation per output
  // channel (oneDNN's x8s8s32x kernels)
  const auto pd = memfmt_test::onednn::int8_convolution(dims{64, 32, 3, 3}, 7, dnnl::memory::data_type::s8);
  const dnnl_md weights = pd.weights_desc();
  INFO("oneDNN's convolution: " << pd.impl_info_str());
  REQUIRE(isa_capped == dnnl::status::success);  // (else the CPU may not need the compensation)
  const desc ours = from_dnnl(weights);
  INFO(ours.str());
  REQUIRE((ours.get_extra().flags & memfmt::extra_flags::compensation_conv_s8s8) != 0);
  CHECK(ours.get_extra().compensation_mask == 1);  // per output channel, dim 0
  if ((ours.get_extra().flags & memfmt::extra_flags::scale_adjust) != 0) CHECK(ours.get_extra().scale_adjust == 0.5f);
  CHECK(ours.get_dims() == dims{64, 32, 3, 3});
  CHECK(weights.get_size() ==
        ours.get_data_size() + (MEMFMT_ONEDNN_V3 ? 1 : 3) * ours.get_compensation_size());
  CHECK(ours.get_compensation_size() == 64 * 4);
  check_round_trips(ours, weights);
}

#if MEMFMT_ONEDNN_V3
TEST_CASE("oneDNN 3.x: the blob layout is checked against the library the process runs with", "[interop][onednn]") {
  namespace o = memfmt::detail::onednn;
  INFO("oneDNN " << memfmt_onednn::version());
  CHECK(o::blob_layout_problem().empty());
  CHECK(o::blob_layout_known(3, 7));
  CHECK(o::blob_layout_known(3, 13));
  CHECK_FALSE(o::blob_layout_known(3, 6));
  CHECK_FALSE(o::blob_layout_known(3, 0));
  CHECK_FALSE(o::blob_layout_known(4, 0));
  const std::size_t size = dnnl_md({2, 3}, dnnl::memory::data_type::f32, dnnl_tag::ab).get_blob().size();
  CHECK(o::extra_probe(o::blob_extra_at(size)).empty());
  // the probe finds extra information written where oneDNN 3.0-3.6 keep it (their blob's
  // last 24 bytes; byte 616 in 3.0-3.3), and where there is no room for it
  CHECK_THAT(o::extra_probe(size - 24), Contains("s8s8 compensation per dim 0 written at byte"));
  CHECK_THAT(o::extra_probe(616), Contains("s8s8 compensation per dim 0 written at byte 616"));
  CHECK_THAT(o::extra_probe(size - 20), Contains("has no room"));
}
#endif

TEST_CASE("what memfmt cannot express is refused by name: the weights oneDNN packs for an LSTM",
          "[interop][onednn]") {
  // oneDNN's reference int8 LSTM for inference asks for its weights in oneDNN's own
  // packed format (its GEMM's): format_kind::rnn_packed in 2.x, format_kind::opaque in
  // 3.x (below AVX: isa_capped). Other implementations may come first: they are tried in
  // turn until one packs.
  using dt = dnnl::memory::data_type;
  const dnnl::memory::dim t = 3, n = 2, c = 16, gates = 4;
  const dnnl_md layer({t, n, c}, dt::u8, dnnl_tag::tnc), state({1, 1, n, c}, dt::u8, dnnl_tag::ldnc),
      cell({1, 1, n, c}, dt::f32, dnnl_tag::ldnc), weights({1, 1, c, gates, c}, dt::s8, dnnl_tag::any),
      bias({1, 1, gates, c}, dt::f32, dnnl_tag::ldgo);
  dnnl::primitive_attr attr;
  attr.set_rnn_data_qparams(64.f, 128.f);
  attr.set_rnn_weights_qparams(0, {63.f});
  const auto inference = dnnl::prop_kind::forward_inference;
  const auto direction = dnnl::rnn_direction::unidirectional_left2right;
  REQUIRE(isa_capped == dnnl::status::success);
#if MEMFMT_ONEDNN_V3
  dnnl::lstm_forward::primitive_desc pd(memfmt_onednn::cpu_engine(), inference, direction, layer, state, cell, weights,
                                        weights, bias, layer, state, cell, attr);
  const int packed = static_cast<int>(dnnl::memory::format_kind::opaque);
  const char* const packed_name = "format_kind::opaque";
#else
  dnnl::lstm_forward::primitive_desc pd(
      dnnl::lstm_forward::desc(inference, direction, layer, state, cell, weights, weights, bias, layer, state, cell),
      attr, memfmt_onednn::cpu_engine());
  const int packed = dnnl_format_kind_rnn_packed;
  const char* const packed_name = "format_kind::rnn_packed";
#endif
  while (fields_of(pd.weights_layer_desc()).kind != packed && pd.next_impl()) {
  }
  INFO("oneDNN's LSTM: " << pd.impl_info_str());
  for (const dnnl_md& md : {pd.weights_layer_desc(), pd.weights_iter_desc()}) {
    REQUIRE(fields_of(md).kind == packed);
    CHECK_THROWS_WITH(from_dnnl(md), Contains(std::string("from_dnnl: oneDNN's ") + packed_name + " (5-D) has no memfmt "
                                                           "counterpart"));
  }
}

TEST_CASE("what memfmt cannot express is refused by name", "[interop][onednn]") {
  using dt = dnnl::memory::data_type;
  // dims and strides known only at execution
  CHECK_THROWS_WITH(from_dnnl(dnnl_md({DNNL_RUNTIME_DIM_VAL, 3}, dt::f32, dnnl_tag::ab)),
                    Contains("dim 0 is DNNL_RUNTIME_DIM_VAL"));
  CHECK_THROWS_WITH(from_dnnl(dnnl_md({4, 3}, dt::f32, {DNNL_RUNTIME_DIM_VAL, 1})),
                    Contains("stride 0 is DNNL_RUNTIME_DIM_VAL"));
  // a negative stride, which oneDNN accepts on a unit dim
  CHECK_THROWS_WITH(from_dnnl(dnnl_md({1, 3}, dt::f32, {-1, 1})), Contains("stride 0 is negative"));
#if !MEMFMT_ONEDNN_V3
  // oneDNN 2.6's public descriptor, filled by hand: what no oneDNN API makes
  const auto by_hand = [](auto&& edit) {
    dnnl_memory_desc_t c = dnnl_md({2, 16, 3, 3}, dt::s8, dnnl_tag::nChw16c).data;
    edit(c);
    return dnnl_md(c);
  };
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.format_kind = dnnl_format_kind_wino; })),
                    Contains("format_kind::wino") && Contains("no memfmt counterpart"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.format_kind = dnnl_format_kind_rnn_packed; })),
                    Contains("format_kind::rnn_packed"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.format_kind = dnnl_format_kind_undef; })),
                    Contains("format_kind::undef"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.extra.flags = dnnl_memory_extra_flag_rnn_u8s8_compensation; })),
                    Contains("extra flags 0x4"));
  // strides that make elements share memory (oneDNN's constructors refuse them)
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.format_desc.blocking.strides[3] = 1; })),
                    Contains("from_dnnl") && Contains("strides overlap: dim 3"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.padded_dims[1] = 8; })),
                    Contains("dim 1: 16 elements at padded offset 0 do not fit in the padded dim 8"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.padded_dims[1] = 24; })),
                    Contains("dim 1: padded dim 24 is not a multiple of its block 16"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.format_desc.blocking.inner_idxs[0] = 5; })),
                    Contains("inner block 0 names dim 5"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) { c.data_type = dnnl_data_type_undef; })),
                    Contains("data type is undef"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) {
                      c.extra.flags = dnnl_memory_extra_flag_compensation_conv_s8s8;
                      c.extra.compensation_mask = 1 << 6;
                    })),
                    Contains("compensation mask names a dim beyond the 4 dims"));
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) {
                      c.extra.flags = dnnl_memory_extra_flag_compensation_conv_asymmetric_src;
                      c.extra.asymm_compensation_mask = 1 << 6;
                    })),
                    Contains("compensation mask names a dim beyond the 4 dims"));
  // masks and scale_adjust without their flag mean nothing to oneDNN: they are dropped
  const dnnl_md leftovers = by_hand([](dnnl_memory_desc_t& c) {
    c.extra.compensation_mask = 1 << 6;
    c.extra.asymm_compensation_mask = 3;
    c.extra.scale_adjust = 0.25f;
  });
  CHECK(from_dnnl(leftovers).get_extra() == memfmt::extra_info{});
  CHECK(from_dnnl(leftovers) == desc(dims{2, 16, 3, 3}, data_type::s8, "nChw16c"));
  CHECK(to_dnnl(from_dnnl(leftovers)) == leftovers);
  CHECK_THROWS_WITH(from_dnnl(by_hand([](dnnl_memory_desc_t& c) {
                      c.format_kind = dnnl_format_kind_any;
                      c.offset0 = 5;
                    })),
                    Contains("format_kind::any descriptor with padding, offsets"));
#endif
}

#else
int main() { return 77; }  // oneDNN not available: skipped
#endif
