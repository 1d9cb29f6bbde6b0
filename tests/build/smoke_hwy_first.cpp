// <hwy/highway.h> first, then <memfmt/memfmt.hpp>.
#include <hwy/highway.h>
#include <memfmt/memfmt.hpp>

#include "smoke.hpp"

namespace memfmt_smoke {

report from_hwy_first_tu() {
  const memfmt::desc zero;
  return {memfmt::max_ndims, static_cast<std::int64_t>(hwy::SupportedTargets()),
          zero.is_zero(), zero.get_ndims()};
}

}  // namespace memfmt_smoke
