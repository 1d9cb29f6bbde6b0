// The Catch2 main of the tests that run real reorder plans (memfmt_add_test(... EVERY_TARGET)):
// the whole test session runs once per kernel target that was compiled and that this CPU
// supports, each forced with hwy::SetSupportedTargetsForTest, the fallback (EMU128 or
// SCALAR) included where it was compiled. It prints the targets that ran and fails when a supported target
// could not be forced or any run failed.
//
// MEMFMT_TEST_TARGET=AVX2 (a Highway target name) runs the session on that target only,
// to debug one target; MEMFMT_TEST_TARGET=best on the best one the CPU runs. (Catch2
// itself is in catch_impl.cpp.)
#include "catch_session.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include <memfmt/reorder/kernel/run.hpp>

namespace {

/// The compiled kernel targets this CPU can run, best first: every compiled SIMD target
/// the CPU supports, and the fallback, which runs anywhere.
std::vector<std::int64_t> runnable_targets() {
  const std::int64_t compiled = memfmt::detail::kernel_targets_compiled();
  const std::int64_t supported = hwy::SupportedTargets() | HWY_EMU128 | HWY_SCALAR;
  std::vector<std::int64_t> targets;
  for (std::int64_t bits = compiled & supported; bits != 0; bits &= bits - 1) targets.push_back(bits & -bits);
  return targets;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = memfmt_test::catch_apply_command_line(argc, argv); rc != 0) return rc;

  const char* only = std::getenv("MEMFMT_TEST_TARGET");
  std::vector<std::int64_t> targets = runnable_targets();
  if (only != nullptr && *only != '\0') {
    std::vector<std::int64_t> chosen;
    for (const std::int64_t t : targets)
      if (std::strcmp(hwy::TargetName(t), only) == 0 || (std::strcmp(only, "best") == 0 && chosen.empty()))
        chosen.push_back(t);
    if (chosen.empty()) {
      std::fprintf(stderr, "MEMFMT_TEST_TARGET=%s: not a compiled kernel target this CPU runs\n", only);
      return EXIT_FAILURE;
    }
    targets = chosen;
  }

  int failed_runs = 0;
  std::string ran, not_forced;
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::int64_t now = memfmt::detail::kernel_target_now();
    if (now != target) {
      not_forced += std::string(" ") + hwy::TargetName(target) + " (ran " + hwy::TargetName(now) + ")";
      continue;
    }
    std::printf("==> memfmt kernels on %s\n", hwy::TargetName(target));
    std::fflush(stdout);
    if (memfmt_test::catch_run() != 0) ++failed_runs;
    ran += std::string(" ") + hwy::TargetName(target);
  }
  hwy::SetSupportedTargetsForTest(0);

  std::printf("memfmt kernel targets that ran:%s\n", ran.c_str());
  if (!not_forced.empty()) {
    std::printf("FAILED: supported targets that could not be forced:%s\n", not_forced.c_str());
    return EXIT_FAILURE;
  }
  if (ran.empty()) {
    std::printf("FAILED: no kernel target ran\n");
    return EXIT_FAILURE;
  }
  if (failed_runs != 0) {
    std::printf("FAILED on %d of %zu targets\n", failed_runs, targets.size());
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
