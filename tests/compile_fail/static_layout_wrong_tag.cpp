// A kernel that requires nChw16c, given an nChw8c layout: the error names both tags.
#include <memfmt/layout/static_layout.hpp>
#include <memfmt/tag/tags.hpp>

using given = memfmt::static_layout<memfmt::tags::nChw8c, 1, 16, 4, 4>;
static_assert(given::require_tag<memfmt::tags::nChw16c>());

int main() { return 0; }
