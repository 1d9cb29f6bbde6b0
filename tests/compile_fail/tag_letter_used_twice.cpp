// A dim named twice must not compile.
#include <memfmt/tag/tag.hpp>

constexpr auto bad = memfmt::tag<"abca">;

int main() { return bad.ndims; }
