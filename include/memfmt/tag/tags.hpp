#pragma once
/// @file
/// `memfmt::tags::NAME`: a typed tag for every name of oneDNN's `memory::format_tag`.

#include "memfmt/tag/tag.hpp"

namespace memfmt::tags {

#define MEMFMT_TAG_NAME(name) inline constexpr tag_t<#name> name{};
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME

}  // namespace memfmt::tags
