// A program in the extern mode as a user writes it: every unit defines
// MEMFMT_KERNELS_EXTERN, and one of them (extern_program_impl.cpp) also defines
// MEMFMT_KERNELS_IMPLEMENTATION and includes memfmt.hpp, which compiles the kernels and
// the reorder's planning there. This unit only declares them.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include <memfmt/memfmt.hpp>

#ifndef MEMFMT_KERNELS_EXTERN
#error "this test's units define MEMFMT_KERNELS_EXTERN"
#endif
#if defined(MEMFMT_REORDER_COMPILED) || defined(MEMFMT_KERNEL_COMPILED)
#error "an extern unit compiled the kernels or the reorder's planning"
#endif

TEST_CASE("a program of extern units and one implementation unit plans and runs reorders", "[kernel][link]") {
  // nchw -> nChw16c, 17 channels: element (n, c, h, w) = its nchw index, at
  // ((n * 2 + c / 16) * H + h) * W * 16 + w * 16 + c % 16 in the destination, whose
  // channels 17 to 31 are zeros
  constexpr memfmt::dim N = 2, C = 17, H = 3, W = 2, blocks = 2;
  const memfmt::desc src({N, C, H, W}, memfmt::data_type::f32, "nchw");
  const memfmt::desc dst({N, C, H, W}, memfmt::data_type::f32, "nChw16c");
  std::vector<float> from(static_cast<std::size_t>(N * C * H * W));
  for (std::size_t k = 0; k < from.size(); ++k) from[k] = static_cast<float>(k);
  std::vector<float> to(static_cast<std::size_t>(N * blocks * 16 * H * W), -1.f);
  REQUIRE(dst.get_size() == to.size() * sizeof(float));
  memfmt::reorder(src, dst).execute(from.data(), to.data());
  for (memfmt::dim n = 0; n < N; ++n)
    for (memfmt::dim c = 0; c < blocks * 16; ++c)
      for (memfmt::dim h = 0; h < H; ++h)
        for (memfmt::dim w = 0; w < W; ++w) {
          const auto at = static_cast<std::size_t>(((n * blocks + c / 16) * H + h) * W * 16 + w * 16 + c % 16);
          const float want = c < C ? static_cast<float>(((n * C + c) * H + h) * W + w) : 0.f;
          INFO("n " << n << " c " << c << " h " << h << " w " << w);
          CHECK(to[at] == want);
        }
}
