// A typed tag with a letter that is no dim of its family must not compile, and the
// diagnostic must name the problem and spell the tag.
#include <memfmt/tag/tag.hpp>

constexpr auto bad = memfmt::tag<"nChw16x">;

int main() { return bad.ndims; }
