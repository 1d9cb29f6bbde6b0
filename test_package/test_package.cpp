// The consumer of memfmt's Conan package: it compiles against memfmt, Boost (Hana
// extents of a static layout) and Highway (a reorder, linked with libhwy for its
// run-time dispatch), and checks what it computes.
#include <cstdlib>
#include <iostream>
#include <vector>

#include <boost/hana/integral_constant.hpp>

// One kernel target (the baseline) is enough here and keeps this program quick to build.
#define MEMFMT_KERNEL_TARGETS HWY_STATIC_TARGET
#include <memfmt/memfmt.hpp>

int main() {
  namespace hana = boost::hana;
  using memfmt::data_type;

  const memfmt::desc plain(memfmt::dims{1, 17, 3, 2}, data_type::f32, "nchw");
  const memfmt::desc blocked(memfmt::dims{1, 17, 3, 2}, data_type::f32, memfmt::tag<"nChw16c">);
  const auto layout = memfmt::make_layout(memfmt::tags::nChw16c, hana::int_c<1>, hana::int_c<17>, 3, 2);

  std::vector<float> src(plain.get_size() / sizeof(float));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  std::vector<float> dst(blocked.get_size() / sizeof(float), -1.0f);
  memfmt::reorder(plain, blocked).execute(src.data(), dst.data());

  // Channel 16 of pixel (2, 1) is element 16*6 + 2*2 + 1 = 101 of nchw; in nChw16c it
  // is the first channel of block 1, whose padding channels 17..31 are zero.
  const auto at = static_cast<std::size_t>(blocked.offset({0, 16, 2, 1}));
  const bool ok = blocked.get_padded_dims()[1] == 32 &&
                  layout.size_bytes(data_type::f32) == blocked.get_size() &&
                  layout.offset(0, 16, 2, 1) == blocked.offset({0, 16, 2, 1}) && dst[at] == 101.0f &&
                  dst[at + 1] == 0.0f;
  std::cout << plain.str() << " -> " << blocked.str() << ": " << (ok ? "ok" : "FAILED") << '\n';
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
