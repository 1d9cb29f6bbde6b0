#pragma once
/// @file
/// The definitions of `memfmt::reorder`'s planning and execution (reorder.hpp
/// declares them). Header-only, every translation unit that includes reorder.hpp
/// compiles them. With MEMFMT_KERNELS_EXTERN, only the unit that also defines
/// MEMFMT_KERNELS_IMPLEMENTATION does (with the kernels, if it includes reorder.hpp or
/// memfmt.hpp), or the unit that defines MEMFMT_REORDER_IMPLEMENTATION (the planning
/// alone: a program may compile it and the kernels in two units, side by side).
/// MEMFMT_REORDER_COMPILED says that this unit defines them.

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfmt/core/error.hpp"
#include "memfmt/core/nibbles.hpp"
#include "memfmt/reorder/cache.hpp"
#include "memfmt/reorder/cpu.hpp"
#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/run.hpp"
#include "memfmt/reorder/lower.hpp"
#include "memfmt/reorder/plan_str.hpp"
#include "memfmt/reorder/pass/nest_passes.hpp"
#include "memfmt/reorder/reorder.hpp"

#if !defined(MEMFMT_KERNELS_EXTERN) || defined(MEMFMT_KERNELS_IMPLEMENTATION) || \
    defined(MEMFMT_REORDER_IMPLEMENTATION)

#define MEMFMT_REORDER_COMPILED 1
#if defined(MEMFMT_KERNELS_EXTERN)
#define MEMFMT_REORDER_API
#else
#define MEMFMT_REORDER_API inline
#endif

namespace memfmt {

MEMFMT_REORDER_API void reorder::execute(const void* src, void* dst, const parallel_for_fn& parallel_for) const {
  if (src_.has_zero_dim()) return;
  if (src == nullptr || dst == nullptr)
    detail::fail("reorder::execute: null ", src == nullptr ? "source" : "destination", " pointer");
  if (bytes_ != nullptr) {
    execute_unpacked(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst), parallel_for);
    return;
  }
  const auto* s = static_cast<const unsigned char*>(src) + src_.get_submemory_offset() * src_size_;
  auto* d = static_cast<unsigned char*>(dst) + dst_.get_submemory_offset() * dst_size_;
  if (elementwise_) {
    run_elementwise(static_cast<const unsigned char*>(src), static_cast<unsigned char*>(dst));
  } else {
    const std::vector<detail::placed_nest>& nests = plan_.nests;
    for (std::size_t first = 0; first < nests.size();) {
      // a nest and the nests fused with it (placed_nest::fused_loops)
      std::size_t end = first + 1;
      while (end < nests.size() && nests[end].fused_loops != 0 && end - first < max_fused) ++end;
      std::array<ready_nest, max_fused> group;
      for (std::size_t k = first; k < end; ++k) group[k - first] = ready(nests[k], s, d);
      const std::size_t count = end - first;
      // a fused group goes tile by tile: each shared iteration runs every nest's share of it
      const dim shared = count == 1 ? group[0].count : shared_iterations(*group[1].loops, nests[first + 1].fused_loops);
      first = end;
      const bool staged = nests[end - 1].staged != detail::stage::none;
      const auto run = [&](dim begin, dim stop) { run_group(group, count, staged, shared, begin, stop); };
      if (shared <= 1 || parallel_for == nullptr || serial_) {
        run(0, shared);
      } else {
        parallel_for(shared, run);
      }
    }
  }
  write_compensation(static_cast<unsigned char*>(dst));
}

MEMFMT_REORDER_API std::string reorder::plan_str() const {
  if (bytes_ != nullptr) {
    std::string r;
    for (const auto& [side, d] : {std::pair{&src_side_, &src_}, std::pair{&dst_side_, &dst_}})
      if (side->packed)
        r += std::string(d == &src_ ? "unpack source " : "pack destination ") + std::string(to_string(d->get_data_type())) +
             (d == &src_ ? " to " : " from ") + (side->is_signed ? "s8" : "u8") + " (" + std::to_string(side->span) +
             " elements" + (side->read_back ? ", old values read first" : "") +
             (chunks_.count != 0
                  ? ", " + std::to_string(chunks_.chunks()) + " regions of up to " + std::to_string(chunks_.region())
                  : std::string()) +
             ")\n";
    return r + bytes_->plan_str();
  }
  if (!elementwise_) return detail::plan_str(plan_.nests);
  return std::string("element-wise (") + elementwise_why_ + ")\n";
}

MEMFMT_REORDER_API reorder::ready_nest reorder::ready(const detail::placed_nest& p, const unsigned char* s, unsigned char* d) const {
  // (offsets count the units the nest's elements move as: pass/split.hpp)
  return ready_nest{&p.loops, s + p.src_base * (src_size_ / p.parts), d + p.dst_base * (dst_size_ / p.parts),
                    p.loops.outer_count()};
}

MEMFMT_REORDER_API void reorder::run_ready(const ready_nest& r, dim begin, dim end) const {
  if (integer_zero_points_ && r.loops->kind != detail::kernel_kind::zero_fill) {
    run_integer_nest(*r.loops, r.src, r.dst, begin, end);
  } else {
    detail::run_nest(*r.loops, r.src, r.dst, begin, end);
  }
}

