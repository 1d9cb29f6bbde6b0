// Describes a blocked layout with memfmt::desc and checks oneDNN's numbers:
// 17 channels in blocks of 16 are padded to 32.
#include <cstdio>
#include <cstdlib>

#include <memfmt/memfmt.hpp>

int main() {
  const memfmt::dims sizes{2, 17, 5, 4};
  const memfmt::desc d(sizes, memfmt::data_type::f32, "nChw16c");

  std::printf("%s\n", d.str().c_str());
  std::printf("padded channels: %lld, bytes: %zu\n",
              static_cast<long long>(d.get_padded_dims()[1]), d.get_size());

  const bool ok = d.get_ndims() == 4 && d.get_dims() == sizes &&
                  d.get_padded_dims()[1] == 32 &&
                  d.get_size() == std::size_t{2} * 32 * 5 * 4 * sizeof(float) &&
                  d.get_inner_nblks() == 1 && d.get_inner_blks()[0] == 16 &&
                  d.get_inner_idxs()[0] == 1;
  if (!ok) {
    std::fprintf(stderr, "memfmt_consumer: unexpected descriptor for nChw16c\n");
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
