// `memfmt describe TAG DIMS`: a layout as text (descriptor numbers, a grid of element
// offsets over two dims, the first elements in memory order, how groups of a grouped
// scale or zero point lie in memory) and as an SVG picture.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/desc/print.hpp"
#include "memfmt/memory/memory.hpp"
#include "memfmt/tag/parse.hpp"

namespace memfmt_tool {
namespace {

using memfmt::dim;
using memfmt::dims;

/// Names of the logical dims as the tag spells them ("n c h w" for nChw16c, "o i h w"
/// for OIhw4i16o4i), or the abstract letters a, b, c, ...
std::vector<std::string> dim_names(const std::string& tag, int ndims) {
  std::vector<std::string> names;
  for (int d = 0; d < ndims; ++d) names.emplace_back(1, static_cast<char>('a' + d));
  const memfmt::tag_parse_result r = memfmt::parse_tag(tag);
  std::string prefix;
  for (char c : tag) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) break;
    prefix += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  if (!r.ok() || r.layout.ndims != ndims || static_cast<int>(prefix.size()) != ndims) return names;
  for (int k = 0; k < ndims; ++k) names[static_cast<std::size_t>(r.layout.order[static_cast<std::size_t>(k)])] = prefix.substr(static_cast<std::size_t>(k), 1);
  return names;
}

std::string index_text(const dims& index) {
  std::string s = "(";
  for (int i = 0; i < index.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(index[i]);
  }
  return s + ")";
}

struct describe_options {
  std::string tag;
  dims shape;
  memfmt::data_type dt = memfmt::data_type::f32;
  int row_dim = -1, col_dim = -1;  ///< -1: chosen from the layout
  dims at;                         ///< the index of the dims not shown
  dim max_rows = 0, max_cols = 0;  ///< 0: defaults (text 8 x 20, SVG 48 x 48)
  dims groups;                     ///< a group size per dim; empty: no groups shown
  std::string svg;
};

/// The dims to show: the blocked dims first (where the layout is interesting), then
/// the innermost physical dim.
void choose_dims(const memfmt::desc& d, describe_options& o) {
  const int n = d.get_ndims();
  const memfmt::blocking b = d.get_blocking();
  std::vector<int> pick;
  for (int k = 0; k < b.inner_nblks; ++k) {
    const int x = b.inner_idxs[static_cast<std::size_t>(k)];
    if (std::find(pick.begin(), pick.end(), x) == pick.end()) pick.push_back(x);
  }
  std::sort(pick.begin(), pick.end());
  if (n >= 2 && pick.empty()) pick.push_back(n == 2 ? 0 : 1);
  for (int k = n - 1; k >= 0; --k) {
    const int x = b.order[static_cast<std::size_t>(k)];  // innermost physical first
    if (std::find(pick.begin(), pick.end(), x) == pick.end()) pick.push_back(x);
  }
  if (o.row_dim < 0 && o.col_dim < 0) {
    o.row_dim = pick[0];
    o.col_dim = pick.size() > 1 ? pick[1] : pick[0];
  } else if (o.row_dim < 0) {
    for (int x : pick)
      if (x != o.col_dim) {
        o.row_dim = x;
        break;
      }
  } else if (o.col_dim < 0) {
    for (int x : pick)
      if (x != o.row_dim) {
        o.col_dim = x;
        break;
      }
  }
}

/// The first `count` elements in memory order, with their logical index (padding
/// shown as such); computed by visiting every padded index, so only for small tensors.
std::string memory_order(const memfmt::desc& d, int count, const std::vector<std::string>& names) {
  const dims padded = d.get_padded_dims(), logical = d.get_dims();
  dim volume = 1;
  for (dim v : padded) volume *= v;
  if (volume == 0) return "  (no elements)\n";
  if (volume > (dim{1} << 22)) return "  (too many elements to list the memory order)\n";
  std::vector<std::pair<dim, dims>> cells;
  cells.reserve(static_cast<std::size_t>(volume));
  dims index = dims::filled(d.get_ndims(), 0);
  for (;;) {
    cells.emplace_back(memfmt::detail::padded_offset(d, index), index);
    int k = d.get_ndims() - 1;
    for (; k >= 0; --k) {
      if (++index[k] < padded[k]) break;
      index[k] = 0;
    }
    if (k < 0) break;
  }
  std::sort(cells.begin(), cells.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string s = memfmt::is_sub_byte(d.get_data_type()) ? "  byte, nibble (l/h) -> (" : "  offset -> (";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  s += ")\n";
  for (int k = 0; k < count && k < static_cast<int>(cells.size()); ++k) {
    bool padding = false;
    for (int i = 0; i < d.get_ndims(); ++i) padding = padding || cells[static_cast<std::size_t>(k)].second[i] >= logical[i];
    const std::string at = memfmt::offset_label(d.get_data_type(), cells[static_cast<std::size_t>(k)].first);
    s += std::string(at.size() < 8 ? 8 - at.size() : 0, ' ') + at + " -> " +
         index_text(cells[static_cast<std::size_t>(k)].second) + (padding ? "  padding" : "") + "\n";
  }
  return s;
}

/// "4" or "2 to 4".
std::string span_text(dim lo, dim hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi); }

/// How the groups of a grouped scale or zero point lie in memory: how many there are,
/// and into how many runs of consecutive offsets each group's elements fall (a group in
/// one run is read at once; a group in many runs is gathered from strips of blocks).
/// Every group is followed when the tensor is small, else the first one.
/// @pre o.groups divide the dims, none is 0
std::string group_summary(const memfmt::desc& d, const describe_options& o) {
  const int n = d.get_ndims();
  dims count = dims::filled(n, 1);
  dim ngroups = 1, volume = 1;
  for (int i = 0; i < n; ++i) {
    count[i] = d.get_dims()[i] / o.groups[i];
    ngroups *= count[i];
    volume *= o.groups[i];
  }
  std::string s = "  groups      " + dims_text(o.groups) + ": " + dims_text(count) + " = " + std::to_string(ngroups) +
                  (ngroups == 1 ? " group of " : " groups of ") + std::to_string(volume) + " elements\n";
  if (volume > (dim{1} << 22)) return s + "              (groups too large to follow in memory)\n";
  const dim followed = ngroups * volume <= (dim{1} << 22) ? ngroups : 1;
  dim runs_lo = volume, runs_hi = 0, len_lo = volume, len_hi = 0;
  std::vector<dim> offsets;
  for (dim g = 0; g < followed; ++g) {
    dims first = dims::filled(n, 0);
    dim rest = g;  // row-major over the groups' counts
    for (int i = n - 1; i >= 0; --i) {
      first[i] = rest % count[i] * o.groups[i];
      rest /= count[i];
    }
    offsets.clear();
    for (dims index = first;;) {
      offsets.push_back(d.offset(index));
      int k = n - 1;
      for (; k >= 0; --k) {
        if (++index[k] < first[k] + o.groups[k]) break;
        index[k] = first[k];
      }
      if (k < 0) break;
    }
    std::sort(offsets.begin(), offsets.end());
    dim runs = 0, len = 0;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      ++len;
      if (k + 1 < offsets.size() && offsets[k + 1] == offsets[k] + 1) continue;
      ++runs;
      len_lo = std::min(len_lo, len);
      len_hi = std::max(len_hi, len);
      len = 0;
    }
    runs_lo = std::min(runs_lo, runs);
    runs_hi = std::max(runs_hi, runs);
  }
  return s + "              " + (followed == ngroups ? "each group" : "the first group") + " in memory: " +
         span_text(runs_lo, runs_hi) + (runs_hi == 1 ? " run" : " runs") + " of " + span_text(len_lo, len_hi) +
         " consecutive elements\n";
}

