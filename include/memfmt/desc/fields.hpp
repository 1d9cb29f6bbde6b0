#pragma once
/// @file
/// `desc::from_fields`: a blocked descriptor from all of its fields, checked against the
/// invariants of `desc` (the way in for bridges such as `memfmt/interop/onednn.hpp`).

#include "memfmt/desc/desc.hpp"

namespace memfmt {

namespace detail {

/// The layout of `f`'s inner blocks; fails naming the block when one is bad.
constexpr blocking fields_blocking(const desc_fields& f) {
  const int n = f.logical.size();
  if (f.inner_blks.size() != f.inner_idxs.size())
    fail("desc fields: ", f.inner_blks.size(), " inner blocks but ", f.inner_idxs.size(), " inner block dims");
  blocking b;
  b.ndims = n;
  b.inner_nblks = f.inner_blks.size();
  dim product = 1;
  for (int k = 0; k < b.inner_nblks; ++k) {
    if (f.inner_blks[k] < 1) fail("desc fields: inner block ", k, " has size ", f.inner_blks[k]);
    if (f.inner_idxs[k] < 0 || f.inner_idxs[k] >= n)
      fail("desc fields: inner block ", k, " names dim ", f.inner_idxs[k], " of a ", n, "-D descriptor");
    product = checked_mul(product, f.inner_blks[k]);
    if (product < 0 || product > (dim{1} << 31)) fail("desc fields: the inner blocks hold more than 2^31 elements");
    b.inner_blks[static_cast<std::size_t>(k)] = f.inner_blks[k];
    b.inner_idxs[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(f.inner_idxs[k]);
  }
  return b;
}

/// Fails naming the dim whose padding cannot hold its dim: padded dims hold the dims at
/// their padded offsets, and are whole blocks or (a view inside one block) less than one.
constexpr void check_fields_padding(const desc_fields& f, const blocking& b) {
  for (int d = 0; d < f.logical.size(); ++d) {
    const dim pad = f.padded[d], off = f.padded_offsets[d], block = b.block_of(d);
    if (off < 0) fail("desc fields: dim ", d, ": padded offset ", off, " is negative");
    if (pad < off || pad - off < f.logical[d])
      fail("desc fields: dim ", d, ": ", f.logical[d], " elements at padded offset ", off, " do not fit in the padded dim ",
           pad);
    if (pad % block != 0 && pad > block)
      fail("desc fields: dim ", d, ": padded dim ", pad, " is not a multiple of its block ", block);
  }
}

/// The first dim whose outer stride lands inside the reach of a dim of smaller stride or
/// inside the inner block (dims of one outer block and broadcast dims, stride 0, exempt).
constexpr int first_overlapping_outer_dim(const dims& padded, const dims& strides, const blocking& b) {
  const int n = padded.size();
  bool done[max_ndims] = {};
  dim min_stride = b.block_size();
  for (int step = 0; step < n; ++step) {
    int d = -1;  // the dim of smallest stride not yet seen
    for (int i = 0; i < n; ++i)
      if (!done[i] && (d < 0 || strides[i] < strides[d])) d = i;
    done[d] = true;
    const dim block = b.block_of(d);
    const dim outer = padded[d] / block + (padded[d] % block != 0 ? 1 : 0);  // (rounds up without overflowing)
    if (outer <= 1 || strides[d] == 0) continue;
    if (strides[d] < min_stride) return d;
    min_stride = checked_mul(strides[d], outer);
    if (min_stride < 0) return d;
  }
  return -1;
}

/// `v` in hexadecimal digits, without a prefix: flags read as a bit set.
struct hex_digits {
  std::uint32_t v;
};
inline void append_piece(std::string& out, hex_digits h) {
  std::string digits;
  do digits.insert(digits.begin(), "0123456789abcdef"[h.v % 16]);
  while ((h.v /= 16) != 0);
  out += digits;
}

/// Elements from the first to past the last that `f` reaches (0 with no element).
/// @pre the strides do not overlap and their reach fits in int64
constexpr dim fields_span(const desc_fields& f, const blocking& b) {
  const dim span = span_in_elements(b, f.logical, f.padded, f.strides);
  return span == 0 || span >= b.block_size() ? span : b.block_size();
}

/// The byte just past the last element a view at `offset0` reaches (`span` elements from
/// there), or -1 when it is past 2^63: every offset the descriptor computes stays below it.
constexpr dim fields_end_bytes(dim offset0, dim span, data_type dt) {
  dim end = 0;
  if (__builtin_add_overflow(offset0, span, &end)) return -1;
  return checked_mul(end, static_cast<dim>(data_type_size(dt)));
}

}  // namespace detail

constexpr desc desc::from_fields(const desc_fields& f) {
  desc r;
  r.check_dims(f.logical, f.dt, "fields", false);
  if (data_type_size(f.dt) == 0) detail::fail("desc fields: data type ", static_cast<int>(f.dt), " is not a memfmt data type");
  const int n = f.logical.size();
  if (f.padded.size() != n || f.padded_offsets.size() != n || f.strides.size() != n)
    detail::fail("desc fields: ", f.padded.size(), " padded dims, ", f.padded_offsets.size(), " padded offsets and ",
                 f.strides.size(), " strides for ", n, " dims");
  const blocking b = detail::fields_blocking(f);
  detail::check_fields_padding(f, b);
  for (int d = 0; d < n; ++d)
    if (f.strides[d] < 0) detail::fail("desc fields: stride ", d, " is negative (", f.strides[d], ")");
  // (with no element nothing can overlap: oneDNN accepts any strides then, as `desc` does)
  bool zero_volume = false;
  for (dim v : f.logical) zero_volume = zero_volume || v == 0;
  if (const int d = zero_volume ? -1 : detail::first_overlapping_outer_dim(f.padded, f.strides, b); d >= 0)
    detail::fail("desc fields: strides overlap: dim ", d, " (padded extent ", f.padded[d], ", stride ", f.strides[d],
                 ") collides with the inner block or a dim of smaller stride");
  if (f.offset0 < 0) detail::fail("desc fields: offset0 ", f.offset0, " is negative");
  if (is_sub_byte(f.dt) && f.offset0 % 2 != 0)
    detail::fail("desc fields: a view of ", to_string(f.dt), " must start on a byte, but offset0 is ", f.offset0,
                 " (two elements per byte)");
  constexpr std::uint32_t known = extra_flags::compensation_conv_s8s8 | extra_flags::scale_adjust |
                                  extra_flags::compensation_conv_asymmetric_src;
  if ((f.extra.flags & ~known) != 0)
    detail::fail("desc fields: extra flags 0x", detail::hex_digits{f.extra.flags & ~known}, " are unknown");
  r.set_plain(f.logical, f.dt);
  r.padded_dims_ = f.padded;
  r.padded_offsets_ = f.padded_offsets;
  r.offset0_ = f.offset0;
  r.strides_ = f.strides;
  r.inner_ = b;
  r.inner_.order = order_by_strides(r.dims_, r.strides_);
  if (const int d = r.odd_packed_stride(); d >= 0)
    detail::fail("desc fields: ", to_string(f.dt), " packs two elements per byte, so dim ", d,
                 "'s stride must be 0, 1 or even (is ", f.strides[d], ")");
  if (r.span_bytes_overflow() || detail::fields_end_bytes(f.offset0, detail::fields_span(f, b), f.dt) < 0)
    detail::fail("desc fields: the descriptor reaches past 2^63 bytes");
  return f.extra == extra_info{} ? r : r.with_extra(f.extra);
}

}  // namespace memfmt
