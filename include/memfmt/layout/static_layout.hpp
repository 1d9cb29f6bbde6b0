#pragma once
/// @file
/// `static_layout`: a typed tag with extents that are static or dynamic per dim (the
/// CuTe / mdspan idea). What is static stays a compile-time constant; a fully static
/// layout's `offset(i...)` folds to straight-line code.

#include <array>
#include <cstddef>
#include <type_traits>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/layout/blocked.hpp"
#include "memfmt/tag/tag.hpp"

namespace memfmt {

/// The extent of a dim that is known only at run time.
inline constexpr dim dynamic_extent = -1;

/// A compile-time extent: `std::integral_constant`, `boost::hana::integral_constant`, ...
template <class T>
concept static_extent = requires { std::integral_constant<dim, static_cast<dim>(T::value)>{}; };

/// Instantiated only when a layout is not the one expected; the compiler's error names
/// this type, whose arguments are the expected tag and the actual one, also spelled
/// letter by letter ("expected" then ' ' then "actual") for compilers that print
/// strings as numbers.
template <auto Expected, auto Actual, char... Spelling>
struct layout_mismatch {
  static_assert(Expected == Actual, "memfmt: layout mismatch: see layout_mismatch<expected tag, actual tag, spelling...>");
  static constexpr bool value = true;
};

namespace detail {
template <auto Expected, auto Actual, std::size_t... E, std::size_t... A>
constexpr bool report_layout_mismatch(std::index_sequence<E...>, std::index_sequence<A...>) {
  return layout_mismatch<Expected, Actual, Expected.name()[E]..., ' ', Actual.name()[A]...>::value;
}
}  // namespace detail

/// A layout of `Tag` with extents `Extents...`, each a number or `dynamic_extent`.
/// @pre sizeof...(Extents) == Tag's ndims, static extents >= 0
template <auto Tag, dim... Extents>
  requires format_tag<decltype(Tag)>
class static_layout {
  using tag_type = std::remove_cvref_t<decltype(Tag)>;
  static constexpr blocking layout_blocking = tag_type::layout;
  static_assert(sizeof...(Extents) == static_cast<std::size_t>(tag_type::ndims),
                "memfmt::static_layout: the number of extents differs from the tag's number of dims");
  static_assert(((Extents >= 0 || Extents == dynamic_extent) && ...),
                "memfmt::static_layout: an extent is negative (use dynamic_extent for run-time extents)");

  static constexpr std::array<dim, sizeof...(Extents)> static_extents{Extents...};

 public:
  static constexpr tag_type tag{};
  static constexpr int rank = tag_type::ndims;
  static constexpr int rank_dynamic = ((Extents == dynamic_extent ? 1 : 0) + ... + 0);
  static constexpr bool is_static = rank_dynamic == 0;

  /// @param dynamic_extents the run-time extents, in dim order
  template <class... Ints>
    requires(sizeof...(Ints) == static_cast<std::size_t>(rank_dynamic) && (std::is_integral_v<Ints> && ...))
  constexpr explicit static_layout(Ints... dynamic_extents) : dynamic_{static_cast<dim>(dynamic_extents)...} {
    for (dim e : dynamic_)
      if (e < 0) detail::fail("static_layout: a dynamic extent is negative (", e, ")");
  }

  /// Whether dim `d`'s extent is a compile-time constant.
  static constexpr bool is_static_extent(int d) noexcept { return static_extents[static_cast<std::size_t>(d)] != dynamic_extent; }

  constexpr dims extents() const {
    dims e;
    int next = 0;
    for (dim s : static_extents) e.push_back(s == dynamic_extent ? dynamic_[static_cast<std::size_t>(next++)] : s);
    return e;
  }
  constexpr dims padded_extents() const { return padded_dims(layout_blocking, extents()); }
  constexpr dims strides() const { return outer_strides(layout_blocking, padded_extents()); }

  /// Elements spanned, padding included.
  constexpr dim size() const {
    const dims padded = padded_extents();
    return span_in_elements(layout_blocking, extents(), padded, outer_strides(layout_blocking, padded));
  }
  /// Bytes spanned by elements of type `dt`.
  constexpr std::size_t size_bytes(data_type dt) const { return static_cast<std::size_t>(size()) * data_type_size(dt); }

