// A constexpr descriptor whose dims do not fit its tag must not compile.
#include <memfmt/desc/desc.hpp>
#include <memfmt/tag/tags.hpp>

constexpr memfmt::desc d({2, 3}, memfmt::data_type::f32, memfmt::tags::nchw);

int main() { return d.get_ndims(); }
