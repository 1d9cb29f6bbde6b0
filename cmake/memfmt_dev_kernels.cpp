// The reorder kernels and the reorder's planning compiled once per build for memfmt's
// own programs (target memfmt_dev_kernels): tests, examples, tools and benchmarks define
// MEMFMT_KERNELS_EXTERN and link this unit instead of compiling both in each unit.
// The kernels report their paths to memfmt_dev::record_kernel_path, which only the
// kernel tests set.
#include "memfmt_dev_kernel_paths.hpp"
#define MEMFMT_KERNEL_PATH(name) ::memfmt_dev::kernel_path_taken(name)
#include <memfmt/memfmt.hpp>
