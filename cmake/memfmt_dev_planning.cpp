// The reorder's planning and execution compiled once per build for memfmt's own
// programs (target memfmt_dev_kernels; the kernels are memfmt_dev_kernels.cpp's): a
// unit of its own, so that a parallel build compiles it beside the kernels, and the
// fuzzer can instrument it alone.
#define MEMFMT_REORDER_IMPLEMENTATION 1
#include <memfmt/reorder/reorder.hpp>
