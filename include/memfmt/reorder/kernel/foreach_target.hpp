#pragma once
// memfmt's own per-target inclusion loop, run once per translation unit
// (included by run.hpp). Defines memfmt::detail::memfmt_N_<TARGET>::run_nest_target
// and specializes memfmt::detail::compiled_target<HWY_TARGET> for every target in
// MEMFMT_KERNEL_COMPILED: this file is the one list of the targets memfmt compiles.
//
// Why not Highway's foreach_target.h: it has an include guard and keeps its
// state in parity toggles, so it can run once per translation unit, and it
// breaks when highway.h was included before it. A user translation unit that
// includes memfmt and also runs its own foreach_target.h must keep working in
// either order. So memfmt
//   1. saves (push_macro) every macro a Highway per-target pass reads or
//      changes: HWY_TARGET, the toggles, the toggle-guarded include guards and
//      everything set_macros-inl.h defines;
//   2. resets the toggles to the state "no pass has run yet";
//   3. renames Highway's per-target namespaces (N_AVX2 -> memfmt_N_AVX2, as
//      macros), so memfmt's private copy of Highway's ops and its kernels never
//      collide with the user's hwy::N_AVX2 in the same translation unit;
//   4. includes pass-inl.h once per target, like foreach_target.h would, but
//      never highway.h itself (whose include guard a later foreach_target.h
//      checks);
//   5. restores (pop_macro) everything, so the preprocessor state after this
//      file is exactly the one before it.
// The list of guards is the one of Highway 1.0 (checked by
// tests/reorder/kernel/foreach_target_user_test.cpp).

#include <cstdint>

#include "memfmt/reorder/kernel/highway_config.hpp"
// (first: it configures Highway)
#include "hwy/base.h"
#include "hwy/cache_control.h"
#include "hwy/detect_targets.h"
#include "hwy/targets.h"
#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/scalar_rows.hpp"

namespace memfmt::detail {

using run_nest_fn = void (*)(const nest&, const void*, void*, dim, dim);

/// The kernels of Highway target `Target` (a HWY_* bit), complete only when this
/// translation unit compiled them: each per-target pass (pass-inl.h) specializes it
/// with `static constexpr run_nest_fn run`.
template <std::int64_t Target>
struct compiled_target;

}  // namespace memfmt::detail

#if defined(HWY_MAJOR) && (HWY_MAJOR != 1 || HWY_MINOR != 0)
#error "memfmt/reorder/kernel/foreach_target.hpp knows the per-target guards of Highway 1.0 only"
#endif

/// The targets memfmt compiles kernels for, among those Highway enables in this
/// translation unit; the baseline (static) target is always added so that one
/// of them runs on any CPU this translation unit runs on. Define it to
/// HWY_STATIC_TARGET to compile a single target.
#ifndef MEMFMT_KERNEL_TARGETS
#define MEMFMT_KERNEL_TARGETS (HWY_AVX3 | HWY_AVX2 | HWY_SSE4 | HWY_EMU128 | HWY_SCALAR)
#endif
#define MEMFMT_KERNEL_COMPILED ((HWY_TARGETS & (MEMFMT_KERNEL_TARGETS)) | HWY_STATIC_TARGET)

// 1. save
#pragma push_macro("HWY_TARGET")
#pragma push_macro("HWY_TARGET_TOGGLE")
#pragma push_macro("HIGHWAY_HWY_OPS_SHARED_TOGGLE")
#pragma push_macro("HWY_SET_MACROS_PER_TARGET")
#pragma push_macro("HWY_NATIVE_LOAD_STORE_INTERLEAVED")
#pragma push_macro("HWY_NATIVE_AES")
#pragma push_macro("HWY_NATIVE_POPCNT")
#pragma push_macro("HWY_NATIVE_I64MULLO")
#pragma push_macro("HWY_NATIVE_COMPRESS8")
#pragma push_macro("HWY_NAMESPACE")
#pragma push_macro("HWY_ALIGN")
#pragma push_macro("HWY_MAX_BYTES")
#pragma push_macro("HWY_LANES")
#pragma push_macro("HWY_HAVE_SCALABLE")
#pragma push_macro("HWY_HAVE_INTEGER64")
#pragma push_macro("HWY_HAVE_FLOAT16")
#pragma push_macro("HWY_HAVE_FLOAT64")
#pragma push_macro("HWY_MEM_OPS_MIGHT_FAULT")
#pragma push_macro("HWY_NATIVE_FMA")
#pragma push_macro("HWY_CAP_GE256")
#pragma push_macro("HWY_CAP_GE512")
#pragma push_macro("HWY_TARGET_STR")
#pragma push_macro("HWY_BEFORE_NAMESPACE")
#pragma push_macro("HWY_AFTER_NAMESPACE")
#pragma push_macro("HWY_ATTR")
#pragma push_macro("N_EMU128")
#pragma push_macro("N_SCALAR")
#pragma push_macro("N_NEON")
#pragma push_macro("N_RVV")
#pragma push_macro("N_SVE")
#pragma push_macro("N_SVE2")
#pragma push_macro("N_SVE_256")
#pragma push_macro("N_SVE2_128")
#pragma push_macro("N_SSSE3")
#pragma push_macro("N_SSE4")
#pragma push_macro("N_AVX2")
#pragma push_macro("N_AVX3")
#pragma push_macro("N_AVX3_DL")
#pragma push_macro("N_WASM_EMU256")
#pragma push_macro("N_WASM")
#pragma push_macro("N_PPC8")

// 2. the state before any pass
#undef HWY_TARGET_TOGGLE
#undef HIGHWAY_HWY_OPS_SHARED_TOGGLE
#undef HWY_SET_MACROS_PER_TARGET
#undef HWY_NATIVE_LOAD_STORE_INTERLEAVED
#undef HWY_NATIVE_AES
#undef HWY_NATIVE_POPCNT
#undef HWY_NATIVE_I64MULLO
#undef HWY_NATIVE_COMPRESS8
#undef MEMFMT_KERNEL_TOGGLE

