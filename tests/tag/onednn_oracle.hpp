#pragma once
// oneDNN as an oracle for memfmt's tag, layout and desc tests: the list of oneDNN's
// tag names, its descriptors field by field, and offsets measured by a real reorder.
// Included only when MEMFMT_HAVE_ONEDNN is 1.

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace oracle {

using memfmt::dim;

struct named_tag {
  std::string_view name;
  dnnl::memory::format_tag onednn;
};

/// Every name of memfmt's list, paired with oneDNN's enumerator of the same spelling
/// (a name missing from oneDNN would not compile).
inline const std::vector<named_tag>& all_tags() {
  static const std::vector<named_tag> tags = {
#define MEMFMT_TAG_NAME(name) {#name, dnnl::memory::format_tag::name},
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
  };
  return tags;
}

inline dnnl_data_type_t to_onednn(memfmt::data_type dt) {
  switch (dt) {
    case memfmt::data_type::f16: return dnnl_f16;
    case memfmt::data_type::bf16: return dnnl_bf16;
    case memfmt::data_type::f32: return dnnl_f32;
    case memfmt::data_type::s32: return dnnl_s32;
    case memfmt::data_type::s8: return dnnl_s8;
    case memfmt::data_type::u8: return dnnl_u8;
    case memfmt::data_type::f64:  // (oneDNN 2.6 has none of these)
    case memfmt::data_type::f8_e5m2:
    case memfmt::data_type::f8_e4m3:
    case memfmt::data_type::s4:
    case memfmt::data_type::u4:
    case memfmt::data_type::undef: break;
  }
  return dnnl_data_type_undef;
}

/// oneDNN's descriptor for a tag, or a zero desc (ndims 0) when oneDNN refuses.
inline dnnl_memory_desc_t by_tag(const std::vector<dim>& dims, memfmt::data_type dt, dnnl::memory::format_tag tag) {
  dnnl_memory_desc_t md{};
  if (dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()), dims.data(), to_onednn(dt),
                                   static_cast<dnnl_format_tag_t>(tag)) != dnnl_success)
    md = dnnl_memory_desc_t{};
  return md;
}

/// oneDNN's descriptor from strides (empty: dense row-major), or a zero desc.
inline dnnl_memory_desc_t by_strides(const std::vector<dim>& dims, memfmt::data_type dt,
                                     const std::vector<dim>& strides) {
  dnnl_memory_desc_t md{};
  if (dnnl_memory_desc_init_by_strides(&md, static_cast<int>(dims.size()), dims.data(), to_onednn(dt),
                                       strides.empty() ? nullptr : strides.data()) != dnnl_success)
    md = dnnl_memory_desc_t{};
  return md;
}

/// The number of dims oneDNN accepts for `tag` (it rejects every other count).
inline int onednn_ndims(dnnl::memory::format_tag tag) {
  for (int n = 1; n <= DNNL_MAX_NDIMS; ++n) {
    const std::vector<dim> dims(static_cast<std::size_t>(n), 2);
    if (by_tag(dims, memfmt::data_type::f32, tag).ndims == n) return n;
  }
  return 0;
}

/// onednn_ndims of every name of all_tags(), in the same order.
inline const std::vector<int>& all_tag_ndims() {
  static const std::vector<int> ndims = [] {
    std::vector<int> r;
    for (const named_tag& t : all_tags()) r.push_back(onednn_ndims(t.onednn));
    return r;
  }();
  return ndims;
}

