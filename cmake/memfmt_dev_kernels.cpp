// The reorder kernels compiled once per build for memfmt's own programs (target
// memfmt_dev_kernels, with the reorder's planning in memfmt_dev_planning.cpp beside
// it): tests, examples, tools and benchmarks define MEMFMT_KERNELS_EXTERN and link
// these units instead of compiling both in each of theirs.
// The kernels report their paths to memfmt_dev::record_kernel_path, which only the
// kernel tests set.
#define MEMFMT_KERNELS_IMPLEMENTATION 1
#include "memfmt_dev_kernel_paths.hpp"
#define MEMFMT_KERNEL_PATH(name) ::memfmt_dev::kernel_path_taken(name)
#include <memfmt/reorder/kernel/run.hpp>
