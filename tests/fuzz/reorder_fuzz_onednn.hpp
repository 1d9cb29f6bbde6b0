// The oneDNN 2.6 side of reorder_fuzz: the same reorder through oneDNN, on values in the
// range where oneDNN is exact (as reorder_onednn_test's fill_finite), compared bit for bit
// over every byte the destination spans. Problems that meet a documented difference
// (docs/reorder.md, "Where memfmt and oneDNN 2.6.3 differ") are not compared.
#pragma once

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../support/reference.hpp"
#include "onednn_bridge.hpp"

namespace onednn_oracle {

using namespace memfmt_test;

// Whether the problem avoids every documented difference: no destination scales (2.6 has
// output scales only), source scales of 1/8 to 4 on a run of dims, beta 0, 1/2 or 1 and
// not with a destination zero point, small zero points and none with gapped strides, no
// broadcast, no compensation, no view whose padded extent is not a multiple of its block.
inline bool comparable(const desc& src, const desc& dst, const memfmt::reorder_attr& a, bool gaps, bool broadcast) {
  if (src.has_zero_dim() || !a.dst_scales.empty() || broadcast || dst.get_extra().flags != 0) return false;
  for (const desc* d : {&src, &dst})  // (oneDNN 2.6 has no f8 and no f64)
    if (d->get_data_type() == data_type::f8_e5m2 || d->get_data_type() == data_type::f8_e4m3 ||
        d->get_data_type() == data_type::f64)
      return false;
  for (float v : a.src_scales.values)
    if (!(v >= 0.125f && v <= 4.f)) return false;
  const unsigned run = static_cast<unsigned>(a.src_scales.mask) >> std::countr_zero(static_cast<unsigned>(a.src_scales.mask) | 1u << 31);
  if ((run & (run + 1)) != 0) return false;
  if (a.sum_beta != 0.f && a.sum_beta != 0.5f && a.sum_beta != 1.f) return false;
  const std::int32_t src_zp = a.src_zero_points.common_value(), dst_zp = a.dst_zero_points.common_value();
  const bool zero_points = src_zp != 0 || dst_zp != 0;
  if ((a.sum_beta != 0.f && dst_zp != 0) || (zero_points && gaps)) return false;
  if (std::abs(src_zp) > 128 || std::abs(dst_zp) > 128) return false;
  for (const desc* d : {&src, &dst})
    for (int i = 0; i < d->get_ndims(); ++i)
      if (d->get_padded_dims()[i] % d->get_blocks()[i] != 0) return false;
  return true;
}

// Values of `dt` turned into ones oneDNN converts exactly into `to`: reorder_onednn_test's
// fill_finite, and the other documented differences kept out: f32 beyond 2^27 into 8-bit
// integers (scaled beyond 2^31, oneDNN wraps), s32 beyond 2^24 into integers or with zero
// points (oneDNN wraps out of the s32 range).
inline void make_exact(data_type dt, data_type to, bool zero_points, std::vector<unsigned char>& bytes) {
  const std::size_t size = memfmt::data_type_size(dt);
  const bool into_int = memfmt::is_integral(to);
  for (std::size_t k = 0; k + size <= bytes.size(); k += size) {
    unsigned char* b = bytes.data() + k;
    if (dt == data_type::f32) {
      float v;
      std::memcpy(&v, b, 4);
      if (into_int && std::isfinite(v)) v = std::fmod(v, 0x1p27f);
      if (!std::isfinite(v) || std::fabs(v) < 1e-25f) v = 1.5f;
      std::memcpy(b, &v, 4);
    } else if (dt == data_type::bf16) {
      std::uint16_t v;
      std::memcpy(&v, b, 2);
      const int exponent = (v >> 7) & 0xFF;
      if (exponent < 64 || exponent >= 127 + 27) v = static_cast<std::uint16_t>((v & 0x807F) | ((100 + exponent % 40) << 7));
      std::memcpy(b, &v, 2);
    } else if (dt == data_type::f16) {
      std::uint16_t v;
      std::memcpy(&v, b, 2);
      if ((v & 0x7C00) == 0x7C00 || v == 0x8000) v = static_cast<std::uint16_t>(v & 0x3FFF);
      std::memcpy(b, &v, 2);
    } else if (dt == data_type::s32 && (into_int || zero_points)) {
      std::int32_t v;
      std::memcpy(&v, b, 4);
      v %= 1 << 24;
      std::memcpy(b, &v, 4);
    }
  }
}

// oneDNN's result on `initial`, or nothing when oneDNN has no such reorder; without
// `zero_points`, the same reorder with none.
inline std::optional<std::vector<unsigned char>> run_onednn(const desc& src, const desc& dst, memfmt::reorder_attr a,
                                                            bool zero_points, std::vector<unsigned char>& s,
                                                            std::vector<unsigned char> out) {
  if (!zero_points) a.src_zero_points = a.dst_zero_points = {};
  try {
    memfmt_onednn::reorder(src, dst, a).run(s.data(), out.data());
  } catch (const memfmt_onednn::unsupported&) {
    return std::nullopt;
  }
  return out;
}

// memfmt's plan `r` and oneDNN on the same exact values (the source `s`, a destination of
// dst_bytes): an empty string when they agree
// (or oneDNN has no such reorder), else what differs. Where oneDNN 2.6 drops zero points
// (documented: views at an offset, some layout pairs), an element whose oneDNN value
// equals its value without zero points must have the reference's value instead.
inline std::string compare_with_onednn(const desc& src, const desc& dst, const memfmt::reorder_attr& a,
                                       const memfmt::reorder& r, std::vector<unsigned char> s, std::size_t dst_bytes,
                                       std::mt19937& rng) {
  const data_type from = src.get_data_type(), to = dst.get_data_type();
  const bool zero_points = a.src_zero_points.common_value() != 0 || a.dst_zero_points.common_value() != 0;
  std::vector<unsigned char> initial(dst_bytes);
  fill_random(to, initial.data(), initial.size(), rng);
  make_exact(from, to, zero_points, s);
  make_exact(to, to, zero_points, initial);
  memfmt::zero_padding(dst, initial.data());  // (some of oneDNN's reorders leave padding as it is)
  std::vector<unsigned char> ours = initial;
  r.execute(s.data(), ours.data());
  std::optional<std::vector<unsigned char>> theirs = run_onednn(src, dst, a, true, s, initial);
  if (!theirs || ours == *theirs) return {};
  const std::size_t size = memfmt::data_type_size(to);
  if (zero_points) {
    const auto without = run_onednn(src, dst, a, false, s, initial);
    std::vector<unsigned char> reference = initial;
    reference_reorder(src, dst, a, s.data(), reference.data());
    for_each_index(dst.get_dims(), [&](const dims& i) {
      const auto at = static_cast<std::size_t>(dst.offset(i)) * size;
      if (without && std::memcmp(&ours[at], &(*theirs)[at], size) != 0 && std::memcmp(&(*theirs)[at], &(*without)[at], size) == 0)
        std::memcpy(&(*theirs)[at], &reference[at], size);
    });
    if (ours == *theirs) return {};
  }
  std::size_t first = 0;
  while (std::memcmp(&ours[first], &(*theirs)[first], size) == 0) first += size;
  std::uint32_t mine = 0, other = 0, before = 0;
  std::memcpy(&mine, &ours[first], size);
  std::memcpy(&other, &(*theirs)[first], size);
  std::memcpy(&before, &initial[first], size);
  return "memfmt differs from oneDNN 2.6 on exact values: first at element " + std::to_string(first / size) +
         ": memfmt bits " + std::to_string(mine) + ", oneDNN bits " + std::to_string(other) + ", before " + std::to_string(before);
}

}  // namespace onednn_oracle