MEMFMT_REORDER_API void reorder::run_group(const std::array<ready_nest, max_fused>& group, std::size_t size,
                                             bool staged, dim shared, dim begin, dim end) const {
  if (size == 1) {
    run_ready(group[0], begin, end);
    return;
  }
  if (staged) {
    run_staged(group, shared, begin, end);
    return;
  }
  for (dim it = begin; it < end; ++it)
    for (std::size_t k = 0; k < size; ++k) {
      const dim per = group[k].count / shared;
      run_ready(group[k], it * per, (it + 1) * per);
    }
}

MEMFMT_REORDER_API void reorder::run_staged(std::array<ready_nest, max_fused> pair, dim shared, dim begin, dim end) const {
  alignas(64) unsigned char scratch[detail::stage_bytes];
  pair[0].dst = scratch;
  pair[1].src = scratch;
  const dim first = pair[0].count / shared, second = pair[1].count / shared;
  for (dim it = begin; it < end; ++it) {
    run_ready(pair[0], it * first, (it + 1) * first);
    run_ready(pair[1], it * second, (it + 1) * second);
  }
}

MEMFMT_REORDER_API void reorder::plan_unpacked() {
  const auto on_bytes = [](const desc& d, unpacked_side& side) {
    if (!is_sub_byte(d.get_data_type())) return d;
    desc_fields f = d.fields();
    side.packed = true;
    side.is_signed = f.dt == data_type::s4;
    side.offset = f.offset0;
    f.dt = side.is_signed ? data_type::s8 : data_type::u8;
    f.offset0 = 0;
    const desc bytes = desc::from_fields(f);
    // (the last element or padding position is the farthest: outer strides pass their
    // inner blocks)
    dims last = bytes.get_padded_dims();
    bool empty = false;
    for (int k = 0; k < last.size(); ++k) {
      empty = empty || last[k] == 0;
      last[k] -= 1 + bytes.get_padded_offsets()[k];
    }
    side.span = empty ? 0 : detail::padded_offset(bytes, last) + 1;
    return bytes;
  };
  const desc src = on_bytes(src_, src_side_), dst = on_bytes(dst_, dst_side_);
  // the scratch starts as the old destination where the reorder reads it (a sum) or
  // leaves elements between those it writes (strides with gaps)
  dim padded_volume = 1;
  for (dim v : dst_.get_padded_dims()) padded_volume *= v;
  dst_side_.read_back = dst_side_.packed && (attr_.sum_beta != 0.f || dst_side_.span != padded_volume);
  bytes_ = std::make_shared<const reorder>(src, dst, attr_);
  serial_ = src_.get_size() + dst_.get_size() < serial_bytes;
  // one side packed and one group of nests: a chunk at a time
  const std::vector<detail::placed_nest>& nests = bytes_->plan_.nests;
  const bool one_group = nests.size() == 1 || (nests.size() == 2 && nests[1].fused_loops != 0);
  if (src_side_.packed != dst_side_.packed && !bytes_->elementwise_ && one_group) {
    const unpacked_side& side = dst_side_.packed ? dst_side_ : src_side_;
    chunks_ = detail::find_chunks(nests.data(), nests.size(), dst_side_.packed, side.span, packed_chunk,
                                  dst_side_.packed && !dst_side_.read_back, 16 * packed_chunk);
  }
}

MEMFMT_REORDER_API void reorder::execute_unpacked(const unsigned char* src, unsigned char* dst, const parallel_for_fn& parallel_for) const {
  if (chunks_.count != 0) {
    execute_chunks(src, dst, parallel_for);
    return;
  }
  // (unpacking and packing go by pieces of whole bytes, on the reorder's threads)
  const auto by_pieces = [&](dim count, const auto& body) {
    constexpr dim piece = dim{1} << 16;  // elements (even: pieces start on bytes)
    const dim pieces = (count + piece - 1) / piece;
    if (pieces <= 1 || parallel_for == nullptr || serial_) return body(0, count);
    parallel_for(pieces, [&](dim begin, dim end) { body(begin * piece, std::min(end * piece, count)); });
  };
  const auto unpack = [&by_pieces](const unpacked_side& side, const unsigned char* packed, unsigned char* bytes) {
    by_pieces(side.span, [&](dim begin, dim end) {
      detail::unpack_nibbles(packed, side.offset + begin, end - begin, side.is_signed, bytes + begin);
    });
  };
  std::unique_ptr<unsigned char[]> src_bytes, dst_bytes;
  if (src_side_.packed) {
    src_bytes = std::make_unique_for_overwrite<unsigned char[]>(static_cast<std::size_t>(src_side_.span));
    unpack(src_side_, src, src_bytes.get());
  }
  if (dst_side_.packed) {
    dst_bytes = std::make_unique_for_overwrite<unsigned char[]>(static_cast<std::size_t>(dst_side_.span));
    if (dst_side_.read_back) unpack(dst_side_, dst, dst_bytes.get());
  }
  bytes_->execute(src_side_.packed ? src_bytes.get() : src, dst_side_.packed ? dst_bytes.get() : dst, parallel_for);
  if (dst_side_.packed)
    by_pieces(dst_side_.span, [&](dim begin, dim end) {
      detail::pack_nibbles(dst_bytes.get() + begin, end - begin, dst_side_.is_signed, dst, dst_side_.offset + begin);
    });
}

