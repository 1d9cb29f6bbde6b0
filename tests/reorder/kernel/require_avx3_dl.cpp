// Exits with 77 (CTest's skip) before any other initializer runs unless this CPU has
// Highway's AVX3_DL target: the kernel tests it is linked with are compiled with that
// baseline, so their code may use its instructions anywhere. Compiled without it.
#include <cstdlib>

#include <hwy/targets.h>

namespace {

struct require_avx3_dl {
  require_avx3_dl() {
    if ((hwy::SupportedTargets() & HWY_AVX3_DL) == 0) std::exit(77);
  }
};

__attribute__((init_priority(101))) const require_avx3_dl check;

}  // namespace
