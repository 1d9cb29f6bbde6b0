#pragma once
/// @file
/// `memfmt::desc`: the runtime memory descriptor, a literal type usable both in
/// `static_assert`s and at run time (oneDNN's `memory::desc`, same semantics).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/core/fixed_string.hpp"
#include "memfmt/core/format_kind.hpp"
#include "memfmt/desc/extra.hpp"
#include "memfmt/layout/blocked.hpp"
#include "memfmt/tag/parse.hpp"
#include "memfmt/tag/tag.hpp"

namespace memfmt {

namespace detail {

/// a * b, or -1 when it overflows int64 (both >= 0).
constexpr dim checked_mul(dim a, dim b) noexcept {
  dim r = 0;
  return __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

constexpr bool is_permutation(const std::vector<int>& perm, int n) {
  if (static_cast<int>(perm.size()) != n) return false;
  unsigned seen = 0;
  for (int p : perm) {
    if (p < 0 || p >= n || (seen >> p & 1U) != 0) return false;
    seen |= 1U << p;
  }
  return true;
}

}  // namespace detail

/// Every field of a blocked descriptor, as oneDNN's `memory_desc_t` keeps them: what a
/// bridge to another library reads from that library's descriptor (`desc::from_fields`).
struct desc_fields {
  dims logical;         ///< the dims
  data_type dt = data_type::undef;
  dims padded;          ///< the dims rounded up to the blocks (a view: what is left of its parent's)
  dims padded_offsets;  ///< where the dims start inside the padded dims
  dim offset0 = 0;      ///< elements from the data handle to the first element (views)
  dims strides;         ///< outer strides, in elements
  dims inner_blks;      ///< inner blocks, outermost first
  dims inner_idxs;      ///< the dim of each inner block
  extra_info extra;
};

/// A memory descriptor: dims, data type and layout of a tensor.
/// @invariant a blocked descriptor's strides do not overlap, its padded dims are multiples
///            of the inner blocks, and its byte size fits in 63 bits.
class desc {
 public:
  /// The zero descriptor (no dims, `format_kind::undef`).
  constexpr desc() noexcept = default;

  /// A descriptor of layout `tag` (any tag `parse_tag` accepts) for `dims`.
  /// @throws error naming the culprit for a bad tag, dims or data type; returns the zero
  ///         descriptor instead when `allow_empty`.
  constexpr desc(const dims& dims_, data_type dt, std::string_view tag, bool allow_empty = false) {
    const tag_parse_result r = parse_tag(tag);
    if (!r.ok()) {
      if (allow_empty) return;
      detail::fail_with_message(explain, tag, r);
    }
    init_blocked(dims_, dt, r.layout, tag, allow_empty);
  }

  /// A descriptor of the typed tag `T` (the tag itself is checked at compile time).
  template <fixed_string S>
  constexpr desc(const dims& dims_, data_type dt, tag_t<S>) {
    init_blocked(dims_, dt, tag_t<S>::layout, S.view(), false);
  }

  /// A descriptor of the layout `b` (what a tag says, e.g. `tag_t<S>::layout`) for `dims`.
  constexpr desc(const dims& dims_, data_type dt, const blocking& b) { init_blocked(dims_, dt, b, "blocking", false); }