/// Where group boundaries are drawn along dim `i`: every group's size, or 0 (none) without
/// groups or with groups of 1, where every index would be a boundary.
dim boundary_step(const describe_options& o, int i) { return o.groups.empty() || o.groups[i] == 1 ? 0 : o.groups[i]; }

/// memfmt::offset_grid with a '|' and a line of '-' where a group ends (its cells are
/// right-aligned in equal widths, `cols` to a line).
std::string text_grid(const memfmt::desc& d, const describe_options& o) {
  const dim cols = std::min(d.get_dims()[o.col_dim], o.max_cols > 0 ? o.max_cols : 20);
  const std::string grid =
      memfmt::offset_grid(d, o.row_dim, o.col_dim, o.at, o.max_rows > 0 ? o.max_rows : 8, cols);
  const dim row_group = boundary_step(o, o.row_dim), col_group = boundary_step(o, o.col_dim);
  if (row_group == 0 && col_group == 0) return grid;
  std::string s;
  dim r = 0;
  for (const std::string& line : split(grid, '\n')) {
    if (line.empty()) continue;
    const std::size_t cell = line.size() / static_cast<std::size_t>(cols);
    std::string marked;
    for (dim c = 0; c < cols; ++c) {
      if (col_group > 0 && c > 0 && c % col_group == 0) marked += " |";
      marked += line.substr(static_cast<std::size_t>(c) * cell, cell);
    }
    if (row_group > 0 && r > 0 && r % row_group == 0) s += std::string(marked.size(), '-') + "\n";
    s += marked + "\n";
    ++r;
  }
  return s;
}

