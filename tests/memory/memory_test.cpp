// memfmt::memory: owning and borrowed handles, zeros in the padding and nowhere else,
// the typed accessor, and errors.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include <memfmt/desc/fields.hpp>
#include <memfmt/memfmt.hpp>

using memfmt::data_type;
using memfmt::desc;
using memfmt::dims;

namespace {

// Every logical index of `d`, row-major.
template <class F>
void for_each_index(const dims& extents, F&& f) {
  const int n = extents.size();
  for (memfmt::dim e : extents)
    if (e == 0) return;
  dims index = dims::filled(n, 0);
  for (;;) {
    f(index);
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++index[k] < extents[k]) break;
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

// The element offsets a tensor's logical elements occupy.
std::set<memfmt::dim> used_offsets(const desc& d) {
  std::set<memfmt::dim> used;
  for_each_index(d.get_dims(), [&](const dims& i) { used.insert(d.offset(i)); });
  return used;
}

const char* const padded_tags[] = {"nChw16c", "nChw8c", "NChw16n16c", "OIhw4i16o4i", "OIhw16i16o", "ABcd8b16a2b", "Acdb32a",
                                   "nchw", "nhwc", "aBCd2b4c2b"};

}  // namespace

TEST_CASE("attaching a handle zeroes exactly the padding", "[memory]") {
  for (const char* tag : padded_tags) {
    for (data_type dt : {data_type::f32, data_type::bf16, data_type::s8}) {
      const desc d({3, 17, 2, 3}, dt, tag);
      const std::size_t esize = memfmt::data_type_size(dt);
      std::vector<unsigned char> buffer(d.get_size(), 0xAB);
      memfmt::memory m(d, buffer.data());
      const std::set<memfmt::dim> used = used_offsets(d);
      for (std::size_t byte = 0; byte < buffer.size(); ++byte) {
        const auto element = static_cast<memfmt::dim>(byte / esize);
        INFO(tag << " " << memfmt::to_string(dt) << " byte " << byte);
        if (used.count(element) != 0)
          REQUIRE(buffer[byte] == 0xAB);  // data is left alone
        else
          REQUIRE(buffer[byte] == 0);  // padding is zero
      }
    }
  }
}

TEST_CASE("owning memory is aligned, sized and zero-padded", "[memory]") {
  const desc d({2, 17, 5, 4}, data_type::f32, memfmt::tags::nChw16c);
  memfmt::memory m(d);
  REQUIRE(m.get_data_handle() != nullptr);
  REQUIRE(reinterpret_cast<std::uintptr_t>(m.get_data_handle()) % 64 == 0);
  REQUIRE(m.get_desc() == d);
  const auto* data = static_cast<const float*>(m.get_data_handle());
  const std::set<memfmt::dim> used = used_offsets(d);
  for (memfmt::dim k = 0; k < static_cast<memfmt::dim>(d.get_size() / 4); ++k)
    if (used.count(k) == 0) REQUIRE(data[k] == 0.f);
}

TEST_CASE("the typed accessor reads and writes the element at a logical index", "[memory]") {
  const desc d({2, 17, 5, 4}, data_type::f32, "nChw8c");
  memfmt::memory m(d);
  for_each_index(d.get_dims(), [&](const dims& i) { m.at<float>(i) = static_cast<float>(i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3]); });
  const auto* data = static_cast<const float*>(m.get_data_handle());
  for_each_index(d.get_dims(), [&](const dims& i) {
    REQUIRE(data[d.offset(i)] == static_cast<float>(i[0] * 1000 + i[1] * 100 + i[2] * 10 + i[3]));
  });
  REQUIRE_THROWS_AS(m.at<std::int32_t>({0, 0, 0, 0}), memfmt::error);
  REQUIRE_THROWS_WITH(m.at<float>({0, 17, 0, 0}), Catch::Contains("index 17 of dim 1"));
  memfmt::memory h(desc({4}, data_type::bf16, "a"));
  h.at<std::uint16_t>({3}) = 0x3f80;
  REQUIRE(static_cast<const std::uint16_t*>(h.get_data_handle())[3] == 0x3f80);
  memfmt::memory w(desc({2, 3}, data_type::f64, "ba"));
  w.at<double>({1, 2}) = 0.1;
  REQUIRE(static_cast<const double*>(w.get_data_handle())[2 * 2 + 1] == 0.1);
  REQUIRE_THROWS_AS(w.at<float>({0, 0}), memfmt::error);
}

