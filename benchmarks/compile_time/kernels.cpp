// Every reorder kernel compiled, for every target, and the reorder's planning: what
// one translation unit of a program pays for them, whether it includes memfmt
// header-only and calls memfmt::reorder, or defines MEMFMT_KERNELS_IMPLEMENTATION (the
// measurement defines MEMFMT_KERNELS_EXTERN and MEMFMT_KERNELS_IMPLEMENTATION, which
// make every kernel and member of reorder an out-of-line definition, as a call of
// reorder would instantiate them).
#include <memfmt/memfmt.hpp>

int main() { return 0; }
