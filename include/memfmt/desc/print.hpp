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
  s += "  size        " + std::to_string(d.get_size()) + " bytes\n";
  return s;
}

/// The offsets of the elements whose index is `origin` except along `row_dim` and
/// `col_dim`, as a grid (rows down, columns across), at most `max_rows` x `max_cols`.
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
      cells.push_back(std::to_string(d.offset(index)));
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
