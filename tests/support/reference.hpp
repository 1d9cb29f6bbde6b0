// A reference reorder: element by element over logical indices, through the scalar
// definition of each conversion, with zeros in the destination's padding and the
// compensation recomputed from the quantized values. It shares no code with the plan
// (no lowering, no nests, no kernels). The tests compare memfmt with it, and
// `memfmt reorder --mode=C` settles with it where memfmt and oneDNN differ.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <memfmt/memfmt.hpp>
#include <memfmt/reorder/reorder.hpp>

namespace memfmt_test {

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;

template <class F>
void for_each_index(const dims& extents, F&& f) {
  for (dim e : extents)
    if (e == 0) return;
  const int n = extents.size();
  dims index = dims::filled(n, 0);
  for (;;) {
    f(index);
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++index[k] < extents[k]) break;
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

// Row-major index of `index` over the dims of `mask`.
inline dim masked_row_major(const dims& extents, const dims& index, int mask) {
  dim k = 0;
  for (int d = 0; d < extents.size(); ++d)
    if ((mask >> d & 1) != 0) k = k * extents[d] + index[d];
  return k;
}

// The index into `s.values` (scales or zero points) of the element at `index`: row-major
// over the groups of the masked dims (one group per index without `s.groups`).
template <class Q>
dim scale_index(const dims& extents, const dims& index, const Q& s) {
  dim k = 0;
  std::size_t g = 0;
  for (int d = 0; d < extents.size(); ++d)
    if ((s.mask >> d & 1) != 0) {
      const dim group = s.groups.empty() ? 1 : s.groups[g++];
      k = k * (extents[d] / group) + index[d] / group;
    }
  return k;
}

// Bytes from the data handle to the end of the last element or padding element of `d`
// (views included, whose get_size() is 0 as in oneDNN). An offset is a sum of one term
// per dim, so its largest value is the first element's plus the largest step of each dim
// on its own: a walk along each dim, not over every index; small descriptors are also
// walked index by index, and must agree.
inline std::size_t bytes_spanned(const desc& d) {
  const dims padded = d.get_padded_dims();
  for (dim e : padded)
    if (e == 0) return d.get_size();
  const dims origin = dims::filled(padded.size(), 0);
  const dim first = memfmt::detail::padded_offset(d, origin);
  dim last = first, volume = 1;
  for (int k = 0; k < padded.size(); ++k) {
    dims at = origin;
    dim longest = 0;
    for (at[k] = 0; at[k] < padded[k]; ++at[k]) longest = std::max(longest, memfmt::detail::padded_offset(d, at) - first);
    last += longest;
    volume = volume > 4096 ? volume : volume * padded[k];
  }
  if (volume <= 4096) {
    dim walked = -1;
    for_each_index(padded, [&](const dims& i) { walked = std::max(walked, memfmt::detail::padded_offset(d, i)); });
    if (walked != last) throw std::logic_error("bytes_spanned: the offsets of " + d.str() + " are not a sum over dims");
  }
  const std::size_t data = static_cast<std::size_t>(last + 1) * memfmt::data_type_size(d.get_data_type());
  return d.get_size() > data ? d.get_size() : data;
}

// The extra info of quantized weights with `flags` (extra_flags): each compensation the
// flags ask for is kept per `mask`, and the scale_adjust flag's factor is 0.5.
inline memfmt::extra_info weights_extra(std::uint32_t flags, int mask) {
  memfmt::extra_info extra;
  extra.flags = flags;
  extra.compensation_mask = (flags & memfmt::extra_flags::compensation_conv_s8s8) != 0 ? mask : 0;
  extra.asymm_compensation_mask = (flags & memfmt::extra_flags::compensation_conv_asymmetric_src) != 0 ? mask : 0;
  if ((flags & memfmt::extra_flags::scale_adjust) != 0) extra.scale_adjust = 0.5f;
  return extra;
}

// The compensation after the data of `dst` (its extra_info flags), recomputed from the
// quantized values at `d`: per index of each mask, row-major over the padded masked
// dims, -128 * sum (s8s8) then -sum (zero point) over the other dims. Nothing for a
// destination without compensation.
inline void reference_compensation(const desc& dst, void* d) {
  if (dst.get_compensation_size() == 0) return;
  const memfmt::extra_info& e = dst.get_extra();
  const bool s8s8 = (e.flags & memfmt::extra_flags::compensation_conv_s8s8) != 0;
  const bool zp = (e.flags & memfmt::extra_flags::compensation_conv_asymmetric_src) != 0;
  std::vector<std::int64_t> a(s8s8 ? dst.masked_volume(e.compensation_mask) : 0);
  std::vector<std::int64_t> b(zp ? dst.masked_volume(e.asymm_compensation_mask) : 0);
  auto* out = static_cast<unsigned char*>(d);
  for_each_index(dst.get_dims(), [&](const dims& i) {
    const auto v = static_cast<std::int8_t>(out[dst.offset(i)]);
    if (s8s8) a[static_cast<std::size_t>(masked_row_major(dst.get_padded_dims(), i, e.compensation_mask))] += v;
    if (zp) b[static_cast<std::size_t>(masked_row_major(dst.get_padded_dims(), i, e.asymm_compensation_mask))] += v;
  });
  std::vector<std::int32_t> values;
  for (std::int64_t sum : a) values.push_back(static_cast<std::int32_t>(-128 * sum));
  for (std::int64_t sum : b) values.push_back(static_cast<std::int32_t>(-sum));
  std::memcpy(out + dst.get_data_size(), values.data(), values.size() * 4);
}

// The value of the s4 or u4 element at linear offset `at` of `p` (element 2k in the
// low nibble of byte k).
inline int nibble_value(data_type dt, const unsigned char* p, dim at) {
  const unsigned bits = (p[at / 2] >> (at % 2 * 4)) & 15u;
  return dt == data_type::s4 && bits >= 8 ? static_cast<int>(bits) - 16 : static_cast<int>(bits);
}

// Stores `v` (in the type's range) as the element at linear offset `at`, keeping the
// other nibble of its byte.
inline void store_nibble(unsigned char* p, dim at, int v) {
  const unsigned shift = at % 2 * 4;
  p[at / 2] = static_cast<unsigned char>((p[at / 2] & ~(15u << shift)) | (static_cast<unsigned>(v) & 15u) << shift);
}

// The reference of `reorder(src, dst, attr).execute(s, d)`: `d` holds the destination
// before (a sum reads it); its padding and compensation are written too.
inline void reference_reorder(const desc& src, const desc& dst, const memfmt::reorder_attr& attr, const void* s, void* d) {
  const std::size_t ssize = memfmt::data_type_size(src.get_data_type());
  const std::size_t dsize = memfmt::data_type_size(dst.get_data_type());
  auto* out = static_cast<unsigned char*>(d);
  // padding first: every padded position outside the dims
  memfmt::zero_padding(dst, d);
  memfmt::detail::conversion c;
  c.src = src.get_data_type();
  c.dst = dst.get_data_type();
  c.beta = attr.sum_beta;
  if ((dst.get_extra().flags & memfmt::extra_flags::scale_adjust) != 0) c.alpha = dst.get_extra().scale_adjust;
  const bool per_element = (!attr.src_scales.empty() && attr.src_scales.mask != 0) ||
                           (!attr.dst_scales.empty() && attr.dst_scales.mask != 0);
  // s32 with only zero points: exact integer arithmetic, saturated (as oneDNN). Common
  // scales whose factor s_src / s_dst is 1 count as none (oneDNN's default scale is 1).
  const float s_src = attr.src_scales.empty() || per_element ? 1.f : attr.src_scales.values[0];
  const float s_dst = attr.dst_scales.empty() || per_element ? 1.f : attr.dst_scales.values[0];
  const bool integer = memfmt::is_integral(c.src) && memfmt::is_integral(c.dst) &&
                       (c.src == data_type::s32 || c.dst == data_type::s32) && !per_element &&
                       c.alpha * (s_src / s_dst) == 1.f && c.beta == 0.f &&
                       (attr.src_zero_points.common_value() != 0 || attr.dst_zero_points.common_value() != 0 ||
                        (!attr.src_zero_points.empty() && attr.src_zero_points.mask != 0) ||
                        (!attr.dst_zero_points.empty() && attr.dst_zero_points.mask != 0));
  const auto zero_point = [&](const memfmt::zero_points& z, const dims& i) {
    return z.empty() ? 0 : z.values[static_cast<std::size_t>(scale_index(src.get_dims(), i, z))];
  };
  const auto load_int = [](data_type dt, const unsigned char* p) -> std::int64_t {
    if (dt == data_type::s8) return static_cast<std::int8_t>(*p);
    if (dt == data_type::u8) return *p;
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  for_each_index(src.get_dims(), [&](const dims& i) {
    c.src_zero_point = zero_point(attr.src_zero_points, i);
    c.dst_zero_point = zero_point(attr.dst_zero_points, i);
    if (integer) {
      const std::int64_t x = memfmt::is_sub_byte(c.src)
                                 ? nibble_value(c.src, static_cast<const unsigned char*>(s), src.offset(i))
                                 : load_int(c.src, static_cast<const unsigned char*>(s) + src.offset(i) * ssize);
      std::int64_t v = x - c.src_zero_point + c.dst_zero_point;
      const std::int64_t lo = c.dst == data_type::s32 ? -2147483648LL
                              : c.dst == data_type::s8 ? -128
                              : c.dst == data_type::s4 ? -8
                                                       : 0;
      const std::int64_t hi = c.dst == data_type::s32 ? 2147483647LL
                              : c.dst == data_type::s8 ? 127
                              : c.dst == data_type::s4 ? 7
                              : c.dst == data_type::u4 ? 15
                                                       : 255;
      v = v < lo ? lo : (v > hi ? hi : v);
      unsigned char* to = out + dst.offset(i) * dsize;
      if (memfmt::is_sub_byte(c.dst)) {
        store_nibble(out, dst.offset(i), static_cast<int>(v));
      } else if (c.dst == data_type::s32) {
        const auto w = static_cast<std::int32_t>(v);
        std::memcpy(to, &w, 4);
      } else {
        *to = static_cast<unsigned char>(static_cast<std::int8_t>(v));
      }
      return;
    }
    memfmt::detail::conversion e = c;
    float scale = 1.f;
    const float ss = attr.src_scales.empty() ? 1.f
                                             : attr.src_scales.values[static_cast<std::size_t>(
                                                   scale_index(src.get_dims(), i, attr.src_scales))];
    const float ds = attr.dst_scales.empty() ? 1.f
                                             : attr.dst_scales.values[static_cast<std::size_t>(
                                                   scale_index(src.get_dims(), i, attr.dst_scales))];
    scale = ds == 1.f ? ss : ss / ds;
    if (c.beta != 0.f && ds != 1.f) e.beta = c.beta / ds;  // the destination scale divides beta * dst too
    if (per_element) {
      e.scales = &scale;
    } else {
      e.alpha = c.alpha * scale;
    }
    if (!memfmt::is_sub_byte(c.src) && !memfmt::is_sub_byte(c.dst)) {
      memfmt::detail::convert_element(e, static_cast<const unsigned char*>(s) + src.offset(i) * ssize,
                                      out + dst.offset(i) * dsize, e.scales);
      return;
    }
    // s4 and u4: their value as s8 or u8, converted, then saturated to 4 bits
    unsigned char from = 0, to = 0;
    const unsigned char* at = static_cast<const unsigned char*>(s) + src.offset(i) * ssize;
    if (memfmt::is_sub_byte(c.src)) {
      from = static_cast<unsigned char>(nibble_value(c.src, static_cast<const unsigned char*>(s), src.offset(i)));
      e.src = c.src == data_type::s4 ? data_type::s8 : data_type::u8;
      at = &from;
    }
    unsigned char* into = out + dst.offset(i) * dsize;
    if (memfmt::is_sub_byte(c.dst)) {
      to = static_cast<unsigned char>(nibble_value(c.dst, out, dst.offset(i)));  // (a sum reads it)
      e.dst = c.dst == data_type::s4 ? data_type::s8 : data_type::u8;
      into = &to;
    }
    memfmt::detail::convert_element(e, at, into, e.scales);
    if (memfmt::is_sub_byte(c.dst)) {
      const int v = e.dst == data_type::s8 ? static_cast<std::int8_t>(to) : to;
      const int lo = c.dst == data_type::s4 ? -8 : 0, hi = c.dst == data_type::s4 ? 7 : 15;
      store_nibble(out, dst.offset(i), std::clamp(v, lo, hi));
    }
  });
  reference_compensation(dst, d);
}

// Random bytes that are valid and interesting values of `dt` (NaN, Inf, negative zero,
// subnormals, large integers, values near rounding ties).
inline void fill_random(data_type dt, void* p, std::size_t bytes, std::mt19937& rng) {
  auto* b = static_cast<unsigned char*>(p);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> real(-300.f, 300.f);
  const std::size_t size = memfmt::data_type_size(dt);
  for (std::size_t k = 0; k + size <= bytes; k += size) {
    const int pick = static_cast<int>(rng() % 16);
    if (dt == data_type::f32 && pick < 12) {
      float v = real(rng);
      if (pick == 0) v = std::nanf("");
      if (pick == 1) v = -0.f;
      if (pick == 2) v = 1e30f;
      if (pick == 3) v = 2.5f;  // a tie
      if (pick == 4) v = -3.5f;
      if (pick == 5) v = 1e-40f;  // subnormal
      if (pick == 6) v = 70000.f;  // f16 overflow
      std::memcpy(b + k, &v, 4);
      continue;
    }
    if (dt == data_type::f64 && pick < 13) {
      double v = static_cast<double>(real(rng)) + static_cast<double>(real(rng)) * 0x1p-30;  // bits below f32's
      if (pick == 0) v = std::bit_cast<double>(0x7FF4000000000123u);  // signalling NaN with a payload
      if (pick == 1) v = -0.0;
      if (pick == 2) v = 1e300;
      if (pick == 3) v = 2.5;  // a tie
      if (pick == 4) v = -3.5;
      if (pick == 5) v = 1e-310;  // subnormal
      if (pick == 6) v = 65520.0 - 0x1p-30;  // below f16's overflow threshold, which f32 would round to
      if (pick == 7) v = 1.0 + 0x1p-11 + 0x1p-40;  // above an f16 midpoint by less than f32 holds
      if (pick == 8) v = -std::numeric_limits<double>::infinity();
      std::memcpy(b + k, &v, 8);
      continue;
    }
    for (std::size_t j = 0; j < size; ++j) b[k + j] = static_cast<unsigned char>(byte(rng));
  }
}

}  // namespace memfmt_test
