// A negative static extent (other than dynamic_extent) must not compile.
#include <memfmt/layout/static_layout.hpp>
#include <memfmt/tag/tags.hpp>

using bad = memfmt::static_layout<memfmt::tags::nchw, 2, -3, 5, 5>;

int main() { return bad::rank; }
