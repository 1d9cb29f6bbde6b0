#pragma once
/// @file
/// `memfmt::memory`: a descriptor plus a data handle, owned or borrowed.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "memfmt/core/error.hpp"
#include "memfmt/core/nibbles.hpp"
#include "memfmt/desc/desc.hpp"

namespace memfmt {

namespace detail {

/// Calls `f(index)` for every padded position of `d` that lies outside its dims: the
/// padding, as disjoint boxes (box k: dims before k inside, dim k in its padding,
/// dims after k anywhere in their padded range).
template <class F>
void for_each_padding_index(const desc& d, F&& f) {
  const dims logical = d.get_dims(), padded = d.get_padded_dims();
  const int n = d.get_ndims();
  for (int k = 0; k < n; ++k) {
    if (padded[k] == logical[k]) continue;
    dims begin = dims::filled(n, 0), end = padded;
    for (int j = 0; j < k; ++j) end[j] = logical[j];
    begin[k] = logical[k];
    bool empty = false;
    for (int j = 0; j < n; ++j) empty = empty || begin[j] >= end[j];
    if (empty) continue;
    dims index = begin;
    for (;;) {
      f(index);
      int j = n - 1;
      for (; j >= 0; --j) {
        if (++index[j] < end[j]) break;
        index[j] = begin[j];
      }
      if (j < 0) break;
    }
  }
}

/// The offset of a padded position (outside the logical dims, inside the padded ones).
constexpr dim padded_offset(const desc& d, const dims& physical_index) {
  dims index = physical_index;
  const dims pad_off = d.get_padded_offsets();
  for (int j = 0; j < index.size(); ++j) index[j] += pad_off[j];
  return d.get_submemory_offset() + element_offset(d.get_blocking(), d.get_strides(), index);
}

/// A 64-byte aligned allocation, released on destruction; move-only.
class aligned_buffer {
 public:
  aligned_buffer() noexcept = default;
  explicit aligned_buffer(std::size_t bytes) : data_(::operator new(bytes, std::align_val_t{64})) {}
  aligned_buffer(aligned_buffer&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  aligned_buffer& operator=(aligned_buffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = other.data_;
      other.data_ = nullptr;
    }
    return *this;
  }
  aligned_buffer(const aligned_buffer&) = delete;
  aligned_buffer& operator=(const aligned_buffer&) = delete;
  ~aligned_buffer() { reset(); }
  void* get() const noexcept { return data_; }
  void reset() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{64});
    data_ = nullptr;
  }

 private:
  void* data_ = nullptr;
};

}  // namespace detail

/// Writes zeros into the padding of the tensor `d` at `handle` (oneDNN's contract: what
/// lies in the padding of a blocked tensor is zero). Touches nothing else: a view that
/// starts inside a block (padded offsets, from oneDNN's submemory descriptors) has no
/// padding of its own, the positions around it within its padded dims being its
/// parent's elements.
/// @pre handle points to at least d.get_size() bytes from the parent's start
inline void zero_padding(const desc& d, void* handle) {
  if (d.get_format_kind() != format_kind::blocked || d.has_zero_dim() || d.get_padded_dims() == d.get_dims()) return;
  if (!(d.get_padded_offsets() == dims::filled(d.get_ndims(), 0))) return;
  if (handle == nullptr) detail::fail("zero_padding: null data handle");
  const std::size_t size = data_type_size(d.get_data_type());
  auto* bytes = static_cast<unsigned char*>(handle);
  if (is_sub_byte(d.get_data_type())) {
    detail::for_each_padding_index(d, [&](const dims& index) { detail::store_nibble(bytes, detail::padded_offset(d, index), 0); });
    return;
  }
  detail::for_each_padding_index(d, [&](const dims& index) {
    std::memset(bytes + static_cast<std::size_t>(detail::padded_offset(d, index)) * size, 0, size);
  });
}

/// A tensor: a descriptor and its data. Owning memory is 64-byte aligned; attaching a
/// handle (owned or borrowed) writes zeros into the padding.
class memory {
 public:
  /// Allocates `d.get_size()` bytes (zeros in the padding, the rest uninitialised).
  /// @throws error when `d` is not a concrete (blocked) descriptor
  explicit memory(const desc& d) : desc_(checked(d)) {
    const std::size_t size = desc_.get_size();
    if (size != 0) {
      owned_ = detail::aligned_buffer(size);
      handle_ = owned_.get();
      zero_padding(desc_, handle_);
    }
  }

  /// Borrows `handle`, which must stay valid while this memory uses it.
  /// @throws error for a null handle when the tensor has a non-zero size
  memory(const desc& d, void* handle) : desc_(checked(d)) { set_data_handle(handle); }

  const desc& get_desc() const noexcept { return desc_; }
  void* get_data_handle() const noexcept { return handle_; }

