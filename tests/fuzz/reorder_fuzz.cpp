// Fuzzes memfmt::reorder against the scalar reference of tests/support/reference.hpp: a
// source and a destination descriptor of the same dims (oneDNN tag names, random abstract
// tags, strides with gaps, submemory views), every data type pair, attributes (scales,
// zero points, sum, threads, weights compensation) and the kernel target. Every byte of
// the destination, its padding and 64 guard bytes after it must equal the reference's;
// memfmt::error at plan time is an accepted outcome. Where oneDNN is found, problems in
// the range where oneDNN 2.6 is exact are also compared with its reorder.
//
// Input: control bytes (target, dims, layouts, types, attributes), then source bytes; the
// rest of the source comes from a generator seeded by the whole input.
//
// A long run with the sanitizer build (MEMFMT_SANITIZE=ON MEMFMT_FUZZ=ON, clang; add
// MEMFMT_FUZZ_KERNEL_COVERAGE=ON for coverage feedback from the kernels too), from the
// repository root (the suppressions: libomp's thread-team state, as CTest sets them):
//   OMP_NUM_THREADS=1 LSAN_OPTIONS=suppressions=tests/sanitizers/lsan.supp
//     build/asan/tests/fuzz/fuzz.reorder -max_total_time=3600
//     build/asan/tests/fuzz/corpus/fuzz.reorder tests/fuzz/corpus/fuzz.reorder
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <hwy/targets.h>
#include <memfmt/reorder/kernel/run.hpp>

#include "../support/reference.hpp"
#include "line_buffer.hpp"
#if MEMFMT_HAVE_ONEDNN
#include "reorder_fuzz_onednn.hpp"
#endif

namespace {

using namespace memfmt_test;
using memfmt::reorder_attr;

constexpr std::size_t guard = 64;             // bytes after the destination that must stay untouched
constexpr dim max_elements = 1 << 15;         // logical elements (threads split nests from 2^15)
constexpr dim max_padded_elements = 1 << 17;  // per side, padding and view parents included
constexpr std::size_t max_bytes = 256 << 10;  // spanned per side
constexpr std::size_t line_offsets[] = {0, 1, 2, 4, 16, 36, 60, 63};  // where buffers start in a cache line

constexpr const auto& types = memfmt::all_data_types;
// scale, beta: exact ones, ties and extremes (oneDNN is compared for 1/8 to 4 only)
constexpr float scale_values[] = {1.f, 0.5f, 2.f, 0.25f, 4.f, 0.125f, 0.37f, 1.7f,
                                  3.f, -1.f, -0.5f, 0.f, 1e-20f, 1e20f, 65504.f, 1.f / 3};
constexpr float beta_values[] = {1.f, 0.5f, -1.f, 2.f, 0.25f, 1e-3f, -0.f, 1e30f};

class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t bytes(int n) {  // n bytes, big-endian
    std::uint32_t v = 0;
    for (int k = 0; k < n; ++k) v = v << 8 | byte();
    return v;
  }
  std::span<const std::uint8_t> rest() const { return {data_ + std::min(pos_, size_), size_ - std::min(pos_, size_)}; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// A descriptor, how it was made (a tag, strides or a view) and its bytes_spanned.
struct side {
  desc d;
  std::string how;
  bool gaps = false, broadcast = false;
  std::size_t bytes = 0;
};

struct problem {
  side src, dst;
  reorder_attr attr;
  bool custom_parallel_for = false;
  std::size_t src_at = 0, dst_at = 0;  // bytes past a cache line boundary
  const char* target = "";
};
const problem* current = nullptr;  // what a failure prints

std::string text(const memfmt::scales& s) {
  std::string t = "mask " + std::to_string(s.mask);
  if (!s.groups.empty()) t.append(", groups");
  for (const dim g : s.groups) t.append(" ").append(std::to_string(g));
  t.append(", values");
  for (std::size_t k = 0; k < s.values.size() && k < 8; ++k) t.append(" ").append(std::to_string(s.values[k]));
  return t.append(s.values.size() > 8 ? " ..." : "");
}

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "reorder_fuzz: %s\n  %s\n", what, detail.c_str());
  if (current != nullptr) {
    const problem& p = *current;
    for (const side* s : {&p.src, &p.dst})
      std::fprintf(stderr, "%s (%s, submemory offset %lld): %s", s == &p.src ? "src" : "dst", s->how.c_str(),
                   static_cast<long long>(s->d.get_submemory_offset()), memfmt::describe(s->d).c_str());
    const reorder_attr& a = p.attr;
    std::fprintf(stderr, "attr: src scales %s; dst scales %s; zero points %d/%d; beta %g; threads %d%s\n",
                 text(a.src_scales).c_str(), text(a.dst_scales).c_str(), a.src_zero_points.common_value(), a.dst_zero_points.common_value(),
                 static_cast<double>(a.sum_beta), a.threads, p.custom_parallel_for ? " (caller's parallel_for)" : "");
    std::fprintf(stderr, "target %s; src and dst %zu and %zu bytes past a cache line\n", p.target, p.src_at, p.dst_at);
  }
  std::abort();
}
#define FUZZ_CHECK(cond, detail) ((cond) ? void() : broken(#cond, detail))

