// Packing bytes into s4/u4 nibbles and unpacking them (memfmt/core/nibbles.hpp): every
// byte value, both signednesses, every count from 0 to 40 and counts around the runs of
// 64 (a run and its tail), from element 0 and from an even element past it, against the
// definition written here element by element.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <memfmt/core/nibbles.hpp>

namespace {

using memfmt::dim;

/// The 4 bits a byte saturates to: u8 to 0..15, s8 to -8..7 (two's complement nibble).
unsigned expected_bits(unsigned char b, bool is_signed) {
  if (!is_signed) return b > 15 ? 15u : b;
  const int v = static_cast<std::int8_t>(b);
  return static_cast<unsigned>(v < -8 ? -8 : v > 7 ? 7 : v) & 0xFu;
}

/// The byte a nibble unpacks to: u4 as is, s4 sign-extended.
unsigned char expected_byte(unsigned bits, bool is_signed) {
  if (!is_signed || bits < 8) return static_cast<unsigned char>(bits);
  return static_cast<unsigned char>(bits + 0xF0u);  // -8..-1 as s8
}

TEST_CASE("pack_nibbles saturates every byte and places element 2k low", "[nibbles]") {
  for (bool is_signed : {false, true}) {
    std::vector<unsigned char> bytes(256);
    for (int b = 0; b < 256; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<unsigned char>(b * 37 + 11);
    std::vector<dim> counts;
    for (dim count = 0; count <= 40; ++count) counts.push_back(count);
    for (dim count : {63, 64, 65, 127, 128, 129, 130, 191}) counts.push_back(count);
    for (dim first : {dim{0}, dim{6}})
      for (dim count : counts)
        for (dim shift = 0; shift + count <= 256; shift += 29) {
          std::vector<unsigned char> packed(112, 0xA5), want(112, 0xA5);
          memfmt::detail::pack_nibbles(bytes.data() + shift, count, is_signed, packed.data(), first);
          for (dim k = 0; k < count; ++k) {
            const dim at = first + k;
            const unsigned bits = expected_bits(bytes[static_cast<std::size_t>(shift + k)], is_signed);
            unsigned char& byte = want[static_cast<std::size_t>(at / 2)];
            byte = static_cast<unsigned char>(at % 2 == 0 ? (byte & 0xF0) | bits : (byte & 0x0F) | bits << 4);
          }
          INFO("signed " << is_signed << ", first " << first << ", count " << count << ", from byte " << shift);
          CHECK(packed == want);  // (the bytes around, 0xA5, are kept)
        }
  }
}

TEST_CASE("every byte saturates: a run of all 256", "[nibbles]") {
  for (bool is_signed : {false, true}) {
    std::vector<unsigned char> bytes(256), packed(128);
    for (int b = 0; b < 256; ++b) bytes[static_cast<std::size_t>(b)] = static_cast<unsigned char>(b);
    memfmt::detail::pack_nibbles(bytes.data(), 256, is_signed, packed.data(), 0);
    for (int b = 0; b < 256; ++b) {
      INFO("signed " << is_signed << ", byte " << b);
      CHECK(memfmt::detail::load_nibble(packed.data(), b) == expected_bits(static_cast<unsigned char>(b), is_signed));
    }
  }
  // the edges by name: u4 15, 16 -> 15; s4 7, 8 -> 7, -8, -9 -> -8
  std::vector<unsigned char> edges{15, 16, 255, 0}, out(2);
  memfmt::detail::pack_nibbles(edges.data(), 4, false, out.data(), 0);
  CHECK(out == std::vector<unsigned char>{0xFF, 0x0F});
  std::vector<unsigned char> s_edges{7, 8, 0xF8, 0xF7, 0xFF, 0x80, 0x7F, 0};  // 7 8 -8 -9 -1 -128 127 0
  std::vector<unsigned char> s_out(4);
  memfmt::detail::pack_nibbles(s_edges.data(), 8, true, s_out.data(), 0);
  CHECK(s_out == std::vector<unsigned char>{0x77, 0x88, 0x8F, 0x07});
}

TEST_CASE("unpack_nibbles: every packed byte, sign-extended for s4", "[nibbles]") {
  std::vector<unsigned char> packed(256);
  for (int b = 0; b < 256; ++b) packed[static_cast<std::size_t>(b)] = static_cast<unsigned char>(b);
  for (bool is_signed : {false, true}) {
    std::vector<unsigned char> all(512);
    memfmt::detail::unpack_nibbles(packed.data(), 0, 512, is_signed, all.data());
    for (int e = 0; e < 512; ++e) {
      const unsigned bits = e % 2 == 0 ? static_cast<unsigned>(e / 2) & 0xF : static_cast<unsigned>(e / 2) >> 4;
      INFO("signed " << is_signed << ", element " << e);
      CHECK(all[static_cast<std::size_t>(e)] == expected_byte(bits, is_signed));
    }
    for (dim first : {dim{0}, dim{10}})
      for (dim count : {0, 1, 2, 7, 8, 9, 33, 40, 63, 64, 65, 129, 130, 191}) {
        std::vector<unsigned char> out(200, 0x5A);
        memfmt::detail::unpack_nibbles(packed.data() + 33, first, count, is_signed, out.data());
        for (dim k = 0; k < count; ++k) {
          const dim at = first + k;
          const unsigned byte = packed[static_cast<std::size_t>(33 + at / 2)];
          INFO("signed " << is_signed << ", first " << first << ", count " << count << ", element " << k);
          CHECK(out[static_cast<std::size_t>(k)] == expected_byte(at % 2 == 0 ? byte & 0xF : byte >> 4, is_signed));
        }
        CHECK(std::all_of(out.begin() + count, out.end(), [](unsigned char c) { return c == 0x5A; }));
      }
  }
}

}  // namespace
