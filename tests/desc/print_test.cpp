// describe, offset_label and offset_grid (memfmt/desc/print.hpp): the text a user reads
// about a layout, with expected strings worked out by hand from the layouts' definitions.
#include <catch2/catch.hpp>

#include <string>

#include <memfmt/desc/print.hpp>

namespace {

using memfmt::data_type;
using memfmt::desc;

TEST_CASE("offset_label: an element offset, or for 4-bit types its byte and nibble", "[print]") {
  CHECK(memfmt::offset_label(data_type::f32, 13) == "13");
  CHECK(memfmt::offset_label(data_type::s8, 0) == "0");
  CHECK(memfmt::offset_label(data_type::u4, 0) == "0l");
  CHECK(memfmt::offset_label(data_type::u4, 13) == "6h");  // element 13 = byte 6, odd: high nibble
  CHECK(memfmt::offset_label(data_type::s4, 14) == "7l");
}

TEST_CASE("offset_grid: rows down, columns across, right-aligned", "[print]") {
  // nChw8c, 1x10x1x2: element (0, c, 0, w) is at (c / 8) * 16 + w * 8 + c % 8.
  const desc d({1, 10, 1, 2}, data_type::f32, "nChw8c");
  CHECK(memfmt::offset_grid(d, 1, 3, {}, 3, 2) == "  0  8\n  1  9\n  2 10\n");
  CHECK(memfmt::offset_grid(d, 1, 3, {}, 10, 2) ==
        "  0  8\n  1  9\n  2 10\n  3 11\n  4 12\n  5 13\n  6 14\n  7 15\n 16 24\n 17 25\n");
  CHECK(memfmt::offset_grid(d, 1, 3) == memfmt::offset_grid(d, 1, 3, {}, 8, 20));  // at most 8 x 20 by default
}

TEST_CASE("offset_grid of 4-bit elements: the byte and nibble of each", "[print]") {
  // ab, 3x6 u4: element (r, c) is 6r + c, two per byte, element 2k in the low nibble.
  const desc d({3, 6}, data_type::u4, "ab");
  CHECK(memfmt::offset_grid(d, 0, 1) ==
        " 0l 0h 1l 1h 2l 2h\n"
        " 3l 3h 4l 4h 5l 5h\n"
        " 6l 6h 7l 7h 8l 8h\n");
  // BA16a64b4a keeps 4 consecutive a together: (a, 0) for a = 0..3 fill bytes 0 and 1.
  const desc w({4, 2}, data_type::s4, "BA16a64b4a");
  CHECK(memfmt::offset_grid(w, 0, 1) == " 0l 2l\n 0h 2h\n 1l 3l\n 1h 3h\n");
}

TEST_CASE("describe: the numbers, and the packing of 4-bit types", "[print]") {
  const std::string f = memfmt::describe(desc({2, 17, 5, 4}, data_type::f32, "nChw16c"));
  CHECK(f.find("padded dims {2, 32, 5, 4}") != std::string::npos);
  CHECK(f.find("size        5120 bytes\n") != std::string::npos);  // 2 * 32 * 5 * 4 * 4 bytes
  const std::string u = memfmt::describe(desc({5}, data_type::u4, "a"));
  CHECK(u.find("size        3 bytes (4-bit elements, two per byte: element 2k in the low nibble)\n") !=
        std::string::npos);  // 5 nibbles round up to 3 bytes
}

}  // namespace