  /// A descriptor from strides (in elements); empty strides mean dense row-major.
  /// Strides must be >= 0 and must not overlap once sorted; dims of 1 and stride 0
  /// (broadcast) are exempt from the overlap check.
  constexpr desc(const dims& dims_, data_type dt, const dims& strides, bool allow_empty = false) {
    if (!check_dims(dims_, dt, "strides", allow_empty)) return;
    bool zero_volume = false;
    for (dim v : dims_) zero_volume = zero_volume || v == 0;
    if (strides.empty() && !zero_volume) {
      blocking row_major;
      row_major.ndims = dims_.size();
      for (int i = 0; i < dims_.size(); ++i) row_major.order[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i);
      init_blocked(dims_, dt, row_major, "strides", allow_empty);
      return;
    }
    if (strides.empty()) {  // oneDNN's dense strides of a tensor with no elements: products that include the 0
      dims dense = dims::filled(dims_.size(), 1);
      for (int i = dims_.size() - 2; i >= 0; --i) {
        dense[i] = detail::checked_mul(dense[i + 1], dims_[i + 1]);
        if (dense[i] < 0) {
          if (allow_empty) return;
          detail::fail("desc: dense strides overflow: the dims after dim ", i, " hold more than 2^63 elements");
        }
      }
      set_plain(dims_, dt);
      strides_ = dense;
      inner_.order = order_by_strides(dims_, strides_);
      if (span_bytes_overflow()) {
        *this = desc();
        if (!allow_empty) detail::fail("desc: dims overflow: the tensor would exceed 2^63 bytes");
      }
      return;
    }
    if (strides.size() != dims_.size()) {
      if (allow_empty) return;
      detail::fail("desc: ", strides.size(), " strides given for ", dims_.size(), " dims");
    }
    for (int i = 0; i < strides.size(); ++i)
      if (strides[i] < 0) {
        if (allow_empty) return;
        detail::fail("desc: stride ", i, " is negative (", strides[i], ")");
      }
    // with no element nothing can overlap (oneDNN accepts any strides then)
    if (const int d = zero_volume ? -1 : first_overlapping_dim(dims_, strides); d >= 0) {
      if (allow_empty) return;
      detail::fail("desc: strides overlap: dim ", d, " (extent ", dims_[d], ", stride ", strides[d],
                   ") collides with a dim of smaller stride");
    }
    set_plain(dims_, dt);
    strides_ = strides;
    inner_.order = order_by_strides(dims_, strides_);
    if (const int d = odd_packed_stride(); d >= 0) {
      const dim s = strides_[d];
      *this = desc();
      if (!allow_empty)
        detail::fail("desc: ", to_string(dt), " packs two elements per byte, so dim ", d, "'s stride must be 0, 1 or even (is ",
                     s, ")");
      return;
    }
    if (span_bytes_overflow()) {
      if (allow_empty) *this = desc();
      else detail::fail("desc: strides reach past 2^63 bytes");
    }
  }

  /// A descriptor whose layout is left for a library to choose (`format_kind::any`).
  static constexpr desc any(const dims& dims_, data_type dt) {
    desc d;
    d.check_dims(dims_, dt, "any", false);
    d.set_plain(dims_, dt);
    d.kind_ = format_kind::any;
    return d;
  }

  /// A blocked descriptor with exactly the fields `f` (a bridge's way in: views, padding,
  /// strides and inner blocks as another library states them).
  /// @throws error naming the field when `f` breaks an invariant of `desc`: sizes that
  ///         disagree, bad blocks, dims outside their padding, negative or overlapping
  ///         strides, a size past 2^63 bytes, extra flags or masks memfmt does not know
  /// @post `from_fields(fields())` of any blocked descriptor is that descriptor
  static constexpr desc from_fields(const desc_fields& f);

  /// The fields of a blocked descriptor (`from_fields` makes it again from them).
  /// @throws error for the zero descriptor and `any`, which have no layout to give
  constexpr desc_fields fields() const {
    if (kind_ != format_kind::blocked)
      detail::fail("desc::fields: needs a blocked descriptor, not ",
                   kind_ == format_kind::any ? "format_kind::any" : "the zero descriptor");
    return {dims_, dt_, padded_dims_, padded_offsets_, offset0_, strides_, get_inner_blks(), get_inner_idxs(), extra_};
  }

  // ---- queries (oneDNN v3 names) ----
  constexpr int get_ndims() const noexcept { return dims_.size(); }
  constexpr dims get_dims() const noexcept { return dims_; }
  constexpr data_type get_data_type() const noexcept { return dt_; }
  constexpr format_kind get_format_kind() const noexcept { return kind_; }
  constexpr dims get_padded_dims() const noexcept { return padded_dims_; }
  constexpr dims get_padded_offsets() const noexcept { return padded_offsets_; }
  constexpr dim get_submemory_offset() const noexcept { return offset0_; }
  constexpr dims get_strides() const noexcept { return strides_; }
  constexpr int get_inner_nblks() const noexcept { return inner_.inner_nblks; }
  constexpr dims get_inner_blks() const {
    dims r;
    for (int k = 0; k < inner_.inner_nblks; ++k) r.push_back(inner_.inner_blks[static_cast<std::size_t>(k)]);
    return r;
  }
  constexpr dims get_inner_idxs() const {
    dims r;
    for (int k = 0; k < inner_.inner_nblks; ++k) r.push_back(inner_.inner_idxs[static_cast<std::size_t>(k)]);
    return r;
  }
  constexpr const extra_info& get_extra() const noexcept { return extra_; }
  constexpr bool is_zero() const noexcept { return dims_.empty(); }