inline std::string show(const dim* v, int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) {
    if (i != 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}
inline std::string show(const memfmt::dims& v) { return show(v.data(), v.size()); }
inline std::string show(const std::vector<dim>& v) { return show(v.data(), static_cast<int>(v.size())); }

/// Field-by-field comparison; "" when memfmt's desc equals oneDNN's, else the first
/// difference, spelled out for the failure message.
inline std::string difference(const memfmt::desc& m, const dnnl_memory_desc_t& o) {
  std::ostringstream why;
  const auto same = [](const memfmt::dims& a, const dim* b, int n) {
    if (a.size() != n) return false;
    for (int i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  };
  if (m.get_ndims() != o.ndims) {
    why << "ndims " << m.get_ndims() << " vs oneDNN " << o.ndims;
    return why.str();
  }
  if (o.ndims == 0) return "";
  const int n = o.ndims;
  if (!same(m.get_dims(), o.dims, n)) why << "dims " << show(m.get_dims()) << " vs " << show(o.dims, n) << "; ";
  if (to_onednn(m.get_data_type()) != o.data_type) why << "data type differs; ";
  const bool m_blocked = m.get_format_kind() == memfmt::format_kind::blocked;
  const bool m_any = m.get_format_kind() == memfmt::format_kind::any;
  if (m_blocked != (o.format_kind == dnnl_blocked) || m_any != (o.format_kind == dnnl_format_kind_any))
    why << "format kind differs; ";
  if (!same(m.get_padded_dims(), o.padded_dims, n))
    why << "padded dims " << show(m.get_padded_dims()) << " vs " << show(o.padded_dims, n) << "; ";
  if (!same(m.get_padded_offsets(), o.padded_offsets, n))
    why << "padded offsets " << show(m.get_padded_offsets()) << " vs " << show(o.padded_offsets, n) << "; ";
  if (m.get_submemory_offset() != o.offset0)
    why << "offset0 " << m.get_submemory_offset() << " vs " << o.offset0 << "; ";
  if (o.format_kind == dnnl_blocked && m_blocked) {
    const dnnl_blocking_desc_t& b = o.format_desc.blocking;
    if (!same(m.get_strides(), b.strides, n))
      why << "strides " << show(m.get_strides()) << " vs " << show(b.strides, n) << "; ";
    if (!same(m.get_inner_blks(), b.inner_blks, b.inner_nblks))
      why << "inner blks " << show(m.get_inner_blks()) << " vs " << show(b.inner_blks, b.inner_nblks) << "; ";
    if (!same(m.get_inner_idxs(), b.inner_idxs, b.inner_nblks))
      why << "inner idxs " << show(m.get_inner_idxs()) << " vs " << show(b.inner_idxs, b.inner_nblks) << "; ";
  }
  if (m.get_size() != dnnl_memory_desc_get_size(&o))
    why << "size " << m.get_size() << " vs " << dnnl_memory_desc_get_size(&o) << "; ";
  return why.str();
}

/// oneDNN's offset (in elements from the handle) of every logical index of `md`, in
/// row-major order of the logical indices, measured by reordering a plain tensor holding
/// 1, 2, 3, ... into a buffer laid out by `md` and finding where each value landed.
/// Values in [1, volume] are exact in f32 for the volumes tests use (< 2^24).
inline std::vector<dim> offsets_by_reorder(const dnnl_memory_desc_t& md) {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const std::vector<dim> dims(md.dims, md.dims + md.ndims);
  dim volume = 1;
  for (dim d : dims) volume *= d;
  dnnl_memory_desc_t dst_md = md;
  dst_md.data_type = dnnl_f32;
  // The buffer must hold the furthest element the view reaches. oneDNN's own size is not
  // a bound for views whose padded dims are smaller than a block, so bound it directly:
  // the start of the last outer block of every dim, plus one whole inner tile.
  const auto& blk = md.format_desc.blocking;
  std::vector<dim> blocks(static_cast<std::size_t>(md.ndims), 1);
  dim tile = 1;
  for (int k = 0; k < blk.inner_nblks; ++k) {
    blocks[static_cast<std::size_t>(blk.inner_idxs[k])] *= blk.inner_blks[k];
    tile *= blk.inner_blks[k];
  }
  dim extent = md.offset0 + tile;
  for (int d = 0; d < md.ndims; ++d) {
    const dim outer = (md.padded_offsets[d] + md.padded_dims[d] + blocks[static_cast<std::size_t>(d)] - 1) /
                      blocks[static_cast<std::size_t>(d)];
    extent += (outer > 0 ? outer - 1 : 0) * blk.strides[d];
  }
  std::vector<float> src(static_cast<std::size_t>(volume));
  for (dim i = 0; i < volume; ++i) src[static_cast<std::size_t>(i)] = static_cast<float>(i + 1);
  std::vector<float> dst(static_cast<std::size_t>(extent) + 64, -1.0f);
  dnnl_memory_desc_t plain = by_strides(dims, memfmt::data_type::f32, {});
  dnnl::memory src_mem(dnnl::memory::desc(plain), engine, src.data());
  dnnl::memory dst_mem(dnnl::memory::desc(dst_md), engine, dst.data());
  dnnl::reorder(src_mem, dst_mem).execute(stream, src_mem, dst_mem);
  stream.wait();
  std::vector<dim> offsets(static_cast<std::size_t>(volume), -1);
  for (std::size_t k = 0; k < dst.size(); ++k) {
    const float v = dst[k];
    if (v >= 1.0f && v <= static_cast<float>(volume)) offsets[static_cast<std::size_t>(v) - 1] = static_cast<dim>(k);
  }
  return offsets;
}

/// oneDNN's offset of a logical index, computed from its descriptor's fields the way its
/// documentation defines the blocked layout: padded offsets added, inner blocks take the
/// low parts of each index (innermost block first), the rest goes through the strides.
/// Returns -1 for a descriptor whose inner blocks name a dim it does not have.
inline dim onednn_offset(const dnnl_memory_desc_t& md, const memfmt::dims& index) {
  const auto& blk = md.format_desc.blocking;
  dim pos[DNNL_MAX_NDIMS] = {};
  for (int d = 0; d < md.ndims; ++d) pos[d] = index[d] + md.padded_offsets[d];
  dim offset = md.offset0, block_stride = 1;
  for (int k = blk.inner_nblks - 1; k >= 0; --k) {
    const dim d = blk.inner_idxs[k];
    if (d < 0 || d >= md.ndims) return -1;
    offset += pos[d] % blk.inner_blks[k] * block_stride;
    pos[d] /= blk.inner_blks[k];
    block_stride *= blk.inner_blks[k];
  }
  for (int d = 0; d < md.ndims; ++d) offset += pos[d] * blk.strides[d];
  return offset;
}

/// Calls `f(index)` for every logical index of `dims` in row-major order.
template <class F>
void for_each_index(const memfmt::dims& dims, F&& f) {
  for (dim v : dims)
    if (v == 0) return;
  memfmt::dims index = memfmt::dims::filled(dims.size(), 0);
  for (;;) {
    f(static_cast<const memfmt::dims&>(index));
    int d = dims.size() - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace oracle