  /// Borrows `handle` (releasing owned memory) and writes zeros into its padding.
  void set_data_handle(void* handle) {
    if (handle == nullptr && desc_.get_size() != 0)
      detail::fail("memory: null data handle for a tensor of ", desc_.get_size(), " bytes (", desc_.str(), ")");
    owned_.reset();
    handle_ = handle;
    zero_padding(desc_, handle_);
  }

  /// The element at a logical index, as `T` (float for f32, std::int32_t, std::int8_t,
  /// std::uint8_t, and std::uint16_t bits for f16 and bf16).
  /// @throws error when `T` does not fit the data type (s4 and u4 elements have no
  ///         address: see get_int4) or the index is outside the dims
  template <class T>
  T& at(const dims& index) const {
    if (is_sub_byte(desc_.get_data_type()))
      detail::fail("memory::at: ", to_string(desc_.get_data_type()),
                   " elements are packed two per byte and have no address (use get_int4 and set_int4)");
    if (!fits<T>(desc_.get_data_type()))
      detail::fail("memory::at: the element type does not match data type ", to_string(desc_.get_data_type()));
    return static_cast<T*>(handle_)[desc_.offset(index)];
  }

  /// The value of the s4 (-8..7) or u4 (0..15) element at a logical index.
  /// @throws error when the data type is neither or the index is outside the dims
  int get_int4(const dims& index) const {
    const bool is_signed = check_int4("get_int4");
    return detail::nibble_value(detail::load_nibble(static_cast<const unsigned char*>(handle_), desc_.offset(index)),
                                is_signed);
  }

  /// Sets the s4 or u4 element at a logical index (its byte's other element is kept).
  /// @throws error when the data type is neither, the value does not fit it, or the index
  ///         is outside the dims
  void set_int4(const dims& index, int value) const {
    const bool is_signed = check_int4("set_int4");
    if (value < (is_signed ? -8 : 0) || value > (is_signed ? 7 : 15))
      detail::fail("memory::set_int4: ", value, " does not fit ", to_string(desc_.get_data_type()));
    detail::store_nibble(static_cast<unsigned char*>(handle_), desc_.offset(index), static_cast<unsigned>(value));
  }

 private:
  static const desc& checked(const desc& d) {
    if (d.get_format_kind() != format_kind::blocked)
      detail::fail("memory: needs a concrete descriptor, not ",
                   d.get_format_kind() == format_kind::any ? "format_kind::any" : "the zero descriptor");
    return d;
  }

  /// True for s4; throws for a type other than s4 and u4.
  bool check_int4(const char* what) const {
    const data_type dt = desc_.get_data_type();
    if (!is_sub_byte(dt)) detail::fail("memory::", what, ": the data type is ", to_string(dt), ", not s4 or u4");
    return dt == data_type::s4;
  }

  template <class T>
  static constexpr bool fits(data_type dt) {
    switch (dt) {
      case data_type::f32: return std::is_same_v<T, float>;
      case data_type::f64: return std::is_same_v<T, double>;
      case data_type::s32: return std::is_same_v<T, std::int32_t>;
      case data_type::s8: return std::is_same_v<T, std::int8_t>;
      case data_type::u8:
      case data_type::f8_e5m2:
      case data_type::f8_e4m3: return std::is_same_v<T, std::uint8_t>;
      case data_type::f16:
      case data_type::bf16: return std::is_same_v<T, std::uint16_t>;
      case data_type::s4:
      case data_type::u4:
      case data_type::undef: break;
    }
    return false;
  }

  desc desc_;
  detail::aligned_buffer owned_;
  void* handle_ = nullptr;
};

/// How memfmt reads another library's tensor object, so that `reorder` takes it where it
/// takes a `memory` (`memfmt/interop/onednn.hpp` specializes it for `dnnl::memory`). A
/// specialization has two static functions: `get_desc(t)`, the tensor's layout as a
/// `desc`, and `get_data_handle(t)`, the host pointer its data starts at (for a view,
/// its parent's start); both throw `memfmt::error` for a tensor memfmt cannot use (no
/// descriptor, no data, another device's memory). Neither may write the tensor.
template <class T>
struct memory_traits {};

template <>
struct memory_traits<memory> {
  static const desc& get_desc(const memory& m) noexcept { return m.get_desc(); }
  static void* get_data_handle(const memory& m) noexcept { return m.get_data_handle(); }
};

/// A tensor object that `memory_traits` describes: `memory`, and those of the bridges.
template <class T>
concept memory_like = requires(const T& t) {
  { memory_traits<T>::get_desc(t) } -> std::convertible_to<desc>;
  { memory_traits<T>::get_data_handle(t) } -> std::same_as<void*>;
};

}  // namespace memfmt
