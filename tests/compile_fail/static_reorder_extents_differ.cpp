// A static reorder between layouts of different extents must not compile.
#include <memfmt/reorder/static_reorder.hpp>
#include <memfmt/tag/tags.hpp>

using src = memfmt::static_layout<memfmt::tags::nchw, 2, 17, 5, 5>;
using dst = memfmt::static_layout<memfmt::tags::nChw16c, 2, 16, 5, 5>;
using bad = memfmt::static_reorder<src, dst, memfmt::data_type::f32>;

int main() { return static_cast<int>(bad::elements); }