  /// True when some dim is 0: the tensor has no elements and no memory is touched.
  constexpr bool has_zero_dim() const noexcept {
    for (dim v : dims_)
      if (v == 0) return true;
    return false;
  }

  /// The product of the inner blocks of each dim (1 for unblocked dims).
  constexpr dims get_blocks() const {
    dims r = dims::filled(get_ndims(), 1);
    for (int d = 0; d < get_ndims(); ++d) r[d] = inner_.block_of(d);
    return r;
  }

  /// Bytes of the data, without the compensation buffers (oneDNN's rule: 0 for `any`,
  /// zero-volume and submemory descriptors; dims whose padded extent spans one block do
  /// not count their stride).
  constexpr std::size_t get_data_size() const noexcept {
    if (kind_ != format_kind::blocked || offset0_ != 0) return 0;
    const dim span = span_in_elements(inner_, dims_, padded_dims_, strides_);
    // (s4 and u4: half a byte each, the last byte whole)
    const std::size_t bytes = is_sub_byte(dt_) ? (static_cast<std::size_t>(span) + 1) / 2
                                               : static_cast<std::size_t>(span) * data_type_size(dt_);
    // the s32 compensation buffers that follow the data are aligned to 4 bytes
    return get_compensation_size() != 0 ? (bytes + 3) / 4 * 4 : bytes;
  }

  /// Bytes of the compensation buffers that follow the data (counted once, as oneDNN
  /// documents; oneDNN 2.6 counts them three times, see docs/desc.md).
  constexpr std::size_t get_compensation_size() const noexcept {
    if (kind_ != format_kind::blocked || has_zero_dim() || offset0_ != 0) return 0;
    std::size_t bytes = 0;
    if ((extra_.flags & extra_flags::compensation_conv_s8s8) != 0) bytes += masked_volume(extra_.compensation_mask) * 4;
    if ((extra_.flags & extra_flags::compensation_conv_asymmetric_src) != 0)
      bytes += masked_volume(extra_.asymm_compensation_mask) * 4;
    return bytes;
  }

  /// Bytes a buffer of this tensor needs: data, then compensation.
  constexpr std::size_t get_size() const noexcept { return get_data_size() + get_compensation_size(); }

  /// The number of elements masked by `mask` over padded dims (the extent of a
  /// compensation or scale array with that mask).
  constexpr std::size_t masked_volume(int mask) const noexcept {
    std::size_t v = 1;
    for (int d = 0; d < get_ndims(); ++d)
      if ((mask >> d & 1) != 0) v *= static_cast<std::size_t>(padded_dims_[d]);
    return v;
  }

  /// The same descriptor with `extra` attached. A mask or scale_adjust whose flag is not
  /// set means nothing (oneDNN reads it only with its flag): it becomes its default, so
  /// that descriptors oneDNN deems equal are equal here too.
  /// @throws error when a mask whose flag is set names a dim the descriptor does not have
  constexpr desc with_extra(const extra_info& extra) const {
    extra_info e = extra;
    if ((e.flags & extra_flags::compensation_conv_s8s8) == 0) e.compensation_mask = extra_info{}.compensation_mask;
    if ((e.flags & extra_flags::compensation_conv_asymmetric_src) == 0)
      e.asymm_compensation_mask = extra_info{}.asymm_compensation_mask;
    if ((e.flags & extra_flags::scale_adjust) == 0) e.scale_adjust = extra_info{}.scale_adjust;
    const int all = (1 << get_ndims()) - 1;
    if ((e.compensation_mask & ~all) != 0 || (e.asymm_compensation_mask & ~all) != 0)
      detail::fail("desc: compensation mask names a dim beyond the ", get_ndims(), " dims");
    if (kind_ != format_kind::blocked) detail::fail("desc: extra information needs a blocked descriptor");
    desc r = *this;
    r.extra_ = e;
    return r;
  }