std::string xml(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '<') r += "&lt;";
    else if (c == '>') r += "&gt;";
    else if (c == '&') r += "&amp;";
    else if (c == '"') r += "&quot;";
    else r += c;
  }
  return r;
}

/// The SVG picture: a cell per element of (row dim, col dim) at the other dims' `at`,
/// coloured by the block it belongs to, labelled with its offset (byte and nibble for
/// 4-bit types); padding in grey, group boundaries dashed red.
std::string layout_svg(const memfmt::desc& d, const describe_options& o, const std::vector<std::string>& names,
                       int* cells_drawn) {
  const dims logical = d.get_dims(), padded = d.get_padded_dims();
  const int r_dim = o.row_dim, c_dim = o.col_dim;
  const dim max_r = o.max_rows > 0 ? o.max_rows : 48, max_c = o.max_cols > 0 ? o.max_cols : 48;
  const dim rows = std::min(padded[r_dim], max_r), cols = r_dim == c_dim ? 1 : std::min(padded[c_dim], max_c);
  const dim r_block = d.get_blocks()[r_dim], c_block = r_dim == c_dim ? 1 : d.get_blocks()[c_dim];
  const dim r_group = boundary_step(o, r_dim), c_group = r_dim == c_dim ? 0 : boundary_step(o, c_dim);
  const bool nibbles = memfmt::is_sub_byte(d.get_data_type());
  std::vector<dim> offsets;
  std::size_t digits = 1;
  dims index = o.at;
  for (dim r = 0; r < rows; ++r)
    for (dim c = 0; c < cols; ++c) {
      index[r_dim] = r;
      if (r_dim != c_dim) index[c_dim] = c;
      offsets.push_back(memfmt::detail::padded_offset(d, index));
      digits = std::max(digits, memfmt::offset_label(d.get_data_type(), offsets.back()).size());
    }
  const int cw = std::max(22, static_cast<int>(digits) * 7 + 6), ch = 18, left = 56, top = o.groups.empty() ? 110 : 126;
  const int width = std::max(left + static_cast<int>(cols) * cw + 20, 640);
  const int height = top + static_cast<int>(rows) * ch + 60;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
    << width << " " << height << "\" font-family=\"monospace\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\" font-family=\"sans-serif\">" << xml(o.tag) << "  "
    << xml(dims_text(logical)) << "  " << memfmt::to_string(d.get_data_type()) << "</text>\n";
  s << "<text x=\"10\" y=\"38\" font-family=\"sans-serif\">" << xml(d.str()) << ", padded dims "
    << xml(dims_text(padded)) << ", strides " << xml(dims_text(d.get_strides(), ',')) << "</text>\n";
  std::string fixed;
  for (int i = 0; i < d.get_ndims(); ++i)
    if (i != r_dim && i != c_dim) fixed += (fixed.empty() ? "" : ", ") + names[static_cast<std::size_t>(i)] + " = " + std::to_string(o.at[i]);
  s << "<text x=\"10\" y=\"56\" font-family=\"sans-serif\" fill=\"#444\">rows: " << xml(names[static_cast<std::size_t>(r_dim)])
    << ", columns: " << xml(names[static_cast<std::size_t>(c_dim)]) << (fixed.empty() ? "" : "; at " + xml(fixed))
    << "</text>\n";
  s << "<text x=\"10\" y=\"72\" font-family=\"sans-serif\" fill=\"#444\">"
    << (nibbles ? "number = byte offset, l/h = its low/high nibble" : "number = offset in elements") << "; colour = block ("
    << xml(names[static_cast<std::size_t>(r_dim)]) << " / " << r_block << ", " << xml(names[static_cast<std::size_t>(c_dim)])
    << " / " << c_block << "); grey = padding</text>\n";
  if (!o.groups.empty())
    s << "<text x=\"10\" y=\"88\" font-family=\"sans-serif\" fill=\"#c0392b\">dashed red = group boundaries (groups "
      << xml(dims_text(o.groups)) << ")</text>\n";
  // column and row headers
  for (dim c = 0; c < cols; ++c)
    s << "<text x=\"" << left + c * cw + cw / 2 << "\" y=\"" << top - 6 << "\" text-anchor=\"middle\" fill=\"#666\">"
      << c << "</text>\n";
  s << "<text x=\"" << left << "\" y=\"" << top - 22 << "\" fill=\"#666\" font-family=\"sans-serif\">"
    << xml(names[static_cast<std::size_t>(c_dim)]) << " &#8594;</text>\n";
  s << "<text x=\"8\" y=\"" << top - 6 << "\" fill=\"#666\" font-family=\"sans-serif\">"
    << xml(names[static_cast<std::size_t>(r_dim)]) << " &#8595;</text>\n";
  for (dim r = 0; r < rows; ++r)
    s << "<text x=\"" << left - 6 << "\" y=\"" << top + r * ch + 13 << "\" text-anchor=\"end\" fill=\"#666\">" << r
      << "</text>\n";
  int drawn = 0;
  for (dim r = 0; r < rows; ++r)
    for (dim c = 0; c < cols; ++c) {
      const bool padding = r >= logical[r_dim] || (r_dim != c_dim && c >= logical[c_dim]);
      const dim block = (r / r_block) * 7 + (c / c_block) * 3;
      const int hue = static_cast<int>((block * 47) % 360);
      const std::string fill = padding ? "#d9d9d9" : "hsl(" + std::to_string(hue) + ",70%,82%)";
      const int x = left + static_cast<int>(c) * cw, y = top + static_cast<int>(r) * ch;
      const dim offset = offsets[static_cast<std::size_t>(r * cols + c)];
      const std::string label = memfmt::offset_label(d.get_data_type(), offset);
      std::string group;
      if (!o.groups.empty() && !padding)
        group = ", group (" + std::to_string(r / o.groups[r_dim]) +
                (r_dim != c_dim ? ", " + std::to_string(c / o.groups[c_dim]) : "") + ")";
      s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw << "\" height=\"" << ch << "\" fill=\"" << fill
        << "\" stroke=\"white\"><title>" << xml(names[static_cast<std::size_t>(r_dim)]) << "=" << r << " "
        << xml(names[static_cast<std::size_t>(c_dim)]) << "=" << c << ": offset " << offset
        << (nibbles ? " (byte " + std::to_string(offset / 2) + (offset % 2 ? ", high nibble)" : ", low nibble)") : "")
        << group << (padding ? " (padding)" : "") << "</title></rect>\n";
      s << "<text x=\"" << x + cw / 2 << "\" y=\"" << y + 13 << "\" text-anchor=\"middle\" fill=\""
        << (padding ? "#888" : "#222") << "\">" << label << "</text>\n";
      ++drawn;
    }
  // block boundaries
  for (dim r = r_block; r < rows; r += r_block)
    s << "<line x1=\"" << left << "\" y1=\"" << top + r * ch << "\" x2=\"" << left + cols * cw << "\" y2=\""
      << top + r * ch << "\" stroke=\"#333\" stroke-width=\"1.5\"/>\n";
  for (dim c = c_block; c < cols; c += c_block)
    s << "<line x1=\"" << left + c * cw << "\" y1=\"" << top << "\" x2=\"" << left + c * cw << "\" y2=\""
      << top + rows * ch << "\" stroke=\"#333\" stroke-width=\"1.5\"/>\n";
  // group boundaries, within the logical dims (groups divide them)
  for (dim r = r_group; r_group > 0 && r < std::min(rows, logical[r_dim]); r += r_group)
    s << "<line x1=\"" << left << "\" y1=\"" << top + r * ch << "\" x2=\"" << left + cols * cw << "\" y2=\""
      << top + r * ch << "\" stroke=\"#c0392b\" stroke-width=\"2.5\" stroke-dasharray=\"6,3\"/>\n";
  for (dim c = c_group; c_group > 0 && c < std::min(cols, logical[c_dim]); c += c_group)
    s << "<line x1=\"" << left + c * cw << "\" y1=\"" << top << "\" x2=\"" << left + c * cw << "\" y2=\""
      << top + rows * ch << "\" stroke=\"#c0392b\" stroke-width=\"2.5\" stroke-dasharray=\"6,3\"/>\n";
  if (rows < padded[r_dim] || (r_dim != c_dim && cols < padded[c_dim]))
    s << "<text x=\"10\" y=\"" << top + rows * ch + 20 << "\" fill=\"#444\" font-family=\"sans-serif\">showing "
      << rows << " of " << padded[r_dim] << " rows and " << cols << " of " << (r_dim == c_dim ? 1 : padded[c_dim])
      << " columns (--grid RxC shows more)</text>\n";
  s << "</svg>\n";
  *cells_drawn = drawn;
  return s.str();
}