TEST_CASE("set_data_handle borrows and zero-pads the new handle", "[memory]") {
  const desc d({1, 3, 1, 1}, data_type::f32, "nChw4c");
  memfmt::memory m(d);
  float borrowed[4] = {1, 2, 3, 4};
  m.set_data_handle(borrowed);
  REQUIRE(m.get_data_handle() == borrowed);
  REQUIRE(borrowed[0] == 1.f);
  REQUIRE(borrowed[2] == 3.f);
  REQUIRE(borrowed[3] == 0.f);
}

TEST_CASE("memory rejects bad input with a clear error", "[memory][errors]") {
  const desc d({2, 3}, data_type::f32, "ab");
  REQUIRE_THROWS_WITH(memfmt::memory(d, nullptr), Catch::Contains("null data handle") && Catch::Contains("24 bytes"));
  REQUIRE_THROWS_WITH(memfmt::memory(desc::any({2, 3}, data_type::f32)), Catch::Contains("format_kind::any"));
  REQUIRE_THROWS_WITH(memfmt::memory(desc()), Catch::Contains("zero descriptor"));
  // a zero-volume tensor needs no memory: a null handle is fine and nothing is touched
  memfmt::memory empty(desc({2, 0, 3}, data_type::f32, "abc"), nullptr);
  REQUIRE(empty.get_data_handle() == nullptr);
  memfmt::memory owned_empty(desc({0}, data_type::s8, "a"));
  REQUIRE(owned_empty.get_data_handle() == nullptr);
}

TEST_CASE("zero_padding leaves a view's neighbours alone", "[memory]") {
  // channels 32..39 of a 40-channel nChw16c tensor: their padding is the parent's padding
  const desc parent({1, 40, 1, 2}, data_type::f32, "nChw16c");
  const desc view = parent.submemory_desc({1, 8, 1, 2}, {0, 32, 0, 0});
  std::vector<float> buffer(parent.get_size() / 4, 5.f);
  memfmt::zero_padding(view, buffer.data());
  for_each_index(parent.get_dims(), [&](const dims& i) { REQUIRE(buffer[static_cast<std::size_t>(parent.offset(i))] == 5.f); });
  const std::set<memfmt::dim> used = used_offsets(parent);
  for (std::size_t k = 0; k < buffer.size(); ++k)
    if (used.count(static_cast<memfmt::dim>(k)) == 0) REQUIRE(buffer[k] == 0.f);
}

TEST_CASE("zero_padding writes nothing around a view that starts inside a block", "[memory]") {
  // channels 4..11 of a 32-channel nChw16c tensor, as oneDNN describes such a view: padded
  // dims and size of the parent, padded offset 4; the channels around it are the parent's
  memfmt::desc_fields f = desc({2, 32, 3, 3}, data_type::f32, "nChw16c").fields();
  f.logical = {2, 8, 3, 3};
  f.padded_offsets = {0, 4, 0, 0};
  const desc view = desc::from_fields(f);
  REQUIRE(view.get_size() == 2 * 32 * 3 * 3 * 4);
  std::vector<float> buffer(view.get_size() / 4, 5.f);  // exactly its size: ASan sees any overrun
  const memfmt::memory m(view, buffer.data());
  for (const float x : buffer) REQUIRE(x == 5.f);
  const memfmt::memory owned(view);  // allocating: no write past the allocation either
  CHECK(owned.get_data_handle() != nullptr);
}
