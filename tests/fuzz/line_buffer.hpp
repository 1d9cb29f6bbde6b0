// A buffer for fuzz targets that starts anywhere in a cache line and whose neighbours
// AddressSanitizer watches.
#pragma once

#include <cstddef>
#include <cstdlib>

#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>  // (its macros do nothing without AddressSanitizer)
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

// `bytes` bytes `at` bytes past a cache line boundary, at the very end of their allocation;
// the `at` bytes before them are poisoned (whole 8-byte granules of them): AddressSanitizer
// sees accesses on either side.
class line_buffer {
 public:
  line_buffer(std::size_t at, std::size_t bytes) : at_(at) {
    void* p = nullptr;
    if (posix_memalign(&p, 64, at + bytes) != 0) std::abort();
    base_ = static_cast<unsigned char*>(p);
    ASAN_POISON_MEMORY_REGION(base_, at_);
  }
  line_buffer(const line_buffer&) = delete;
  line_buffer& operator=(const line_buffer&) = delete;
  ~line_buffer() {
    ASAN_UNPOISON_MEMORY_REGION(base_, at_);
    std::free(base_);
  }
  unsigned char* data() const { return base_ + at_; }

 private:
  std::size_t at_;
  unsigned char* base_ = nullptr;
};
