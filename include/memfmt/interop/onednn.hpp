#pragma once
/// @file
/// memfmt's descriptors as oneDNN's and back: `memfmt::to_dnnl` and `memfmt::from_dnnl`,
/// exact in both directions (docs/interop.md: which concept maps onto which, and what
/// cannot cross); and `dnnl::memory` as a tensor object that `memfmt::reorder` plans
/// and executes on (`memory_traits<dnnl::memory>`). For oneDNN 2.x, whose `dnnl_memory_desc_t` has public fields, and
/// oneDNN 3.x, whose descriptor is opaque (`MEMFMT_ONEDNN_V3`): there the bridge reads
/// and writes the descriptor's blob, whose layout it knows for oneDNN 3.7 and later. The
/// library a program runs with is checked once per process (its version, and what it
/// does with the blob); with an earlier 3.x, or a blob laid out otherwise, blocked
/// descriptors are refused with a `memfmt::error` naming the version. Not included by
/// memfmt.hpp: a program that includes it links oneDNN.

#if !__has_include(<oneapi/dnnl/dnnl.hpp>)
#error "memfmt/interop/onednn.hpp needs oneDNN's oneapi/dnnl/dnnl.hpp (Debian: libdnnl-dev)"
#endif

#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/memory/memory.hpp"

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL
#include <oneapi/dnnl/dnnl_sycl.h>  // (C only: whether a memory is a SYCL buffer)
#endif

/// 1 when compiled against oneDNN 3.x or later (opaque descriptors, getters), else 0.
#define MEMFMT_ONEDNN_V3 (DNNL_VERSION_MAJOR >= 3)

