#pragma once
/// @file
/// memfmt's tensors as DLPack's and back (docs/interop.md: which concept maps onto which,
/// and what cannot cross).
///
/// **Export**, `memfmt::to_dlpack(memory)`: a `DLManagedTensor` that shows the memory's
/// data, on `kDLCPU`. Plain and strided descriptors cross as they are (their logical dims
/// and strides, in elements). A blocked descriptor (inner blocks) crosses as
/// `desc::unfold()` gives it, a strided tensor of higher rank over the padded tensor
/// (`nChw16c` {2, 17, 5, 4}: {2, 2, 5, 4, 16}), padding included; with
/// `dlpack_dims::logical` it crosses with its logical dims when its strides can say where
/// every element is, and otherwise `to_dlpack` throws a `memfmt::error` naming the blocked
/// dim. `DLTensor::data` is the address of the first element (the submemory offset
/// included) and `byte_offset` is 0, as NumPy, PyTorch and CuPy export: every consumer
/// reads that form right.
///
/// Ownership: the manager context holds the shape and strides; the deleter frees it, and
/// must be called exactly once. The data:
///   - `to_dlpack(const memory&)` borrows it: the memory's buffer must outlive the deleter call;
///   - `to_dlpack(memory&&)` moves the memory into the manager: an owned buffer lives until
///     the deleter runs (a borrowed handle stays the caller's to keep valid);
///   - `to_dlpack(std::shared_ptr<const memory>)` shares it until the deleter runs.
///
/// **Import**, `memfmt::from_dlpack(DLTensor)`: a `memory` borrowing `data`, whose strided
/// descriptor has the tensor's shape, its strides (null: compact row-major) and its
/// `byte_offset` as the submemory offset (in elements). `dlpack_memory` adopts a
/// `DLManagedTensor` and calls its deleter once, when it is destroyed or at once when the
/// import throws. Refused with a `memfmt::error` naming the culprit: a device whose memory
/// the CPU cannot address as plain host memory (only `kDLCPU`, `kDLCUDAHost` and
/// `kDLROCMHost` are taken), lanes other than 1, a data type memfmt has not, 0 dims or
/// more than `max_ndims`, negative extents, a negative stride on a dim that has more than
/// one index, overlapping strides, a byte offset that is not a whole number of elements,
/// a first element misaligned for its type, null data for a tensor with elements.
/// Import never writes to the data.
///
/// Needs dlpack/dlpack.h, DLPack 0.6 or later (Debian: libdlpack-dev); not included by
/// memfmt.hpp.

#if !__has_include(<dlpack/dlpack.h>)
#error "memfmt/interop/dlpack.hpp needs DLPack's dlpack/dlpack.h (Debian: libdlpack-dev)"
#endif

#include <dlpack/dlpack.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/memory/memory.hpp"

#if !defined(DLPACK_MAJOR_VERSION) && (!defined(DLPACK_VERSION) || DLPACK_VERSION < 60)
#error "memfmt/interop/dlpack.hpp needs DLPack 0.6 or later (DLDevice, kDLCUDA)"
#endif

