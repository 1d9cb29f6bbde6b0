// A constexpr view that starts inside a block must not compile.
#include <memfmt/desc/desc.hpp>
#include <memfmt/tag/tags.hpp>

constexpr memfmt::desc parent({2, 32, 5, 4}, memfmt::data_type::f32, memfmt::tags::nChw16c);
constexpr memfmt::desc view = parent.submemory_desc({2, 8, 5, 4}, {0, 3, 0, 0});

int main() { return view.get_ndims(); }