  // ---- derived descriptors ----

  /// A view of the box `sizes` at `offsets` (oneDNN's rules: offsets must be multiples of
  /// a dim's block, and a box that stops short of the end must cover whole blocks).
  constexpr desc submemory_desc(const dims& sizes, const dims& offsets, bool allow_empty = false) const {
    const auto reject = [&](auto... why) -> desc {
      if (!allow_empty) detail::fail("submemory_desc: ", why...);
      return desc();
    };
    if (kind_ != format_kind::blocked) return reject("needs a blocked descriptor");
    if (sizes.size() != get_ndims() || offsets.size() != get_ndims())
      return reject(sizes.size(), " sizes and ", offsets.size(), " offsets for ", get_ndims(), " dims");
    desc r = *this;
    for (int d = 0; d < get_ndims(); ++d) {
      const dim block = inner_.block_of(d);
      if (sizes[d] < 0 || offsets[d] < 0 || offsets[d] > dims_[d] - sizes[d])
        return reject("dim ", d, ": the box [", offsets[d], ", ", offsets[d], " + ", sizes[d], ") is not inside [0, ",
                      dims_[d], ")");
      if (offsets[d] % block != 0)
        return reject("dim ", d, ": offset ", offsets[d], " is not a multiple of the block ", block);
      if (padded_offsets_[d] != 0) return reject("dim ", d, ": the descriptor is already a padded view");
      const bool right_border = offsets[d] + sizes[d] == dims_[d];
      if (!right_border && sizes[d] % block != 0 && sizes[d] > block)
        return reject("dim ", d, ": size ", sizes[d], " must be a multiple of the block ", block, " or smaller than it");
      r.dims_[d] = sizes[d];
      r.padded_dims_[d] = right_border ? padded_dims_[d] - offsets[d] : sizes[d];
      r.offset0_ += offsets[d] / block * strides_[d];
    }
    // a view of packed elements starts on a byte: a pointer to it is a byte's address
    if (is_sub_byte(dt_) && r.offset0_ % 2 != 0)
      return reject("a view of ", to_string(dt_), " must start on a byte, but starts at element ", r.offset0_,
                    " (two elements per byte)");
    return r;
  }

  /// The same memory seen with other dims: unit dims added or removed, dense unblocked
  /// dims split or joined (oneDNN's rules).
  constexpr desc reshape(const dims& new_dims, bool allow_empty = false) const {
    const auto reject = [&](auto... why) -> desc {
      if (!allow_empty) detail::fail("reshape: ", why...);
      return desc();
    };
    if (is_zero()) return reject("the zero descriptor has no dims");
    if (kind_ == format_kind::undef) return reject("needs a concrete descriptor");
    if (extra_.flags != 0) return reject("a descriptor with compensation cannot be reshaped");
    if (new_dims.empty()) return reject("no dims given");
    for (dim v : new_dims)
      if (v < 0) return reject("negative dim ", v);
    if (nonzero_volume(dims_) != nonzero_volume(new_dims)) return reject("the number of elements changes");
    if (kind_ == format_kind::any) return desc::any(new_dims, dt_);
    return reshape_blocked(new_dims, allow_empty);
  }

  /// The same memory with axes renamed: dim i of this descriptor becomes dim perm[i].
  constexpr desc permute_axes(const std::vector<int>& perm, bool allow_empty = false) const {
    const auto reject = [&](auto... why) -> desc {
      if (!allow_empty) detail::fail("permute_axes: ", why...);
      return desc();
    };
    if (is_zero() || kind_ == format_kind::undef) return reject("needs a non-zero descriptor");
    if (extra_.flags != 0) return reject("a descriptor with compensation cannot be permuted");
    if (!detail::is_permutation(perm, get_ndims())) return reject("not a permutation of 0..", get_ndims() - 1);
    desc r = *this;
    for (int d = 0; d < get_ndims(); ++d) {
      const int to = perm[static_cast<std::size_t>(d)];
      r.dims_[to] = dims_[d];
      r.padded_dims_[to] = padded_dims_[d];
      r.padded_offsets_[to] = padded_offsets_[d];
      r.strides_[to] = strides_[d];
    }
    for (int k = 0; k < inner_.inner_nblks; ++k)
      r.inner_.inner_idxs[static_cast<std::size_t>(k)] =
          static_cast<std::int8_t>(perm[static_cast<std::size_t>(inner_.inner_idxs[static_cast<std::size_t>(k)])]);
    r.inner_.order = order_by_strides(r.dims_, r.strides_);
    return r;
  }

