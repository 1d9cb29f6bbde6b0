// Data type sizes and names against oneDNN's.
#if MEMFMT_HAVE_ONEDNN
#include <catch2/catch.hpp>
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include <string>

#include <memfmt/memfmt.hpp>

TEST_CASE("data type sizes and names are oneDNN's", "[core][onednn]") {
  using dt = memfmt::data_type;
  const std::pair<dt, dnnl::memory::data_type> types[] = {
      {dt::f16, dnnl::memory::data_type::f16}, {dt::bf16, dnnl::memory::data_type::bf16},
      {dt::f32, dnnl::memory::data_type::f32}, {dt::s32, dnnl::memory::data_type::s32},
      {dt::s8, dnnl::memory::data_type::s8},   {dt::u8, dnnl::memory::data_type::u8}};
  for (auto [mine, theirs] : types) {
    INFO(memfmt::to_string(mine));
    const dnnl::memory::desc one({1}, theirs, dnnl::memory::format_tag::a);
    CHECK(memfmt::data_type_size(mine) == one.get_size());
    CHECK(std::string(memfmt::to_string(mine)) == dnnl_dt2str(static_cast<dnnl_data_type_t>(theirs)));
  }
  CHECK(std::string(memfmt::to_string(dt::undef)) == dnnl_dt2str(dnnl_data_type_undef));
  CHECK(memfmt::max_ndims == DNNL_MAX_NDIMS);
}

#else
int main() { return 77; }  // oneDNN not available: skipped
#endif
