#pragma once
/// @file
/// A string literal usable as a template argument: `tag_t<"nChw16c">`.

#include <cstddef>
#include <string_view>

namespace memfmt {

/// A structural string type holding a literal of N-1 characters.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};

  constexpr fixed_string(const char (&literal)[N]) noexcept {  // NOLINT: implicit by design
    for (std::size_t i = 0; i < N; ++i) chars[i] = literal[i];
  }
  static constexpr std::size_t length = N - 1;
  constexpr std::string_view view() const noexcept { return {chars, N - 1}; }
  constexpr operator std::string_view() const noexcept { return view(); }
};

}  // namespace memfmt
