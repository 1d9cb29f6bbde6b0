// Every oneDNN tag as a typed tag, its layout computed at compile time.
#include <memfmt/memfmt.hpp>

#define MEMFMT_TAG_NAME(name) static_assert(memfmt::tags::name.ndims > 0 && !memfmt::tags::name.abstract().empty());
#include <memfmt/tag/onednn_names.inc>
#undef MEMFMT_TAG_NAME

int main() { return 0; }
