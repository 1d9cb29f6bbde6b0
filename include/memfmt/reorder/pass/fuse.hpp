#pragma once
/// @file
/// Copies that read the same source rows, fused tile by tile (`fuse_tiled_copies`).

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "memfmt/reorder/kernel/nest.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// Copies that read the same source rows run tile by tile together. tile_rows cut the
/// long loop J of a copy into tiles, (..., J / tile, tile, K, row) or (..., J / tile, K,
/// tile, row), so that a tile's source rows stay in cache while K's rows are taken from
/// them. Another copy of the rest of those rows (..., J, row': the last, partial channel
/// block of nhwc -> nChw8c with 71 channels) would read each row from memory once more;
/// it gets the same tiles and runs each of its tiles right after the first copy's (see
/// placed_nest::fused_loops).
/// @post the nests visit the same elements with the same offsets
inline void fuse_tiled_copies(std::vector<placed_nest>& nests) {
  for (std::size_t m = 0; m < nests.size(); ++m) {
    const nest& tiled = nests[m].loops;
    if (tiled.kind != kernel_kind::copy || tiled.nloops < 4) continue;
    if (nests[m].fused_loops != 0 || (m + 1 < nests.size() && nests[m + 1].fused_loops != 0)) continue;
    const int q = tiled.nloops - 4;  // the loop of tiles
    // K inside the tile when the kernel owns it (tile_rows' two shapes)
    const bool across = tiled.owned_loops() == 3;
    if (tiled.owned_loops() != 2 && !across) continue;
    const loop tiles = tiled.loops[q], K = tiled.loops[across ? q + 2 : q + 1], tile = tiled.loops[across ? q + 1 : q + 2];
    // (a fused copy's tile loop must stay an owned loop of its own: tiles of few_rows or more)
    if (tile.extent < nest::few_rows || tiles.src_stride != tile.src_stride * tile.extent ||
        tiles.dst_stride != tile.dst_stride * tile.extent ||
        tiles.scale_stride != tile.scale_stride * tile.extent || K.src_stride >= tile.src_stride)
      continue;
    for (std::size_t b = 0; b < nests.size(); ++b) {
      nest& rest = nests[b].loops;
      if (b == m || rest.kind != kernel_kind::copy || rest.nloops != q + 2 || nests[b].fused_loops != 0) continue;
      const loop J = rest.loops[q], row = rest.loops[q + 1];
      if (J != loop{tiles.extent * tile.extent, tile.src_stride, tile.dst_stride, tile.scale_stride} ||
          row.extent > nest::short_row || !std::equal(rest.loops, rest.loops + q, tiled.loops))
        continue;
      rest.loops[q] = tiles;
      rest.loops[q + 1] = tile;
      rest.loops[q + 2] = row;
      rest.nloops = q + 3;
      placed_nest moved = std::move(nests[b]);
      moved.fused_loops = q + 1;
      nests.erase(nests.begin() + static_cast<std::ptrdiff_t>(b));
      const std::size_t at = b < m ? m : m + 1;  // right after the tiled copy
      nests.insert(nests.begin() + static_cast<std::ptrdiff_t>(at), std::move(moved));
      if (b < m) --m;
      break;
    }
  }
}

}  // namespace memfmt::detail
