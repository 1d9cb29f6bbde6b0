// A unit of a program that plans and runs a reorder: header-only, it compiles the
// kernels and the reorder's planning (about kernels.cpp's cost); with
// MEMFMT_KERNELS_EXTERN, neither (one other unit of the program compiles them once).
#include <memfmt/memfmt.hpp>

#include <vector>

int main() {
  const memfmt::desc src({8, 16, 4, 4}, memfmt::data_type::f32, "nchw");
  const memfmt::desc dst({8, 16, 4, 4}, memfmt::data_type::f32, "nChw16c");
  std::vector<float> a(src.get_size() / sizeof(float)), b(dst.get_size() / sizeof(float));
  memfmt::reorder(src, dst).execute(a.data(), b.data());
  return 0;
}
