// memfmt/interop/dlpack.hpp against DLPack's dlpack.h: to_dlpack shows every element of a
// plain, strided, viewed or blocked memory where DLPack's shape and strides say (read back
// through the DLTensor alone, with values that include NaN, infinities and -0), the
// deleters free what they must exactly once (the asan configuration watches them), import
// gives the descriptor of every strided tensor and refuses by name what memfmt cannot hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "memfmt/desc/print.hpp"
#include "memfmt/interop/dlpack.hpp"

#include "dlpack_pattern.hpp"

namespace {

using memfmt_test::dlpack::bits_at;
using memfmt_test::dlpack::fill;
using memfmt_test::dlpack::pattern;

using Catch::Matchers::Contains;
using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;
using memfmt::dlpack_dims;
using memfmt::memory;

constexpr data_type all_types[] = {data_type::f32, data_type::f16, data_type::bf16, data_type::s32,
                                   data_type::s8,  data_type::u8,  data_type::f64};

/// Calls f(index) for every index of `shape`, row-major.
template <class F>
void for_each_index(const dims& shape, F&& f) {
  for (dim v : shape)
    if (v == 0) return;
  dims index = dims::filled(shape.size(), 0);
  for (;;) {
    f(index);
    int j = shape.size() - 1;
    for (; j >= 0; --j) {
      if (++index[j] < shape[j]) break;
      index[j] = 0;
    }
    if (j < 0) return;
  }
}

/// The element of `t` at `index`, read as DLPack says (data + byte_offset, strides in
/// elements or compact row-major), as bits.
std::uint64_t bits_at(const DLTensor& t, const dims& index) {
  REQUIRE(index.size() == t.ndim);
  std::int64_t offset = 0, row_major = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    REQUIRE(index[d] >= 0);
    REQUIRE(index[d] < t.shape[d]);
    offset += index[d] * (t.strides != nullptr ? t.strides[d] : row_major);
    row_major *= t.shape[d];
  }
  REQUIRE(t.dtype.lanes == 1);
  const auto* at = static_cast<const unsigned char*>(t.data) + t.byte_offset + offset * (t.dtype.bits / 8);
  std::uint64_t b = 0;
  std::memcpy(&b, at, t.dtype.bits / 8);
  return b;
}

dims shape_of(const DLTensor& t) { return std::vector<dim>(t.shape, t.shape + t.ndim); }
dims strides_of(const DLTensor& t) { return std::vector<dim>(t.strides, t.strides + t.ndim); }

/// Calls the deleter of a DLManagedTensor when it goes out of scope.
struct managed_ptr {
  DLManagedTensor* t;
  explicit managed_ptr(DLManagedTensor* p) : t(p) { REQUIRE(t != nullptr); }
  managed_ptr(const managed_ptr&) = delete;
  managed_ptr& operator=(const managed_ptr&) = delete;
  ~managed_ptr() {
    if (t != nullptr) t->deleter(t);
  }
  const DLTensor& operator*() const { return t->dl_tensor; }
  const DLTensor* operator->() const { return &t->dl_tensor; }
};

/// Exports `m` and checks that every logical element is where the DLTensor says, with
/// `to_exported` mapping a logical index of `m` to one of the tensor; then imports the
/// tensor back and checks the imported memory's elements too.
template <class Map>
void check_export(const memory& m, dlpack_dims how, Map to_exported) {
  const long live = memfmt::dlpack_live_exports();
  {
    const managed_ptr t(memfmt::to_dlpack(m, how));
    CHECK(memfmt::dlpack_live_exports() == live + 1);
    CHECK(t->device.device_type == kDLCPU);
    CHECK(t->device.device_id == 0);
    CHECK(t->byte_offset == 0);
    CHECK(t->dtype.code == memfmt::to_dlpack(m.get_desc().get_data_type()).code);
    REQUIRE(t->strides != nullptr);
    const memory back = memfmt::from_dlpack(*t);
    CHECK(back.get_data_handle() == t->data);
    CHECK(back.get_desc().get_dims() == shape_of(*t));
    CHECK(back.get_desc().get_strides() == strides_of(*t));
    std::int64_t count = 0;
    for_each_index(m.get_desc().get_dims(), [&](const dims& index) {
      const dims there = to_exported(index);
      const std::uint64_t want = bits_at(m, index);
      if (bits_at(*t, there) != want || bits_at(back, there) != want) {
        FAIL_CHECK("element " << memfmt::detail::to_text(index) << " of " << m.get_desc().str() << " is not at "
                              << memfmt::detail::to_text(there));
      }
      ++count;
    });
    CHECK(count > 0);
  }
  CHECK(memfmt::dlpack_live_exports() == live);
}

