#pragma once
// Helpers for the kernel tests: random loop nests of every kind, the scalar
// reference run of a nest, and a loop over every SIMD target of this CPU.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <memfmt/reorder/kernel/run.hpp>
#include <memfmt/reorder/lower.hpp>
#include <memfmt/reorder/plan_str.hpp>

namespace memfmt_test {

using memfmt::data_type;
using memfmt::dim;
using memfmt::detail::conversion;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::nest;

/// The types kernels move: all but s4 and u4, which a reorder unpacks to bytes first.
inline constexpr data_type all_types[] = {data_type::f32,     data_type::bf16,    data_type::f16,
                                          data_type::s32,     data_type::s8,      data_type::u8,
                                          data_type::f8_e5m2, data_type::f8_e4m3, data_type::f64};
static_assert(std::size(all_types) + 2 == std::size(memfmt::all_data_types), "a new data type: do kernels move it?");

inline bool is_float(data_type dt) { return memfmt::is_floating_point(dt); }

/// A nest with its buffers: what a kernel reads and the dst it starts from.
struct test_case {
  nest n;
  std::vector<std::byte> src;
  std::vector<std::byte> dst_init;
  std::vector<float> scales;
  std::vector<std::int32_t> gather_src, gather_scale;  ///< the gather kind's tables
  /// Where in a cache line the source and the destination start, in bytes; -1: 0, 16,
  /// 32 or 48 by the case's place in its test (check_cases).
  dim src_line_offset = -1, dst_line_offset = -1;

