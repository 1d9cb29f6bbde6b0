// The static_asserts a kernel author writes: the compiler proves that a kernel and its
// data agree on a layout, its byte size and where elements are.
#include <cstdio>

#include <boost/hana/integral_constant.hpp>
#include <memfmt/memfmt.hpp>

namespace hana = boost::hana;
using memfmt::data_type;

// A kernel written for nChw16c activations with 17 channels of 7x7, batch 1.
using activations = memfmt::static_layout<memfmt::tags::nChw16c, 1, 17, 7, 7>;

// 1. The buffer's layout is the one the kernel expects (nChw16c is aBcd16b by another name).
static_assert(activations::require_tag<memfmt::tags::aBcd16b>());
static_assert(memfmt::tags::nChw16c == memfmt::tag<"aBcd16b">);
static_assert(!(memfmt::tags::nChw16c == memfmt::tags::nChw8c));

// 2. The byte size of the padded blocked tensor: 17 channels round up to 32.
static_assert(activations{}.size_bytes(data_type::f32) == 1 * 32 * 7 * 7 * 4);
static_assert(activations{}.padded_extents() == memfmt::dims{1, 32, 7, 7});

// 3. The offset of an element: channel 16 starts the second block of 16 channels.
static_assert(activations{}.offset(0, 16, 0, 0) == 7 * 7 * 16);
static_assert(activations{}.offset(0, 17, 0, 1) == 7 * 7 * 16 + 16 + 1);

// 4. Weights: the s8 layout a VNNI kernel reads, and its size with 33 input channels.
using weights = memfmt::static_layout<memfmt::tags::OIhw4i16o4i, 64, 33, 3, 3>;
static_assert(weights{}.size_bytes(data_type::s8) == 64 * 48 * 3 * 3);
static_assert(weights{}.offset(0, 1, 0, 0) == 1);   // 4 input channels are innermost
static_assert(weights{}.offset(1, 0, 0, 0) == 4);   // then 16 output channels
static_assert(weights{}.offset(0, 4, 0, 0) == 64);  // then the next 4 input channels

// 5. Extents known only at run time stay dynamic; the rest stays static.
constexpr auto image = memfmt::make_layout(memfmt::tags::nhwc, hana::int_c<1>, hana::int_c<3>, 224, 224);
static_assert(decltype(image)::rank_dynamic == 2 && decltype(image)::is_static_extent(1));
static_assert(image.offset(0, 2, 0, 1) == 3 + 2);

// 6. The runtime descriptor is constexpr too: the same object serves static_assert and run time.
constexpr memfmt::desc blocked({2, 17, 5, 4}, data_type::bf16, memfmt::tags::nChw16c);
static_assert(blocked.get_size() == 2 * 32 * 5 * 4 * 2);
static_assert(blocked.matches("aBcd16b") && !blocked.matches("nchw"));
static_assert(blocked.offset({1, 16, 0, 0}) == 32 * 5 * 4 + 16 * 5 * 4);

// 7. A blocked layout is a strided tensor of higher rank over its padding: nChw16c is the
//    5-D dense tensor (N, C/16, H, W, 16c), and with 16 channels it is the same bytes as nhwc.
static_assert(blocked.unfold().get_dims() == memfmt::dims{2, 2, 5, 4, 16});
static_assert(blocked.unfold().get_strides() == memfmt::dims{640, 320, 64, 16, 1});
static_assert(memfmt::fold(blocked.unfold(), blocked) == blocked);
static_assert(memfmt::same_bytes(memfmt::desc({1, 16, 7, 7}, data_type::f32, memfmt::tags::nChw16c),
                                 memfmt::desc({1, 16, 7, 7}, data_type::f32, memfmt::tags::nhwc)));

// 8. A static layout feeds the runtime API (a reorder, say) without being spelled twice.
constexpr memfmt::desc activations_desc = memfmt::to_desc(activations{}, data_type::f32);
static_assert(activations_desc == memfmt::desc({1, 17, 7, 7}, data_type::f32, memfmt::tags::nChw16c));

// A kernel states its contract once; a caller with another layout does not compile.
template <class Layout>
float first_channel_sum(const float* data, const Layout& layout) {
  static_assert(Layout::template require_tag<memfmt::tags::nChw16c>());
  float sum = 0;
  for (int c = 0; c < 16; ++c) sum += data[layout.offset(0, c, 0, 0)];
  return sum;
}

int main() {
  float data[activations{}.size()] = {};
  for (int c = 0; c < 17; ++c) data[activations{}.offset(0, c, 0, 0)] = 1.f;
  std::printf("sum over the first 16 channels: %g\n", first_channel_sum(data, activations{}));
  return first_channel_sum(data, activations{}) == 16.f ? 0 : 1;
}