// The kernel targets this build compiled and this CPU runs, best first, the fallback last.
const std::vector<std::int64_t>& runnable_targets() {
  static const std::vector<std::int64_t> targets = [] {
    const std::int64_t usable = memfmt::detail::kernel_targets_compiled() & (hwy::SupportedTargets() | HWY_EMU128 | HWY_SCALAR);
    std::vector<std::int64_t> v;
    for (std::int64_t bits = usable; bits != 0; bits &= bits - 1) v.push_back(bits & -bits);
    return v;
  }();
  return targets;
}

const std::vector<std::string_view>& tag_names(int ndims) {
  static const auto by = [] {
    std::vector<std::vector<std::string_view>> v(memfmt::max_ndims + 1);
#define MEMFMT_TAG_NAME(name) v[static_cast<std::size_t>(memfmt::parse_tag(#name).layout.ndims)].push_back(#name);
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
    return v;
  }();
  return by[static_cast<std::size_t>(ndims)];
}

// 1 to 6 dims of 0 to 40, the largest halved until there are at most max_elements.
dims decode_dims(reader& in) {
  const int n = 1 + in.byte() % 6;
  dims shape = dims::filled(n, 0);
  for (dim& v : shape) v = in.byte() % 41;
  for (;;) {
    dim volume = 1;
    for (dim v : shape) volume *= v;
    if (volume <= max_elements) return shape;
    *std::max_element(shape.begin(), shape.end()) /= 2;
  }
}

// The dims in an order chosen by the input (a shuffle).
std::vector<int> decode_order(reader& in, int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) order[static_cast<std::size_t>(d)] = d;
  for (int d = n - 1; d > 0; --d) std::swap(order[static_cast<std::size_t>(d)], order[in.byte() % (d + 1)]);
  return order;
}

// An abstract tag: the dims in a random order, up to two inner blocks of 2 to 16 (blocks
// that do not nest, 3 and 4, make element-wise plans).
std::string random_tag(reader& in, int n) {
  constexpr int sizes[] = {2, 3, 4, 5, 8, 16};
  std::string outer, inner;
  for (int d : decode_order(in, n)) outer += static_cast<char>('a' + d);
  for (int k = in.byte() % 3; k > 0; --k) {
    const int d = in.byte() % n;
    const std::size_t at = outer.find(static_cast<char>('a' + d));
    if (at != std::string::npos) outer[at] = static_cast<char>('A' + d);  // (or a second block of d)
    inner += std::to_string(sizes[in.byte() % 6]) + static_cast<char>('a' + d);
  }
  return outer + inner;
}

// Plain strides in a random order with gaps of 0 to 2 elements between dims; a source
// may also broadcast one dim (stride 0).
desc strided(reader& in, const dims& shape, data_type dt, bool source, side& s) {
  dims strides = dims::filled(shape.size(), 0);
  dim stride = 1 + in.byte() % 2;
  for (int d : decode_order(in, shape.size())) {
    strides[d] = stride;
    stride *= std::max<dim>(shape[d], 1) + in.byte() % 3;
  }
  s.gaps = true;
  const std::uint8_t b = in.byte();
  if (source && b < 32) {
    strides[b % shape.size()] = 0;
    s.broadcast = true;
  }
  s.how = "strides " + memfmt::detail::to_text(strides);
  return desc(shape, dt, strides);
}

// A view of `shape` inside a larger parent of `tag`, at block-aligned offsets (the zero
// descriptor when the box is not a legal view).
desc view_of(reader& in, const dims& shape, data_type dt, const std::string& tag, side& s) {
  const dims blocks = desc(shape, dt, tag).get_blocks();
  dims parent = shape, offsets = dims::filled(shape.size(), 0);
  for (int d = 0; d < shape.size(); ++d) {
    const std::uint8_t b = in.byte();
    if (b % 2 == 0) continue;
    offsets[d] = blocks[d] * (b / 2 % 3);
    parent[d] = shape[d] + offsets[d] + (b / 8 % 2) * blocks[d] + b / 16 % 3;
  }
  s.how = "view at " + memfmt::detail::to_text(offsets) + " of " + memfmt::detail::to_text(parent) + " " + tag;
  return desc(parent, dt, tag).submemory_desc(shape, offsets, /*allow_empty=*/true);
}