  std::string describe() const {
    std::ostringstream os;
    os << memfmt::detail::kernel_name(n.kind) << ' ' << memfmt::to_string(n.cvt.src) << "->" << memfmt::to_string(n.cvt.dst)
       << " alpha=" << n.cvt.alpha << " scales=" << (n.cvt.scales != nullptr) << " beta=" << n.cvt.beta
       << " zp=" << n.cvt.src_zero_point << '/' << n.cvt.dst_zero_point << " stream=" << n.stream_stores
       << " line offsets=" << src_line_offset << '/' << dst_line_offset << " loops:";
    for (int k = 0; k < n.nloops; ++k) {
      const loop& l = n.loops[k];
      os << " {" << l.extent << ' ' << l.src_stride << ' ' << l.dst_stride << ' ' << l.scale_stride << '}';
    }
    return os.str();
  }
};

/// Calls f(src_offset, dst_offset, scale_offset) for every element of `n`, in order.
template <class F>
void for_each_element(const nest& n, F&& f) {
  std::vector<dim> idx(static_cast<std::size_t>(std::max(n.nloops, 0)), 0);
  for (int k = 0; k < n.nloops; ++k)
    if (n.loops[k].extent <= 0) return;
  while (true) {
    dim s = 0, d = 0, sc = 0;
    for (int k = 0; k < n.nloops; ++k) {
      s += idx[k] * n.loops[k].src_stride;
      d += idx[k] * n.loops[k].dst_stride;
      sc += idx[k] * n.loops[k].scale_stride;
    }
    f(s, d, sc);
    int k = n.nloops - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < n.loops[k].extent) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/// The scalar reference of a whole nest: convert_element on every element.
inline void run_reference(const nest& n, const void* src, void* dst) {
  const auto ssz = static_cast<dim>(memfmt::data_type_size(n.cvt.src));
  const auto dsz = static_cast<dim>(memfmt::data_type_size(n.cvt.dst));
  const auto* s = static_cast<const std::byte*>(src);
  auto* d = static_cast<std::byte*>(dst);
  for_each_element(n, [&](dim so, dim dof, dim sco) {
    if (n.kind == kernel_kind::zero_fill) {
      std::memset(d + dof * dsz, 0, static_cast<std::size_t>(dsz));
      return;
    }
    memfmt::detail::convert_element(n.cvt, s + so * ssz, d + dof * dsz,
                                    n.cvt.scales != nullptr ? n.cvt.scales + sco : nullptr);
  });
  // the zeros after each run dense in dst: a copy's rows, a transpose's columns, the
  // runs of a tile's innermost row loop (zero_tail more of its steps: rows of units)
  const int tile_rows = n.nloops - n.owned_loops() + n.tile_row_loops - 1;
  const int run = n.kind == kernel_kind::copy        ? n.nloops - 1
                  : n.kind == kernel_kind::transpose ? n.nloops - 2
                  : n.kind == kernel_kind::tile && n.tile_row_loops > 0 ? tile_rows
                                                                        : -1;
  if (n.zero_tail > 0 && run >= 0) {
    nest starts = n;
    starts.loops[run].extent = 1;
    const dim after = n.loops[run].extent * n.loops[run].dst_stride;
    const dim zeros = n.zero_tail * n.loops[run].dst_stride;
    for_each_element(starts, [&](dim, dim dof, dim) {
      std::memset(d + (dof + after) * dsz, 0, static_cast<std::size_t>(zeros * dsz));
    });
  }
}

/// Runs the kernel on outer iterations [0, outer_count()) in a few random chunks,
/// as threads would.
inline void run_in_chunks(const nest& n, const void* src, void* dst, std::mt19937_64& rng) {
  const dim outer = n.outer_count();
  std::vector<dim> cuts{0, outer};
  const int extra = static_cast<int>(rng() % 3);
  for (int k = 0; k < extra && outer > 0; ++k) cuts.push_back(static_cast<dim>(rng() % static_cast<std::uint64_t>(outer + 1)));
  std::sort(cuts.begin(), cuts.end());
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) memfmt::detail::run_nest(n, src, dst, cuts[k], cuts[k + 1]);
}

/// Random bits, mixed with values that exercise rounding, saturation and specials.
inline void fill_random(std::vector<std::byte>& buf, data_type dt, std::mt19937_64& rng) {
  // (8 bytes per draw: the draws are most of the time of large cases)
  for (std::size_t k = 0; k < buf.size(); k += 8) {
    const std::uint64_t bits = rng();
    std::memcpy(buf.data() + k, &bits, std::min<std::size_t>(8, buf.size() - k));
  }
  const std::size_t size = memfmt::data_type_size(dt);
  if (!is_float(dt) || size == 1) return;  // (random bytes are every value of the 1-byte types)
  const std::size_t count = buf.size() / size;
  static const float specials[] = {0.f,        -0.f,       0.5f,      1.5f,       2.5f,      -0.5f,     -2.5f,
                                   127.5f,     128.f,      -128.5f,   255.5f,     256.f,     -1.f,      65504.f,
                                   65520.f,    65519.f,    1e30f,     -1e30f,     0x1p-24f,  0x1p-25f,  0x1.8p-25f,
                                   0x1p-14f,   2147483520.f, 2147483648.f, -2147483648.f, 3.3895314e38f, 1e-40f};
  for (std::size_t k = 0; k < count; ++k) {
    const auto pick = rng() % 8;
    if (pick >= 5) continue;  // keep random bits
    float v;
    if (pick == 0) {
      v = specials[rng() % std::size(specials)];
    } else if (pick == 1) {
      v = static_cast<float>(static_cast<int>(rng() % 601) - 300) + 0.5f;  // ties
    } else {
      v = std::uniform_real_distribution<float>(-300.f, 300.f)(rng);
    }
    if (dt == data_type::f32) {
      std::memcpy(buf.data() + k * size, &v, size);
    } else if (dt == data_type::f64) {
      // (some with bits below f32's, which a rounding through f32 would lose)
      const double w = static_cast<double>(v) * (pick == 4 ? 1.0 + 0x1p-40 : 1.0);
      std::memcpy(buf.data() + k * size, &w, size);
    } else {
      const std::uint16_t h = dt == data_type::f16 ? memfmt::detail::f32_to_f16_bits(v) : memfmt::detail::f32_to_bf16_bits(v);
      std::memcpy(buf.data() + k * size, &h, size);
    }
  }
}

/// Strides for the loops listed innermost first in `order`: the innermost gets
/// `inner`, each next one the span of the previous times a little padding, so
/// every element has its own offset. Returns the buffer size in elements.
inline dim assign_strides(const std::vector<dim>& extents, const std::vector<int>& order, dim inner,
                          std::mt19937_64& rng, std::vector<dim>& strides) {
  strides.assign(extents.size(), 0);
  dim stride = inner;
  dim max_offset = 0;
  for (int k : order) {
    strides[k] = stride;
    max_offset += (extents[k] - 1) * stride;
    stride = max_offset + 1 + static_cast<dim>(rng() % 3);
  }
  return max_offset + 1;
}

inline dim pick_extent(std::mt19937_64& rng, bool inner) {
  static const dim inner_extents[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 129, 600, 1100};
  static const dim tile_extents[] = {1, 3, 4, 5, 8, 9, 15, 16, 17, 20, 31, 32, 33, 48, 50};
  if (inner) return inner_extents[rng() % std::size(inner_extents)];
  return tile_extents[rng() % std::size(tile_extents)];
}

/// Gives a case its buffers of the nest's types: a random source (none for a zero
/// fill), a random destination to start from, and random scales.
inline void fill_buffers(test_case& tc, dim src_elems, dim dst_elems, dim scale_elems, std::mt19937_64& rng) {
  const data_type S = tc.n.cvt.src, D = tc.n.cvt.dst;
  if (tc.n.kind != kernel_kind::zero_fill) {
    tc.src.resize(static_cast<std::size_t>(src_elems) * memfmt::data_type_size(S));
    fill_random(tc.src, S, rng);
  }
  tc.dst_init.resize(static_cast<std::size_t>(dst_elems) * memfmt::data_type_size(D));
  fill_random(tc.dst_init, D, rng);
  if (scale_elems > 0) {
    tc.scales.resize(static_cast<std::size_t>(scale_elems));
    for (float& s : tc.scales) s = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
    if (rng() % 4 == 0) tc.scales[0] = 1.f;
  }
}

/// A random nest of `kind` converting S -> D, with buffers.
/// @pre kind != interleave (make_interleave_case builds those)
inline test_case make_case(kernel_kind kind, data_type S, data_type D, std::mt19937_64& rng) {
  test_case tc;
  nest& n = tc.n;
  n.kind = kind;
  const int owned = kind == kernel_kind::transpose ? 2 : kind == kernel_kind::gather ? 1 + static_cast<int>(rng() % 3) : 1;
  const int nouter = static_cast<int>(rng() % 3);
  n.nloops = owned + nouter;
  std::vector<dim> extents(static_cast<std::size_t>(n.nloops));
  for (int k = 0; k < nouter; ++k) extents[k] = 1 + static_cast<dim>(rng() % 3);
  if (kind == kernel_kind::transpose) {
    extents[n.nloops - 2] = pick_extent(rng, false);
    extents[n.nloops - 1] = pick_extent(rng, false);
  } else if (kind == kernel_kind::gather) {
    for (int k = nouter; k < n.nloops; ++k) extents[k] = pick_extent(rng, false);
  } else {
    extents[n.nloops - 1] = pick_extent(rng, true);
  }

  // Orders of the loops in each buffer, innermost first.
  std::vector<int> src_order(static_cast<std::size_t>(n.nloops)), dst_order(src_order.size());
  std::iota(src_order.begin(), src_order.end(), 0);
  std::shuffle(src_order.begin(), src_order.end(), rng);
  dst_order = src_order;
  std::shuffle(dst_order.begin(), dst_order.end(), rng);
  auto put_first = [](std::vector<int>& order, int loop_index) {
    std::erase(order, loop_index);
    order.insert(order.begin(), loop_index);
  };
  dim src_inner = 1, dst_inner = 1;
  switch (kind) {
    case kernel_kind::copy:
      put_first(src_order, n.nloops - 1);
      put_first(dst_order, n.nloops - 1);
      break;
    case kernel_kind::transpose:
      put_first(src_order, n.nloops - 1);
      put_first(dst_order, n.nloops - 2);
      break;
    case kernel_kind::gather:  // the block is row-major and dense in dst
      for (int k = nouter; k < n.nloops; ++k) put_first(dst_order, k);
      break;
    case kernel_kind::interleave:  // its blocks have a fixed shape: make_interleave_case
    case kernel_kind::tile:        // planned by use_tiles: reorder_test, reorder.pass.tiles
      std::abort();
    case kernel_kind::strided:
    case kernel_kind::zero_fill:
      src_inner = 1 + static_cast<dim>(rng() % 3);
      dst_inner = 1 + static_cast<dim>(rng() % 3);
      break;
  }
  std::vector<dim> src_strides, dst_strides, scale_strides(extents.size(), 0);
  const dim src_elems = assign_strides(extents, src_order, src_inner, rng, src_strides);
  dim dst_elems = assign_strides(extents, dst_order, dst_inner, rng, dst_strides);
  if (kind == kernel_kind::gather) {  // no gaps in dst
    dim stride = 1;
    for (int k : dst_order) {
      dst_strides[k] = stride;
      stride *= extents[k];
    }
    dst_elems = stride;
  }

  // The conversion.
  conversion& c = n.cvt;
  c.src = S;
  c.dst = D;
  const bool plain = S == D && rng() % 3 == 0;
  dim scale_elems = 0;
  if (!plain && kind != kernel_kind::zero_fill) {
    static const float alphas[] = {1.f, 1.f, 0.37f, 3.1f, -2.f, 1e-3f, 255.f / 7.f};
    static const float betas[] = {0.f, 0.f, 0.f, 0.5f, -1.25f};
    static const std::int32_t zps[] = {0, 0, 0, 3, -7, 128, 1000, 16777217};
    c.alpha = alphas[rng() % std::size(alphas)];
    c.beta = betas[rng() % std::size(betas)];
    c.src_zero_point = zps[rng() % std::size(zps)];
    c.dst_zero_point = zps[rng() % std::size(zps)];
    switch (rng() % 6) {
      case 0:  // one scale
        scale_elems = 1;
        break;
      case 1: {  // per entry of one loop, e.g. per channel
        const auto k = static_cast<std::size_t>(rng() % extents.size());
        scale_strides[k] = 1;
        scale_elems = extents[k];
        break;
      }
      case 2: {  // per element, in some order and odd strides
        std::vector<int> order = src_order;  // every loop once
        std::shuffle(order.begin(), order.end(), rng);
        scale_elems = assign_strides(extents, order, 1 + static_cast<dim>(rng() % 3), rng, scale_strides);
        break;
      }
      default:  // no scales
        break;
    }
    if (S == D && scale_elems == 0 && c.alpha == 1.f && c.beta == 0.f && c.src_zero_point == 0 &&
        c.dst_zero_point == 0) {
      c.alpha = 0.5f;  // keep it a conversion: plain copies are drawn above
    }
  }
  for (int k = 0; k < n.nloops; ++k) {
    n.loops[k] = loop{extents[k], src_strides[k], dst_strides[k], scale_strides[k]};
  }
  if (n.nloops > 2 && rng() % 8 == 0) n.loops[0].extent = 0;  // an empty nest now and then
  if (kind == kernel_kind::zero_fill) {
    c.src = memfmt::data_type::undef;
    for (int k = 0; k < n.nloops; ++k) n.loops[k].src_stride = 0;
  }
  n.stream_stores = rng() % 4 == 0;
  if (kind == kernel_kind::gather) {
    n.gather_loops = owned;
    memfmt::detail::gather_tables(n, tc.gather_src, tc.gather_scale);
  }

  fill_buffers(tc, src_elems, dst_elems, scale_elems, rng);
  return tc;
}

/// Points the nest at the case's own scale buffer (after copies/moves).
inline nest bind(const test_case& tc) {
  nest n = tc.n;
  if (!tc.scales.empty()) n.cvt.scales = tc.scales.data();
  if (n.kind == kernel_kind::gather) {
    n.gather_src = tc.gather_src.data();
    n.gather_scale = tc.gather_scale.empty() ? nullptr : tc.gather_scale.data();
  }
  return n;
}

/// Every Highway target this CPU supports and this translation unit compiled,
/// with the mock reset afterwards. Calls f(hwy_target).
inline void for_each_target(const std::function<void(std::int64_t)>& f) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    f(target);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace memfmt_test