const auto same_index = [](const dims& index) { return index; };

TEST_CASE("data types cross both ways", "[dlpack]") {
  CHECK(memfmt::to_dlpack(data_type::f32).code == kDLFloat);
  CHECK(memfmt::to_dlpack(data_type::f32).bits == 32);
  CHECK(memfmt::to_dlpack(data_type::f16).code == kDLFloat);
  CHECK(memfmt::to_dlpack(data_type::f16).bits == 16);
  CHECK(memfmt::to_dlpack(data_type::bf16).code == kDLBfloat);
  CHECK(memfmt::to_dlpack(data_type::bf16).bits == 16);
  CHECK(memfmt::to_dlpack(data_type::s32).code == kDLInt);
  CHECK(memfmt::to_dlpack(data_type::s8).code == kDLInt);
  CHECK(memfmt::to_dlpack(data_type::s8).bits == 8);
  CHECK(memfmt::to_dlpack(data_type::u8).code == kDLUInt);
  CHECK(memfmt::to_dlpack(data_type::f64).code == kDLFloat);
  CHECK(memfmt::to_dlpack(data_type::f64).bits == 64);
  CHECK(memfmt::from_dlpack(DLDataType{kDLFloat, 64, 1}) == data_type::f64);
  for (data_type dt : all_types) {
    const DLDataType t = memfmt::to_dlpack(dt);
    CHECK(t.lanes == 1);
    CHECK(t.bits == memfmt::data_type_size(dt) * 8);
    CHECK(memfmt::from_dlpack(t) == dt);
  }
  CHECK_THROWS_WITH(memfmt::to_dlpack(data_type::undef), Contains("undef"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(data_type::f8_e4m3), Contains("f8_e4m3 has no DLPack counterpart"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(memory(desc({2, 4}, data_type::s4, "ab"))), Contains("s4 has no DLPack counterpart"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(memory(desc({2, 3}, data_type::f8_e5m2, "ab"))),
                    Contains("f8_e5m2 has no DLPack counterpart"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLFloat, 8, 1}),
                    Contains("float8 (code 2, 8 bits, 1 lane) has no memfmt counterpart"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLFloat, 64, 2}), Contains("float64x2") && Contains("has 2 lanes"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLInt, 16, 1}), Contains("int16"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLUInt, 32, 1}), Contains("uint32"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLBfloat, 32, 1}), Contains("bfloat32"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLComplex, 64, 1}), Contains("complex64"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLOpaqueHandle, 64, 1}), Contains("opaque handle 64"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{9, 8, 1}), Contains("type code 9 8"));
  CHECK_THROWS_WITH(memfmt::from_dlpack(DLDataType{kDLFloat, 32, 4}),
                    Contains("float32x4 (code 2, 32 bits, 4 lanes) has 4 lanes"));
}

TEST_CASE("plain tensors cross as they are, every type and order", "[dlpack]") {
  for (data_type dt : all_types)
    for (const char* tag : {"nchw", "nhwc", "chwn", "abdc", "abcd", "dcba"}) {
      CAPTURE(memfmt::to_string(dt), tag);
      const memory m(desc({2, 3, 5, 4}, dt, tag));
      fill(m);
      check_export(m, dlpack_dims::unfold, same_index);
      check_export(m, dlpack_dims::logical, same_index);
      const managed_ptr t(memfmt::to_dlpack(m));
      CHECK(t->ndim == 4);
      CHECK(shape_of(*t) == dims{2, 3, 5, 4});
      CHECK(strides_of(*t) == m.get_desc().get_strides());
      CHECK(t->data == m.get_data_handle());
    }
  // 1-D to 12-D
  for (int n = 1; n <= memfmt::max_ndims; ++n) {
    CAPTURE(n);
    dims shape;
    for (int i = 0; i < n; ++i) shape.push_back(i % 3 == 0 ? 2 : 1);
    const memory m(desc(shape, data_type::f32, dims{}));
    fill(m);
    check_export(m, dlpack_dims::unfold, same_index);
  }
}