  /// The offset, in elements, of the element at logical index `(i...)`.
  /// @pre 0 <= i_d < extent d
  template <class... Ints>
    requires(sizeof...(Ints) == static_cast<std::size_t>(rank) && (std::is_integral_v<Ints> && ...))
  constexpr dim offset(Ints... index) const {
    if constexpr (is_static) {
      return static_offset(std::make_index_sequence<sizeof...(Ints)>{}, static_cast<dim>(index)...);
    } else {
      return element_offset(layout_blocking, strides(), dims{static_cast<dim>(index)...});
    }
  }

  /// Fails to compile, naming both tags, unless this layout is `Expected`'s.
  template <auto Expected>
  static constexpr bool require_tag() {
    if constexpr (!(Expected == Tag))
      return detail::report_layout_mismatch<Expected, Tag>(std::make_index_sequence<Expected.name().size()>{},
                                                           std::make_index_sequence<Tag.name().size()>{});
    return true;
  }

 private:
  /// How one dim's index contributes to the offset: (i / divisor % modulus) * stride
  /// for each inner block of the dim, innermost first, then i / block * outer stride.
  struct dim_terms {
    int count = 0;
    std::array<dim, max_ndims> divisor{}, modulus{}, stride{};
    dim block = 1, outer_stride = 0;
  };

  static constexpr std::array<dim_terms, sizeof...(Extents)> static_terms = [] {
    std::array<dim_terms, sizeof...(Extents)> terms{};
    if constexpr (is_static) {
      const blocking& b = layout_blocking;
      const dims strides = outer_strides(b, padded_dims(b, dims{Extents...}));
      for (std::size_t d = 0; d < terms.size(); ++d) {
        dim_terms t;
        dim inner_stride = 1;
        for (int k = b.inner_nblks - 1; k >= 0; --k) {
          const auto blk = static_cast<std::size_t>(k);
          if (static_cast<std::size_t>(b.inner_idxs[blk]) == d) {
            const auto at = static_cast<std::size_t>(t.count);
            t.divisor[at] = t.block;
            t.modulus[at] = b.inner_blks[blk];
            t.stride[at] = inner_stride;
            t.block = t.block * b.inner_blks[blk];
            t.count = t.count + 1;
          }
          inner_stride = inner_stride * b.inner_blks[blk];
        }
        t.outer_stride = strides[static_cast<int>(d)];
        terms[d] = t;
      }
    }
    return terms;
  }();

  template <std::size_t D, std::size_t... K>
  static constexpr dim static_term(dim i, std::index_sequence<K...>) {
    constexpr dim_terms t = static_terms[D];
    return i / t.block * t.outer_stride + ((i / t.divisor[K] % t.modulus[K] * t.stride[K]) + ... + 0);
  }

  template <std::size_t... D, class... Ints>
  static constexpr dim static_offset(std::index_sequence<D...>, Ints... index) {
    return (static_term<D>(index, std::make_index_sequence<static_cast<std::size_t>(static_terms[D].count)>{}) + ...);
  }
  [[no_unique_address]] std::array<dim, static_cast<std::size_t>(rank_dynamic)> dynamic_{};
};

namespace detail {
template <class E>
constexpr dim static_extent_value() {
  if constexpr (static_extent<E>) return static_cast<dim>(E::value);
  else return dynamic_extent;
}
template <class E>
constexpr void collect_dynamic(dim*& out, E e) {
  if constexpr (!static_extent<E>) *out++ = static_cast<dim>(e);
}
template <auto Tag, dim... Extents, std::size_t... I>
constexpr static_layout<Tag, Extents...> layout_from(const std::array<dim, sizeof...(I)>& dyn, std::index_sequence<I...>) {
  return static_layout<Tag, Extents...>(dyn[I]...);
}
}  // namespace detail

/// A layout of `tag` whose extents are integral constants (static) or integers (dynamic):
/// `make_layout(tags::nChw16c, hana::int_c<1>, hana::int_c<17>, h, w)`.
template <fixed_string S, class... Extents>
constexpr auto make_layout(tag_t<S>, Extents... extents) {
  constexpr int n_dynamic = ((static_extent<Extents> ? 0 : 1) + ... + 0);
  std::array<dim, static_cast<std::size_t>(n_dynamic)> dyn{};
  dim* out = dyn.data();
  (detail::collect_dynamic(out, extents), ...);
  return detail::layout_from<tag_t<S>{}, detail::static_extent_value<Extents>()...>(
      dyn, std::make_index_sequence<static_cast<std::size_t>(n_dynamic)>{});
}

}  // namespace memfmt