// 3. private namespaces
#undef N_EMU128
#define N_EMU128 memfmt_N_EMU128
#undef N_SCALAR
#define N_SCALAR memfmt_N_SCALAR
#undef N_NEON
#define N_NEON memfmt_N_NEON
#undef N_RVV
#define N_RVV memfmt_N_RVV
#undef N_SVE
#define N_SVE memfmt_N_SVE
#undef N_SVE2
#define N_SVE2 memfmt_N_SVE2
#undef N_SVE_256
#define N_SVE_256 memfmt_N_SVE_256
#undef N_SVE2_128
#define N_SVE2_128 memfmt_N_SVE2_128
#undef N_SSSE3
#define N_SSSE3 memfmt_N_SSSE3
#undef N_SSE4
#define N_SSE4 memfmt_N_SSE4
#undef N_AVX2
#define N_AVX2 memfmt_N_AVX2
#undef N_AVX3
#define N_AVX3 memfmt_N_AVX3
#undef N_AVX3_DL
#define N_AVX3_DL memfmt_N_AVX3_DL
#undef N_WASM_EMU256
#define N_WASM_EMU256 memfmt_N_WASM_EMU256
#undef N_WASM
#define N_WASM memfmt_N_WASM
#undef N_PPC8
#define N_PPC8 memfmt_N_PPC8

// 4. one pass per target

#if MEMFMT_KERNEL_COMPILED & HWY_EMU128
#undef HWY_TARGET
#define HWY_TARGET HWY_EMU128
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SCALAR
#undef HWY_TARGET
#define HWY_TARGET HWY_SCALAR
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_NEON
#undef HWY_TARGET
#define HWY_TARGET HWY_NEON
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_RVV
#undef HWY_TARGET
#define HWY_TARGET HWY_RVV
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SVE
#undef HWY_TARGET
#define HWY_TARGET HWY_SVE
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SVE2
#undef HWY_TARGET
#define HWY_TARGET HWY_SVE2
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SVE_256
#undef HWY_TARGET
#define HWY_TARGET HWY_SVE_256
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SVE2_128
#undef HWY_TARGET
#define HWY_TARGET HWY_SVE2_128
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SSSE3
#undef HWY_TARGET
#define HWY_TARGET HWY_SSSE3
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_SSE4
#undef HWY_TARGET
#define HWY_TARGET HWY_SSE4
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_AVX2
#undef HWY_TARGET
#define HWY_TARGET HWY_AVX2
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_AVX3
#undef HWY_TARGET
#define HWY_TARGET HWY_AVX3
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_AVX3_DL
#undef HWY_TARGET
#define HWY_TARGET HWY_AVX3_DL
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_WASM_EMU256
#undef HWY_TARGET
#define HWY_TARGET HWY_WASM_EMU256
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_WASM
#undef HWY_TARGET
#define HWY_TARGET HWY_WASM
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

#if MEMFMT_KERNEL_COMPILED & HWY_PPC8
#undef HWY_TARGET
#define HWY_TARGET HWY_PPC8
#include "memfmt/reorder/kernel/pass-inl.h"
#endif

// 5. restore
#pragma pop_macro("N_EMU128")
#pragma pop_macro("N_SCALAR")
#pragma pop_macro("N_NEON")
#pragma pop_macro("N_RVV")
#pragma pop_macro("N_SVE")
#pragma pop_macro("N_SVE2")
#pragma pop_macro("N_SVE_256")
#pragma pop_macro("N_SVE2_128")
#pragma pop_macro("N_SSSE3")
#pragma pop_macro("N_SSE4")
#pragma pop_macro("N_AVX2")
#pragma pop_macro("N_AVX3")
#pragma pop_macro("N_AVX3_DL")
#pragma pop_macro("N_WASM_EMU256")
#pragma pop_macro("N_WASM")
#pragma pop_macro("N_PPC8")
#pragma pop_macro("HWY_TARGET")
#pragma pop_macro("HWY_TARGET_TOGGLE")
#pragma pop_macro("HIGHWAY_HWY_OPS_SHARED_TOGGLE")
#pragma pop_macro("HWY_SET_MACROS_PER_TARGET")
#pragma pop_macro("HWY_NATIVE_LOAD_STORE_INTERLEAVED")
#pragma pop_macro("HWY_NATIVE_AES")
#pragma pop_macro("HWY_NATIVE_POPCNT")
#pragma pop_macro("HWY_NATIVE_I64MULLO")
#pragma pop_macro("HWY_NATIVE_COMPRESS8")
#pragma pop_macro("HWY_NAMESPACE")
#pragma pop_macro("HWY_ALIGN")
#pragma pop_macro("HWY_MAX_BYTES")
#pragma pop_macro("HWY_LANES")
#pragma pop_macro("HWY_HAVE_SCALABLE")
#pragma pop_macro("HWY_HAVE_INTEGER64")
#pragma pop_macro("HWY_HAVE_FLOAT16")
#pragma pop_macro("HWY_HAVE_FLOAT64")
#pragma pop_macro("HWY_MEM_OPS_MIGHT_FAULT")
#pragma pop_macro("HWY_NATIVE_FMA")
#pragma pop_macro("HWY_CAP_GE256")
#pragma pop_macro("HWY_CAP_GE512")
#pragma pop_macro("HWY_TARGET_STR")
#pragma pop_macro("HWY_BEFORE_NAMESPACE")
#pragma pop_macro("HWY_AFTER_NAMESPACE")
#pragma pop_macro("HWY_ATTR")
