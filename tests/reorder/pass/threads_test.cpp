// Sharing a nest among threads (memfmt/reorder/pass/threads.hpp).
// Every element of every nest is enumerated by brute force, before and after the split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "memfmt/reorder/pass/threads.hpp"
#include "nest_elements.hpp"

using memfmt::dim;
using memfmt::detail::kernel_kind;
using memfmt::detail::loop;
using memfmt::detail::nest;

namespace {

using memfmt_test::elements;
using memfmt_test::make_nest;
using memfmt_test::offsets;
using memfmt_test::sorted_elements;


// The transposes of nhwc <-> nchw over `channels` x `pixels` f32 elements.
nest nhwc_to_nchw(dim channels, dim pixels) {
  return make_nest(kernel_kind::transpose, {{pixels, channels, 1, 0}, {channels, 1, pixels, 0}});
}
nest nchw_to_nhwc(dim channels, dim pixels) {
  return make_nest(kernel_kind::transpose, {{channels, pixels, 1, 0}, {pixels, 1, channels, 0}});
}

}  // namespace

TEST_CASE("a nest split for threads visits the same elements at the same offsets", "[lower][threads]") {
  std::vector<nest> nests;
  for (const dim channels : {16, 17, 48, 64, 96, 256})
    for (const dim pixels : {1024, 3136, 4096}) {
      nests.push_back(nhwc_to_nchw(channels, pixels));
      nests.push_back(nchw_to_nhwc(channels, pixels));
    }
  // images outside a transpose; columns over two loops (rows of 32 pixels padded to 64)
  nests.push_back(make_nest(kernel_kind::transpose, {{3, 65536, 65536, 0}, {1024, 64, 1, 0}, {64, 1, 1024, 0}}));
  nests.push_back(make_nest(kernel_kind::transpose, {{128, 32, 1024, 0}, {16, 4096, 1, 0}, {32, 1, 16, 0}}, 2));
  // copies: long rows, short rows with a scale, short rows under few rows
  nests.push_back(make_nest(kernel_kind::copy, {{64, 4096, 4096, 0}, {4096, 1, 1, 0}}));
  nests.push_back(make_nest(kernel_kind::copy, {{4096, 32, 64, 1}, {32, 1, 1, 0}}));
  nests.push_back(make_nest(kernel_kind::copy, {{512, 256, 256, 0}, {8, 32, 32, 1}, {32, 1, 1, 0}}));
  // runs followed by padding zeros (1 or 7 channels of a 16-channel block), which stay whole
  nests.push_back(make_nest(kernel_kind::copy, {{3844, 1, 16, 0}, {1, 1, 1, 0}}));
  nests.back().zero_tail = 15;
  nests.push_back(make_nest(kernel_kind::transpose, {{7, 3844, 1, 0}, {3844, 1, 16, 0}}));
  nests.back().zero_tail = 9;
  // 48 channels of a 64-channel block: the columns split first, the rows must not be
  nests.push_back(make_nest(kernel_kind::transpose, {{48, 3844, 1, 0}, {3844, 1, 64, 0}}));
  nests.back().zero_tail = 16;
  // tiles: 16 rows of 4096 columns in one tile loop, cut into whole tiles
  nests.push_back(make_nest(kernel_kind::tile, {{16, 4096, 1}, {4096, 1, 16}}));
  nests.back().tile_row_loops = 1;
  nests.back().tile_column_loops = 1;
  for (const nest& original : nests) {
    const std::vector<offsets> expected = sorted_elements(original);
    for (const dim threads : {1, 2, 3, 4, 8, 64}) {
      nest split = original;
      memfmt::detail::split_for_threads(split, threads);
      INFO("nest of " << original.nloops << " loops, first extent " << original.loops[0].extent << ", " << threads
                      << " threads -> " << split.nloops << " loops");
      CHECK(split.outer_count() >= original.outer_count());
      if (original.column_loops == 2)  // columns over two loops: the inner one stays whole
        CHECK(split.loops[split.nloops - 1].extent == original.loops[original.nloops - 1].extent);
      if (original.zero_tail != 0) {  // the run the zeros follow is whole
        const int run = original.nloops - (original.kind == kernel_kind::transpose ? 2 : 1);
        CHECK(split.loops[run + split.nloops - original.nloops].extent == original.loops[run].extent);
      }
      REQUIRE(sorted_elements(split) == expected);
    }
  }
}

TEST_CASE("threads share a transpose so that each writes one stretch of the destination", "[lower][threads]") {
  // Each thread takes a contiguous run of the outer iterations (the default parallel_for);
  // its destination offsets must form one interval, below the next thread's: whole rows
  // of the destination, not a piece of every row. Possible when every thread can get
  // columns at least two tiles (32) wide.
  for (const dim threads : {2, 4})
    for (const dim channels : {64, 96, 128, 256})
      for (const dim pixels : {1024, 3136, 4096})
        for (const bool to_nchw : {true, false}) {
          const dim columns = to_nchw ? channels : pixels;
          if (columns % (16 * threads) != 0 || columns / threads < 32) continue;
          nest n = to_nchw ? nhwc_to_nchw(channels, pixels) : nchw_to_nhwc(channels, pixels);
          memfmt::detail::split_for_threads(n, threads);
          const dim count = n.outer_count();
          INFO((to_nchw ? "nhwc -> nchw, " : "nchw -> nhwc, ") << channels << " channels, " << pixels << " pixels, "
                                                               << threads << " threads, " << count << " pieces");
          REQUIRE(count >= threads);
          dim end_of_previous = 0;
          for (dim t = 0; t < threads; ++t) {
            const std::vector<offsets> mine = elements(n, count * t / threads, count * (t + 1) / threads);
            dim lowest = std::get<1>(mine.front()), highest = lowest;
            for (const offsets& o : mine) {
              lowest = std::min(lowest, std::get<1>(o));
              highest = std::max(highest, std::get<1>(o));
            }
            CHECK(lowest == end_of_previous);
            CHECK(highest - lowest + 1 == static_cast<dim>(mine.size()));
            end_of_previous = highest + 1;
          }
        }
}