  /// The equivalent plain strided descriptor of rank `get_ndims() + get_inner_nblks()`
  /// over the padded tensor: the outer part of each dim in logical order, then one dim per
  /// inner block in the tag's order (`nChw16c` {2, 17, 5, 4} -> {2, 2, 5, 4, 16}).
  /// Rules, example and the inverse `memfmt::fold`: `memfmt/desc/unfold.hpp`.
  /// @throws error naming the culprit for the zero descriptor, `any`, extra information,
  ///         a padded dim that is not a multiple of its block, or more than `max_ndims` dims
  constexpr desc unfold() const;

  /// The plain (unblocked, dense) descriptor of the same dims and type, in logical order
  /// `abc...` or in the order of `order_tag` (an unblocked tag, e.g. "acdb" or "nhwc").
  constexpr desc plain(std::string_view order_tag = {}) const {
    if (kind_ == format_kind::undef) detail::fail("plain: the zero descriptor has no dims");
    blocking b;
    b.ndims = get_ndims();
    for (int i = 0; i < b.ndims; ++i) b.order[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i);
    if (!order_tag.empty()) b = parse_tag_or_throw(order_tag);
    if (b.inner_nblks != 0) detail::fail("plain: tag '", order_tag, "' is blocked");
    desc r;
    r.init_blocked(dims_, dt_, b, order_tag, false);
    return r;
  }

  /// oneDNN's equality: strides of unit, unpadded dims do not matter.
  constexpr bool operator==(const desc& o) const noexcept {
    if (!(dims_ == o.dims_ && dt_ == o.dt_ && kind_ == o.kind_ && padded_dims_ == o.padded_dims_ &&
          padded_offsets_ == o.padded_offsets_ && offset0_ == o.offset0_ && extra_ == o.extra_))
      return false;
    if (kind_ != format_kind::blocked) return true;
    if (!same_inner_blocks(o)) return false;
    for (int d = 0; d < get_ndims(); ++d)
      if (!(dims_[d] == 1 && padded_dims_[d] == 1) && strides_[d] != o.strides_[d]) return false;
    return true;
  }

  /// The offset, in elements from the data handle, of the element at `index` (submemory
  /// offset included).
  /// @throws error when `index` is outside the dims
  constexpr dim offset(const dims& index) const {
    if (kind_ != format_kind::blocked) detail::fail("offset: needs a blocked descriptor");
    if (index.size() != get_ndims()) detail::fail("offset: ", index.size(), " indices for ", get_ndims(), " dims");
    dims physical = index;
    for (int d = 0; d < get_ndims(); ++d) {
      if (index[d] < 0 || index[d] >= dims_[d])
        detail::fail("offset: index ", index[d], " of dim ", d, " is outside [0, ", dims_[d], ")");
      physical[d] += padded_offsets_[d];
    }
    return offset0_ + element_offset(inner_, strides_, physical);
  }

  /// True when this descriptor has the layout `tag` would give its dims (oneDNN's
  /// `memory_desc_matches_tag`): strides of dims that are 1 and unpadded are ignored.
  /// With `strides`, those replace the tag's computed strides, and -1 means "any".
  constexpr bool matches(std::string_view tag, const dims& strides = {}) const {
    if (kind_ != format_kind::blocked) return false;
    const tag_parse_result r = parse_tag(tag);
    if (!r.ok() || r.layout.ndims != get_ndims()) return false;
    return matches_blocking(r.layout, strides);
  }
  template <fixed_string S>
  constexpr bool matches(tag_t<S>, const dims& strides = {}) const {
    if (kind_ != format_kind::blocked || tag_t<S>::ndims != get_ndims()) return false;
    return matches_blocking(tag_t<S>::layout, strides);
  }

