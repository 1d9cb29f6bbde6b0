// A bad typed tag used to build a descriptor fails where the tag is named.
#include <memfmt/desc/desc.hpp>
#include <memfmt/tag/tags.hpp>

int main() {
  const memfmt::desc d({2, 3}, memfmt::data_type::f32, memfmt::tag_t<"aBc">{});
  return d.get_ndims();
}
