#pragma once
// Command-line plumbing shared by the subcommands of the memfmt tool: the usage
// error, and parsers of the values a command line carries (dims, data types,
// numbers), each failing with a message that quotes the text it could not read.

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dims.hpp"

namespace memfmt_tool {

/// A command line the tool cannot follow; what() says why, quoting the input.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    parts.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

/// A whole non-negative integer, or a usage_error naming `what`.
inline long long parse_int(std::string_view text, std::string_view what) {
  const std::string s(text);
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error(std::string(what) + ": '" + s + "' is not a non-negative integer");
  errno = 0;
  const long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) throw usage_error(std::string(what) + ": '" + s + "' is too large");
  return v;
}

/// A finite float, or a usage_error naming `what`.
inline float parse_float(std::string_view text, std::string_view what) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !(v == v))
    throw usage_error(std::string(what) + ": '" + s + "' is not a number");
  return v;
}

/// Dims as benchdnn writes them, "2x17x5x5" (commas are accepted too: "2,17,5,5").
inline memfmt::dims parse_dims(std::string_view text, std::string_view what = "dims") {
  if (text.empty()) throw usage_error(std::string(what) + ": empty");
  const char sep = text.find(',') != std::string_view::npos ? ',' : 'x';
  const std::vector<std::string> parts = split(text, sep);
  if (static_cast<int>(parts.size()) > memfmt::max_ndims)
    throw usage_error(std::string(what) + " '" + std::string(text) + "': " + std::to_string(parts.size()) +
                      " dims, at most " + std::to_string(memfmt::max_ndims));
  memfmt::dims d;
  for (const std::string& p : parts) {
    if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos)
      throw usage_error(std::string(what) + " '" + std::string(text) + "': '" + p +
                        "' is not a dim (write dims as 2x17x5x5)");
    d.push_back(parse_int(p, what));
  }
  return d;
}

inline std::string dims_text(const memfmt::dims& d, char sep = 'x') {
  std::string s;
  for (int i = 0; i < d.size(); ++i) {
    if (i > 0) s += sep;
    s += std::to_string(d[i]);
  }
  return s;
}

/// A data type by its name ("f32", "bf16", "f8_e4m3", ...).
inline memfmt::data_type parse_data_type(std::string_view text, std::string_view what = "data type") {
  std::string known;
  for (const memfmt::data_type dt : memfmt::all_data_types) {
    if (memfmt::to_string(dt) == text) return dt;
    known += (known.empty() ? "" : ", ") + std::string(memfmt::to_string(dt));
  }
  throw usage_error(std::string(what) + ": unknown data type '" + std::string(text) + "' (known: " + known + ")");
}

}  // namespace memfmt_tool
