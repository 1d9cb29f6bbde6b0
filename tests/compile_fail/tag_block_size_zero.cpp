// A block of size 0 must not compile.
#include <memfmt/tag/tag.hpp>

constexpr auto bad = memfmt::tag<"aBcd0b">;

int main() { return bad.ndims; }
