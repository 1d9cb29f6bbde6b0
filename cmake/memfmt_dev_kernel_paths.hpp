#pragma once
// The kernel paths of memfmt_dev_kernels: its unit defines MEMFMT_KERNEL_PATH as a
// call of kernel_path_taken, so that the kernel tests, which link the build's kernels
// instead of compiling them once more, can still check that each case reaches the
// path it is written for (see memfmt/reorder/kernel/path.hpp).

namespace memfmt_dev {

/// Called with the name of each path a kernel takes, when set; nullptr otherwise.
/// Set once, before any reorder runs (a test's static initialisation).
using kernel_path_recorder = void (*)(const char* name);
inline kernel_path_recorder record_kernel_path = nullptr;

inline void kernel_path_taken(const char* name) {
  if (record_kernel_path != nullptr) record_kernel_path(name);
}

}  // namespace memfmt_dev