namespace memfmt {

/// How `to_dlpack` shows a blocked layout, which DLPack's strides cannot express.
enum class dlpack_dims {
  unfold,   ///< the unfolded tensor (`desc::unfold()`): outer dims, then the inner blocks, padding included
  logical,  ///< the logical dims, or a `memfmt::error` naming the blocked dim when strides cannot say it
};

/// DLPack's data type of `dt` (lanes 1): f64, f32, f16 as kDLFloat, bf16 as kDLBfloat, s32, s8
/// as kDLInt, u8 as kDLUInt.
/// @throws error for `undef`, for the f8 types (DLPack names them from 1.1 on; the
///         bridge is written against 0.6)
inline DLDataType to_dlpack(data_type dt) {
  const auto make = [](DLDataTypeCode code, int bits) {
    return DLDataType{static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1};
  };
  switch (dt) {
    case data_type::f64: return make(kDLFloat, 64);
    case data_type::f32: return make(kDLFloat, 32);
    case data_type::f16: return make(kDLFloat, 16);
    case data_type::bf16: return make(kDLBfloat, 16);
    case data_type::s32: return make(kDLInt, 32);
    case data_type::s8: return make(kDLInt, 8);
    case data_type::u8: return make(kDLUInt, 8);
    case data_type::f8_e5m2:
    case data_type::f8_e4m3:
    case data_type::s4:  // (DLPack 0.6 gives no packing for elements below a byte)
    case data_type::u4:
    case data_type::undef: break;
  }
  detail::fail("to_dlpack: data type ", to_string(dt), " has no DLPack counterpart (the bridge speaks DLPack 0.6)");
}

namespace detail::dlpack {

/// "float64 (code 2, 64 bits, 1 lane)": DLPack's data type as errors name it.
inline std::string type_name(DLDataType t) {
  static constexpr const char* codes[] = {"int", "uint", "float", "opaque handle ", "bfloat", "complex"};
  std::string s;
  if (t.code < std::size(codes)) {
    s += codes[t.code];
  } else {
    s += "type code ";
    s += std::to_string(t.code);
    s += ' ';
  }
  s += std::to_string(t.bits);
  if (t.lanes != 1) {
    s += 'x';
    s += std::to_string(t.lanes);
  }
  s += " (code ";
  s += std::to_string(t.code);
  s += ", ";
  s += std::to_string(t.bits);
  s += " bits, ";
  s += std::to_string(t.lanes);
  s += t.lanes == 1 ? " lane)" : " lanes)";
  return s;
}

inline std::string hex(std::uintptr_t v) {
  std::string s;
  do s.insert(s.begin(), "0123456789abcdef"[v % 16]);
  while ((v /= 16) != 0);
  return "0x" + s;
}

/// The device type's number. Read as an int: a C producer may store any int there (a
/// device of a later DLPack), which is no value of the C++ enum DLDeviceType.
inline int device_type(const DLDevice& d) noexcept {
  static_assert(sizeof(DLDeviceType) == sizeof(int));
  int type = 0;
  std::memcpy(&type, &d.device_type, sizeof type);
  return type;
}

/// "kDLCUDA (2), device 0": DLPack's device as errors name it.
inline std::string device_name(const DLDevice& d) {
  const int type = device_type(d);
  // (by number: later DLPack versions add types that 0.6 lacks)
  static constexpr const char* names[] = {nullptr,    "kDLCPU",      "kDLCUDA",   "kDLCUDAHost", "kDLOpenCL",
                                          nullptr,    nullptr,       "kDLVulkan", "kDLMetal",    "kDLVPI",
                                          "kDLROCM",  "kDLROCMHost", "kDLExtDev", "kDLCUDAManaged", "kDLOneAPI",
                                          "kDLWebGPU", "kDLHexagon"};
  const char* name = type >= 0 && type < static_cast<int>(std::size(names)) ? names[type] : nullptr;
  return std::string(name != nullptr ? name : "device type") + " (" + std::to_string(type) + "), device " +
         std::to_string(d.device_id);
}

/// Tensors exported by `to_dlpack` whose deleter has not run yet, in this program.
inline std::atomic<long>& live_exports() noexcept {
  static std::atomic<long> count{0};
  return count;
}

/// What an exported tensor's manager context holds: the DLManagedTensor itself (first, so
/// that the tensor's address is the context's), its shape and strides, and what keeps
/// the data alive (a moved-in memory, or a shared one).
struct export_context {
  DLManagedTensor managed{};
  std::int64_t shape[max_ndims]{};
  std::int64_t strides[max_ndims]{};
  std::optional<memory> moved;
  std::shared_ptr<const memory> shared;