void print_describe_help() {
  std::printf(
      "usage: memfmt describe TAG DIMS [options]\n"
      "\n"
      "Describes the layout TAG (a oneDNN tag such as nChw16c or OIhw4i16o4i, or an abstract\n"
      "tag such as aBcd16b) for DIMS (2x17x5x4): the descriptor's numbers, a grid of element\n"
      "offsets over two dims, and the first elements in memory order.\n"
      "\n"
      "  --dt=DT        data type: f32 (default), f64, bf16, f16, f8_e5m2, f8_e4m3, s32, s8,\n"
      "                 u8, s4, u4 (4-bit types show the byte and nibble of each element:\n"
      "                 6l and 6h are the low and high nibble of byte 6)\n"
      "  --rows=D       the dim shown down the grid (index or letter of the tag, e.g. c)\n"
      "  --cols=D       the dim shown across (default: the blocked dims, else channels and\n"
      "                 the innermost dim)\n"
      "  --at=INDEX     the index of the other dims, e.g. 1x0x2x0 (default all 0)\n"
      "  --grid=RxC     at most R rows and C columns (default 8x20 as text, 48x48 in the SVG)\n"
      "  --groups=G     the groups of a grouped scale or zero point, a size per dim, e.g.\n"
      "                 1x128 for one per output channel and 128 input channels of oi:\n"
      "                 how many runs of memory each group spans, and its boundaries in\n"
      "                 the grid (| and -) and the picture (dashed red), except along a\n"
      "                 dim whose group is 1\n"
      "  --svg=FILE     also draw the grid as an SVG picture: cells coloured by block,\n"
      "                 labelled with their offset, padding greyed\n");
}

