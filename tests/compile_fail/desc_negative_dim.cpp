// A constexpr descriptor with a negative dim must not compile.
#include <memfmt/desc/desc.hpp>
#include <memfmt/tag/tags.hpp>

constexpr memfmt::desc d({2, -3}, memfmt::data_type::f32, "ab");

int main() { return d.get_ndims(); }
