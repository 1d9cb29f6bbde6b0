// One per-target pass: Highway's ops for HWY_TARGET (what highway.h's per-target
// part includes), then memfmt's kernels for that target. foreach_target.hpp
// includes this file once per target with HWY_TARGET set; no include guard on
// purpose. Highway's own per-target headers are toggle-guarded on
// HWY_TARGET_TOGGLE, memfmt's on MEMFMT_KERNEL_TOGGLE; both flip at the end.

#if HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4
#include "hwy/ops/x86_128-inl.h"
#elif HWY_TARGET == HWY_AVX2
#include "hwy/ops/x86_256-inl.h"
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#include "hwy/ops/x86_512-inl.h"
#elif HWY_TARGET == HWY_NEON
#include "hwy/ops/arm_neon-inl.h"
#elif HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
#include "hwy/ops/arm_sve-inl.h"
#elif HWY_TARGET == HWY_WASM_EMU256
#include "hwy/ops/wasm_256-inl.h"
#elif HWY_TARGET == HWY_WASM
#include "hwy/ops/wasm_128-inl.h"
#elif HWY_TARGET == HWY_RVV
#include "hwy/ops/rvv-inl.h"
#elif HWY_TARGET == HWY_EMU128
#include "hwy/ops/emu128-inl.h"
#elif HWY_TARGET == HWY_SCALAR
#include "hwy/ops/scalar-inl.h"
#else
#error "memfmt: HWY_TARGET is not a Highway 1.0 target"
#endif
#include "hwy/ops/generic_ops-inl.h"

// GCC's AVX-512 intrinsics pass an undefined vector as the unused merge source;
// when <immintrin.h> was first included outside Highway's diagnostic guard, GCC
// warns about it wherever such an intrinsic is inlined into the kernels.
HWY_DIAGNOSTICS(push)
#if HWY_COMPILER_GCC_ACTUAL
HWY_DIAGNOSTICS_OFF(disable : 4701, ignored "-Wuninitialized")
HWY_DIAGNOSTICS_OFF(disable : 4703 6001 26494, ignored "-Wmaybe-uninitialized")
#endif
#include "memfmt/reorder/kernel/entry-inl.h"
HWY_DIAGNOSTICS(pop)

// The entry point of this target, for run.hpp's dispatch table: the passes that run
// are the list of compiled targets, which is written only in foreach_target.hpp.
namespace memfmt::detail {
template <>
struct compiled_target<HWY_TARGET> {
  static constexpr run_nest_fn run = &HWY_NAMESPACE::run_nest_target;
};
}  // namespace memfmt::detail

#ifdef HWY_TARGET_TOGGLE
#undef HWY_TARGET_TOGGLE
#else
#define HWY_TARGET_TOGGLE
#endif

#ifdef MEMFMT_KERNEL_TOGGLE
#undef MEMFMT_KERNEL_TOGGLE
#else
#define MEMFMT_KERNEL_TOGGLE
#endif