namespace memfmt {

static_assert(DNNL_MAX_NDIMS == max_ndims, "memfmt and oneDNN must agree on the most dims a tensor has");

/// oneDNN's data type of `dt` (`undef` for `undef`).
/// @throws error naming the type when the oneDNN compiled against lacks it (f64 and the
///         f8 types before oneDNN 3, s4 and u4 before 3.5)
inline dnnl::memory::data_type to_dnnl(data_type dt) {
  using dnnl_dt = dnnl::memory::data_type;
  switch (dt) {
    case data_type::f16: return dnnl_dt::f16;
    case data_type::bf16: return dnnl_dt::bf16;
    case data_type::f32: return dnnl_dt::f32;
    case data_type::s32: return dnnl_dt::s32;
    case data_type::s8: return dnnl_dt::s8;
    case data_type::u8: return dnnl_dt::u8;
#if DNNL_VERSION_MAJOR >= 3
    case data_type::f64: return dnnl_dt::f64;
    case data_type::f8_e5m2: return dnnl_dt::f8_e5m2;
    case data_type::f8_e4m3: return dnnl_dt::f8_e4m3;
#else
    case data_type::f64:
    case data_type::f8_e5m2:
    case data_type::f8_e4m3:
#endif
#if DNNL_VERSION_MAJOR > 3 || (DNNL_VERSION_MAJOR == 3 && DNNL_VERSION_MINOR >= 5)
    case data_type::s4: return dnnl_dt::s4;
    case data_type::u4: return dnnl_dt::u4;
#else
    case data_type::s4:
    case data_type::u4:
#endif
      detail::fail("to_dnnl: oneDNN ", DNNL_VERSION_MAJOR, ".", DNNL_VERSION_MINOR, " has no data type ", to_string(dt));
    case data_type::undef: break;
  }
  return dnnl_dt::undef;
}

/// memfmt's data type of `dt`.
/// @throws error naming the type when memfmt has no such type (f4_e2m1, e8m0, s64, ...)
inline data_type from_dnnl(dnnl::memory::data_type dt) {
  for (const data_type ours : {data_type::undef, data_type::f16, data_type::bf16, data_type::f32, data_type::s32,
                               data_type::s8, data_type::u8
#if DNNL_VERSION_MAJOR >= 3
                               ,
                               data_type::f64, data_type::f8_e5m2, data_type::f8_e4m3
#endif
#if DNNL_VERSION_MAJOR > 3 || (DNNL_VERSION_MAJOR == 3 && DNNL_VERSION_MINOR >= 5)
                               ,
                               data_type::s4, data_type::u4
#endif
       })
    if (to_dnnl(ours) == dt) return ours;
  detail::fail("from_dnnl: oneDNN's data type ", dnnl_dt2str(static_cast<dnnl_data_type_t>(dt)),
               " has no memfmt counterpart");
}

namespace detail::onednn {

/// oneDNN's version, "2.6.3": errors about the oneDNN in use name it.
inline std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

/// oneDNN's name of the format kind `k` (its dnnl_fmt_kind2str knows not every kind).
inline std::string kind_name(dnnl_format_kind_t k) {
#if DNNL_VERSION_MAJOR >= 3
  if (k == dnnl_format_kind_opaque) return "opaque";
#endif
  const std::string name = dnnl_fmt_kind2str(k);
  return name.rfind("unknown", 0) == 0 ? std::to_string(static_cast<int>(k)) : name;
}

inline std::string hex(std::uint64_t v) {
  std::string s;
  do s.insert(s.begin(), "0123456789abcdef"[v % 16]);
  while ((v /= 16) != 0);
  return "0x" + s;
}

/// A oneDNN descriptor read into memfmt's types, whichever version stored it.
struct dnnl_fields {
  int ndims = 0;
  dnnl_data_type_t dt = dnnl_data_type_undef;
  dnnl_format_kind_t kind = dnnl_format_kind_undef;
  desc_fields f;
  std::uint64_t flags = 0;  ///< oneDNN's extra flags, all 64 bits (memfmt knows three)
};

inline dims to_dims(const dnnl_dim_t* v, int n) {
  dims r;
  for (int i = 0; i < n; ++i) r.push_back(v[i]);
  return r;
}

inline dnnl::memory::dims to_dnnl_dims(const dims& v) { return dnnl::memory::dims(v.begin(), v.end()); }

/// The extra information as oneDNN keeps it: scale_adjust is read only with its flag,
/// and oneDNN's own descriptors hold 0 there otherwise (memfmt's hold 1).
inline float dnnl_scale_adjust(const extra_info& e) {
  return (e.flags & extra_flags::scale_adjust) != 0 ? e.scale_adjust : 0.f;
}
inline float memfmt_scale_adjust(std::uint64_t flags, float scale_adjust) {
  return (flags & extra_flags::scale_adjust) != 0 ? scale_adjust : extra_info{}.scale_adjust;
}

#if MEMFMT_ONEDNN_V3

// oneDNN 3.x has no public way to build a blocked descriptor with inner blocks, padding,
// a submemory offset or extra information from its fields, nor a getter of the extra
// information; both go through the descriptor's blob: the bytes of oneDNN's internal
// memory_desc_t, read by dnnl_memory_desc_get_blob and written by
// dnnl_memory_desc_create_with_blob. That struct is no part of oneDNN's ABI (all 3.x
// releases share the soname libdnnl.so.3, and the extra information changed size and
// place within 3.x), so a program may load another layout than its headers had. The
// bridge knows the layout of oneDNN 3.7 and later, and checks the library it runs with
// once per process (`blob_layout_problem`): its version, where the getters find the
// fields, and what oneDNN does with extra information written through the blob. Each
// crossing also checks every field the getters reach.

/// The oldest oneDNN 3.x whose blob layout the bridge knows (3.7: the extra information
/// is the blob's last 128 bytes).
constexpr int blob_oldest_minor = 7;

/// True for the oneDNN versions whose blob is laid out as the bridge reads it.
constexpr bool blob_layout_known(int major, int minor) { return major == 3 && minor >= blob_oldest_minor; }

/// The fields from the dims to the inner blocks, laid out as in oneDNN 2.x's public
/// descriptor, from byte 8 of the blob on: the 8-byte dims are aligned to 8 after the
/// 4-byte ndims, and the 4 bytes beside ndims are not always padding (in some builds
/// they come first and are not zero). The bridge neither reads nor writes bytes 0-7: it
/// starts from the blob of a descriptor oneDNN made with the same ndims.
struct blob_fields {
  dnnl_dim_t dims[DNNL_MAX_NDIMS];
  int data_type;
  dnnl_dim_t padded_dims[DNNL_MAX_NDIMS];
  dnnl_dim_t padded_offsets[DNNL_MAX_NDIMS];
  dnnl_dim_t offset0;
  int format_kind;
  dnnl_dim_t strides[DNNL_MAX_NDIMS];
  int inner_nblks;
  dnnl_dim_t inner_blks[DNNL_MAX_NDIMS];
  dnnl_dim_t inner_idxs[DNNL_MAX_NDIMS];
};
constexpr std::size_t blob_fields_at = 8;

/// The extra information, the last bytes of the blob (oneDNN 3.7 and later's
/// memory_extra_desc_t): memfmt's fields, then the spatial dims and destination size
/// oneDNN's GPU convolutions keep for zero-point compensation, which the bridge leaves
/// as oneDNN made them.
struct blob_extra {
  std::uint64_t flags;
  int compensation_mask;
  float scale_adjust;
  int asymm_compensation_mask;
  dnnl_dim_t idhw[3];  ///< input depth, height, width
  dnnl_dim_t odhw[3];  ///< output
  dnnl_dim_t pdhw[3];  ///< padding
  dnnl_dim_t ddhw[3];  ///< dilation
  dnnl_dim_t dst_size;
};
static_assert(sizeof(blob_extra) == 128, "oneDNN 3.7's memory_extra_desc_t is 128 bytes");

/// The bytes of the extra information the bridge reads and writes: memfmt's fields.
constexpr std::size_t blob_extra_ours = offsetof(blob_extra, idhw);

/// Where the extra information starts in a blob of `size` bytes.
constexpr std::size_t blob_extra_at(std::size_t size) { return size - sizeof(blob_extra); }

/// memfmt's fields of the extra information at byte `at` of `blob` (the others 0).
inline blob_extra get_extra(const std::vector<std::uint8_t>& blob, std::size_t at) {
  blob_extra e{};
  std::memcpy(&e, blob.data() + at, blob_extra_ours);
  return e;
}

/// `blob` with memfmt's fields of the extra information written at byte `at`.
inline void put_extra(std::vector<std::uint8_t>& blob, std::size_t at, std::uint64_t flags, int compensation_mask,
                      float scale_adjust, int asymm_compensation_mask) {
  blob_extra e = get_extra(blob, at);
  e.flags = flags;
  e.compensation_mask = compensation_mask;
  e.scale_adjust = scale_adjust;
  e.asymm_compensation_mask = asymm_compensation_mask;
  std::memcpy(blob.data() + at, &e, blob_extra_ours);
}

inline bool same(const dnnl::memory::dims& a, const dnnl_dim_t* b, int n) {
  return static_cast<int>(a.size()) == n && std::equal(a.begin(), a.end(), b);
}

/// The first field of `md` whose getter disagrees with the blob's bytes `b` (its name,
/// for the error), or nullptr when all agree.
inline const char* blob_disagreement(const dnnl::memory::desc& md, const blob_fields& b) {
  const int ndims = md.get_ndims();
  if (ndims < 0 || ndims > DNNL_MAX_NDIMS) return "ndims";
  if (!same(md.get_dims(), b.dims, ndims)) return "dims";
  if (static_cast<int>(md.get_data_type()) != b.data_type) return "data_type";
  if (!same(md.get_padded_dims(), b.padded_dims, ndims)) return "padded_dims";
  if (!same(md.get_padded_offsets(), b.padded_offsets, ndims)) return "padded_offsets";
  if (md.get_submemory_offset() != b.offset0) return "offset0";
  if (static_cast<int>(md.get_format_kind()) != b.format_kind) return "format_kind";
  if (md.get_format_kind() != dnnl::memory::format_kind::blocked) return nullptr;
  if (!same(md.get_strides(), b.strides, ndims)) return "strides";
  if (md.get_inner_nblks() != b.inner_nblks) return "inner_nblks";
  if (b.inner_nblks < 0 || b.inner_nblks > DNNL_MAX_NDIMS) return "inner_nblks";
  if (!same(md.get_inner_blks(), b.inner_blks, b.inner_nblks)) return "inner_blks";
  if (!same(md.get_inner_idxs(), b.inner_idxs, b.inner_nblks)) return "inner_idxs";
  return nullptr;
}

[[noreturn]] inline void blob_layout_unknown(const char* field) {
  fail("oneDNN ", version(), ": its descriptor blob is not laid out as memfmt's bridge reads it (its getters and "
       "the blob disagree on ", field, ")");
}

/// What goes wrong when memfmt's extra fields are written at byte `at` of a blob, or ""
/// when oneDNN sees them as it documents: s8s8 and zero-point compensation per dim 0 grow
/// get_size() by 4 bytes per element of dim 0, and scale_adjust takes part in ==.
inline std::string extra_probe(std::size_t at) {
  using dt = dnnl::memory::data_type;
  const dnnl::memory::desc plain({3, 4}, dt::s8, dnnl::memory::format_tag::ab);
  const std::vector<std::uint8_t> blob = dnnl::memory::desc(plain).get_blob();
  if (at < blob_fields_at + sizeof(blob_fields) || at > blob.size() || blob.size() - at < blob_extra_ours)
    return "its descriptor blob (" + std::to_string(blob.size()) + " bytes) has no room for the extra information at byte " +
           std::to_string(at);
  const auto with = [&](std::uint64_t flags, int mask, float scale_adjust, int asymm_mask) {
    std::vector<std::uint8_t> b = blob;
    put_extra(b, at, flags, mask, scale_adjust, asymm_mask);
    return dnnl::memory::desc(b);
  };
  const std::string where = " written at byte " + std::to_string(at) + " of its descriptor blob";
  const std::size_t grown = plain.get_size() + 4 * 3;
  if (with(extra_flags::compensation_conv_s8s8, 1, 0.f, 0).get_size() != grown)
    return "s8s8 compensation per dim 0" + where + " does not grow get_size() by 4 bytes per element of dim 0";
  if (with(extra_flags::compensation_conv_asymmetric_src, 0, 0.f, 1).get_size() != grown)
    return "zero-point compensation per dim 0" + where + " does not grow get_size() by 4 bytes per element of dim 0";
  const dnnl::memory::desc half = with(extra_flags::scale_adjust, 0, 0.5f, 0);
  if (half == plain || half == with(extra_flags::scale_adjust, 0, 0.25f, 0) ||
      !(half == with(extra_flags::scale_adjust, 0, 0.5f, 0)))
    return "scale_adjust" + where + " does not take part in oneDNN's ==";
  return "";
}

/// Why the oneDNN this process runs with has a blob the bridge cannot use, or "".
inline std::string blob_layout_problem() {
  const dnnl_version_t* v = dnnl_version();
  if (!blob_layout_known(v->major, v->minor))
    return "memfmt's bridge to oneDNN 3.x supports 3." + std::to_string(blob_oldest_minor) +
           " and later (earlier 3.x releases lay their descriptor blob out otherwise)";
  // a view of a blocked descriptor: every field the getters reach is other than 0
  dnnl::memory::desc view = dnnl::memory::desc({5, 40, 3, 3}, dnnl::memory::data_type::f32,
                                                     dnnl::memory::format_tag::nChw16c)
                                      .submemory_desc({3, 16, 3, 3}, {1, 16, 0, 0});
  const std::vector<std::uint8_t> blob = view.get_blob();
  if (blob.size() < blob_fields_at + sizeof(blob_fields) + sizeof(blob_extra))
    return "its descriptor blob (" + std::to_string(blob.size()) + " bytes) is smaller than memfmt's bridge reads";
  blob_fields fields;
  std::memcpy(&fields, blob.data() + blob_fields_at, sizeof fields);
  if (const char* field = blob_disagreement(view, fields))
    return std::string("its getters and its descriptor blob disagree on ") + field;
  return extra_probe(blob_extra_at(blob.size()));
}

/// Fails, naming the oneDNN version and the problem, when the bridge cannot use the blob
/// of the oneDNN this process runs with (checked on the first call).
inline void check_blob_layout() {
  static const std::string problem = blob_layout_problem();
  if (!problem.empty())
    fail("oneDNN ", version(), ": ", problem, "; memfmt cannot cross blocked descriptors to or from it");
}

/// `md`'s fields: the getters', and the extra information from the blob.
inline dnnl_fields read(const dnnl::memory::desc& md) {
  dnnl_fields r;
  r.ndims = md.get_ndims();
  r.dt = static_cast<dnnl_data_type_t>(md.get_data_type());
  r.kind = static_cast<dnnl_format_kind_t>(md.get_format_kind());
  r.f.logical = md.get_dims();
  r.f.padded = md.get_padded_dims();
  r.f.padded_offsets = md.get_padded_offsets();
  r.f.offset0 = md.get_submemory_offset();
  if (r.kind != dnnl_blocked) return r;
  check_blob_layout();
  r.f.strides = md.get_strides();
  r.f.inner_blks = md.get_inner_blks();
  r.f.inner_idxs = md.get_inner_idxs();
  const std::vector<std::uint8_t> blob = dnnl::memory::desc(md).get_blob();  // (get_blob is not const)
  blob_fields fields;
  std::memcpy(&fields, blob.data() + blob_fields_at, sizeof fields);
  if (const char* field = blob_disagreement(md, fields)) blob_layout_unknown(field);
  const blob_extra extra = get_extra(blob, blob_extra_at(blob.size()));
  r.flags = extra.flags;
  r.f.extra = {static_cast<std::uint32_t>(extra.flags), extra.compensation_mask,
               memfmt_scale_adjust(extra.flags, extra.scale_adjust), extra.asymm_compensation_mask};
  return r;
}

/// oneDNN's blocked descriptor with the fields of `d`: the blob of a plain descriptor of
/// the same dims, overwritten field by field.
/// @throws error when the oneDNN in use has a blob the bridge does not know
inline dnnl::memory::desc blocked_to_dnnl(const desc& d) {
  check_blob_layout();
  const desc_fields f = d.fields();
  const int n = d.get_ndims();
  std::vector<std::uint8_t> blob =
      dnnl::memory::desc(to_dnnl_dims(f.logical), to_dnnl(f.dt), dnnl::memory::dims(static_cast<std::size_t>(n), 0))
          .get_blob();
  blob_fields fields{};
  std::copy(f.logical.begin(), f.logical.end(), fields.dims);
  fields.data_type = static_cast<int>(to_dnnl(f.dt));
  std::copy(f.padded.begin(), f.padded.end(), fields.padded_dims);
  std::copy(f.padded_offsets.begin(), f.padded_offsets.end(), fields.padded_offsets);
  fields.offset0 = f.offset0;
  fields.format_kind = dnnl_blocked;
  std::copy(f.strides.begin(), f.strides.end(), fields.strides);
  fields.inner_nblks = f.inner_blks.size();
  std::copy(f.inner_blks.begin(), f.inner_blks.end(), fields.inner_blks);
  std::copy(f.inner_idxs.begin(), f.inner_idxs.end(), fields.inner_idxs);
  std::memcpy(blob.data() + blob_fields_at, &fields, sizeof fields);
  put_extra(blob, blob_extra_at(blob.size()), f.extra.flags, f.extra.compensation_mask, dnnl_scale_adjust(f.extra),
            f.extra.asymm_compensation_mask);
  const dnnl::memory::desc md(blob);
  if (md.get_ndims() != n) blob_layout_unknown("ndims");
  if (const char* field = blob_disagreement(md, fields)) blob_layout_unknown(field);
  return md;
}

#else  // oneDNN 2.x: the descriptor's fields are public

/// `md`'s fields.
inline dnnl_fields read(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& c = md.data;
  dnnl_fields r;
  r.ndims = c.ndims;
  r.dt = c.data_type;
  r.kind = c.format_kind;
  if (c.ndims < 0 || c.ndims > max_ndims) fail("from_dnnl: oneDNN's descriptor has ", c.ndims, " dims");
  r.f.logical = to_dims(c.dims, c.ndims);
  r.f.padded = to_dims(c.padded_dims, c.ndims);
  r.f.padded_offsets = to_dims(c.padded_offsets, c.ndims);
  r.f.offset0 = c.offset0;
  r.flags = c.extra.flags;
  r.f.extra = {static_cast<std::uint32_t>(c.extra.flags), c.extra.compensation_mask,
               memfmt_scale_adjust(c.extra.flags, c.extra.scale_adjust), c.extra.asymm_compensation_mask};
  if (r.kind != dnnl_blocked) return r;
  const dnnl_blocking_desc_t& b = c.format_desc.blocking;
  if (b.inner_nblks < 0 || b.inner_nblks > max_ndims)
    fail("from_dnnl: oneDNN's descriptor has ", b.inner_nblks, " inner blocks");
  r.f.strides = to_dims(b.strides, c.ndims);
  r.f.inner_blks = to_dims(b.inner_blks, b.inner_nblks);
  r.f.inner_idxs = to_dims(b.inner_idxs, b.inner_nblks);
  return r;
}

/// oneDNN's blocked descriptor with the fields of `d`.
inline dnnl::memory::desc blocked_to_dnnl(const desc& d) {
  const desc_fields f = d.fields();
  dnnl_memory_desc_t c{};
  c.ndims = d.get_ndims();
  c.data_type = static_cast<dnnl_data_type_t>(to_dnnl(f.dt));
  c.format_kind = dnnl_blocked;
  c.offset0 = f.offset0;
  dnnl_blocking_desc_t& b = c.format_desc.blocking;
  for (int i = 0; i < c.ndims; ++i) {
    c.dims[i] = f.logical[i];
    c.padded_dims[i] = f.padded[i];
    c.padded_offsets[i] = f.padded_offsets[i];
    b.strides[i] = f.strides[i];
  }
  b.inner_nblks = f.inner_blks.size();
  for (int k = 0; k < b.inner_nblks; ++k) {
    b.inner_blks[k] = f.inner_blks[k];
    b.inner_idxs[k] = f.inner_idxs[k];
  }
  c.extra.flags = f.extra.flags;
  c.extra.compensation_mask = f.extra.compensation_mask;
  c.extra.scale_adjust = dnnl_scale_adjust(f.extra);
  c.extra.asymm_compensation_mask = f.extra.asymm_compensation_mask;
  return dnnl::memory::desc(c);
}

#endif

/// Fails naming the first value of `r` that oneDNN leaves for execution (DNNL_RUNTIME_DIM_VAL).
inline void check_no_runtime_values(const dnnl_fields& r) {
  const auto check = [](const dims& v, const char* what) {
    for (int i = 0; i < v.size(); ++i)
      if (v[i] == DNNL_RUNTIME_DIM_VAL)
        fail("from_dnnl: ", what, " ", i, " is DNNL_RUNTIME_DIM_VAL (known only at execution); a memfmt descriptor "
             "has every value");
  };
  check(r.f.logical, "dim");
  check(r.f.strides, "stride");
  if (r.f.offset0 == DNNL_RUNTIME_DIM_VAL) fail("from_dnnl: offset0 is DNNL_RUNTIME_DIM_VAL (known only at execution)");
}

/// Fails naming the extra flags memfmt does not have (oneDNN's RNN and GPU compensations).
inline void check_extra_flags(std::uint64_t flags) {
  constexpr std::uint64_t known = extra_flags::compensation_conv_s8s8 | extra_flags::scale_adjust |
                                  extra_flags::compensation_conv_asymmetric_src;
  if ((flags & ~known) != 0)
    fail("from_dnnl: extra flags ", hex(flags & ~known),
         " (RNN or GPU compensation) have no memfmt counterpart; memfmt has compensation_conv_s8s8 (0x1), "
         "scale_adjust (0x2) and compensation_conv_asymmetric_src (0x8)");
}

/// memfmt's `any` descriptor of `r`, which must carry nothing but dims and type.
inline desc any_from(const dnnl_fields& r, data_type dt) {
  if (!(r.f.padded == r.f.logical) || !(r.f.padded_offsets == dims::filled(r.ndims, 0)) || r.f.offset0 != 0 ||
      r.flags != 0)
    fail("from_dnnl: a format_kind::any descriptor with padding, offsets or extra flags has no memfmt counterpart "
         "(memfmt's any carries dims and data type only)");
  return desc::any(r.f.logical, dt);
}

/// memfmt's blocked descriptor of `r`: from_fields, its errors said to come from here.
inline desc blocked_from(dnnl_fields r, data_type dt) {
  r.f.dt = dt;
  try {
    return desc::from_fields(r.f);
  } catch (const error& e) {
    throw error(std::string("from_dnnl: oneDNN's descriptor does not make a memfmt desc: ") + e.what());
  }
}

}  // namespace detail::onednn

/// oneDNN's descriptor of the same memory: dims, padded dims and offsets, submemory
/// offset, strides, inner blocks and extra information (compensation) field for field,
/// so that any layout memfmt describes, also ones no oneDNN format tag names, reaches
/// oneDNN unchanged. The zero descriptor gives oneDNN's zero descriptor, `any` its `any`.
/// @throws error (oneDNN 3.x only) when `d` is blocked and the oneDNN in use has a
///         descriptor blob the bridge does not know: a release before 3.7, or one whose
///         blob fails the bridge's checks
/// @post `from_dnnl(to_dnnl(d)) == d`
inline dnnl::memory::desc to_dnnl(const desc& d) {
  switch (d.get_format_kind()) {
    case format_kind::undef: return dnnl::memory::desc();
    case format_kind::any:
      return dnnl::memory::desc(detail::onednn::to_dnnl_dims(d.get_dims()), to_dnnl(d.get_data_type()),
                                dnnl::memory::format_tag::any);
    case format_kind::blocked: break;
  }
  return detail::onednn::blocked_to_dnnl(d);
}

/// memfmt's descriptor of the same memory as `md` (the inverse of `to_dnnl`).
/// @throws error naming what memfmt cannot express: a format kind other than undef,
///         any and blocked (wino, rnn_packed, opaque, sparse), a data type memfmt has
///         not, runtime dims, RNN or GPU compensation flags, overlapping strides, dims
///         outside their padding; (oneDNN 3.x) a blocked descriptor from a oneDNN whose
///         blob the bridge does not know, as for `to_dnnl`
/// @post `to_dnnl(from_dnnl(md)) == md`
inline desc from_dnnl(const dnnl::memory::desc& md) {
  namespace o = detail::onednn;
  const o::dnnl_fields r = o::read(md);
  if (r.ndims == 0) return desc();
  if (r.kind != dnnl_format_kind_any && r.kind != dnnl_blocked)
    detail::fail("from_dnnl: oneDNN's format_kind::", o::kind_name(r.kind), " (", r.ndims,
                 "-D) has no memfmt counterpart: memfmt describes blocked layouts (and any) only");
  const data_type dt = from_dnnl(static_cast<dnnl::memory::data_type>(r.dt));
  o::check_no_runtime_values(r);
  o::check_extra_flags(r.flags);
  return r.kind == dnnl_format_kind_any ? o::any_from(r, dt) : o::blocked_from(r, dt);
}

namespace detail::onednn {

/// Fails unless memory of an engine of `kind` is host memory, which memfmt's reorders
/// read and write.
inline void check_cpu_engine(dnnl::engine::kind kind) {
  if (kind != dnnl::engine::kind::cpu)
    fail("dnnl::memory of a ", dnnl_engine_kind2str(static_cast<dnnl_engine_kind_t>(kind)),
         " engine: memfmt reorders host memory, a oneDNN CPU engine's");
}

/// Fails unless `m` is a memory object of a CPU engine whose data handle is a host
/// pointer (with a SYCL runtime: USM, not a SYCL buffer).
inline void check_host_memory(const dnnl::memory& m) {
  if (!m) fail("an empty dnnl::memory (no descriptor, no engine, no data)");
  check_cpu_engine(m.get_engine().get_kind());
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL
  dnnl_sycl_interop_memory_kind_t kind = dnnl_sycl_interop_usm;
  dnnl::error::wrap_c_api(dnnl_sycl_interop_memory_get_memory_kind(m.get(), &kind), "could not get the memory kind");
  if (kind != dnnl_sycl_interop_usm)
    fail("dnnl::memory of a SYCL buffer: its data handle is no pointer to the data (memfmt reorders USM or host "
         "memory)");
#endif
}

}  // namespace detail::onednn

/// `dnnl::memory` as a tensor object: `memfmt::reorder r(src, dst, attr)` plans from
/// two memories' descriptors (`from_dnnl`), `r.execute(src, dst)` runs on their data,
/// either side a `dnnl::memory` or a `memfmt::memory`. No `memfmt::memory` is made of
/// them, whose borrowing would write zeros into the padding: the source is neither
/// written nor read there, and the reorder writes the destination's padding itself.
template <>
struct memory_traits<dnnl::memory> {
  /// @throws error for an empty memory, one of a non-CPU engine or a SYCL buffer, and
  ///         what from_dnnl refuses
  static desc get_desc(const dnnl::memory& m) {
    detail::onednn::check_host_memory(m);
    return from_dnnl(m.get_desc());
  }
  /// @throws error as get_desc, and for a memory without data (DNNL_MEMORY_NONE) whose
  ///         tensor has elements
  static void* get_data_handle(const dnnl::memory& m) {
    detail::onednn::check_host_memory(m);
    void* handle = m.get_data_handle();
    if (handle == nullptr && !from_dnnl(m.get_desc()).has_zero_dim())
      detail::fail("dnnl::memory without data (DNNL_MEMORY_NONE) for ", from_dnnl(m.get_desc()).str());
    return handle;
  }
};

}  // namespace memfmt
