#include <cstdlib>
#include <iostream>

#include <memfmt/memfmt.hpp>

int main() {
  const memfmt::desc d(memfmt::dims{1, 3, 4, 4}, memfmt::data_type::f32, "nchw");
  std::cout << d.str() << '\n';
  return d.get_ndims() == 4 ? EXIT_SUCCESS : EXIT_FAILURE;
}
