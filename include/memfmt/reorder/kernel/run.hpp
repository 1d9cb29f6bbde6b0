#pragma once
/// @file
/// The kernel layer's entry point: `run_nest` runs part of a loop nest with the
/// kernels of the best SIMD target of this CPU (AVX-512, AVX2, SSE4, or the
/// scalar/EMU128 fallback), chosen at run time through Highway.
///
/// Header-only dispatch: including this header compiles the kernels once per
/// target inside a private copy of Highway's per-target namespaces (see
/// foreach_target.hpp), so it composes with a translation unit's own use of
/// Highway, including its own foreach_target.h, before or after this header.
/// Everything has external linkage and is identical in every translation unit
/// compiled with the same flags (translation units compiled with different
/// -m flags may compile different target sets; do not mix those in one program).
/// Link Highway's library (CMake target hwy::hwy) for its CPU detection.
///
/// Compiling the kernels costs seconds per translation unit. A program may
/// instead compile them once: define MEMFMT_KERNELS_EXTERN in every
/// translation unit (then this header only declares run_nest, and reorder.hpp
/// only declares the reorder's planning and execution), and also
/// MEMFMT_KERNELS_IMPLEMENTATION in exactly one of them, which includes
/// memfmt.hpp or reorder.hpp (it defines both). Or the kernels and the planning in
/// two units: MEMFMT_KERNELS_IMPLEMENTATION in one that includes only this header,
/// MEMFMT_REORDER_IMPLEMENTATION in another (see reorder_impl.hpp).
/// All translation units of a program must agree on MEMFMT_KERNELS_EXTERN.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "memfmt/reorder/kernel/highway_config.hpp"
// (first: it configures Highway)
#include "hwy/base.h"
#include "hwy/cache_control.h"
#include "hwy/targets.h"
#include "memfmt/reorder/kernel/convert_scalar.hpp"
#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/kernel/scalar_rows.hpp"

#if defined(MEMFMT_KERNELS_EXTERN) && !defined(MEMFMT_KERNELS_IMPLEMENTATION)

namespace memfmt::detail {
// Defined in the translation unit that defines MEMFMT_KERNELS_IMPLEMENTATION;
// see the definitions below for the contracts.
void run_nest(const nest& n, const void* src, void* dst, dim begin, dim end);
std::int64_t kernel_target_now();
std::int64_t kernel_targets_compiled();
}  // namespace memfmt::detail

#else

#if defined(MEMFMT_KERNELS_EXTERN)
#define MEMFMT_KERNEL_API
#else
#define MEMFMT_KERNEL_API inline
#endif

// The per-target passes; defines memfmt::detail::compiled_target<TARGET>.
#include "memfmt/reorder/kernel/foreach_target.hpp"

namespace memfmt::detail {

/// A compiled target: its Highway bit and its entry point.
struct kernel_target {
  std::int64_t target;
  run_nest_fn run;
};

/// Whether this translation unit compiled the kernels of Highway target bit `Bit`.
template <int Bit>
inline constexpr bool target_compiled = requires { compiled_target<std::int64_t{1} << Bit>::run; };

/// The targets this translation unit compiled, best first (Highway's bit order: a
/// lower bit is a better target), as the passes of foreach_target.hpp left them.
inline constexpr auto compiled_kernel_targets = []<int... Bits>(std::integer_sequence<int, Bits...>) {
  std::array<kernel_target, (std::size_t{target_compiled<Bits>} + ...)> targets{};
  std::size_t k = 0;
  const auto add = [&]<int Bit>() {
    if constexpr (target_compiled<Bit>) targets[k++] = {std::int64_t{1} << Bit, compiled_target<std::int64_t{1} << Bit>::run};
  };
  (add.template operator()<Bits>(), ...);
  return targets;
}(std::make_integer_sequence<int, 63>{});

/// The compiled target to run when Highway's best choice is `target`: the best
/// compiled one that is not better (x86 targets are supersets of the worse ones),
/// else the worst compiled one (the baseline).
constexpr kernel_target pick_kernel_target(std::int64_t target) {
  for (const kernel_target& k : compiled_kernel_targets) {
    if (k.target >= target) return k;  // a higher bit is a worse target
  }
  return compiled_kernel_targets[std::size(compiled_kernel_targets) - 1];
}

inline void run_nest_choose(const nest& n, const void* src, void* dst, dim begin, dim end);

/// Indexed like Highway's HWY_EXPORT tables by hwy::GetChosenTarget().GetIndex():
/// 0 = not chosen yet, 1..HWY_MAX_DYNAMIC_TARGETS = Highway's dynamic target
/// bits, last = the scalar fallback. So run_nest honours SupportedTargets,
/// DisableTargets and SetSupportedTargetsForTest, and costs one indirect call.
inline constexpr auto kernel_table = [] {
  std::array<kernel_target, HWY_MAX_DYNAMIC_TARGETS + 2> table{};
  table[0] = kernel_target{0, &run_nest_choose};
  for (std::size_t i = 1; i < table.size(); ++i) {
    const std::int64_t target =
        i <= std::size_t{HWY_MAX_DYNAMIC_TARGETS}
            ? std::int64_t{1} << (i - 1 + HWY_HIGHEST_TARGET_BIT + 1 - HWY_MAX_DYNAMIC_TARGETS)
            : HWY_EMU128;  // the fallback slot: EMU128 or SCALAR, else the baseline
    table[i] = pick_kernel_target(target);
  }
  return table;
}();

inline void run_nest_choose(const nest& n, const void* src, void* dst, dim begin, dim end) {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  chosen.Update(hwy::SupportedTargets());
  kernel_table[chosen.GetIndex()].run(n, src, dst, begin, end);
}

/// Runs outer iterations [begin, end) of `n` (linearised row-major over the
/// loops the kernel does not own) on the best target of this CPU.
/// Thread-safe; every target produces bit-identical results.
/// @pre 0 <= begin <= end <= n.outer_count(); every element offset reached is
///      inside the src and dst buffers (and `scales`); src may be null for zero_fill
MEMFMT_KERNEL_API void run_nest(const nest& n, const void* src, void* dst, dim begin, dim end) {
  kernel_table[hwy::GetChosenTarget().GetIndex()].run(n, src, dst, begin, end);
}

/// The Highway target (e.g. HWY_AVX3) whose kernels run_nest uses now; for
/// tests and diagnostics (hwy::TargetName gives its name).
MEMFMT_KERNEL_API std::int64_t kernel_target_now() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return kernel_table[chosen.GetIndex()].target;
}

/// The Highway targets whose kernels were compiled (a mask of HWY_* bits); with
/// hwy::SetSupportedTargetsForTest, tests run each of them that the CPU supports.
MEMFMT_KERNEL_API std::int64_t kernel_targets_compiled() {
  std::int64_t mask = 0;
  for (const kernel_target& k : compiled_kernel_targets) mask |= k.target;
  return mask;
}

}  // namespace memfmt::detail

#undef MEMFMT_KERNEL_API

#endif  // MEMFMT_KERNELS_EXTERN && !MEMFMT_KERNELS_IMPLEMENTATION