  /// The layout as a `blocking`: outer order (by decreasing stride; ties by dim index,
  /// so unit dims keep their logical place) and inner blocks.
  constexpr blocking get_blocking() const noexcept { return inner_; }

  /// The canonical abstract tag of the layout ("aBcd16b"), also for descriptors built
  /// from strides; see docs/desc.md for non-dense layouts.
  std::string tag_str() const {
    if (kind_ == format_kind::any) return "any";
    if (kind_ != format_kind::blocked) return "undef";
    return std::string(abstract_tag(inner_).view());
  }

  /// A oneDNN-verbose-like description: `f32::blocked:aBcd16b:f0`; the second field holds
  /// `p` when the layout has padding and `o` when the data starts at an offset.
  std::string str() const;

 private:
  // ---- construction helpers ----
  constexpr bool check_dims(const dims& d, data_type dt, std::string_view what, bool allow_empty) {
    const auto reject = [&](auto... why) {
      if (!allow_empty) detail::fail("desc(", what, "): ", why...);
      return false;
    };
    if (dt == data_type::undef) return reject("data type is undef");
    if (d.empty()) return reject("no dims");
    for (int i = 0; i < d.size(); ++i)
      if (d[i] < 0) return reject("dim ", i, " is negative (", d[i], ")");
    return true;
  }

  constexpr void set_plain(const dims& d, data_type dt) {
    dims_ = d;
    dt_ = dt;
    kind_ = format_kind::blocked;
    padded_dims_ = d;
    padded_offsets_ = dims::filled(d.size(), 0);
    strides_ = dims::filled(d.size(), 0);
    offset0_ = 0;
    inner_ = blocking{};
    inner_.ndims = d.size();
    inner_.order = order_by_strides(d, strides_);
  }

  constexpr void init_blocked(const dims& d, data_type dt, const blocking& b, std::string_view tag, bool allow_empty) {
    const auto reject = [&](auto... why) {
      if (!allow_empty) detail::fail("desc: tag '", tag, "': ", why...);
    };
    if (!check_dims(d, dt, tag, allow_empty)) return;
    if (d.size() != b.ndims) return reject("is ", b.ndims, "-D but ", d.size(), " dims were given");
    constexpr dim max_extent = dim{1} << 62;  // so that rounding up to a block cannot overflow
    dim volume = static_cast<dim>(data_type_size(dt)) * b.block_size();
    for (int i = 0; i < d.size(); ++i) {
      if (d[i] > max_extent) return reject("dim ", i, " (", d[i], ") overflows");
      volume = volume < 0 ? -1 : detail::checked_mul(volume, d[i] == 0 ? 1 : (d[i] + b.block_of(i) - 1) / b.block_of(i));
    }
    if (volume < 0) return reject("dims overflow: the tensor would exceed 2^63 bytes");
    set_plain(d, dt);
    padded_dims_ = padded_dims(b, d);
    strides_ = outer_strides(b, padded_dims_);
    inner_ = b;
    inner_.order = order_by_strides(dims_, strides_);
    if (const int k = odd_packed_stride(); k >= 0) {
      const dim s = strides_[k];
      *this = desc();
      return reject(to_string(dt), " packs two elements per byte, so dim ", k, "'s stride must be 0, 1 or even (is ", s, ")");
    }
  }

 public:
  /// The first dim whose stride s4 and u4 cannot take, or -1: a dim (of padded extent
  /// above 1) that steps over more than one element steps over whole bytes, an even
  /// number of elements (oneDNN 3.x's rule, which keeps every row on a byte of its own).
  constexpr int odd_packed_stride() const noexcept {
    for (int d = 0; d < get_ndims() && is_sub_byte(dt_); ++d)
      if (padded_dims_[d] > 1 && strides_[d] > 1 && strides_[d] % 2 != 0) return d;
    return -1;
  }

 private:

