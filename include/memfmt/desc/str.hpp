#pragma once
/// @file
/// `desc::str`: a oneDNN-verbose-like one-line description of a descriptor.

#include <string>

#include "memfmt/desc/desc.hpp"

namespace memfmt {

inline std::string desc::str() const {
  std::string s(to_string(dt_));
  s += ':';
  if (kind_ == format_kind::blocked) {
    if (!(padded_dims_ == dims_)) s += 'p';
    if (offset0_ != 0) s += 'o';
  }
  s += ':';
  s += kind_ == format_kind::blocked ? "blocked" : kind_ == format_kind::any ? "any" : "undef";
  s += ':';
  s += tag_str();
  s += ":f" + std::to_string(extra_.flags);
  if ((extra_.flags & extra_flags::compensation_conv_s8s8) != 0) s += ":s8m" + std::to_string(extra_.compensation_mask);
  if ((extra_.flags & extra_flags::compensation_conv_asymmetric_src) != 0)
    s += ":zpm" + std::to_string(extra_.asymm_compensation_mask);
  if ((extra_.flags & extra_flags::scale_adjust) != 0) s += ":sa" + std::to_string(extra_.scale_adjust);
  return s;
}

}  // namespace memfmt
