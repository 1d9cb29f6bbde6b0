// The reorder kernels, compiled once for every test built with MEMFMT_KERNELS_EXTERN.
#include <memfmt/memfmt.hpp>