side decode_side(reader& in, const dims& shape, data_type dt, bool source) {
  side s;
  const std::uint8_t mode = in.byte();
  if (mode % 4 == 3) {
    s.d = strided(in, shape, dt, source, s);
    return s;
  }
  const auto& names = tag_names(shape.size());
  const std::uint32_t pick = in.bytes(2);
  const std::string tag = mode % 4 == 2 ? random_tag(in, shape.size()) : std::string(names[pick % names.size()]);
  s.how = tag;
  s.d = (mode & 4) != 0 ? view_of(in, shape, dt, tag, s) : desc(shape, dt, tag);
  return s;
}

// Scales common or per index of a mask, or (the mask byte's top bit) per group of 2, 3,
// 4, 8 or 16 indices along the masked dims that size divides.
memfmt::scales decode_scales(reader& in, const dims& shape, bool masked) {
  memfmt::scales s;
  const std::uint8_t m = masked ? in.byte() : 0;
  s.mask = m & ((1 << shape.size()) - 1);
  const std::uint8_t first = in.byte(), step = in.byte();
  const bool grouped = (m & 0x80) != 0 && s.mask != 0;
  dim count = 1;
  for (int d = 0; d < shape.size(); ++d) {
    if ((s.mask >> d & 1) == 0) continue;
    static constexpr dim sizes[] = {2, 3, 4, 8, 16};
    const dim g = sizes[(first + d) % std::size(sizes)];
    const dim group = grouped && shape[d] % g == 0 ? g : 1;
    if (grouped) s.groups.push_back(group);
    count *= shape[d] / group;
  }
  for (dim k = 0; k < count; ++k) s.values.push_back(scale_values[(first + k * step) % std::size(scale_values)]);
  return s;
}

// Attributes as memfmt documents them: zero points only on integer sides, compensation
// only on an s8 destination (a view at an offset has no room for it: get_size() is 0).
void decode_attr(reader& in, problem& p) {
  const dims shape = p.src.d.get_dims();
  const std::uint8_t flags = in.byte(), more = in.byte();
  reorder_attr& a = p.attr;
  const auto zero_point = [&in] {  // mostly small, else any s32
    const std::uint8_t b = in.byte();
    return b < 0xF0 ? static_cast<std::int32_t>(b) - 120 : static_cast<std::int32_t>(in.bytes(4));
  };
  if ((flags & 1) != 0) a.src_scales = decode_scales(in, shape, (flags & 2) != 0);
  if ((flags & 4) != 0) a.dst_scales = decode_scales(in, shape, (flags & 8) != 0);
  if ((flags & 16) != 0 && memfmt::is_integral(p.src.d.get_data_type())) a.src_zero_points = memfmt::zero_points::common(zero_point());
  if ((flags & 32) != 0 && memfmt::is_integral(p.dst.d.get_data_type())) a.dst_zero_points = memfmt::zero_points::common(zero_point());
  if ((flags & 64) != 0) a.sum_beta = beta_values[in.byte() % std::size(beta_values)];
  a.threads = 1 + more % 3;
  p.custom_parallel_for = (more & 4) != 0;
  p.src_at = line_offsets[more >> 3 & 7];
  p.dst_at = (more & 0x40) != 0 ? p.src_at : line_offsets[in.byte() & 7];
  if ((flags & 128) != 0 && p.dst.d.get_data_type() == data_type::s8) {
    using namespace memfmt::extra_flags;
    const std::uint32_t kinds[] = {compensation_conv_s8s8, compensation_conv_asymmetric_src,
                                   compensation_conv_s8s8 | compensation_conv_asymmetric_src};
    const std::uint8_t b = in.byte();
    const std::uint32_t extra = kinds[b % 3] | ((b & 4) != 0 ? scale_adjust : 0u);
    p.dst.d = p.dst.d.with_extra(weights_extra(extra, in.byte() & ((1 << shape.size()) - 1)));
  }
}

// Whether `s` is small enough for a fast run; sets s.bytes.
bool small_enough(side& s) {
  dim padded = 1;
  for (dim v : s.d.get_padded_dims()) padded *= std::max<dim>(v, 1);
  if (padded + s.d.get_submemory_offset() > max_padded_elements) return false;
  s.bytes = bytes_spanned(s.d);
  return s.bytes <= max_bytes;
}