MEMFMT_REORDER_API void reorder::execute_chunks(const unsigned char* src, unsigned char* dst,
                                                 const parallel_for_fn& parallel_for) const {
  const bool on_dst = dst_side_.packed;
  const unpacked_side& side = on_dst ? dst_side_ : src_side_;
  const detail::side_chunks& c = chunks_;
  const std::vector<detail::placed_nest>& nests = bytes_->plan_.nests;
  const std::size_t size = nests.size();
  const bool staged = nests[size - 1].staged != detail::stage::none;
  // the unpacked side's data (the packed side's offset is side.offset)
  const unsigned char* s = src + bytes_->src_.get_submemory_offset() * bytes_->src_size_;
  unsigned char* d = dst + bytes_->dst_.get_submemory_offset() * bytes_->dst_size_;
  const auto body = [&](dim begin, dim end) {
    const auto scratch = std::make_unique_for_overwrite<unsigned char[]>(static_cast<std::size_t>(c.region()));
    for (dim q = begin; q < end; ++q) {
      const detail::chunk k = detail::chunk_at(c, q);
      // the group's nests cut to the chunk, the packed side in the scratch
      std::array<detail::nest, max_fused> cut;
      std::array<ready_nest, max_fused> group;
      for (std::size_t j = 0; j < size; ++j) {
        const detail::placed_nest& p = nests[j];
        cut[j] = p.loops;
        dim src_at = p.src_base, dst_at = p.dst_base, scale_at = 0;  // (units of the nest: pass/split.hpp)
        detail::cut_to_chunk(c, k, cut[j], src_at, dst_at, scale_at);
        if (cut[j].cvt.scales != nullptr) cut[j].cvt.scales += scale_at;
        // (a stage's side is set by run_staged; the packed side is the scratch, whose
        // offsets are the region's)
        const bool packed = detail::reaches_side(p, on_dst);
        const void* from = packed && !on_dst ? scratch.get() : s + src_at * (bytes_->src_size_ / p.parts);
        void* to = packed && on_dst ? scratch.get() : d + dst_at * (bytes_->dst_size_ / p.parts);
        if (packed && on_dst) cut[j].stream_stores = false;  // (the scratch is read right after)
        group[j] = ready_nest{&cut[j], from, to, cut[j].outer_count()};
      }
      if (!on_dst || side.read_back)
        detail::unpack_nibbles(on_dst ? dst : src, side.offset + k.region, k.elements, side.is_signed, scratch.get());
      const dim shared = size == 1 ? group[0].count : shared_iterations(cut[1], nests[1].fused_loops);
      bytes_->run_group(group, size, staged, shared, 0, shared);
      if (on_dst) detail::pack_nibbles(scratch.get(), k.elements, side.is_signed, dst, side.offset + k.region);
    }
  };
  const dim chunks = c.chunks();
  if (chunks <= 1 || parallel_for == nullptr || serial_) {
    body(0, chunks);
  } else {
    parallel_for(chunks, body);
  }
  // (the s8 or u8 destination's compensation, which bytes_->execute writes after its nests)
  if (!on_dst) bytes_->write_compensation(dst);
}

MEMFMT_REORDER_API dim reorder::shared_iterations(const detail::nest& n, int loops) {
  dim count = 1;
  for (int k = 0; k < loops; ++k) count *= n.loops[k].extent;
  return count;
}

MEMFMT_REORDER_API void reorder::check_descs() const {
  for (const desc* x : {&src_, &dst_})
    if (x->get_format_kind() != format_kind::blocked)
      detail::fail("reorder: the ", x == &src_ ? "source" : "destination", " descriptor is ",
                   x->get_format_kind() == format_kind::any ? "format_kind::any (select a layout first)" : "the zero descriptor");
  if (!(src_.get_dims() == dst_.get_dims()))
    detail::fail("reorder: source dims and destination dims differ (", src_.str(), " vs ", dst_.str(), ")");
  for (int d = 0; d < dst_.get_ndims(); ++d)
    if (dst_.get_strides()[d] == 0 && dst_.get_padded_dims()[d] > 1)
      detail::fail("reorder: destination dim ", d, " has stride 0: its elements would overlap");
  const bool compensated = (dst_.get_extra().flags & (extra_flags::compensation_conv_s8s8 |
                                                      extra_flags::compensation_conv_asymmetric_src)) != 0;
  // the compensation sums the quantized weights: 8-bit integers
  const data_type ddt = dst_.get_data_type();
  if (compensated && ddt != data_type::s8 && ddt != data_type::u8)
    detail::fail("reorder: the destination asks for compensation, which sums s8 or u8 weights, but holds ",
                 to_string(ddt));
  // the compensation follows the data of a whole buffer; a view has no end to put it at
  if (dst_.get_submemory_offset() != 0 && compensated)
    detail::fail("reorder: the destination asks for compensation but is a view at offset ", dst_.get_submemory_offset(),
                 " (compensation follows the data of a whole tensor)");
  check_layout(attr_.src_scales, "source scales");
  check_layout(attr_.dst_scales, "destination scales");
  check_layout(attr_.src_zero_points, "source zero points");
  check_layout(attr_.dst_zero_points, "destination zero points");
  check_values(attr_.src_scales, "source");
  check_values(attr_.dst_scales, "destination");
  check_values(attr_.src_zero_points, "source");
  check_values(attr_.dst_zero_points, "destination");
  if (attr_.threads < 0) detail::fail("reorder: threads must be >= 0");
}