  export_context() noexcept { live_exports().fetch_add(1, std::memory_order_relaxed); }
  ~export_context() { live_exports().fetch_sub(1, std::memory_order_relaxed); }
  export_context(const export_context&) = delete;
  export_context& operator=(const export_context&) = delete;
};

/// The deleter of every tensor `to_dlpack` makes: frees the context, and with it the
/// shape, the strides and a moved-in or shared memory.
inline void delete_export(DLManagedTensor* self) noexcept {
  if (self != nullptr) delete static_cast<export_context*>(self->manager_ctx);
}

/// The layout an export shows: dims and strides in elements, and the offset of the first
/// element from the data handle.
struct export_layout {
  dims shape, strides;
  dim first = 0;
};

/// The offset of `d`'s first element (its submemory offset when it has no element).
constexpr dim first_offset(const desc& d) {
  return d.has_zero_dim() ? d.get_submemory_offset() : d.offset(dims::filled(d.get_ndims(), 0));
}

/// How the tensor of `m` crosses to DLPack.
/// @throws error naming the culprit
inline export_layout layout_of(const memory& m, dlpack_dims how) {
  const desc& d = m.get_desc();
  if (m.get_data_handle() == nullptr && !d.has_zero_dim())
    fail("to_dlpack: ", d.str(), " has elements but a null data handle (a view's memory without its parent's buffer)");
  if (d.get_extra().flags != 0)
    fail("to_dlpack: ", d.str(), " carries extra information (flags ", d.get_extra().flags,
         ": compensation or scale adjust), which a DLPack tensor cannot hold");
  if (d.get_inner_nblks() == 0) return {d.get_dims(), d.get_strides(), first_offset(d)};
  if (how == dlpack_dims::unfold) {
    check_unfoldable(d, "to_dlpack");
    const desc u = d.unfold();
    return {u.get_dims(), u.get_strides(), first_offset(u)};
  }
  // the logical dims: each dim's offset must be index * stride for the indices it has
  dims strides = d.get_strides();
  const dims blocks = d.get_blocks(), logical = d.get_dims(), pad_off = d.get_padded_offsets();
  for (int i = 0; i < d.get_ndims(); ++i) {
    if (blocks[i] == 1) continue;
    const auto refuse = [&](const std::string& why) {
      fail("to_dlpack: dim ", i, " of ", d.str(), " is blocked by ", blocks[i], " and ", why,
           ": DLPack's strides cannot say where its elements are; export the unfolded tensor "
           "(dlpack_dims::unfold) or reorder to a plain layout first");
    };
    if (pad_off[i] % blocks[i] != 0) refuse("the view starts inside a block");
    const dim_map m = canonical_dim_map(d, i);
    if (m.size == 0) continue;  // one index, or none: any stride serves
    const radix_digit g = m.digits[0];
    if (m.size != 1 || g.radix != 1 || g.extent != 0)
      refuse("its " + std::to_string(logical[i]) + " indices span more than one block");
    strides[i] = g.stride;
  }
  return {logical, strides, first_offset(d)};
}

/// Makes the tensor of `m` in `ctx` (whose memory fields are set) and hands it over.
inline DLManagedTensor* export_to(std::unique_ptr<export_context> ctx, const memory& m, dlpack_dims how) {
  const desc& d = m.get_desc();
  const export_layout l = layout_of(m, how);
  DLTensor& t = ctx->managed.dl_tensor;
  const std::size_t size = data_type_size(d.get_data_type());
  t.data = m.get_data_handle() == nullptr  // (a tensor without elements)
               ? nullptr
               : static_cast<char*>(m.get_data_handle()) + static_cast<std::size_t>(l.first) * size;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = l.shape.size();
  t.dtype = to_dlpack(d.get_data_type());
  for (int i = 0; i < l.shape.size(); ++i) {
    ctx->shape[i] = l.shape[i];
    ctx->strides[i] = l.strides[i];
  }
  t.shape = ctx->shape;
  t.strides = ctx->strides;
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = delete_export;
  return &ctx.release()->managed;
}

}  // namespace detail::dlpack

/// The tensor of `m` as a DLManagedTensor, borrowing its data: the caller keeps the
/// memory's buffer valid until the tensor's deleter has run (the memory object itself
/// may go). Blocked layouts: `dlpack_dims` (unfolded by default). The caller, or the
/// consumer it hands the tensor to, calls the deleter exactly once.
/// @throws error naming the culprit: a blocked dim under `dlpack_dims::logical`, a
///         layout `desc::unfold()` refuses, extra information (compensation), a null
///         data handle for a tensor with elements
inline DLManagedTensor* to_dlpack(const memory& m, dlpack_dims how = dlpack_dims::unfold) {
  return detail::dlpack::export_to(std::make_unique<detail::dlpack::export_context>(), m, how);
}

/// The tensor of `m`, which moves into the tensor's manager: an owned buffer is freed by
/// the deleter (a borrowed handle stays the caller's to keep valid). On error `m` is
/// left as it was.
inline DLManagedTensor* to_dlpack(memory&& m, dlpack_dims how = dlpack_dims::unfold) {
  detail::dlpack::layout_of(m, how);  // (throws before `m` is moved)
  auto ctx = std::make_unique<detail::dlpack::export_context>();
  ctx->moved.emplace(std::move(m));
  const memory& kept = *ctx->moved;
  return detail::dlpack::export_to(std::move(ctx), kept, how);
}

/// The tensor of `*m`, which the tensor's manager shares until the deleter runs (for a
/// memory owned by a reference-counted object, e.g. a Python one).
inline DLManagedTensor* to_dlpack(std::shared_ptr<const memory> m, dlpack_dims how = dlpack_dims::unfold) {
  if (m == nullptr) detail::fail("to_dlpack: null memory");
  auto ctx = std::make_unique<detail::dlpack::export_context>();
  ctx->shared = std::move(m);
  const memory& kept = *ctx->shared;
  return detail::dlpack::export_to(std::move(ctx), kept, how);
}

/// Tensors made by `to_dlpack` whose deleter has not run yet (in this program): 0 once
/// every consumer has let go of every export. For tests and leak checks.
inline long dlpack_live_exports() noexcept { return detail::dlpack::live_exports().load(); }

/// memfmt's data type of DLPack's `t`.
/// @throws error naming the type when memfmt has no such type or lanes is not 1
inline data_type from_dlpack(DLDataType t) {
  if (t.lanes != 1)
    detail::fail("from_dlpack: data type ", detail::dlpack::type_name(t), " has ", t.lanes,
                 " lanes; memfmt's elements are scalars (lanes 1)");
  for (const data_type ours :
       {data_type::f64, data_type::f32, data_type::f16, data_type::bf16, data_type::s32, data_type::s8, data_type::u8}) {
    const DLDataType theirs = to_dlpack(ours);
    if (theirs.code == t.code && theirs.bits == t.bits) return ours;
  }
  detail::fail("from_dlpack: DLPack data type ", detail::dlpack::type_name(t),
               " has no memfmt counterpart (memfmt takes f64, f32, f16, bf16, s32, s8, u8 from DLPack)");
}

/// The descriptor of DLPack's `t`: a strided desc of its shape and strides, whose
/// submemory offset is `byte_offset` in elements (the data handle is `t.data`). Checks the
/// device and the data pointer too (everything `from_dlpack(const DLTensor&)` needs).
/// @throws error naming the culprit (see the file's comment)
inline desc from_dlpack_desc(const DLTensor& t) {
  using detail::fail;
  const int dev = detail::dlpack::device_type(t.device);
  if (dev != kDLCPU && dev != kDLCUDAHost && dev != kDLROCMHost)
    fail("from_dlpack: the tensor is on ", detail::dlpack::device_name(t.device),
         "; memfmt reads host memory only (kDLCPU, kDLCUDAHost, kDLROCMHost): copy it to the CPU first");
  const data_type dt = from_dlpack(t.dtype);
  const std::size_t size = data_type_size(dt);
  if (t.ndim < 1 || t.ndim > max_ndims)
    fail("from_dlpack: the tensor has ", t.ndim, " dims; memfmt's descriptors have 1 to ", max_ndims);
  if (t.shape == nullptr) fail("from_dlpack: the tensor has ", t.ndim, " dims and a null shape");
  dims shape;
  bool empty = false;
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) fail("from_dlpack: dim ", i, " has a negative extent (", t.shape[i], ")");
    shape.push_back(t.shape[i]);
    empty = empty || t.shape[i] == 0;
  }
  dims strides;  // (empty: compact row-major)
  if (t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i) {
      dim s = t.strides[i];
      if (s < 0) {
        if (t.shape[i] != 1 && !empty)
          fail("from_dlpack: dim ", i, " has a negative stride (", s, ", extent ", t.shape[i],
               "); memfmt's descriptors have none: copy the tensor first (numpy.ascontiguousarray)");
        // never multiplied by an index: the stride of a compact row-major tensor instead
        s = 1;
        for (int j = i + 1; j < t.ndim && s > 0; ++j) s = detail::checked_mul(s, t.shape[j] == 0 ? 1 : t.shape[j]);
        if (s < 0) s = 0;
      }
      strides.push_back(s);
    }
  }
  if (t.byte_offset % size != 0)
    fail("from_dlpack: byte_offset ", t.byte_offset, " is not a whole number of ", to_string(dt), " elements (", size,
         " bytes)");
  if (t.byte_offset / size > static_cast<std::uint64_t>(INT64_MAX))
    fail("from_dlpack: byte_offset ", t.byte_offset, " is past 2^63 elements");
  if (t.data == nullptr && !empty)
    fail("from_dlpack: null data for a tensor with elements");
  const auto first = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  if (t.data != nullptr && first % size != 0)
    fail("from_dlpack: the first element, at address ", detail::dlpack::hex(first), " (data + byte_offset ", t.byte_offset,
         "), is not aligned to its ", size, "-byte ", to_string(dt), " type");
  try {
    desc_fields f = desc(shape, dt, strides).fields();
    f.offset0 = static_cast<dim>(t.byte_offset / size);
    return desc::from_fields(f);
  } catch (const error& e) {
    fail("from_dlpack: ", e.what());
  }
}

