#pragma once
/// @file
/// `memfmt::error`, the one exception memfmt throws, and how constexpr code raises it.

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace memfmt {

/// Thrown on bad input; `what()` names the culprit ("tag 'nChw16x': letter 'x' ...").
class error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

inline void append_piece(std::string& out, std::string_view s) { out += s; }
inline void append_piece(std::string& out, const char* s) { out += s; }
inline void append_piece(std::string& out, char c) { out += c; }
template <class Int, class = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, char>>>
void append_piece(std::string& out, Int v) {
  out += std::to_string(v);
}
/// (A floating-point value would convert to char: format it first.)
template <class Float, class = std::enable_if_t<std::is_floating_point_v<Float>>>
void append_piece(std::string& out, Float v, int = 0) = delete;

/// Throws `memfmt::error` with the pieces concatenated.
/// Deliberately not constexpr: reached during constant evaluation, it makes the
/// evaluation fail, and the compiler points at the call, whose arguments spell
/// out the problem.
template <class... Pieces>
[[noreturn]] void fail(const Pieces&... pieces) {
  std::string message;
  (append_piece(message, pieces), ...);
  throw error(message);
}

/// Throws `memfmt::error` with the message `explain(args...)` (not constexpr, like `fail`).
template <class Explain, class... Args>
[[noreturn]] void fail_with_message(Explain explain, const Args&... args) {
  throw error(explain(args...));
}

}  // namespace detail
}  // namespace memfmt