template <class Q>
MEMFMT_REORDER_API void reorder::check_layout(const Q& q, const char* what) const {
  if (q.empty()) return;
  const int n = src_.get_ndims();
  if (q.mask < 0 || q.mask >= (1 << n)) detail::fail("reorder: ", what, " mask ", q.mask, " names dims beyond ", n);
  const auto masked = static_cast<std::size_t>(std::popcount(static_cast<unsigned>(q.mask)));
  if (!q.groups.empty() && q.groups.size() != masked)
    detail::fail("reorder: ", what, " with mask ", q.mask, " need one group size per masked dim (", masked, "), got ",
                 q.groups.size());
  const dims groups = value_groups(q);
  dim count = 1;
  for (int d = 0; d < n; ++d) {
    if ((q.mask >> d & 1) == 0) continue;
    const dim extent = src_.get_dims()[d];
    if (groups[d] < 1 || extent % groups[d] != 0)
      detail::fail("reorder: ", what, ": the group size ", groups[d], " does not divide dim ", d, " (", extent, ")");
    count *= extent / groups[d];
  }
  if (static_cast<dim>(q.values.size()) != count)
    detail::fail("reorder: ", what, " with mask ", q.mask, " need ", count, " values, got ", q.values.size());
}

MEMFMT_REORDER_API void reorder::check_values(const scales& s, const char* which) {
  for (std::size_t k = 0; k < s.values.size(); ++k) {
    const float v = s.values[k];
    if (v != v || s.type == scale_type::f32) continue;  // (NaN is in every type)
    bool exact = false;
    if (s.type == scale_type::f16) exact = detail::f16_bits_to_f32(detail::f32_to_f16_bits(v)) == v;
    if (s.type == scale_type::bf16) exact = detail::bf16_bits_to_f32(detail::f32_to_bf16_bits(v)) == v;
    if (s.type == scale_type::e8m0) {
      const auto bits = std::bit_cast<std::uint32_t>(v);
      // 2^-127 is the one subnormal power of two; the others have a zero mantissa
      exact = bits == 0x00400000u || ((bits & 0x807FFFFFu) == 0 && bits >= 0x00800000u && bits <= 0x7F000000u);
    }
    if (!exact) {
      char text[32];  // (the shortest decimal that reads back as v)
      const std::string_view shown(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text));
      detail::fail("reorder: ", which, " scale ", k, " (", shown, ") is not exactly ", s.type == scale_type::bf16 ? "a " : "an ", to_string(s.type),
                   ", the type the scales are stored in");
    }
  }
}

MEMFMT_REORDER_API void reorder::check_values(const zero_points& z, const char* which) {
  std::int64_t lo = INT32_MIN, hi = INT32_MAX;
  switch (z.type) {
    case data_type::s32: break;
    case data_type::s8: lo = -128, hi = 127; break;
    case data_type::u8: lo = 0, hi = 255; break;
    case data_type::s4: lo = -8, hi = 7; break;
    case data_type::u4: lo = 0, hi = 15; break;
    default:
      detail::fail("reorder: ", which, " zero points of type ", to_string(z.type),
                   ": zero points are s32, s8, u8, s4 or u4");
  }
  for (std::size_t k = 0; k < z.values.size(); ++k)
    if (z.values[k] < lo || z.values[k] > hi)
      detail::fail("reorder: ", which, " zero point ", k, " (", z.values[k], ") is outside ", to_string(z.type), " [",
                   lo, ", ", hi, "]");
}

template <class Q>
MEMFMT_REORDER_API dims reorder::value_groups(const Q& q) const {
  const int n = src_.get_ndims();
  dims groups = dims::filled(n, 1);
  std::size_t k = 0;
  for (int d = 0; d < n && !q.groups.empty() && !q.empty(); ++d)  // (an empty q's groups go unchecked)
    if ((q.mask >> d & 1) != 0) groups[d] = q.groups[k++];
  return groups;
}

template <class Q>
MEMFMT_REORDER_API dims reorder::value_strides(const Q& q) const {
  return q.empty() ? dims::filled(src_.get_ndims(), 0) : group_strides(q.mask, value_groups(q));
}

