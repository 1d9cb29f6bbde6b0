#pragma once
/// @file
/// `desc::reshape` for blocked descriptors (oneDNN's algorithm: match groups of dims of
/// equal volume from the innermost outward).

#include "memfmt/desc/desc.hpp"

namespace memfmt {

constexpr desc desc::reshape_blocked(const dims& out, bool allow_empty) const {
  const auto reject = [&](auto... why) -> desc {
    if (!allow_empty) detail::fail("reshape: ", why...);
    return desc();
  };
  desc r = *this;
  r.dims_ = out;
  r.padded_dims_ = dims::filled(out.size(), 0);
  r.padded_offsets_ = dims::filled(out.size(), 0);
  r.strides_ = dims::filled(out.size(), 0);
  r.inner_.ndims = out.size();

  const int in_n = get_ndims();
  int in_end = in_n, out_end = out.size();
  while (in_end != 0 || out_end != 0) {
    int in_begin = in_end, out_begin = out_end;
    if (in_end > 0 && dims_[in_end - 1] == 1) {
      in_begin = in_end - 1;
      if (padded_dims_[in_begin] == 1 && !inner_.is_blocked(in_begin)) {  // drop a plain unit dim
        in_end = in_begin;
        continue;
      }
      // a padded or blocked unit dim (a view of one index of a blocked dim) has inner
      // blocks that must stay on a dim: it maps to a unit dim of the output
      if (out_end == 0 || out[out_end - 1] != 1)
        return reject("dim ", in_begin, " is 1 but padded or blocked, so it must stay a dim of 1");
      out_begin = out_end - 1;
    } else if (out_end > 0 && out[out_end - 1] == 1) {  // add a unit dim
      out_begin = out_end - 1;
      dim stride = 1;
      if (in_end == in_n) {
        stride = inner_.block_size();
      } else {
        stride = strides_[in_end] * dims_[in_end] / inner_.block_of(in_end);
      }
      r.padded_dims_[out_begin] = 1;
      r.strides_[out_begin] = stride;
      out_end = out_begin;
      continue;
    } else {
      if (in_end == 0 || out_end == 0) return reject("dims do not match");
      in_begin = in_end - 1;
      out_begin = out_end - 1;
      dim in_volume = dims_[in_begin], out_volume = out[out_begin];
      while (in_volume != out_volume) {
        if (in_volume < out_volume) {
          if (in_begin == 0) return reject("dims do not match");
          in_volume *= dims_[--in_begin];
          if (in_volume == 0) return reject("a dim of 0 inside a group");
        } else {
          if (out_begin == 0) return reject("dims do not match");
          out_volume *= out[--out_begin];
          if (out_volume == 0) return reject("a dim of 0 inside a group");
        }
      }
    }
    if (in_begin + 1 == in_end && out_begin + 1 == out_end) {  // the same dim, renumbered
      r.padded_dims_[out_begin] = padded_dims_[in_begin];
      r.padded_offsets_[out_begin] = padded_offsets_[in_begin];
      r.strides_[out_begin] = strides_[in_begin];
      for (int k = 0; k < inner_.inner_nblks; ++k)
        if (inner_.inner_idxs[static_cast<std::size_t>(k)] == in_begin)
          r.inner_.inner_idxs[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(out_begin);
    } else {  // split or join: the input group must be dense, unblocked and unpadded
      for (int d = in_end - 1; d > in_begin; --d)
        if (dims_[d] * strides_[d] != strides_[d - 1])
          return reject("dims ", in_begin, "..", in_end - 1, " are not dense, so they cannot be split or joined");
      for (int d = in_begin; d < in_end; ++d)
        if (inner_.is_blocked(d) || padded_dims_[d] != dims_[d] || padded_offsets_[d] != 0)
          return reject("dim ", d, " is blocked or padded, so it cannot be split or joined");
      dim stride = strides_[in_end - 1];
      for (int d = out_end - 1; d >= out_begin; --d) {
        r.padded_dims_[d] = out[d];
        r.strides_[d] = stride;
        stride *= out[d];
      }
    }
    in_end = in_begin;
    out_end = out_begin;
  }
  r.inner_.order = order_by_strides(r.dims_, r.strides_);
  if (const int d = r.odd_packed_stride(); d >= 0)
    return reject("dim ", d, " would have stride ", r.strides_[d], ", but ", to_string(dt_),
                  " needs strides of 0, 1 or an even count (two elements per byte)");
  return r;
}

}  // namespace memfmt