/// A dim named by index ("1") or by the tag's letter ("c").
int parse_dim_ref(const std::string& text, const std::vector<std::string>& names, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<int>(i);
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    const long long v = parse_int(text, what);
    if (v < static_cast<long long>(names.size())) return static_cast<int>(v);
  }
  std::string known;
  for (std::size_t i = 0; i < names.size(); ++i) known += (i ? ", " : "") + names[i] + " (" + std::to_string(i) + ")";
  throw usage_error(std::string(what) + ": '" + text + "' is not a dim of this layout (dims: " + known + ")");
}

}  // namespace

int describe_main(const std::vector<std::string>& args) {
  describe_options o;
  std::vector<std::string> positional;
  std::string rows_text, cols_text, at_text;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    const bool option = a.size() > 2 && a.rfind("--", 0) == 0;
    if (!option) {
      positional.push_back(a);
      continue;
    }
    const std::size_t eq = a.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    const auto take = [&]() {
      if (has_value) return value;
      if (i + 1 >= args.size()) throw usage_error("option " + a + " needs a value");
      return args[++i];
    };
    if (a == "--help") {
      print_describe_help();
      return 0;
    } else if (a == "--dt") {
      o.dt = parse_data_type(take(), "--dt");
    } else if (a == "--rows") {
      rows_text = take();
    } else if (a == "--cols") {
      cols_text = take();
    } else if (a == "--at") {
      at_text = take();
    } else if (a == "--grid") {
      const dims g = parse_dims(take(), "--grid");
      if (g.size() != 2 || g[0] == 0 || g[1] == 0) throw usage_error("--grid: write it as RxC, e.g. 16x32");
      o.max_rows = g[0];
      o.max_cols = g[1];
    } else if (a == "--groups") {
      o.groups = parse_dims(take(), "--groups");
    } else if (a == "--svg") {
      o.svg = take();
      if (o.svg.empty()) throw usage_error("--svg needs a file name");
    } else {
      throw usage_error("describe: unknown option '" + a + "' (see memfmt describe --help)");
    }
  }
  if (positional.size() != 2)
    throw usage_error("describe: expected TAG and DIMS, e.g. 'memfmt describe nChw16c 2x17x5x4'; got " +
                      std::to_string(positional.size()) + " argument(s)");
  o.tag = positional[0];
  o.shape = parse_dims(positional[1]);
  const memfmt::desc d(o.shape, o.dt, o.tag);  // memfmt::error names a bad tag or dims
  const int n = d.get_ndims();
  const std::vector<std::string> names = dim_names(o.tag, n);
  if (!rows_text.empty()) o.row_dim = parse_dim_ref(rows_text, names, "--rows");
  if (!cols_text.empty()) o.col_dim = parse_dim_ref(cols_text, names, "--cols");
  if (o.row_dim >= 0 && o.row_dim == o.col_dim) throw usage_error("--rows and --cols name the same dim");
  o.at = at_text.empty() ? dims::filled(n, 0) : parse_dims(at_text, "--at");
  if (o.at.size() != n)
    throw usage_error("--at: " + std::to_string(o.at.size()) + " indices for " + std::to_string(n) + " dims");
  for (int i = 0; i < n; ++i)
    if (o.at[i] >= o.shape[i] && o.shape[i] != 0)  // (a dim of 0: no elements to describe)
      throw usage_error("--at: index " + std::to_string(o.at[i]) + " of dim " + names[static_cast<std::size_t>(i)] +
                        " is outside [0, " + std::to_string(o.shape[i]) + ")");
  if (!o.groups.empty() && o.groups.size() != n)
    throw usage_error("--groups: " + std::to_string(o.groups.size()) + " sizes for " + std::to_string(n) + " dims");
  for (int i = 0; i < o.groups.size(); ++i)
    if (o.groups[i] == 0 || o.shape[i] % o.groups[i] != 0)
      throw usage_error("--groups: a group of " + std::to_string(o.groups[i]) + " does not divide dim " +
                        names[static_cast<std::size_t>(i)] + " (" + std::to_string(o.shape[i]) + ")");
  choose_dims(d, o);

  std::string dims_line;
  for (std::size_t i = 0; i < names.size(); ++i) dims_line += (i ? " " : "") + names[i];
  std::printf("%s %s %s  (dims %s)\n", o.tag.c_str(), dims_text(o.shape).c_str(),
              std::string(memfmt::to_string(o.dt)).c_str(), dims_line.c_str());
  std::printf("%s", memfmt::describe(d).c_str());
  const std::string element =
      memfmt::is_sub_byte(o.dt) ? "4 bits" : std::to_string(memfmt::data_type_size(o.dt)) + " bytes";
  std::printf("  element     %s; %lld elements, %lld with padding\n", element.c_str(),
              static_cast<long long>(o.shape.product()), static_cast<long long>(d.get_padded_dims().product()));
  if (d.has_zero_dim()) {
    std::printf("\n(a dim is 0: no elements)\n");
    return 0;
  }
  if (!o.groups.empty()) std::printf("%s", group_summary(d, o).c_str());
  if (n >= 2) {
    std::string at = "(";
    for (int i = 0; i < n; ++i)
      at += (i ? ", " : "") + (i == o.row_dim || i == o.col_dim ? names[static_cast<std::size_t>(i)] : std::to_string(o.at[i]));
    at += ")";
    std::printf("\noffsets of %s, %s down, %s across%s:\n", at.c_str(), names[static_cast<std::size_t>(o.row_dim)].c_str(),
                names[static_cast<std::size_t>(o.col_dim)].c_str(),
                o.groups.empty() ? "" : " (| and - mark where a group ends)");
    std::printf("%s", text_grid(d, o).c_str());
  }
  std::printf("\nthe first elements in memory:\n%s", memory_order(d, 24, names).c_str());

  if (!o.svg.empty()) {
    if (n < 2) {
      o.row_dim = 0;
      o.col_dim = 0;
    }
    int cells = 0;
    const std::string picture = layout_svg(d, o, names, &cells);
    std::ofstream f(o.svg, std::ios::binary);
    f << picture;
    f.close();
    if (!f) throw usage_error("--svg: cannot write '" + o.svg + "'");
    std::printf("\nwrote %s: %d cells, %s down, %s across\n", o.svg.c_str(), cells,
                names[static_cast<std::size_t>(o.row_dim)].c_str(), names[static_cast<std::size_t>(o.col_dim)].c_str());
  }
  return 0;
}

}  // namespace memfmt_tool