MEMFMT_REORDER_API dims reorder::group_strides(int mask, const dims& groups, dim* count) const {
  const int n = src_.get_ndims();
  dims strides = dims::filled(n, 0);
  dim stride = 1;
  for (int d = n - 1; d >= 0; --d)
    if ((mask >> d & 1) != 0) {
      strides[d] = stride;
      stride *= src_.get_dims()[d] / groups[d];
    }
  if (count != nullptr) *count = stride;
  return strides;
}

MEMFMT_REORDER_API detail::conversion reorder::plan_values(value_plan& v) {
  detail::conversion cvt;
  cvt.src = src_.get_data_type();
  cvt.dst = dst_.get_data_type();
  cvt.beta = attr_.sum_beta;
  cvt.src_zero_point = attr_.src_zero_points.common_value();
  cvt.dst_zero_point = attr_.dst_zero_points.common_value();
  const extra_info& extra = dst_.get_extra();
  if ((extra.flags & extra_flags::scale_adjust) != 0) cvt.alpha = extra.scale_adjust;

  // one scale per index of the union of both masks: s_src / s_dst; with zero points per
  // index, the union of all four masks indexes the scales and the zero points
  const bool scaled = !attr_.src_scales.empty() || !attr_.dst_scales.empty();
  const int scales_mask =
      (attr_.src_scales.empty() ? 0 : attr_.src_scales.mask) | (attr_.dst_scales.empty() ? 0 : attr_.dst_scales.mask);
  v.zero_point_tables = per_index(attr_.src_zero_points) || per_index(attr_.dst_zero_points);
  const int zero_points_mask = (per_index(attr_.src_zero_points) ? attr_.src_zero_points.mask : 0) |
                               (per_index(attr_.dst_zero_points) ? attr_.dst_zero_points.mask : 0);
  v.mask = scales_mask | zero_points_mask;
  v.scale_table = scaled && scales_mask != 0;
  if (scaled && scales_mask == 0) {
    const float s = attr_.src_scales.empty() ? 1.f : attr_.src_scales.values[0];
    const float t = attr_.dst_scales.empty() ? 1.f : attr_.dst_scales.values[0];
    cvt.alpha = t == 1.f ? cvt.alpha * s : cvt.alpha * (s / t);
  }
  // the destination scale divides beta * dst too: beta / s_dst, as oneDNN 2.6 computes
  // the sum scale of the same reorder
  v.beta_table = cvt.beta != 0.f && !attr_.dst_scales.empty() && attr_.dst_scales.mask != 0;
  if (cvt.beta != 0.f && !attr_.dst_scales.empty() && attr_.dst_scales.mask == 0) {
    const float t = attr_.dst_scales.values[0];
    if (t != 1.f) cvt.beta = cvt.beta / t;
  }
  // s32 with zero points and nothing else: exact integer arithmetic, as oneDNN does
  // (through f32, s32 values beyond 2^24 would round)
  integer_zero_points_ = is_integral(cvt.src) && is_integral(cvt.dst) &&
                         (cvt.src == data_type::s32 || cvt.dst == data_type::s32) && cvt.alpha == 1.f &&
                         !v.scale_table && cvt.beta == 0.f &&
                         (cvt.src_zero_point != 0 || cvt.dst_zero_point != 0 || v.zero_point_tables);
  // zero points per index run in the kernels as two more tables after the factors
  // (plan_.scales), where no exact integer path, f64 or beta per index asks otherwise
  v.tabled = v.zero_point_tables && !integer_zero_points_ && !cvt.has_f64() && !v.beta_table;
  return cvt;
}

MEMFMT_REORDER_API dims reorder::tabulate(const value_plan& v, detail::conversion& cvt) {
  plan_.scales.clear();
  sum_betas_.clear();
  cvt.zero_point_tables = 0;
  if (v.scale_table) combine_scales(v.mask);
  if (v.beta_table) sum_betas_ = per_index_betas(v.mask);
  if (v.zero_point_tables) tabulate_zero_points(v.mask);
  if (v.tabled) append_zero_point_tables(cvt);
  return group_strides(v.mask, value_groups_);
}

MEMFMT_REORDER_API std::vector<detail::placed_nest> reorder::lower_nests(const value_plan& v, detail::conversion& cvt,
                                                                         dims& scale_strides) {
  value_groups_ = shared_groups(v.mask);
  scale_strides = tabulate(v, cvt);
  std::vector<detail::placed_nest> nests;
  // a plain copy of f64 moves pairs of 4-byte elements, which every kernel takes
  const dim parts = cvt.is_plain_copy() && plan_.scales.empty() && src_size_ == 8 ? 2 : 1;
  // (the integer path writes padding with its own zero fills)
  // (a beta per index, or zero points per index the kernels cannot take, run element by
  // element)
  elementwise_ = v.beta_table || (v.zero_point_tables && !v.tabled);
  elementwise_why_ = v.beta_table ? "a beta per index" : "zero points per index on the exact s32 path, or with f64";
  if (!elementwise_ && !detail::lower(src_, dst_, scale_strides, nests, !integer_zero_points_, parts, value_groups_)) {
    elementwise_ = true;
    elementwise_why_ = "the blocks do not nest";
    if (!(value_groups_ == dims::filled(src_.get_ndims(), 1))) {  // (groups that do not nest with the blocks)
      value_groups_ = dims::filled(src_.get_ndims(), 1);
      scale_strides = tabulate(v, cvt);
      nests.clear();
      elementwise_ = !detail::lower(src_, dst_, scale_strides, nests, !integer_zero_points_, parts, value_groups_);
    }
  }
  return nests;
}

