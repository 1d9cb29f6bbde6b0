#pragma once
/// @file
/// The format-tag grammar: ONE constexpr parser, used by typed tags at compile time
/// and by descriptors at run time.
///
/// Abstract tags: letters `a`..`l` are logical dims 0..11, written in physical order,
/// outermost first; an uppercase letter marks a dim that is also blocked; trailing
/// `<N><letter>` pairs are the inner blocks, outermost to innermost (`ABcd8b16a2b`).
///
/// Domain aliases (`nchw`, `nChw16c`, `OIhw4i16o4i`, `ldgOI32o4i`, ...) use named dims
/// instead; a family rule maps them onto abstract letters: the dims a tag names take
/// the logical positions of their family's canonical order, in that order.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "memfmt/core/dim.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/tag/blocking.hpp"

namespace memfmt {

/// A family of named dims and its canonical logical order.
struct tag_family {
  std::string_view name;
  std::string_view letters;  ///< in logical order
};

/// The families of domain aliases, tried in this order.
inline constexpr std::array<tag_family, 5> tag_families{{
    {"1-D", "x"},
    {"CNN activation", "ncdhw"},  // batch, channels, spatial
    {"CNN weights", "goidhw"},    // groups, output and input channels, spatial
    {"RNN activation", "ldtnc"},  // layers, directions, time, batch, channels
    {"RNN weights", "ldigo"},     // layers, directions, input channels, gates, output channels
}};

/// What is wrong with a tag; `none` when nothing is.
enum class tag_problem : std::uint8_t {
  none,
  empty,
  not_a_letter,                ///< a character that is neither a letter nor a digit
  too_many_dims,               ///< more than max_ndims outer letters
  letter_not_a_dimension,      ///< a letter outside the tag's dims
  letter_used_twice,           ///< an outer letter that appears twice
  spatial_dims_incomplete,     ///< CNN spatial dims must be w, hw or dhw
  block_without_size,          ///< a letter after the inner blocks with no size before it
  block_size_without_letter,   ///< trailing digits
  block_size_zero,
  block_too_large,             ///< the blocks' product exceeds 2^30
  block_letter_uppercase,      ///< inner blocks name dims in lowercase
  blocked_dim_lowercase,       ///< a dim with inner blocks must be uppercase in the outer part
  uppercase_dim_not_blocked,   ///< an uppercase outer letter with no inner block
  too_many_blocks,             ///< more than max_ndims inner blocks
};

/// A sentence for each problem, used in error messages.
constexpr std::string_view describe(tag_problem p) noexcept {
  switch (p) {
    case tag_problem::none: return "no problem";
    case tag_problem::empty: return "a tag needs at least one dim";
    case tag_problem::not_a_letter: return "is not a letter or a block size";
    case tag_problem::too_many_dims: return "a tag has at most 12 dims";
    case tag_problem::letter_not_a_dimension: return "is not a dimension";
    case tag_problem::letter_used_twice: return "is used twice";
    case tag_problem::spatial_dims_incomplete: return "spatial dims must be w, hw or dhw";
    case tag_problem::block_without_size: return "follows the inner blocks but has no block size";
    case tag_problem::block_size_without_letter: return "a block size must be followed by the dim it blocks";
    case tag_problem::block_size_zero: return "has a block size of 0";
    case tag_problem::block_too_large: return "the inner blocks hold more than 2^30 elements";
    case tag_problem::block_letter_uppercase: return "inner blocks name their dim in lowercase";
    case tag_problem::blocked_dim_lowercase: return "is blocked, so it must be uppercase in the outer dims";
    case tag_problem::uppercase_dim_not_blocked: return "is uppercase but has no inner block";
    case tag_problem::too_many_blocks: return "a tag has at most 12 inner blocks";
  }
  return "unknown problem";
}

/// The outcome of parsing a tag: its blocking, or the first problem found.
struct tag_parse_result {
  blocking layout;
  tag_problem problem = tag_problem::none;
  int position = 0;   ///< index of the offending character in the tag
  char letter = 0;    ///< the offending character, when there is one
  int family = -1;    ///< index into tag_families; -1 for abstract tags
  constexpr bool ok() const noexcept { return problem == tag_problem::none; }
};

namespace detail {

constexpr bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
constexpr bool is_upper(char c) noexcept { return c >= 'A' && c <= 'Z'; }
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr char to_lower(char c) noexcept { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr bool is_abstract_letter(char c) noexcept { return to_lower(c) >= 'a' && to_lower(c) <= 'l'; }

/// Tokens of a tag before letters are given a meaning.
struct tag_tokens {
  int nouter = 0;
  std::array<char, max_ndims> outer{};
  std::array<int, max_ndims> outer_pos{};
  int nblocks = 0;
  std::array<dim, max_ndims> block_size{};
  std::array<char, max_ndims> block_letter{};
  std::array<int, max_ndims> block_pos{};
};

inline constexpr dim max_block_elements = dim{1} << 30;

constexpr tag_parse_result fail_at(tag_problem p, int position, char letter, int family = -1) {
  tag_parse_result r;
  r.problem = p;
  r.position = position;
  r.letter = letter;
  r.family = family;
  return r;
}

/// Splits a tag into outer letters and (size, letter) blocks; checks only the syntax.
constexpr tag_parse_result tokenize(std::string_view tag, tag_tokens& t) {
  const int n = static_cast<int>(tag.size());
  if (n == 0) return fail_at(tag_problem::empty, 0, 0);
  int i = 0;
  for (; i < n && (is_lower(tag[i]) || is_upper(tag[i])); ++i) {
    if (t.nouter == max_ndims) return fail_at(tag_problem::too_many_dims, i, tag[i]);
    t.outer[t.nouter] = tag[i];
    t.outer_pos[t.nouter++] = i;
  }
  if (t.nouter == 0) return fail_at(is_digit(tag[0]) ? tag_problem::empty : tag_problem::not_a_letter, 0, tag[0]);
  dim product = 1;
  while (i < n) {
    const char c = tag[i];
    if (is_lower(c) || is_upper(c)) return fail_at(tag_problem::block_without_size, i, c);
    if (!is_digit(c)) return fail_at(tag_problem::not_a_letter, i, c);
    const int start = i;
    dim size = 0;
    for (; i < n && is_digit(tag[i]); ++i) {
      size = size * 10 + (tag[i] - '0');
      if (size > max_block_elements) return fail_at(tag_problem::block_too_large, start, tag[start]);
    }
    if (i == n) return fail_at(tag_problem::block_size_without_letter, start, tag[start]);
    const char letter = tag[i];
    if (is_upper(letter)) return fail_at(tag_problem::block_letter_uppercase, i, letter);
    if (!is_lower(letter)) return fail_at(tag_problem::not_a_letter, i, letter);
    if (size == 0) return fail_at(tag_problem::block_size_zero, i, letter);
    if (t.nblocks == max_ndims) return fail_at(tag_problem::too_many_blocks, start, tag[start]);
    product *= size;
    if (product > max_block_elements) return fail_at(tag_problem::block_too_large, start, tag[start]);
    t.block_size[t.nblocks] = size;
    t.block_letter[t.nblocks] = letter;
    t.block_pos[t.nblocks++] = i;
    ++i;
  }
  return {};
}

/// The family that holds most of the tag's outer letters (the first on a tie).
constexpr int family_count(int family, const tag_tokens& t) {
  int count = 0;
  for (int k = 0; k < t.nouter; ++k)
    if (tag_families[static_cast<std::size_t>(family)].letters.find(to_lower(t.outer[k])) != std::string_view::npos) ++count;
  return count;
}

/// The family that holds most of the tag's outer letters (the first on a tie).
constexpr int closest_family(const tag_tokens& t) {
  int best = 0;
  for (int f = 1; f < static_cast<int>(tag_families.size()); ++f)
    if (family_count(f, t) > family_count(best, t)) best = f;
  return best;
}

constexpr bool family_has(int family, char lower) {
  return tag_families[static_cast<std::size_t>(family)].letters.find(lower) != std::string_view::npos;
}

}  // namespace detail

/// oneDNN names whose layout is not what the name says; memfmt follows oneDNN's layout so
/// that buffers exchanged with oneDNN agree (see docs/tags.md).
struct tag_spelling_quirk {
  std::string_view name;
  std::string_view layout;
};
inline constexpr std::array<tag_spelling_quirk, 4> onednn_tag_quirks{{
    {"OhwI32o", "Acdb32a"},               // 'I' uppercase, yet only o is blocked
    {"gOhwI32o", "aBdec32b"},             // likewise
    {"gIOhw2i8o16i2o", "aBCde2c8b16c2b"},  // outer order g O I, unlike IOhw2i8o16i2o
    {"gIOdhw2i8o16i2o", "aBCdef2c8b16c2b"},
}};

/// Parses a format tag (abstract or a domain alias).
/// @post `result.ok()` and `result.layout` is valid, or `result.problem` names the
///       first problem and `result.position` where it is.
constexpr tag_parse_result parse_tag(std::string_view tag) {
  using namespace detail;
  for (const tag_spelling_quirk& q : onednn_tag_quirks)
    if (tag == q.name) tag = q.layout;
  tag_tokens t;
  if (auto r = tokenize(tag, t); !r.ok()) return r;

  // A tag is abstract when all its letters are a..l; a tag that is neither abstract nor
  // an alias is judged as whichever it is closer to, so the error names the odd letter.
  bool all_abstract = true;
  int abstract_letters = 0;
  for (int k = 0; k < t.nouter; ++k) abstract_letters += is_abstract_letter(t.outer[k]);
  for (int k = 0; k < t.nblocks; ++k) all_abstract = all_abstract && is_abstract_letter(t.block_letter[k]);
  all_abstract = all_abstract && abstract_letters == t.nouter;
  const int closest = closest_family(t);
  const bool abstract = all_abstract || abstract_letters > family_count(closest, t);
  const int family = abstract ? -1 : closest;

  // logical index of each lowercase letter; -1 when the tag does not name it
  std::array<int, 26> index{};
  for (int& v : index) v = -1;
  for (int k = 0; k < t.nouter; ++k) {
    const char lower = to_lower(t.outer[k]);
    if (index[lower - 'a'] != -1) return fail_at(tag_problem::letter_used_twice, t.outer_pos[k], t.outer[k], family);
    index[lower - 'a'] = 0;
  }
  if (abstract) {
    for (int k = 0; k < t.nouter; ++k) {
      const char lower = to_lower(t.outer[k]);
      if (lower - 'a' >= t.nouter) return fail_at(tag_problem::letter_not_a_dimension, t.outer_pos[k], t.outer[k]);
      index[lower - 'a'] = lower - 'a';
    }
  } else {
    for (int k = 0; k < t.nouter; ++k)
      if (!family_has(family, to_lower(t.outer[k])))
        return fail_at(tag_problem::letter_not_a_dimension, t.outer_pos[k], t.outer[k], family);
    int next = 0;
    for (char lower : tag_families[static_cast<std::size_t>(family)].letters)
      if (index[lower - 'a'] != -1) index[lower - 'a'] = next++;
    if (tag_families[static_cast<std::size_t>(family)].name.starts_with("CNN")) {
      const bool d = index['d' - 'a'] != -1, h = index['h' - 'a'] != -1, w = index['w' - 'a'] != -1;
      if ((d && !h) || (h && !w)) {
        const char missing = (d && !h) ? 'h' : 'w';
        return fail_at(tag_problem::spatial_dims_incomplete, static_cast<int>(tag.size()), missing, family);
      }
    }
  }

  tag_parse_result r;
  r.family = family;
  blocking& b = r.layout;
  b.ndims = t.nouter;
  for (int k = 0; k < t.nouter; ++k) b.order[k] = static_cast<std::int8_t>(index[to_lower(t.outer[k]) - 'a']);
  b.inner_nblks = t.nblocks;
  for (int k = 0; k < t.nblocks; ++k) {
    const int d = index[t.block_letter[k] - 'a'];
    if (d == -1) return fail_at(tag_problem::letter_not_a_dimension, t.block_pos[k], t.block_letter[k], family);
    b.inner_blks[k] = t.block_size[k];
    b.inner_idxs[k] = static_cast<std::int8_t>(d);
  }
  for (int k = 0; k < t.nouter; ++k) {
    const bool blocked = b.is_blocked(b.order[k]);
    if (blocked && !is_upper(t.outer[k]))
      return fail_at(tag_problem::blocked_dim_lowercase, t.outer_pos[k], t.outer[k], family);
    if (!blocked && is_upper(t.outer[k]))
      return fail_at(tag_problem::uppercase_dim_not_blocked, t.outer_pos[k], t.outer[k], family);
  }
  return r;
}

/// A tag's text, stored inline so that it can be computed at compile time.
struct tag_text {
  static constexpr int capacity = 160;  // 12 letters + 12 blocks of up to 10 digits and a letter
  std::array<char, capacity> chars{};
  int length = 0;
  constexpr void push(char c) { chars[static_cast<std::size_t>(length++)] = c; }
  constexpr std::string_view view() const noexcept { return {chars.data(), static_cast<std::size_t>(length)}; }
};

/// The canonical abstract tag of a blocking ("aBcd16b" for nChw16c).
constexpr tag_text abstract_tag(const blocking& b) {
  tag_text out;
  for (int k = 0; k < b.ndims; ++k) {
    const int d = b.order[k];
    out.push(static_cast<char>((b.is_blocked(d) ? 'A' : 'a') + d));
  }
  for (int j = 0; j < b.inner_nblks; ++j) {
    char digits[12]{};
    int n = 0;
    for (dim v = b.inner_blks[j]; v > 0; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
    while (n > 0) out.push(digits[--n]);
    out.push(static_cast<char>('a' + b.inner_idxs[j]));
  }
  return out;
}

/// The error message for a tag that did not parse, naming the tag, the culprit and the problem:
/// "tag 'nChw16x': letter 'x' is not a dimension of a 4-D CNN activation tag (n c d h w)".
inline std::string explain(std::string_view tag, const tag_parse_result& r) {
  std::string m = "tag '";
  m += tag;
  m += "': ";
  switch (r.problem) {
    case tag_problem::empty:
    case tag_problem::block_too_large:
    case tag_problem::block_size_without_letter:
    case tag_problem::too_many_blocks: break;
    case tag_problem::spatial_dims_incomplete: m += "letter '"; m += r.letter; m += "' is missing: "; break;
    case tag_problem::not_a_letter: m += "character '"; m += r.letter; m += "' "; break;
    default: m += "letter '"; m += r.letter; m += "' "; break;
  }
  m += describe(r.problem);
  if (r.problem == tag_problem::letter_not_a_dimension) {
    int ndims = 0;
    for (std::size_t i = 0; i < tag.size() && (detail::is_lower(tag[i]) || detail::is_upper(tag[i])); ++i) ++ndims;
    m += " of a " + std::to_string(ndims) + "-D ";
    if (r.family < 0) {
      m += "abstract tag (a..";
      m += static_cast<char>('a' + ndims - 1);
      m += ")";
    } else {
      const tag_family& f = tag_families[static_cast<std::size_t>(r.family)];
      m += f.name;
      m += " tag (";
      m += f.letters;
      m += ")";
    }
  }
  m += " (at position " + std::to_string(r.position) + ")";
  return m;
}

/// Parses a tag or throws `memfmt::error` saying what is wrong with it.
constexpr blocking parse_tag_or_throw(std::string_view tag) {
  const tag_parse_result r = parse_tag(tag);
  if (!r.ok()) detail::fail_with_message(explain, tag, r);
  return r.layout;
}

}  // namespace memfmt
