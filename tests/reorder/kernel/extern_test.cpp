// MEMFMT_KERNELS_EXTERN: this translation unit only declares run_nest and the
// reorder's planning (neither compiled here); memfmt_dev_kernels, whose units define
// MEMFMT_KERNELS_IMPLEMENTATION and MEMFMT_REORDER_IMPLEMENTATION, compiles them once
// for the program.

#ifndef MEMFMT_KERNELS_EXTERN
#error "this test links memfmt_dev_kernels, which defines MEMFMT_KERNELS_EXTERN"
#endif
#include <memfmt/reorder/kernel/run.hpp>

#ifdef MEMFMT_KERNEL_COMPILED
#error "MEMFMT_KERNELS_EXTERN must not compile the kernels"
#endif
#include <memfmt/reorder/reorder.hpp>
#ifdef MEMFMT_REORDER_COMPILED
#error "MEMFMT_KERNELS_EXTERN must not compile the reorder's planning"
#endif

#include <catch2/catch.hpp>

#include "memfmt_check.hpp"

TEST_CASE("with MEMFMT_KERNELS_EXTERN one translation unit compiles the kernels for all", "[kernel][link]") {
  CHECK(memfmt_test::memfmt_transpose_ok());
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    CHECK(memfmt::detail::kernel_target_now() != 0);
    CHECK(memfmt_test::memfmt_transpose_ok());
  }
  hwy::SetSupportedTargetsForTest(0);
}
