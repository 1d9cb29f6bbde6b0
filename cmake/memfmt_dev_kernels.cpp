// The reorder kernels compiled once per build for memfmt's own programs (target
// memfmt_dev_kernels): tests, examples, tools and benchmarks define
// MEMFMT_KERNELS_EXTERN and link this unit instead of compiling every kernel each.
#include <memfmt/memfmt.hpp>
