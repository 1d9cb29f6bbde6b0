// Compiled with a baseline of AVX3_DL (-march=sapphirerapids, as -march=native on
// Sapphire Rapids or Zen 5), where Highway 1.0 alone stops with an #error: memfmt,
// kernels included, must compile there (highway_config.hpp). Compiled, never run,
// so the build machine need not have those instructions.
#include "memfmt/memfmt.hpp"

#if !HWY_ARCH_X86 || !(HWY_STATIC_TARGET == HWY_AVX3_DL)
#error "this file is meant to be compiled with a baseline of AVX3_DL"
#endif

// external linkage: the reorder and its kernels are compiled, not dropped as unused
void reorder_with_an_avx3_dl_baseline(const float* src, float* dst);
void reorder_with_an_avx3_dl_baseline(const float* src, float* dst) {
  const memfmt::desc from(memfmt::dims{2, 32, 4, 4}, memfmt::data_type::f32, "nchw");
  const memfmt::desc to(memfmt::dims{2, 32, 4, 4}, memfmt::data_type::f32, "nChw16c");
  memfmt::reorder(from, to).execute(src, dst);
}
