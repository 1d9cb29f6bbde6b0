#pragma once
/// @file
/// Blocked layouts as strided views: `desc::unfold()`, its inverse `memfmt::fold`, and
/// `memfmt::same_bytes`, which says when two descriptors put every element at the same
/// offset (so that a reorder between them moves no element).
///
/// **unfold.** A blocked descriptor of rank n with inner blocks b_0..b_{k-1} (outermost
/// first, `get_inner_blks()`, on dims `get_inner_idxs()`) is the same memory as a plain
/// strided descriptor of rank n + k over its *padded* tensor:
///
///   - dims 0..n-1 are the outer parts of the logical dims, in logical order: extent
///     `padded[d] / block_of(d)`, the descriptor's own outer stride;
///   - dims n..n+k-1 are the inner blocks, in the tag's order (outermost first): extent
///     b_j, stride the product of the blocks after it (the inner block is dense).
///
/// Worked example, `nChw16c` with dims {2, 17, 5, 4} (C pads to 32):
///
///     blocked:   dims {2, 17, 5, 4}   padded {2, 32, 5, 4}   strides {640, 320, 64, 16}   + 16c
///     unfolded:  dims {2, 2, 5, 4, 16}                        strides {640, 320, 64, 16, 1}
///
/// Element (n, c, h, w) of the blocked tensor is element (n, c / 16, h, w, c % 16) of the
/// unfolded one. A dim blocked twice gets two inner dims: `OIhw4i16o4i` with dims
/// {64, 33, 3, 3} (I pads to 48, one inner block is 4 * 16 * 4 = 256 elements)
///
///     blocked:   dims {64, 33, 3, 3}   padded {64, 48, 3, 3}   strides {6912, 2304, 768, 256}   + 4i 16o 4i
///     unfolded:  dims {4, 3, 3, 3, 4, 16, 4}    strides {6912, 2304, 768, 256, 64, 4, 1}
///                     O/16 I/16 h w  4i 16o 4i
///
/// and element (o, i, h, w) is element (o / 16, i / 16, h, w, i / 4 % 4, o % 16, i % 4).
///
/// Rules: the result has no padding and no inner blocks; it keeps the data type and the
/// submemory offset. A view whose padded offsets are not 0 unfolds over its *physical*
/// padded tensor: logical index i of dim d sits at i + padded_offsets[d] before it is split.
/// A descriptor without inner blocks and without padding unfolds to itself. Refused,
/// with `memfmt::error` naming the culprit: the zero descriptor, `any`, a descriptor with
/// extra information (compensation, scale adjust: their masks name logical dims, as for
/// `reshape` and `permute_axes`), a dim whose padded extent is not a multiple of its
/// blocks (a view of less than one block), and a result of more than `max_ndims` dims.
///
/// **fold(unfolded, like)** is the inverse: the descriptor with `like`'s dims, padded
/// dims, padded offsets and inner blocks whose elements sit where `unfolded` puts them.
/// From `unfolded` it takes the data type, the submemory offset and the outer strides
/// (dims 0..n-1), which may be any strides that do not overlap the inner block (e.g. the
/// rows of a 5-D DLPack tensor with gaps between them). `unfolded` must have the dims of
/// `like.unfold()` and a dense inner block (dims n.. with the strides `like.unfold()` gives
/// them; a dim of extent 1 may have any stride). `fold(d.unfold(), d) == d` for every d
/// that `unfold` accepts.
///
/// **same_bytes(a, b)**: both descriptors are concrete (`format_kind::blocked`), have the
/// same data type, dims and extra information, and every element of the *logical* tensor
/// sits at the same offset (submemory offset included). Padding is not compared: `nChw16c`
/// with dims {2, 3, 1, 1} pads C to 16, the strided descriptor with strides {16, 1, 1, 1}
/// has no padding, and they are the same bytes; so a reorder from a to b on one buffer
/// moves no element and at most writes b's padding. Other spellings of one layout:
/// `nChw16c` with C = 16 and `nhwc`; `ab` and `ba` when a dim is 1.
/// Computed per logical dim (the offset is a sum of one function per dim): each dim's
/// function is put in a canonical form -- the mixed-radix digits of the index with their
/// strides, digits never reached by the dim's extent dropped, digits of stride 0 or
/// extent 1 dropped, neighbouring digits that are contiguous merged -- and the forms are
/// compared; O(rank * blocks), independent of the extents. Only a dim whose padded offset
/// is not a multiple of its block (a oneDNN view, from `desc::from_fields`) is compared by
/// evaluation, over min(extent, lcm(blocks of a, blocks of b) + 1) indices, which suffices
/// because such a function grows by a constant over each lcm period.

#include <algorithm>
#include <array>
#include <numeric>

#include "memfmt/desc/desc.hpp"