MEMFMT_REORDER_API void reorder::plan() {
  src_size_ = static_cast<dim>(data_type_size(src_.get_data_type()));
  dst_size_ = static_cast<dim>(data_type_size(dst_.get_data_type()));
  value_plan values;
  detail::conversion cvt = plan_values(values);
  dims scale_strides;
  std::vector<detail::placed_nest> nests = lower_nests(values, cvt, scale_strides);
  detail::reorder_setting s;
  s.cvt = cvt;
  s.converts = !cvt.is_plain_copy() || !plan_.scales.empty();
  // (not on the integer path: run_integer_nest applies the reorder's conversion to every
  // nest, a stage's move too; not with f64, whose conversions run as scalar rows)
  s.may_stage = !integer_zero_points_ && !cvt.has_f64();
  // a destination that will not be read back from the last-level cache is written around
  // it (whole aligned vectors only; by plain copies, where they write whole lines:
  // writes_whole_lines; results are the same): the source passes through the
  // cache too, so once both do not fit, the first destination lines are gone before the
  // reorder ends, and keeping them would only cost a read of each line
  s.stream = src_.get_size() + dst_.get_size() > detail::last_level_cache_bytes();
  s.from_memory = src_.get_size() + dst_.get_size() > detail::tiles_from_memory;
  // (only the AVX-512 kernels gather by vector gathers: see gather-inl.h)
  s.microcoded_gathers = detail::gathers_microcoded() && detail::kernel_target_now() <= HWY_AVX3;
  // cut for the threads that will run the plan (one thread: pieces would only cut the
  // kernel's runs short)
  s.threads = attr_.threads == 0 ? detail::hardware_threads() : attr_.threads;
  s.src_size = src_size_;
  s.dst_size = dst_size_;
  std::vector<detail::placed_nest> planned;
  planned.reserve(nests.size());
  for (std::size_t k = 0; k < nests.size(); ++k) {
    const bool fused = nests[k].fused_loops != 0 || (k + 1 < nests.size() && nests[k + 1].fused_loops != 0);
    detail::plan_nest(std::move(nests[k]), fused, s, planned);
  }
  nests = std::move(planned);
  // (the kernels that read zero point tables: copies of rows, staged pairs' conversions
  // included, and strided elements; the others run element by element)
  if (values.tabled)
    for (const detail::placed_nest& p : nests) {
      const detail::kernel_kind kind = p.loops.kind;
      const bool moves = p.staged == detail::stage::move_to_scratch || p.staged == detail::stage::move_from_scratch;
      if (!moves && kind != detail::kernel_kind::copy && kind != detail::kernel_kind::strided &&
          kind != detail::kernel_kind::zero_fill) {
        elementwise_ = true;
        elementwise_why_ = "zero points per index, which these kernels do not take";
      }
    }
  if (elementwise_) nests.clear();
  if (values.tabled && !elementwise_) src_zero_point_table_ = dst_zero_point_table_ = {};  // (the kernels' are in plan_.scales)
  // fused nests share their threads' work by tiles: keep them fused only when there
  // are enough tiles to go round
  for (std::size_t k = 1; k < nests.size(); ++k) {
    detail::placed_nest& p = nests[k];
    if (p.fused_loops != 0 && p.staged == detail::stage::none && shared_iterations(p.loops, p.fused_loops) < 4 * s.threads)
      p.fused_loops = 0;
  }
  serial_ = src_.get_size() + dst_.get_size() < serial_bytes;
  plan_.nests = std::move(nests);
  plan_.bind();
  cvt_ = cvt;
  scale_strides_ = scale_strides;
}

template <class A, class B, class F>
MEMFMT_REORDER_API void reorder::for_each_value_index(int mask, const A& a, const B& b, F&& f) const {
  // per masked dim, each index's share of i and j (no division per element: planning
  // a table of one factor per weight must not cost more than the reorder)
  const dims a_strides = value_strides(a), a_groups = value_groups(a);
  const dims b_strides = value_strides(b), b_groups = value_groups(b);
  std::vector<std::vector<dim>> a_part, b_part;
  dim count = 1;
  for (int d = 0; d < src_.get_ndims(); ++d) {
    if ((mask >> d & 1) == 0) continue;
    const dim g = value_groups_[d], extent = src_.get_dims()[d] / g;
    count *= extent;
    a_part.emplace_back(static_cast<std::size_t>(extent));
    b_part.emplace_back(static_cast<std::size_t>(extent));
    for (dim q = 0; q < extent; ++q) {  // (the group's first index, q * g)
      a_part.back()[static_cast<std::size_t>(q)] = q * g / a_groups[d] * a_strides[d];
      b_part.back()[static_cast<std::size_t>(q)] = q * g / b_groups[d] * b_strides[d];
    }
  }
  const auto m = static_cast<int>(a_part.size());
  std::vector<std::size_t> index(static_cast<std::size_t>(m), 0);
  for (dim k = 0; k < count; ++k) {
    dim i = 0, j = 0;
    for (std::size_t q = 0; q < index.size(); ++q) {
      i += a_part[q][index[q]];
      j += b_part[q][index[q]];
    }
    f(static_cast<std::size_t>(k), static_cast<std::size_t>(i), static_cast<std::size_t>(j));
    for (int q = m - 1; q >= 0; --q) {
      const auto qq = static_cast<std::size_t>(q);
      if (++index[qq] < a_part[qq].size()) break;
      index[qq] = 0;
    }
  }
}

