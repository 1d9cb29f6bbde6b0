#pragma once
/// @file
/// `memfmt::dims`: a constexpr vector of at most `max_ndims` dims (oneDNN's `dims_t`).

#include <array>
#include <initializer_list>
#include <vector>

#include "memfmt/core/dim.hpp"
#include "memfmt/core/error.hpp"

namespace memfmt {

/// Dims, strides or indices of one tensor, stored inline (no allocation).
/// @invariant 0 <= size() <= max_ndims; elements past size() are zero.
class dims {
 public:
  using value_type = dim;
  using iterator = const dim*;
  using const_iterator = const dim*;

  constexpr dims() noexcept = default;

  constexpr dims(std::initializer_list<dim> values) {
    for (dim v : values) push_back(v);
  }

  /// Implicit, so that `std::vector<dim>` converts where `dims` is expected (as in oneDNN).
  constexpr dims(const std::vector<dim>& values) {  // NOLINT
    for (dim v : values) push_back(v);
  }

  /// `n` copies of `value`.
  /// @pre 0 <= n <= max_ndims
  static constexpr dims filled(int n, dim value) {
    if (n < 0 || n > max_ndims) detail::fail("dims: ", n, " dims requested, at most ", max_ndims, " allowed");
    dims result;
    result.size_ = n;
    for (int i = 0; i < n; ++i) result.values_[i] = value;
    return result;
  }

  constexpr int size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr const dim* begin() const noexcept { return values_.data(); }
  constexpr const dim* end() const noexcept { return values_.data() + size_; }
  constexpr dim* begin() noexcept { return values_.data(); }
  constexpr dim* end() noexcept { return values_.data() + size_; }
  constexpr const dim* data() const noexcept { return values_.data(); }

  /// @pre 0 <= i < size()
  constexpr dim operator[](int i) const noexcept { return values_[static_cast<std::size_t>(i)]; }
  constexpr dim& operator[](int i) noexcept { return values_[static_cast<std::size_t>(i)]; }

  constexpr void push_back(dim value) {
    if (size_ == max_ndims) detail::fail("dims: more than ", max_ndims, " dims");
    values_[static_cast<std::size_t>(size_++)] = value;
  }

  /// The product of all elements (1 for no elements).
  constexpr dim product() const noexcept {
    dim p = 1;
    for (dim v : *this) p *= v;
    return p;
  }

  std::vector<dim> to_vector() const { return {begin(), end()}; }

  constexpr bool operator==(const dims& other) const noexcept {
    if (size_ != other.size_) return false;
    for (int i = 0; i < size_; ++i)
      if ((*this)[i] != other[i]) return false;
    return true;
  }

 private:
  int size_ = 0;
  std::array<dim, max_ndims> values_{};
};

}  // namespace memfmt
