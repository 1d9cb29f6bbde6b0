#pragma once
/// @file
/// The passes of one lowered nest, in the order the reorder's planning runs them:
/// a conversion in two stages where its layout change would run as tiles; tiles for a
/// plain copy (in place of a gather only where they beat it); the order of tiles from
/// memory; the rows a kernel walks itself; bands of columns in cache; streaming
/// stores; the cut for threads.

#include <utility>
#include <vector>

#include "memfmt/reorder/pass/stage.hpp"
#include "memfmt/reorder/pass/threads.hpp"
#include "memfmt/reorder/pass/tiles.hpp"
#include "memfmt/reorder/placed_nest.hpp"

namespace memfmt::detail {

/// What the passes of a nest know of the whole reorder.
struct reorder_setting {
  conversion cvt;              ///< the reorder's conversion
  bool converts = false;       ///< not a plain copy: other types, or factors per index
  bool may_stage = false;      ///< conversions may go in two stages (not the exact integer path, not f64)
  bool stream = false;         ///< the destination is written around the caches
  bool from_memory = false;    ///< source and destination do not fit in the caches the tiles use
  bool microcoded_gathers = false;  ///< vector gathers are microcoded (tiles_beat_gather)
  dim threads = 1;             ///< the threads that will run the plan
  dim src_size = 0, dst_size = 0;  ///< element bytes
};

/// Runs the passes on lowered nest `p` and appends the result, the nest or the two
/// stages of its conversion, to `out`. A `fused` nest (it shares its outer loops with a
/// neighbour) keeps its loops: only the conversion, streaming and the threads' cut apply.
inline void plan_nest(placed_nest p, bool fused, const reorder_setting& s, std::vector<placed_nest>& out) {
  p.loops.cvt = s.cvt;
  if (p.parts > 1) p.loops.cvt.src = p.loops.cvt.dst = data_type::f32;  // (a plain copy of its units)
  const dim unit_bytes = s.src_size / p.parts;
  if (s.converts && !fused && s.may_stage) {
    placed_nest first, second;
    if (stage_conversion(p, s.threads, first, second, s.from_memory, s.microcoded_gathers)) {
      second.loops.stream_stores = s.stream;
      if (s.from_memory) order_staged_for_memory(first, second);
      out.push_back(std::move(first));
      out.push_back(std::move(second));
      return;
    }
  }
  // (the scales are bound to the nests later: a plain copy has none)
  // (gathers of 4-byte elements stay, but where tiles beat them: tiles_beat_gather)
  // (f64 copies the plan could not split stay as they are: scalar rows)
  if (!s.converts && !fused && unit_bytes <= 4) {
    const bool gather = p.loops.kind == kernel_kind::gather;
    nest t = p.loops;
    use_tiles(t, unit_bytes);
    if (!gather || unit_bytes <= 2 || tiles_beat_gather(t, s.from_memory, s.microcoded_gathers)) p.loops = t;
    if (p.loops.kind == kernel_kind::tile) {  // (a gather's tables, if it was one)
      p.gather_src.clear();
      p.gather_scale.clear();
    }
  }
  const bool tiles = p.loops.kind == kernel_kind::tile || p.loops.kind == kernel_kind::transpose;
  if (tiles && !fused && s.from_memory) order_tiles_for_memory(p.loops, unit_bytes);
  if (!fused) take_outer_rows(p.loops, s.threads);
  if (!fused && !s.from_memory) band_columns(p.loops, unit_bytes);
  // (conversions keep their stores around the caches: without them, as many got slower
  // as faster)
  p.loops.stream_stores = s.stream && p.loops.kind != kernel_kind::strided &&
                          (s.converts || writes_whole_lines(p.loops, s.dst_size / p.parts));
  if (s.threads > 1) split_for_threads(p.loops, s.threads);
  out.push_back(std::move(p));
}

}  // namespace memfmt::detail