TEST_CASE("strided tensors and views cross with their strides and first element", "[dlpack]") {
  for (data_type dt : all_types) {
    CAPTURE(memfmt::to_string(dt));
    // gaps between rows, a broadcast dim (stride 0) and a transposed order
    const memory gaps(desc({3, 4, 5}, dt, dims{64, 1, 8}));
    fill(gaps);
    check_export(gaps, dlpack_dims::unfold, same_index);
    const memory broadcast(desc({3, 4, 5}, dt, dims{5, 0, 1}));
    fill(broadcast);
    check_export(broadcast, dlpack_dims::logical, same_index);

    // a view: the data pointer is the view's first element, byte_offset stays 0
    const memory parent(desc({2, 6, 5, 4}, dt, "nchw"));
    fill(parent);
    const desc vd = parent.get_desc().submemory_desc({1, 3, 2, 4}, {1, 2, 3, 0});
    const memory view(vd, parent.get_data_handle());
    const managed_ptr t(memfmt::to_dlpack(view));
    CHECK(static_cast<char*>(t->data) - static_cast<char*>(parent.get_data_handle()) ==
          vd.get_submemory_offset() * static_cast<dim>(memfmt::data_type_size(dt)));
    CHECK(t->byte_offset == 0);
    CHECK(shape_of(*t) == dims{1, 3, 2, 4});
    CHECK(strides_of(*t) == dims{120, 20, 4, 1});
    check_export(view, dlpack_dims::unfold, same_index);
    for_each_index(vd.get_dims(), [&](const dims& i) {
      CHECK(bits_at(*t, i) == bits_at(parent, dims{i[0] + 1, i[1] + 2, i[2] + 3, i[3]}));
    });
  }
  // padding without inner blocks (a oneDNN descriptor) stays out of sight
  memfmt::desc_fields f = desc({3, 5}, data_type::f32, "ab").fields();
  f.padded = {4, 8};
  f.strides = {8, 1};
  const memory padded(desc::from_fields(f));
  fill(padded);
  check_export(padded, dlpack_dims::unfold, same_index);
  const managed_ptr t(memfmt::to_dlpack(padded));
  CHECK(shape_of(*t) == dims{3, 5});
  CHECK(strides_of(*t) == dims{8, 1});
}

TEST_CASE("blocked tensors cross unfolded, padding included", "[dlpack]") {
  for (data_type dt : all_types) {
    CAPTURE(memfmt::to_string(dt));
    // the example of docs/interop.md
    const memory m(desc({2, 17, 5, 4}, dt, "nChw16c"));
    fill(m);
    {
      const managed_ptr t(memfmt::to_dlpack(m));
      CHECK(shape_of(*t) == dims{2, 2, 5, 4, 16});
      CHECK(strides_of(*t) == dims{640, 320, 64, 16, 1});
      CHECK(t->data == m.get_data_handle());
      // the padding (channels 17..31) crosses too: zeros, as memory wrote them
      for_each_index(dims{2, 1, 5, 4, 15}, [&](const dims& i) {
        CHECK(bits_at(*t, dims{i[0], 1, i[2], i[3], i[4] + 1}) == 0);
      });
    }
    check_export(m, dlpack_dims::unfold, [](const dims& i) { return dims{i[0], i[1] / 16, i[2], i[3], i[1] % 16}; });

    // two blocks on one dim
    const memory w(desc({20, 9, 3, 2}, dt, "OIhw4i16o4i"));
    fill(w);
    {
      const managed_ptr t(memfmt::to_dlpack(w));
      CHECK(shape_of(*t) == dims{2, 1, 3, 2, 4, 16, 4});
      CHECK(strides_of(*t) == dims{1536, 1536, 512, 256, 64, 4, 1});
    }
    check_export(w, dlpack_dims::unfold, [](const dims& i) {
      return dims{i[0] / 16, i[1] / 16, i[2], i[3], i[1] / 4 % 4, i[0] % 16, i[1] % 4};
    });

    // a view of a blocked tensor: whole blocks at an offset
    const memory parent(desc({2, 48, 3, 3}, dt, "nChw16c"));
    fill(parent);
    const desc vd = parent.get_desc().submemory_desc({2, 16, 3, 2}, {0, 16, 0, 1});
    const memory view(vd, parent.get_data_handle());
    check_export(view, dlpack_dims::unfold, [](const dims& i) { return dims{i[0], 0, i[2], i[3], i[1]}; });
    const managed_ptr t(memfmt::to_dlpack(view));
    CHECK(static_cast<char*>(t->data) - static_cast<char*>(parent.get_data_handle()) ==
          vd.get_submemory_offset() * static_cast<dim>(memfmt::data_type_size(dt)));
  }
}

