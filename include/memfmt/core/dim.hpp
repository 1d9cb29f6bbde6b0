#pragma once
/// @file
/// The scalar vocabulary: a dimension, and how many of them a tensor may have.

#include <cstdint>

namespace memfmt {

/// One extent, stride or index, in elements (oneDNN's `dim_t`).
using dim = std::int64_t;

/// The most dimensions a tensor may have (oneDNN's `DNNL_MAX_NDIMS`).
inline constexpr int max_ndims = 12;

}  // namespace memfmt