/// DLPack's `t` as a memory that borrows `t.data` (the producer keeps it valid while the
/// memory uses it). Never writes to the data.
/// @throws error naming the culprit (see `from_dlpack_desc`)
inline memory from_dlpack(const DLTensor& t) { return memory(from_dlpack_desc(t), t.data); }

/// An imported DLManagedTensor: the memory `from_dlpack` makes of it, and the tensor,
/// whose deleter it calls exactly once, when it is destroyed (or when the import throws:
/// the constructor takes the tensor in any case). Move-only.
class dlpack_memory {
 public:
  /// Takes `managed` (its deleter, where it has one, will be called once).
  /// @throws error naming the culprit (see `from_dlpack_desc`), after calling the deleter
  explicit dlpack_memory(DLManagedTensor* managed) : managed_(managed), memory_(import(managed)) {}

  const memory& get() const noexcept { return memory_; }
  const desc& get_desc() const noexcept { return memory_.get_desc(); }
  void* get_data_handle() const noexcept { return memory_.get_data_handle(); }
  /// The tensor as its producer made it (device included).
  const DLManagedTensor& get_managed() const noexcept { return *managed_; }

 private:
  struct release {
    void operator()(DLManagedTensor* t) const noexcept {
      if (t->deleter != nullptr) t->deleter(t);
    }
  };
  static memory import(const DLManagedTensor* managed) {
    if (managed == nullptr) detail::fail("from_dlpack: null DLManagedTensor");
    return from_dlpack(managed->dl_tensor);
  }

  std::unique_ptr<DLManagedTensor, release> managed_;  // (first: it owns the tensor before the import can throw)
  memory memory_;
};

}  // namespace memfmt
