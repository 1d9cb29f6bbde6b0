#pragma once
/// @file
/// `to_desc`: the runtime descriptor of a compile-time layout, so that a layout checked
/// by the compiler feeds a reorder without its tag and extents being spelled twice.
/// Kept out of `desc.hpp` so that the descriptor does not pull in `static_layout`.

#include "memfmt/core/data_type.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/layout/static_layout.hpp"

namespace memfmt {

/// The descriptor of `layout`'s tag and extents (dynamic extents at their run-time
/// values) for elements of type `dt`: exactly `desc(layout.extents(), dt, tag)`.
/// `get_size()` is `layout.size_bytes(dt)`.
template <auto Tag, dim... Extents>
constexpr desc to_desc(const static_layout<Tag, Extents...>& layout, data_type dt) {
  return desc(layout.extents(), dt, static_layout<Tag, Extents...>::tag);
}

}  // namespace memfmt