TEST_CASE("blocked tensors cross with logical dims when strides can say it", "[dlpack]") {
  // one block holds the whole dim: nChw16c with 16 channels is nhwc
  const memory m(desc({2, 16, 5, 4}, data_type::f32, "nChw16c"));
  fill(m);
  check_export(m, dlpack_dims::logical, same_index);
  {
    const managed_ptr t(memfmt::to_dlpack(m, dlpack_dims::logical));
    CHECK(shape_of(*t) == dims{2, 16, 5, 4});
    CHECK(strides_of(*t) == dims{320, 1, 64, 16});
    CHECK(memfmt::same_bytes(desc({2, 16, 5, 4}, data_type::f32, strides_of(*t)), m.get_desc()));
  }
  // fewer channels than a block, two blocks on one dim, a unit dim blocked
  for (const auto& [shape, tag] : {std::pair<dims, const char*>{{2, 5, 3, 3}, "nChw16c"},
                                   {{16, 4, 3, 3}, "OIhw4i16o4i"},
                                   {{1, 16, 2, 2}, "NChw16n16c"}}) {
    CAPTURE(tag);
    const memory b(desc(shape, data_type::s8, tag));
    fill(b);
    check_export(b, dlpack_dims::logical, same_index);
    const managed_ptr t(memfmt::to_dlpack(b, dlpack_dims::logical));
    CHECK(memfmt::same_bytes(desc(shape, data_type::s8, strides_of(*t)), b.get_desc()));
  }
  // a view whose blocked dim has one block left
  const memory parent(desc({2, 32, 3, 3}, data_type::u8, "nChw16c"));
  fill(parent);
  const memory view(parent.get_desc().submemory_desc({2, 16, 3, 3}, {0, 16, 0, 0}), parent.get_data_handle());
  check_export(view, dlpack_dims::logical, same_index);

  // more than one block: refused by name, and nothing leaks
  const long live = memfmt::dlpack_live_exports();
  const memory c17(desc({2, 17, 5, 4}, data_type::f32, "nChw16c"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(c17, dlpack_dims::logical),
                    Contains("to_dlpack: dim 1 of f32:p:blocked:aBcd16b") && Contains("is blocked by 16") &&
                        Contains("its 17 indices span more than one block") && Contains("dlpack_dims::unfold"));
  const memory w(desc({16, 8, 3, 3}, data_type::s8, "OIhw4i16o4i"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(w, dlpack_dims::logical), Contains("dim 1 of") && Contains("blocked by 16"));
  const memory o(desc({32, 4, 3, 3}, data_type::s8, "OIhw4i16o4i"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(o, dlpack_dims::logical), Contains("dim 0 of") && Contains("blocked by 16"));
  CHECK(memfmt::dlpack_live_exports() == live);
}

TEST_CASE("what cannot cross is refused by name", "[dlpack]") {
  const long live = memfmt::dlpack_live_exports();
  // compensation buffers
  const desc comp = desc({16, 16, 3, 3}, data_type::s8, "OIhw16i16o")
                        .with_extra({memfmt::extra_flags::compensation_conv_s8s8, 1, 1.f, 0});
  const memory mc(comp);
  CHECK_THROWS_WITH(memfmt::to_dlpack(mc), Contains("carries extra information (flags 1"));
  CHECK_THROWS_WITH(memfmt::to_dlpack(mc, dlpack_dims::logical), Contains("extra information"));
  // a padded dim that is less than its block (a oneDNN view inside one block): no unfolded form
  memfmt::desc_fields f = desc({2, 16, 3, 3}, data_type::f32, "nChw16c").fields();
  f.logical = {2, 4, 3, 3};
  f.padded = {2, 8, 3, 3};
  const memory inside(desc::from_fields(f));
  CHECK_THROWS_WITH(memfmt::to_dlpack(inside), Contains("to_dlpack: dim 1: padded extent 8 is not a multiple of its block 16"));
  // a view that starts inside a block (oneDNN's padded offsets)
  f = desc({2, 32, 3, 3}, data_type::f32, "nChw16c").fields();
  f.logical = {2, 8, 3, 3};
  f.padded_offsets = {0, 4, 0, 0};
  std::vector<float> parent(desc::from_fields(f).get_size() / 4);
  const memory offset_view(desc::from_fields(f), parent.data());
  CHECK_THROWS_WITH(memfmt::to_dlpack(offset_view, dlpack_dims::logical), Contains("the view starts inside a block"));
  // (unfolded, it is the whole padded tensor it lies in)
  {
    const managed_ptr t(memfmt::to_dlpack(offset_view));
    CHECK(shape_of(*t) == dims{2, 2, 3, 3, 16});
  }
  // a moved memory that cannot cross stays with the caller
  memory moved(comp);
  void* const handle = moved.get_data_handle();
  CHECK_THROWS_AS(memfmt::to_dlpack(std::move(moved)), memfmt::error);
  CHECK(moved.get_data_handle() == handle);
  CHECK_THROWS_WITH(memfmt::to_dlpack(std::shared_ptr<const memory>()), Contains("null memory"));
  // a view's memory without a buffer (a view's size is 0: memory allocates nothing)
  const memory no_buffer(desc({4, 4}, data_type::f32, "ab").submemory_desc({2, 2}, {2, 2}));
  CHECK_THROWS_WITH(memfmt::to_dlpack(no_buffer), Contains("has elements but a null data handle"));
  CHECK(memfmt::dlpack_live_exports() == live);
}

TEST_CASE("ownership: borrowed, moved and shared memories", "[dlpack]") {
  const long live = memfmt::dlpack_live_exports();
  const desc d({2, 17, 3, 3}, data_type::f32, "nChw8c");
  SECTION("borrowed: the memory object may go, its buffer stays the caller's") {
    std::vector<float> buffer(d.get_size() / 4);
    DLManagedTensor* t = nullptr;
    {
      const memory m(d, buffer.data());
      fill(m);
      t = memfmt::to_dlpack(m);
    }
    CHECK(t->dl_tensor.data == buffer.data());
    CHECK(memfmt::dlpack_live_exports() == live + 1);
    CHECK(bits_at(t->dl_tensor, dims{1, 2, 2, 2, 0}) == pattern(data_type::f32, 1 * 153 + 16 * 9 + 2 * 3 + 2));
    t->deleter(t);
  }
  SECTION("moved: an owned buffer lives until the deleter") {
    memory m(d);
    fill(m);
    void* const data = m.get_data_handle();
    DLManagedTensor* t = memfmt::to_dlpack(std::move(m));
    m = memory(desc({1}, data_type::u8, "a"));  // (the moved-from object is reused)
    CHECK(t->dl_tensor.data == data);
    CHECK(memfmt::dlpack_live_exports() == live + 1);
    for_each_index(d.get_dims(), [&](const dims& i) {
      std::int64_t n = 0;
      for (int k = 0; k < 4; ++k) n = n * d.get_dims()[k] + i[k];
      CHECK(bits_at(t->dl_tensor, dims{i[0], i[1] / 8, i[2], i[3], i[1] % 8}) == pattern(data_type::f32, n));
    });
    t->deleter(t);  // frees the buffer (AddressSanitizer: once, and nothing leaks)
  }
  SECTION("moved: a borrowed handle stays the caller's") {
    std::vector<std::uint8_t> buffer(12);
    DLManagedTensor* t = memfmt::to_dlpack(memory(desc({3, 4}, data_type::u8, "ab"), buffer.data()));
    CHECK(t->dl_tensor.data == buffer.data());
    t->deleter(t);
  }
  SECTION("shared: kept alive until the deleter") {
    auto m = std::make_shared<memory>(d);
    fill(*m);
    DLManagedTensor* t = memfmt::to_dlpack(m);
    CHECK(m.use_count() == 2);
    const std::weak_ptr<memory> watch = m;
    m.reset();
    CHECK(!watch.expired());
    CHECK(bits_at(t->dl_tensor, dims{0, 0, 0, 0, 3}) == pattern(data_type::f32, 3 * 9));
    t->deleter(t);
    CHECK(watch.expired());
  }
  SECTION("tensors without elements") {
    const memory empty(desc({2, 0, 3}, data_type::s32, "abc"));
    const managed_ptr t(memfmt::to_dlpack(empty));
    CHECK(shape_of(*t) == dims{2, 0, 3});
    const memory back = memfmt::from_dlpack(*t);
    CHECK(back.get_desc().get_dims() == dims{2, 0, 3});
    const memory blocked_empty(desc({2, 0, 3, 3}, data_type::s32, "nChw16c"));
    const managed_ptr u(memfmt::to_dlpack(blocked_empty));
    CHECK(shape_of(*u) == dims{2, 0, 3, 3, 16});
  }
  CHECK(memfmt::dlpack_live_exports() == live);
}

/// A DLTensor over `data` (f32 by default) for the import tests.
struct tensor_spec {
  std::vector<std::int64_t> shape, strides;
  DLTensor make(void* data, DLDataType dt = DLDataType{kDLFloat, 32, 1}) {
    DLTensor t{};
    t.data = data;
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dt;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = 0;
    return t;
  }
};

TEST_CASE("import: strided tensors as descriptors and handles", "[dlpack]") {
  std::vector<float> data(256);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  const auto value = [](const memory& m, const dims& i) { return m.at<float>(i); };

  SECTION("null strides: compact row-major") {
    tensor_spec s{{2, 3, 4}, {}};
    const memory m = memfmt::from_dlpack(s.make(data.data()));
    CHECK(m.get_desc() == desc({2, 3, 4}, data_type::f32, "abc"));
    CHECK(m.get_data_handle() == data.data());
    CHECK(value(m, {1, 2, 3}) == 23);
  }
  SECTION("strides in elements, transposed, with gaps") {
    tensor_spec s{{4, 3}, {1, 8}};
    const memory m = memfmt::from_dlpack(s.make(data.data()));
    CHECK(m.get_desc().get_strides() == dims{1, 8});
    CHECK(m.get_desc().tag_str() == "ba");
    CHECK(value(m, {3, 2}) == 19);
  }
  SECTION("byte_offset: the submemory offset, in elements") {
    tensor_spec s{{2, 2}, {10, 1}};
    DLTensor t = s.make(data.data());
    t.byte_offset = 12;
    const desc d = memfmt::from_dlpack_desc(t);
    CHECK(d.get_submemory_offset() == 3);
    const memory m = memfmt::from_dlpack(t);
    CHECK(m.get_data_handle() == data.data());
    CHECK(value(m, {0, 0}) == 3);
    CHECK(value(m, {1, 1}) == 14);
  }
  SECTION("broadcast and negative strides where they never take effect") {
    tensor_spec s{{3, 1, 4}, {0, -5, 1}};
    const memory m = memfmt::from_dlpack(s.make(data.data()));
    CHECK(m.get_desc().get_strides() == dims{0, 4, 1});
    CHECK(value(m, {2, 0, 3}) == 3);
    tensor_spec e{{3, 0, 4}, {-4, -4, -1}};
    CHECK(memfmt::from_dlpack(e.make(nullptr)).get_desc().get_dims() == dims{3, 0, 4});
  }
  SECTION("every data type; pinned host memory") {
    for (data_type dt : all_types) {
      tensor_spec s{{4, 4}, {}};
      DLTensor t = s.make(data.data(), memfmt::to_dlpack(dt));
      CHECK(memfmt::from_dlpack_desc(t).get_data_type() == dt);
    }
    tensor_spec s{{4}, {}};
    DLTensor t = s.make(data.data());
    t.device = DLDevice{kDLCUDAHost, 0};
    CHECK(memfmt::from_dlpack(t).get_desc().get_dims() == dims{4});
    t.device = DLDevice{kDLROCMHost, 0};
    CHECK(memfmt::from_dlpack(t).get_desc().get_dims() == dims{4});
  }
  SECTION("an unfolded export folds back into its blocked descriptor") {
    const memory m(desc({2, 17, 3, 3}, data_type::f32, "nChw16c"));
    fill(m);
    const managed_ptr t(memfmt::to_dlpack(m));
    const desc folded = memfmt::fold(memfmt::from_dlpack_desc(*t), m.get_desc());
    CHECK(folded == m.get_desc());
  }
}

TEST_CASE("import: what memfmt cannot hold is refused by name", "[dlpack]") {
  alignas(64) static float data[256] = {};
  tensor_spec s{{2, 3}, {}};
  const auto refused = [&](const DLTensor& t) -> std::string {
    try {
      memfmt::from_dlpack(t);
    } catch (const memfmt::error& e) {
      return e.what();
    }
    return "(accepted)";
  };
  DLTensor t = s.make(data);
  t.device = DLDevice{kDLCUDA, 1};
  CHECK_THAT(refused(t), Contains("from_dlpack: the tensor is on kDLCUDA (2), device 1") && Contains("copy it to the CPU"));
  t.device = DLDevice{kDLCUDAManaged, 0};
  CHECK_THAT(refused(t), Contains("kDLCUDAManaged (13)"));
  t.device = DLDevice{kDLOpenCL, 0};
  CHECK_THAT(refused(t), Contains("kDLOpenCL (4)"));
  const int later_device = 99;  // (a device of a later DLPack: no value of 0.6's C++ enum)
  std::memcpy(&t.device.device_type, &later_device, sizeof later_device);
  CHECK_THAT(refused(t), Contains("device type (99)"));

  CHECK_THAT(refused(s.make(data, DLDataType{kDLFloat, 32, 2})), Contains("has 2 lanes"));
  CHECK_THAT(refused(s.make(data, DLDataType{kDLInt, 64, 1})), Contains("int64") && Contains("no memfmt counterpart"));
  CHECK_THAT(refused(s.make(data, DLDataType{kDLUInt, 16, 1})), Contains("uint16"));

  tensor_spec scalar{{}, {}};
  CHECK_THAT(refused(scalar.make(data)), Contains("the tensor has 0 dims; memfmt's descriptors have 1 to 12"));
  tensor_spec many{std::vector<std::int64_t>(13, 1), {}};
  CHECK_THAT(refused(many.make(data)), Contains("the tensor has 13 dims"));
  t = s.make(data);
  t.shape = nullptr;
  CHECK_THAT(refused(t), Contains("null shape"));
  tensor_spec negative{{2, -3}, {}};
  CHECK_THAT(refused(negative.make(data)), Contains("dim 1 has a negative extent (-3)"));
  tensor_spec reversed{{2, 3}, {3, -1}};
  CHECK_THAT(refused(reversed.make(data + 2)), Contains("dim 1 has a negative stride (-1, extent 3)"));
  tensor_spec overlap{{2, 3}, {2, 1}};
  CHECK_THAT(refused(overlap.make(data)), Contains("from_dlpack: desc: strides overlap: dim 0"));

  t = s.make(data);
  t.byte_offset = 6;
  CHECK_THAT(refused(t), Contains("byte_offset 6 is not a whole number of f32 elements (4 bytes)"));
  t = s.make(data, DLDataType{kDLUInt, 8, 1});
  t.byte_offset = ~std::uint64_t{0};
  CHECK_THAT(refused(t), Contains("byte_offset 18446744073709551615 is past 2^63 elements"));
  t = s.make(data);
  t.byte_offset = (std::uint64_t{1} << 63) - 4;
  CHECK_THAT(refused(t), Contains("from_dlpack: desc fields"));
  t = s.make(reinterpret_cast<char*>(data) + 2);
  CHECK_THAT(refused(t), Contains("is not aligned to its 4-byte f32 type"));
  t = s.make(reinterpret_cast<char*>(data) + 2, DLDataType{kDLUInt, 8, 1});
  CHECK_THAT(refused(t), Contains("(accepted)"));
  t = s.make(nullptr);
  CHECK_THAT(refused(t), Contains("null data for a tensor with elements"));
}

/// A producer's DLManagedTensor over its own buffer, counting its deleter's calls.
struct producer {
  static inline int deleted = 0;
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape;
  std::vector<float> buffer;
  static DLManagedTensor* make(std::vector<std::int64_t> shape, DLDevice device = DLDevice{kDLCPU, 0}) {
    auto* p = new producer;
    p->shape = std::move(shape);
    p->buffer.assign(64, 1.5f);
    p->managed.dl_tensor = tensor_spec{p->shape, {}}.make(p->buffer.data());
    p->managed.dl_tensor.shape = p->shape.data();
    p->managed.dl_tensor.device = device;
    p->managed.manager_ctx = p;
    p->managed.deleter = [](DLManagedTensor* self) {
      ++deleted;
      delete static_cast<producer*>(self->manager_ctx);
    };
    return &p->managed;
  }
};

TEST_CASE("dlpack_memory calls the producer's deleter exactly once", "[dlpack]") {
  producer::deleted = 0;
  {
    memfmt::dlpack_memory a(producer::make({4, 4}));
    CHECK(a.get_desc() == desc({4, 4}, data_type::f32, "ab"));
    CHECK(a.get().at<float>({3, 3}) == 1.5f);
    CHECK(a.get_managed().dl_tensor.data == a.get_data_handle());
    memfmt::dlpack_memory b = std::move(a);  // (moves the tensor along)
    CHECK(b.get().at<float>({0, 1}) == 1.5f);
    CHECK(producer::deleted == 0);
  }
  CHECK(producer::deleted == 1);
  // a refused import has taken the tensor: the deleter runs at once
  CHECK_THROWS_WITH(memfmt::dlpack_memory(producer::make({2, 2}, DLDevice{kDLCUDA, 0})), Contains("kDLCUDA"));
  CHECK(producer::deleted == 2);
  CHECK_THROWS_WITH(memfmt::dlpack_memory(nullptr), Contains("null DLManagedTensor"));
  CHECK(producer::deleted == 2);
  // a tensor without a deleter (DLPack allows it) is left alone
  DLManagedTensor* p = producer::make({2});
  auto* keep = p->deleter;
  p->deleter = nullptr;
  { memfmt::dlpack_memory c(p); }
  CHECK(producer::deleted == 2);
  keep(p);
  // memfmt's own export, imported as a managed tensor: its deleter runs once
  const long live = memfmt::dlpack_live_exports();
  {
    const memory m(desc({3, 5}, data_type::bf16, "ba"));
    fill(m);
    const memfmt::dlpack_memory back(memfmt::to_dlpack(m));
    CHECK(memfmt::same_bytes(back.get_desc(), m.get_desc()));
    for_each_index(m.get_desc().get_dims(), [&](const dims& i) { CHECK(bits_at(back.get(), i) == bits_at(m, i)); });
    CHECK(memfmt::dlpack_live_exports() == live + 1);
  }
  CHECK(memfmt::dlpack_live_exports() == live);
}

}  // namespace
