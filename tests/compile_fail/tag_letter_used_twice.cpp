// A dim named twice must not compile.
#include <memfmt/memfmt.hpp>

constexpr auto bad = memfmt::tag<"abca">;

int main() { return bad.ndims; }