// Runs memfmt and the reference on the same source and the same garbage destination.
void check(const problem& p, const memfmt::reorder& r, const unsigned char* s, std::mt19937& rng) {
  const desc &src = p.src.d, &dst = p.dst.d;
  const std::size_t bytes = p.dst.bytes + guard;
  std::vector<unsigned char> expected(bytes);
  fill_random(dst.get_data_type(), expected.data(), bytes, rng);
  line_buffer actual(p.dst_at, bytes);
  std::copy_n(expected.begin(), bytes, actual.data());
  reference_reorder(src, dst, p.attr, s, expected.data());
  if (p.custom_parallel_for) {  // pieces one by one, in reverse order
    r.execute(s, actual.data(), [](dim count, const std::function<void(dim, dim)>& body) {
      for (dim k = count - 1; k >= 0; --k) body(k, k + 1);
    });
  } else {
    r.execute(s, actual.data());
  }
  if (std::equal(expected.begin(), expected.end(), actual.data())) return;
  const auto first = static_cast<std::size_t>(std::mismatch(expected.begin(), expected.end(), actual.data()).first - expected.begin());
  std::size_t count = 0;
  for (std::size_t k = 0; k < bytes; ++k) count += expected[k] != actual.data()[k];
  const char* where = first >= p.dst.bytes                                               ? " (guard)"
                      : dst.get_compensation_size() != 0 && first >= dst.get_data_size() ? " (compensation)"
                                                                                         : "";
  broken("memfmt differs from the reference",
         "first differing byte " + std::to_string(first) + " of " + std::to_string(p.dst.bytes) + where + " (element " +
             std::to_string(first / memfmt::data_type_size(dst.get_data_type())) + "): memfmt " +
             std::to_string(actual.data()[first]) + ", reference " + std::to_string(expected[first]) + "; " +
             std::to_string(count) + " bytes differ; plan of " + std::to_string(r.nests().size()) + " nests" +
             (r.is_elementwise() ? ", element-wise" : ""));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in(data, size);
  // bits 0-2: the kernel target, best first (7: the fallback); bit 6: run a copy of the
  // plan; bit 7: compare with oneDNN too
  const std::uint8_t control = in.byte();
  const auto& targets = runnable_targets();
  const std::int64_t target = targets[std::min<std::size_t>(control & 7, targets.size() - 1)];
  hwy::SetSupportedTargetsForTest(target);
  problem p;
  p.target = hwy::TargetName(target);
  const dims shape = decode_dims(in);
  const data_type from = types[in.byte() % std::size(types)], to = types[in.byte() % std::size(types)];
  std::optional<memfmt::reorder> r;
  try {
    p.src = decode_side(in, shape, from, true);
    p.dst = decode_side(in, shape, to, false);
    if (p.src.d.is_zero() || p.dst.d.is_zero()) return 0;
    decode_attr(in, p);
    if (!small_enough(p.src) || !small_enough(p.dst)) return 0;
    r.emplace(p.src.d, p.dst.d, p.attr);
  } catch (const memfmt::error&) {
    return 0;  // a layout, attribute or reorder memfmt rejects
  }
  if ((control & 0x40) != 0) {  // a copy of the plan, the original gone, then moved
    memfmt::reorder copy = *r;
    r.reset();
    r.emplace(std::move(copy));
  }
  current = &p;
  // the source: interesting values from a generator seeded by the input, then the input's
  // own bytes
  std::seed_seq seed(data, data + size);
  std::mt19937 rng(seed);
  const line_buffer s(p.src_at, p.src.bytes);
  fill_random(from, s.data(), p.src.bytes, rng);
  std::copy_n(in.rest().begin(), std::min(in.rest().size(), p.src.bytes), s.data());
  check(p, *r, s.data(), rng);
#if MEMFMT_HAVE_ONEDNN
  if ((control & 0x80) != 0 &&
      onednn_oracle::comparable(p.src.d, p.dst.d, p.attr, p.src.gaps || p.dst.gaps, p.src.broadcast)) {
    const std::vector<unsigned char> source(s.data(), s.data() + p.src.bytes);
    const std::string difference = onednn_oracle::compare_with_onednn(p.src.d, p.dst.d, p.attr, *r, source, p.dst.bytes, rng);
    FUZZ_CHECK(difference.empty(), difference);
  }
#endif
  current = nullptr;
  return 0;
}
