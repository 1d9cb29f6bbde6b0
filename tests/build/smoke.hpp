// What each translation unit of the smoke test reports about itself.
#pragma once

#include <cstdint>

#include <memfmt/memfmt.hpp>

namespace memfmt_smoke {

struct report {
  int max_ndims;
  std::int64_t hwy_targets;
  bool zero_desc_is_zero;
  int zero_desc_ndims;
};

report from_memfmt_first_tu();  // <memfmt/memfmt.hpp> included before <hwy/highway.h>
report from_hwy_first_tu();     // <hwy/highway.h> included before <memfmt/memfmt.hpp>

}  // namespace memfmt_smoke