namespace memfmt {

namespace detail {

/// Fails (message starting with `who`) naming why `d` has no unfolded form.
constexpr void check_unfoldable(const desc& d, std::string_view who) {
  if (d.get_format_kind() == format_kind::undef) fail(who, ": the zero descriptor has no layout to unfold");
  if (d.get_format_kind() == format_kind::any) fail(who, ": a descriptor of format_kind::any has no layout yet");
  if (d.get_extra().flags != 0)
    fail(who, ": a descriptor with extra information (flags ", d.get_extra().flags,
         ") cannot be unfolded: its masks name logical dims");
  const int n = d.get_ndims(), k = d.get_inner_nblks();
  if (n + k > max_ndims)
    fail(who, ": the result would have ", n + k, " dims (", n, " dims and ", k, " inner blocks), more than max_ndims = ",
         max_ndims);
  const dims padded = d.get_padded_dims(), blocks = d.get_blocks();
  for (int i = 0; i < n; ++i)
    if (padded[i] % blocks[i] != 0)
      fail(who, ": dim ", i, ": padded extent ", padded[i], " is not a multiple of its block ", blocks[i],
           " (a view of less than one block)");
}

/// The dims of `d.unfold()` (outer parts in logical order, then the inner blocks).
/// @pre `check_unfoldable(d)` passed
constexpr dims unfolded_dims(const desc& d) {
  const dims padded = d.get_padded_dims(), blocks = d.get_blocks(), blks = d.get_inner_blks();
  dims r;
  for (int i = 0; i < d.get_ndims(); ++i) r.push_back(padded[i] / blocks[i]);
  for (dim b : blks) r.push_back(b);
  return r;
}

/// The strides of `d.unfold()`: the outer strides, then inner block j strides over the
/// blocks after it.
/// @pre `check_unfoldable(d)` passed
constexpr dims unfolded_strides(const desc& d) {
  const dims blks = d.get_inner_blks();
  dims r = d.get_strides();
  dims inner = dims::filled(blks.size(), 1);
  for (int j = blks.size() - 2; j >= 0; --j) inner[j] = inner[j + 1] * blks[j + 1];
  for (dim s : inner) r.push_back(s);
  return r;
}

/// One digit of a dim's index: (index / radix % extent) * stride; extent 0 means no
/// modulo (the outermost digit, or one that never wraps within the dim's extent).
struct radix_digit {
  dim radix = 0;
  dim extent = 0;
  dim stride = 0;
  constexpr bool operator==(const radix_digit&) const = default;
};

/// The offset of logical dim `d`'s index, as a canonical list of digits, innermost first.
struct dim_map {
  int size = 0;
  std::array<radix_digit, max_ndims + 1> digits{};
  constexpr bool operator==(const dim_map& o) const {
    if (size != o.size) return false;
    for (int i = 0; i < size; ++i)
      if (!(digits[static_cast<std::size_t>(i)] == o.digits[static_cast<std::size_t>(i)])) return false;
    return true;
  }
};

/// The canonical digits of dim `d` of `a` over the indices [0, dims[d]).
/// @pre `a` is blocked and its padded offset in `d` is a multiple of the dim's block
constexpr dim_map canonical_dim_map(const desc& a, int d) {
  const blocking b = a.get_blocking();
  const dim n = a.get_dims()[d];
  // every digit of the index, innermost first: the inner blocks of d, then the outer part
  std::array<radix_digit, max_ndims + 1> raw{};
  int count = 0;
  dim radix = 1, block_stride = 1;
  for (int k = b.inner_nblks - 1; k >= 0; --k) {
    const dim blk = b.inner_blks[static_cast<std::size_t>(k)];
    if (b.inner_idxs[static_cast<std::size_t>(k)] == d) {
      raw[static_cast<std::size_t>(count++)] = {radix, blk, block_stride};
      radix *= blk;
    }
    block_stride *= blk;
  }
  raw[static_cast<std::size_t>(count++)] = {radix, 0, a.get_strides()[d]};

  dim_map out;
  for (int i = 0; i < count; ++i) {
    radix_digit g = raw[static_cast<std::size_t>(i)];
    if (g.radix >= n) break;                                  // never nonzero for indices < n
    if (g.extent != 0 && g.radix * g.extent >= n) g.extent = 0;  // never wraps for indices < n
    if (g.stride == 0 || g.extent == 1) continue;             // adds nothing
    if (out.size != 0) {
      radix_digit& last = out.digits[static_cast<std::size_t>(out.size - 1)];
      if (last.extent != 0 && last.radix * last.extent == g.radix && last.stride * last.extent == g.stride) {
        last.extent = g.extent == 0 ? 0 : last.extent * g.extent;  // contiguous: one digit
        continue;
      }
    }
    out.digits[static_cast<std::size_t>(out.size++)] = g;
  }
  return out;
}

/// The offset of index `i` of dim `d` alone, from the dim's padded offset: what dim `d`
/// adds to an element's offset beyond what index 0 adds.
constexpr dim dim_offset(const desc& a, int d, dim i) {
  dims at = dims::filled(a.get_ndims(), 0);
  at[d] = a.get_padded_offsets()[d];
  const blocking b = a.get_blocking();
  const dim base = element_offset(b, a.get_strides(), at);
  at[d] += i;
  return element_offset(b, a.get_strides(), at) - base;
}

}  // namespace detail

constexpr desc desc::unfold() const {
  detail::check_unfoldable(*this, "unfold");
  if (inner_.inner_nblks == 0 && padded_dims_ == dims_ && padded_offsets_ == dims::filled(get_ndims(), 0)) return *this;
  const dims shape = detail::unfolded_dims(*this);
  desc r;
  r.set_plain(shape, dt_);
  r.strides_ = detail::unfolded_strides(*this);
  r.offset0_ = offset0_;
  r.inner_.order = order_by_strides(r.dims_, r.strides_);
  return r;
}

/// The blocked descriptor shaped like `like` (dims, padded dims, padded offsets, inner
/// blocks) whose elements sit where the strided descriptor `unfolded` puts them; the
/// inverse of `desc::unfold()` (rules and example: `memfmt/desc/unfold.hpp`).
/// @throws error naming the culprit: `like` cannot be unfolded, `unfolded` is not a plain
///         descriptor of `like.unfold()`'s dims, its inner block is not dense, or its outer
///         strides overlap the inner block or each other
constexpr desc fold(const desc& unfolded, const desc& like) {
  detail::check_unfoldable(like, "fold: like");
  if (unfolded.get_format_kind() != format_kind::blocked)
    detail::fail("fold: the unfolded descriptor is ", unfolded.is_zero() ? "the zero descriptor" : "of format_kind::any");
  if (unfolded.get_inner_nblks() != 0)
    detail::fail("fold: the unfolded descriptor has ", unfolded.get_inner_nblks(), " inner blocks; it must be strided");
  if (unfolded.get_extra().flags != 0) detail::fail("fold: the unfolded descriptor has extra information");
  const dims shape = detail::unfolded_dims(like), inner = detail::unfolded_strides(like);
  const int n = like.get_ndims();
  if (unfolded.get_ndims() != shape.size())
    detail::fail("fold: the unfolded descriptor has ", unfolded.get_ndims(), " dims; like unfolds to ", shape.size(), " (",
                 n, " dims and ", like.get_inner_nblks(), " inner blocks)");
  const dims u_dims = unfolded.get_dims(), u_strides = unfolded.get_strides();
  for (int i = 0; i < shape.size(); ++i) {
    if (u_dims[i] != shape[i])
      detail::fail("fold: unfolded dim ", i, " has extent ", u_dims[i], "; like's ",
                   i < n ? "padded dim / block" : "inner block", " is ", shape[i]);
    if (unfolded.get_padded_dims()[i] != u_dims[i] || unfolded.get_padded_offsets()[i] != 0)
      detail::fail("fold: unfolded dim ", i, " is padded; the unfolded descriptor must have no padding");
    if (i >= n && u_dims[i] != 1 && u_strides[i] != inner[i])
      detail::fail("fold: unfolded dim ", i, " (inner block ", i - n, ") has stride ", u_strides[i],
                   "; a dense inner block needs ", inner[i]);
  }
  desc_fields f = like.fields();
  f.dt = unfolded.get_data_type();
  f.offset0 = unfolded.get_submemory_offset();
  for (int d = 0; d < n; ++d) f.strides[d] = u_strides[d];
  return desc::from_fields(f);
}

/// True when `a` and `b` are concrete descriptors of the same data type, dims and extra
/// information that put every element of the logical tensor at the same offset (padding
/// not compared); a reorder between them moves no element. Rules, cost and example:
/// `memfmt/desc/unfold.hpp`. Never throws.
constexpr bool same_bytes(const desc& a, const desc& b) noexcept {
  if (a.get_format_kind() != format_kind::blocked || b.get_format_kind() != format_kind::blocked) return false;
  if (a.get_data_type() != b.get_data_type() || !(a.get_dims() == b.get_dims()) || !(a.get_extra() == b.get_extra()))
    return false;
  if (a.has_zero_dim()) return true;  // no element
  const int n = a.get_ndims();
  const dims zeros = dims::filled(n, 0);
  if (a.offset(zeros) != b.offset(zeros)) return false;
  const dims blocks_a = a.get_blocks(), blocks_b = b.get_blocks();
  const dims off_a = a.get_padded_offsets(), off_b = b.get_padded_offsets();
  for (int d = 0; d < n; ++d) {
    if (off_a[d] % blocks_a[d] == 0 && off_b[d] % blocks_b[d] == 0) {
      if (!(detail::canonical_dim_map(a, d) == detail::canonical_dim_map(b, d))) return false;
      continue;
    }
    // offset - offset(0) grows by a constant from i to i + period; equal on [0, period]
    // means equal everywhere
    const dim period = std::lcm(blocks_a[d], blocks_b[d]);
    const dim last = std::min(a.get_dims()[d], period + 1);
    for (dim i = 1; i < last; ++i)
      if (detail::dim_offset(a, d, i) != detail::dim_offset(b, d, i)) return false;
  }
  return true;
}

}  // namespace memfmt