  /// True when the padded volume, or the reach of some dim, would not fit in int64 bytes.
  constexpr bool span_bytes_overflow() const noexcept {
    const dim element = static_cast<dim>(data_type_size(dt_));
    dim volume = element;
    for (dim v : padded_dims_) volume = volume < 0 ? -1 : detail::checked_mul(volume, v == 0 ? 1 : v);
    if (volume < 0) return true;
    for (int d = 0; d < get_ndims(); ++d) {
      const dim reach = detail::checked_mul(padded_dims_[d] / inner_.block_of(d), strides_[d]);
      if (reach < 0 || detail::checked_mul(reach, element) < 0) return true;
    }
    return false;
  }

  /// The first dim (by increasing stride) whose stride lands inside a dim of smaller stride.
  static constexpr int first_overlapping_dim(const dims& d, const dims& strides) {
    const std::array<std::int8_t, max_ndims> order = order_by_strides(d, strides);
    dim min_stride = 1;
    for (int k = d.size() - 1; k >= 0; --k) {
      const int i = order[static_cast<std::size_t>(k)];
      if (d[i] == 1 || strides[i] == 0) continue;
      if (strides[i] < min_stride) return i;
      const dim next = detail::checked_mul(strides[i], d[i]);
      if (next < 0) return i;
      min_stride = next;
    }
    return -1;
  }

  /// Dims outermost first: by decreasing stride, ties by increasing dim index.
  static constexpr std::array<std::int8_t, max_ndims> order_by_strides(const dims& d, const dims& strides) {
    std::array<std::int8_t, max_ndims> order{};
    for (int i = 0; i < d.size(); ++i) order[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(i);
    for (int i = 1; i < d.size(); ++i)  // insertion sort: stable and constexpr
      for (int j = i; j > 0; --j) {
        const int a = order[static_cast<std::size_t>(j - 1)], b = order[static_cast<std::size_t>(j)];
        if (strides[a] >= strides[b]) break;
        order[static_cast<std::size_t>(j - 1)] = static_cast<std::int8_t>(b);
        order[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(a);
      }
    return order;
  }

  static constexpr dim nonzero_volume(const dims& d) noexcept {
    dim v = 1;
    for (dim x : d) v = v < 0 ? -1 : detail::checked_mul(v, x > 0 ? x : 1);  // -1: overflow
    return v;
  }

  constexpr bool same_inner_blocks(const desc& o) const noexcept {
    if (inner_.inner_nblks != o.inner_.inner_nblks) return false;
    for (int k = 0; k < inner_.inner_nblks; ++k)
      if (inner_.inner_blks[static_cast<std::size_t>(k)] != o.inner_.inner_blks[static_cast<std::size_t>(k)] ||
          inner_.inner_idxs[static_cast<std::size_t>(k)] != o.inner_.inner_idxs[static_cast<std::size_t>(k)])
        return false;
    return true;
  }

  constexpr bool matches_blocking(const blocking& b, const dims& strides) const {
    // Blocks first: with our own blocks, padding and strides cannot overflow.
    blocking mine = inner_;
    mine.order = b.order;
    if (!(mine == b)) return false;
    const dims padded = padded_dims(b, dims_);
    const dims expected = strides.empty() ? outer_strides(b, padded) : strides;
    if (expected.size() != get_ndims() || padded != padded_dims_) return false;
    for (int d = 0; d < get_ndims(); ++d) {
      if (dims_[d] == 1 && padded_dims_[d] == 1) continue;
      if (expected[d] != -1 && expected[d] != strides_[d]) return false;
    }
    return true;
  }

  constexpr desc reshape_blocked(const dims& out, bool allow_empty) const;

  dims dims_;
  data_type dt_ = data_type::undef;
  format_kind kind_ = format_kind::undef;
  dims padded_dims_;
  dims padded_offsets_;
  dim offset0_ = 0;
  dims strides_;
  blocking inner_;  ///< inner blocks, and the outer order derived from the strides
  extra_info extra_;
};

}  // namespace memfmt

#include "memfmt/desc/fields.hpp"
#include "memfmt/desc/reshape.hpp"
#include "memfmt/desc/str.hpp"
#include "memfmt/desc/unfold.hpp"
