#pragma once
/// @file
/// Typed tags: `tag_t<"nChw16c">`, one type per tag, its layout as static constexpr data.

#include <string_view>
#include <type_traits>
#include <utility>

#include "memfmt/core/fixed_string.hpp"
#include "memfmt/tag/blocking.hpp"
#include "memfmt/tag/parse.hpp"

namespace memfmt {

/// Instantiated only for a tag that does not parse: the compiler's error names
/// this type, whose arguments spell the tag (also letter by letter, for compilers
/// that print the string as numbers), the problem, the culprit and its position.
template <fixed_string Tag, tag_problem Problem, char Culprit, int Position, char... Spelling>
struct invalid_format_tag {
  static_assert(Problem == tag_problem::none,
                "memfmt: invalid format tag: see invalid_format_tag<tag, problem, culprit, position, spelling...>");
  static constexpr bool value = true;
};

namespace detail {
template <fixed_string S, std::size_t... I>
constexpr bool report_invalid_tag(std::index_sequence<I...>) {
  constexpr tag_parse_result r = parse_tag(S.view());
  return invalid_format_tag<S, r.problem, r.letter, r.position, S.chars[I]...>::value;
}

template <fixed_string S>
constexpr blocking checked_blocking() {
  constexpr tag_parse_result r = parse_tag(S.view());
  if constexpr (!r.ok()) static_assert(report_invalid_tag<S>(std::make_index_sequence<S.length>{}));
  return r.layout;
}
}  // namespace detail

/// A format tag as a type. Its layout is computed when first used, so naming a
/// tag costs nothing until a program asks about it.
template <fixed_string S>
struct tag_t {
  /// The tag as written ("nChw16c").
  static constexpr std::string_view name() noexcept { return S.view(); }
  /// What the tag says: outer order and inner blocks. A bad tag fails to compile here.
  static constexpr blocking layout = detail::checked_blocking<S>();
  static constexpr int ndims = layout.ndims;
  /// The canonical abstract tag ("aBcd16b" for nChw16c).
  static constexpr tag_text abstract_text = abstract_tag(layout);
  static constexpr std::string_view abstract() noexcept { return abstract_text.view(); }
};

/// Two tags are equal when they describe the same layout: `nchw == abcd == oihw`.
template <fixed_string A, fixed_string B>
constexpr bool operator==(tag_t<A>, tag_t<B>) noexcept {
  return tag_t<A>::layout == tag_t<B>::layout;
}

/// True for the types `tag_t<S>`.
template <class T>
inline constexpr bool is_tag_v = false;
template <fixed_string S>
inline constexpr bool is_tag_v<tag_t<S>> = true;

/// Any typed tag.
template <class T>
concept format_tag = is_tag_v<std::remove_cvref_t<T>>;

/// The typed tag for `S`, checked where it is named: `tag<"nChw16c">`.
template <fixed_string S>
inline constexpr tag_t<S> tag = (static_cast<void>(tag_t<S>::layout), tag_t<S>{});

}  // namespace memfmt
