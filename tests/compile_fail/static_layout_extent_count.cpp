// A static layout of a 4-D tag given 3 extents must not compile.
#include <memfmt/layout/static_layout.hpp>
#include <memfmt/tag/tags.hpp>

using bad = memfmt::static_layout<memfmt::tags::nChw16c, 2, 17, 5>;

int main() { return bad::rank; }
