#pragma once
/// @file
/// Making a layout visible: a descriptor's numbers as text, and a grid of element
/// offsets over two of its dims.

#include <cstddef>
#include <string>
#include <vector>

#include "memfmt/desc/desc.hpp"

namespace memfmt {

namespace detail {
inline std::string to_text(const dims& d) {
  std::string s = "{";
  for (int i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "}";
}
}  // namespace detail

/// Several lines: the verbose string, dims, padded dims, strides, inner blocks and size.
inline std::string describe(const desc& d) {
  std::string s = d.str() + "\n";
  s += "  dims        " + detail::to_text(d.get_dims()) + "\n";
  if (d.get_format_kind() != format_kind::blocked) return s;
  s += "  padded dims " + detail::to_text(d.get_padded_dims()) + "\n";
  s += "  strides     " + detail::to_text(d.get_strides()) + "\n";
  s += "  inner blks  " + detail::to_text(d.get_inner_blks()) + " of dims " + detail::to_text(d.get_inner_idxs()) + "\n";
  s += "  size        " + std::to_string(d.get_size()) + " bytes" +
       (is_sub_byte(d.get_data_type()) ? " (4-bit elements, two per byte: element 2k in the low nibble)" : "") +
       "\n";
  return s;
}

/// An element offset as the grids print it: the offset itself, or for 4-bit types
/// the byte and the nibble that hold the element.
/// Example: offset 13 of f32 is "13"; of u4 it is "6h", the high nibble of byte 6.
inline std::string offset_label(data_type dt, dim offset) {
  if (!is_sub_byte(dt)) return std::to_string(offset);
  return std::to_string(offset / 2) + (offset % 2 == 0 ? "l" : "h");
}

/// The offsets of the elements whose index is `origin` except along `row_dim` and
/// `col_dim`, as a grid (rows down, columns across), at most `max_rows` x `max_cols`;
/// 4-bit types show byte and nibble (`offset_label`).
/// @pre row_dim != col_dim, both < ndims; origin inside the dims (empty: all zeros)
inline std::string offset_grid(const desc& d, int row_dim, int col_dim, dims origin = {}, dim max_rows = 8,
                               dim max_cols = 20) {
  if (origin.empty()) origin = dims::filled(d.get_ndims(), 0);
  const dim rows = d.get_dims()[row_dim] < max_rows ? d.get_dims()[row_dim] : max_rows;
  const dim cols = d.get_dims()[col_dim] < max_cols ? d.get_dims()[col_dim] : max_cols;
  std::vector<std::string> cells;
  std::size_t width = 1;
  dims index = origin;
  for (dim r = 0; r < rows; ++r)
    for (dim c = 0; c < cols; ++c) {
      index[row_dim] = r;
      index[col_dim] = c;
      cells.push_back(offset_label(d.get_data_type(), d.offset(index)));
      if (cells.back().size() > width) width = cells.back().size();
    }
  std::string s;
  for (std::size_t k = 0; k < cells.size(); ++k) {
    s += std::string(width + 1 - cells[k].size(), ' ') + cells[k];
    if ((k + 1) % static_cast<std::size_t>(cols) == 0) s += "\n";
  }
  return s;
}

}  // namespace memfmt