MEMFMT_REORDER_API dim reorder::masked_count(int mask) const {
  dim count = 0;
  group_strides(mask, value_groups_, &count);
  return count;
}

MEMFMT_REORDER_API dims reorder::shared_groups(int mask) const {
  const int n = src_.get_ndims();
  dims shared = dims::filled(n, 1);
  const auto add = [&](const auto& q, dims& g, dim& seen, int d) {
    if (q.empty() || (q.mask >> d & 1) == 0) return;
    seen = std::gcd(seen, value_groups(q)[d]);
    g[d] = seen;
  };
  for (int d = 0; d < n; ++d) {
    if ((mask >> d & 1) == 0) continue;
    dim seen = 0;
    add(attr_.src_scales, shared, seen, d);
    add(attr_.dst_scales, shared, seen, d);
    add(attr_.src_zero_points, shared, seen, d);
    add(attr_.dst_zero_points, shared, seen, d);
  }
  return shared;
}

MEMFMT_REORDER_API void reorder::append_zero_point_tables(detail::conversion& cvt) {
  const std::size_t count = src_zero_point_table_.size();
  if (plan_.scales.empty()) plan_.scales.assign(count, 1.f);
  plan_.scales.reserve(3 * count);
  for (const std::int32_t zp : src_zero_point_table_) plan_.scales.push_back(static_cast<float>(zp));
  for (const std::int32_t zp : dst_zero_point_table_) plan_.scales.push_back(static_cast<float>(zp));
  cvt.zero_point_tables = static_cast<dim>(count);
}

MEMFMT_REORDER_API void reorder::tabulate_zero_points(int mask) {
  const auto count = static_cast<std::size_t>(masked_count(mask));
  src_zero_point_table_.resize(count);
  dst_zero_point_table_.resize(count);
  const zero_points &zs = attr_.src_zero_points, &zd = attr_.dst_zero_points;
  for_each_value_index(mask, zs, zd, [&](std::size_t k, std::size_t i, std::size_t j) {
    src_zero_point_table_[k] = zs.empty() ? 0 : zs.values[i];
    dst_zero_point_table_[k] = zd.empty() ? 0 : zd.values[j];
  });
}

MEMFMT_REORDER_API void reorder::combine_scales(int mask) {
  plan_.scales.resize(static_cast<std::size_t>(masked_count(mask)));
  for_each_value_index(mask, attr_.src_scales, attr_.dst_scales, [&](std::size_t k, std::size_t si, std::size_t dj) {
    const float s = attr_.src_scales.empty() ? 1.f : attr_.src_scales.values[si];
    const float t = attr_.dst_scales.empty() ? 1.f : attr_.dst_scales.values[dj];
    plan_.scales[k] = t == 1.f ? s : s / t;
  });
}

MEMFMT_REORDER_API std::vector<float> reorder::per_index_betas(int mask) const {
  std::vector<float> betas(plan_.scales.size());
  for_each_value_index(mask, attr_.src_scales, attr_.dst_scales, [&](std::size_t k, std::size_t, std::size_t dj) {
    const float t = attr_.dst_scales.values[dj];
    betas[k] = t == 1.f ? attr_.sum_beta : attr_.sum_beta / t;
  });
  return betas;
}

