// Describes a few layouts: dims, padded dims, strides, size, and where elements live.
#include <cstdio>

#include <memfmt/memfmt.hpp>

int main() {
  using memfmt::data_type;
  using memfmt::desc;
  const memfmt::dims activations{2, 17, 5, 4};  // N, C, H, W: 17 channels force padding in blocked layouts

  for (const char* tag : {"nchw", "nhwc", "nChw8c", "nChw16c"}) {
    const desc d(activations, data_type::f32, tag);
    std::printf("%s -> %s", tag, memfmt::describe(d).c_str());
    std::printf("  element (1, 16, 2, 3) is at offset %lld\n", static_cast<long long>(d.offset({1, 16, 2, 3})));
    std::printf("  offsets of (0, c, 0, w), c down, w across:\n%s\n", memfmt::offset_grid(d, 1, 3).c_str());
  }

  const desc weights({32, 33, 3, 3}, data_type::s8, memfmt::tags::OIhw4i16o4i);
  std::printf("OIhw4i16o4i -> %s", memfmt::describe(weights).c_str());
  std::printf("  offsets of (o, i, 0, 0), o down, i across:\n%s\n", memfmt::offset_grid(weights, 0, 1).c_str());

  const desc view = desc(activations, data_type::f32, "nchw").submemory_desc({1, 8, 5, 4}, {1, 8, 0, 0});
  std::printf("a view of batch 1, channels 8..15 of nchw -> %s", memfmt::describe(view).c_str());
  std::printf("  its element (0, 0, 0, 0) is element %lld of the whole tensor\n",
              static_cast<long long>(view.offset({0, 0, 0, 0})));
  return 0;
}