MEMFMT_REORDER_API std::int64_t reorder::load_integer(data_type dt, const unsigned char* p) noexcept {
  switch (dt) {
    case data_type::s8: return static_cast<std::int8_t>(*p);
    case data_type::u8: return *p;
    default: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
}

MEMFMT_REORDER_API void reorder::convert_integer(const detail::conversion& c, const unsigned char* from, unsigned char* to) {
  const std::int64_t lo = c.dst == data_type::s32 ? INT32_MIN : c.dst == data_type::s8 ? -128 : 0;
  const std::int64_t hi = c.dst == data_type::s32 ? INT32_MAX : c.dst == data_type::s8 ? 127 : 255;
  std::int64_t v = load_integer(c.src, from);
  v = v - c.src_zero_point + c.dst_zero_point;
  v = v < lo ? lo : v > hi ? hi : v;
  if (c.dst == data_type::s32) {
    const auto w = static_cast<std::int32_t>(v);
    std::memcpy(to, &w, 4);
  } else {
    *to = static_cast<unsigned char>(static_cast<std::int8_t>(v));
  }
}

MEMFMT_REORDER_API void reorder::run_integer_nest(const detail::nest& n, const void* src, void* dst, dim begin, dim end) const {
  const auto convert = [&](dim from, dim to) {
    convert_integer(cvt_, static_cast<const unsigned char*>(src) + from * src_size_,
                    static_cast<unsigned char*>(dst) + to * dst_size_);
  };
  const detail::loop& inner = n.loops[n.nloops - 1];
  detail::outer_cursor cursor(n, begin);
  for (dim it = begin; it < end; ++it, cursor.next()) {
    if (n.kind == detail::kernel_kind::gather && n.gather_src != nullptr) {
      for (dim j = 0; j < n.gather_count(); ++j) convert(cursor.src + n.gather_src[j], cursor.dst + j);
      continue;
    }
    detail::for_each_owned_row(n, [&](dim s_off, dim d_off, dim) {
      for (dim j = 0; j < inner.extent; ++j)
        convert(cursor.src + s_off + j * inner.src_stride, cursor.dst + d_off + j * inner.dst_stride);
    });
  }
}

MEMFMT_REORDER_API void reorder::run_elementwise(const unsigned char* src, unsigned char* dst) const {
  const int n = dst_.get_ndims();
  const dims logical = dst_.get_dims(), padded = dst_.get_padded_dims();
  dims index = dims::filled(n, 0);
  for (;;) {
    bool inside = true;
    for (int d = 0; d < n; ++d) inside = inside && index[d] < logical[d];
    unsigned char* out = dst + (inside ? dst_.offset(index) : detail::padded_offset(dst_, index)) * dst_size_;
    if (inside) {
      dim k = 0;  // the index of the element's scale and zero points
      for (int d = 0; d < n; ++d) k += index[d] / value_groups_[d] * scale_strides_[d];
      const auto kk = static_cast<std::size_t>(k);
      detail::conversion cvt = cvt_;
      if (!src_zero_point_table_.empty()) {
        cvt.src_zero_point = src_zero_point_table_[kk];
        cvt.dst_zero_point = dst_zero_point_table_[kk];
      }
      const unsigned char* from = src + src_.offset(index) * src_size_;
      if (integer_zero_points_) {
        convert_integer(cvt, from, out);
      } else {
        if (!plan_.scales.empty()) cvt.scales = plan_.scales.data();
        if (!sum_betas_.empty()) cvt.beta = sum_betas_[kk];
        detail::convert_element(cvt, from, out, cvt.scales != nullptr ? cvt.scales + k : nullptr);
      }
    } else {
      std::memset(out, 0, static_cast<std::size_t>(dst_size_));
    }
    int d = n - 1;
    for (; d >= 0; --d) {
      if (++index[d] < padded[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

MEMFMT_REORDER_API void reorder::write_compensation(unsigned char* dst) const {
  const extra_info& extra = dst_.get_extra();
  const bool s8s8 = (extra.flags & extra_flags::compensation_conv_s8s8) != 0;
  const bool zp = (extra.flags & extra_flags::compensation_conv_asymmetric_src) != 0;
  if (!s8s8 && !zp) return;
  const int n = dst_.get_ndims();
  const dims logical = dst_.get_dims(), padded = dst_.get_padded_dims();
  unsigned char* comp = dst + dst_.get_data_size();  // 4-byte aligned only if dst is
  const auto masked_index = [&](const dims& index, int mask) {
    dim k = 0;
    for (int d = 0; d < n; ++d)
      if ((mask >> d & 1) != 0) k = k * padded[d] + index[d];
    return k;
  };
  const std::size_t s8s8_count = s8s8 ? dst_.masked_volume(extra.compensation_mask) : 0;
  std::vector<std::int64_t> sums_s8s8(s8s8_count, 0), sums_zp(zp ? dst_.masked_volume(extra.asymm_compensation_mask) : 0, 0);
  dims index = dims::filled(n, 0);
  for (;;) {
    const unsigned char* e = dst + dst_.offset(index) * dst_size_;
    const std::int64_t v = dst_.get_data_type() == data_type::u8 ? static_cast<std::int64_t>(*e)
                                                                 : static_cast<std::int64_t>(static_cast<std::int8_t>(*e));
    if (s8s8) sums_s8s8[static_cast<std::size_t>(masked_index(index, extra.compensation_mask))] += v;
    if (zp) sums_zp[static_cast<std::size_t>(masked_index(index, extra.asymm_compensation_mask))] += v;
    int d = n - 1;
    for (; d >= 0; --d) {
      if (++index[d] < logical[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
  const auto store = [&comp](std::int64_t value) {
    const auto v = static_cast<std::int32_t>(value);
    std::memcpy(comp, &v, sizeof v);
    comp += sizeof v;
  };
  for (std::int64_t sum : sums_s8s8) store(-128 * sum);
  for (std::int64_t sum : sums_zp) store(-sum);
}

}  // namespace memfmt

#undef MEMFMT_REORDER_API
#endif  // !MEMFMT_KERNELS_EXTERN || MEMFMT_KERNELS_IMPLEMENTATION || MEMFMT_REORDER_IMPLEMENTATION
