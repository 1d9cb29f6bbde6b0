// Every kernel kind x every type pair x every SIMD target of this CPU, on random
// nests (odd extents, tails, padding, strides, scales, zero points, beta), must
// equal the scalar reference bit for bit, including the bytes it must not touch.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace memfmt_test {
/// The kernel paths taken since the last clear (see MEMFMT_KERNEL_PATH).
inline std::set<std::string>& paths_taken() {
  static std::set<std::string> taken;
  return taken;
}
}  // namespace memfmt_test

#ifdef MEMFMT_KERNELS_EXTERN
// The build's kernels (memfmt_dev_kernels) report their paths through a recorder.
#include "memfmt_dev_kernel_paths.hpp"
namespace {
const bool recording_paths = [] {
  memfmt_dev::record_kernel_path = [](const char* name) { memfmt_test::paths_taken().insert(name); };
  return true;
}();
}  // namespace
#else
// Header-only: the hook is defined before memfmt is included (this test's only unit).
#define MEMFMT_KERNEL_PATH(name) ::memfmt_test::paths_taken().insert(name)
#endif

#include "kernel_test_util.hpp"

using namespace memfmt_test;

namespace {

std::string hex_bytes(const std::byte* p, std::size_t n) {
  std::ostringstream os;
  os << "0x";
  for (std::size_t k = n; k-- > 0;) os << std::hex << std::setw(2) << std::setfill('0') << std::to_integer<int>(p[k]);
  return os.str();
}

/// A copy of `bytes` that starts `line_offset` bytes past a cache line, between guard
/// bytes: a test case's destination (which the kernels must write inside the guards
/// only) or its source.
class placed_buffer {
 public:
  placed_buffer(const std::vector<std::byte>& bytes, dim line_offset) : size_(bytes.size()) {
    storage_.assign(size_ + 2 * guard, guard_byte);
    const auto line_past = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(storage_.data()) % 64);
    first_ = (64 - line_past) % 64 + static_cast<std::size_t>(line_offset);
    std::copy(bytes.begin(), bytes.end(), storage_.begin() + static_cast<std::ptrdiff_t>(first_));
  }
  std::byte* data() { return storage_.data() + first_; }
  const std::byte* data() const { return storage_.data() + first_; }
  bool operator==(const std::vector<std::byte>& expected) const {
    const auto at = storage_.begin() + static_cast<std::ptrdiff_t>(first_);
    const auto end = at + static_cast<std::ptrdiff_t>(size_);
    return std::equal(at, end, expected.begin(), expected.end()) &&
           std::all_of(storage_.begin(), at, [](std::byte b) { return b == guard_byte; }) &&
           std::all_of(end, storage_.end(), [](std::byte b) { return b == guard_byte; });
  }

 private:
  static constexpr std::size_t guard = 128;
  static constexpr std::byte guard_byte{0x5a};
  std::vector<std::byte> storage_;
  std::size_t size_;
  std::size_t first_ = 0;
};

/// The kernel targets that ran (Highway bits), each with the paths its kernels took.
using paths_by_kernel = std::map<std::int64_t, std::set<std::string>>;

/// Runs every case on every target (whose kernels are among `kernels`, Highway bits);
/// returns the targets whose kernels ran and the paths they took (printed with
/// MEMFMT_TEST_PRINT_PATHS set in the environment).
paths_by_kernel check_cases(const std::vector<test_case>& cases, std::int64_t kernels = ~std::int64_t{0}) {
  std::vector<std::vector<std::byte>> expected;
  expected.reserve(cases.size());
  for (const test_case& tc : cases) {
    expected.push_back(tc.dst_init);
    run_reference(bind(tc), tc.src.data(), expected.back().data());
  }
  paths_by_kernel ran;
  std::mt19937_64 rng(7);
  for_each_target([&](std::int64_t target) {
    const std::int64_t kernel = memfmt::detail::kernel_target_now();
    // (a kernel target already run: a forced target this unit compiled no kernels for)
    if ((kernel & kernels) == 0 || ran.count(kernel) != 0) return;
    paths_taken().clear();
    int failures = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const test_case& tc = cases[i];
      // buffers placed the same way on every machine (16-byte steps past a line, as
      // malloc's alignment would give, but not left to it): the paths a test requires
      // must not depend on where the heap puts its buffers
      const auto place = [&](dim offset, std::size_t shift) {
        return offset >= 0 ? offset : 16 * static_cast<dim>((i + shift) % 4);
      };
      const placed_buffer src(tc.src, place(tc.src_line_offset, 1));
      placed_buffer dst(tc.dst_init, place(tc.dst_line_offset, 0));
      run_in_chunks(bind(tc), src.data(), dst.data(), rng);
      if (dst == expected[i]) continue;
      ++failures;
      if (failures > 5) continue;
      const std::size_t dsz = memfmt::data_type_size(tc.n.cvt.dst);
      std::size_t at = 0;
      while (at < expected[i].size() && dst.data()[at] == expected[i][at]) ++at;
      if (at == expected[i].size()) {
        FAIL_CHECK("target " << hwy::TargetName(target) << " (kernels " << hwy::TargetName(kernel)
                             << "): " << tc.describe() << "\n  wrote outside the destination");
        continue;
      }
      at -= at % dsz;
      FAIL_CHECK("target " << hwy::TargetName(target) << " (kernels " << hwy::TargetName(kernel) << "): "
                           << tc.describe() << "\n  first difference at dst element " << at / dsz << ": got "
                           << hex_bytes(dst.data() + at, dsz) << ", expected "
                           << hex_bytes(expected[i].data() + at, dsz));
    }
    CHECK(failures == 0);
    ran[kernel].insert(paths_taken().begin(), paths_taken().end());
    if (std::getenv("MEMFMT_TEST_PRINT_PATHS") != nullptr) {
      std::printf("%s:", hwy::TargetName(kernel));
      for (const std::string& p : paths_taken()) std::printf(" [%s]", p.c_str());
      std::printf("\n");
    }
  });
  return ran;
}

// Kernel targets, by what their kernels have (Highway bits).
constexpr std::int64_t any_target = ~std::int64_t{0};
constexpr std::int64_t avx512 = HWY_AVX3 | HWY_AVX3_DL;
constexpr std::int64_t x86_simd = avx512 | HWY_AVX2 | HWY_SSE4 | HWY_SSSE3;
constexpr std::int64_t with_tiles = x86_simd | HWY_EMU128;  // 4 or more 32-bit lanes
constexpr std::int64_t with_convert_rows = x86_simd;       // x86 targets with has_convert_rows
constexpr std::int64_t fallbacks = HWY_EMU128 | HWY_SCALAR;  // without has_convert_rows

/// Checks that, on each kernel target of `kernels` that ran, the cases took every path
/// of `paths`: the paths a test is written for (see MEMFMT_KERNEL_PATH).
/// Whether `kernel` is a fallback compiled beside a SIMD target, which runs every nest as
/// strided rows (entry-inl.h) and so takes none of the kernels' paths.
bool runs_rows_only(std::int64_t kernel) {
  return (kernel & fallbacks) != 0 && (memfmt::detail::kernel_targets_compiled() & ~fallbacks) != 0;
}

void require_paths(const paths_by_kernel& ran, std::int64_t kernels, std::initializer_list<const char*> paths) {
  for (const auto& [kernel, taken] : ran) {
    if ((kernel & kernels) == 0) continue;
    if (runs_rows_only(kernel)) {
      INFO("kernels " << hwy::TargetName(kernel));
      CHECK(taken.count("fallback: strided rows") == 1);
      continue;
    }
    for (const char* path : paths) {
      INFO("kernels " << hwy::TargetName(kernel) << ", path \"" << path << "\"");
      CHECK(taken.count(path) == 1);
    }
  }
}

std::vector<test_case> make_cases(kernel_kind kind, int per_pair, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<test_case> cases;
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      if (kind == kernel_kind::zero_fill && s != data_type::f32) continue;  // src unused
      const int count = kind == kernel_kind::zero_fill ? 6 * per_pair : per_pair;
      for (int k = 0; k < count; ++k) cases.push_back(make_case(kind, s, d, rng));
    }
  }
  return cases;
}

/// A transpose of `images` blocks of rows x cols elements, random source and destination:
/// source rows `src_row` elements apart (images `src_image` apart; 0: back to back),
/// destination rows `dst_row` apart (images `image` apart; 0: back to back); conversions
/// scale by 0.75.
test_case block_transpose_case(data_type from, data_type to, dim rows, dim cols, dim src_row, dim dst_row, bool stream,
                               std::mt19937_64& rng, dim images = 1, dim image = 0, dim src_image = 0) {
  test_case tc;
  nest& n = tc.n;
  n.kind = kernel_kind::transpose;
  n.cvt = memfmt::detail::conversion{from, to};
  if (from != to) n.cvt.alpha = 0.75f;
  n.stream_stores = stream;
  if (image == 0) image = cols * dst_row;
  if (src_image == 0) src_image = rows * src_row;
  const loop block_loops[] = {{rows, src_row, 1, 0}, {cols, 1, dst_row, 0}};
  n.nloops = 0;
  if (images > 1) n.loops[n.nloops++] = loop{images, src_image, image, 0};
  for (const loop& l : block_loops) n.loops[n.nloops++] = l;
  tc.src.resize(static_cast<std::size_t>(images * src_image) * memfmt::data_type_size(from));
  fill_random(tc.src, from, rng);
  tc.dst_init.resize(static_cast<std::size_t>(images * image) * memfmt::data_type_size(to));
  fill_random(tc.dst_init, to, rng);
  return tc;
}

/// Spreads the columns of a block_transpose_case over two loops, as oihw -> OIhw16i16o
/// does: periods of 3 columns, the destination rows of a period `dst_row` apart, periods
/// a line further apart than their rows, images `image_gap` elements past their last
/// period (source images `src_image` apart). Columns past the last whole period drop.
void fold_columns(test_case& tc, data_type to, dim rows, dim cols, dim src_row, dim dst_row, dim images,
                  dim src_image, dim image_gap, std::mt19937_64& rng) {
  const auto size = static_cast<dim>(memfmt::data_type_size(to));
  const dim line = 64 / size;
  const dim period = 3, periods = cols / period, period_step = period * dst_row + line;
  const dim periods_image = periods * period_step + image_gap;
  nest& n = tc.n;
  n.nloops = 4;
  n.loops[0] = loop{images, src_image, periods_image, 0};
  n.loops[1] = loop{periods, period, period_step, 0};
  n.loops[2] = loop{rows, src_row, 1, 0};
  n.loops[3] = loop{period, 1, dst_row, 0};
  n.column_loops = 2;
  tc.dst_init.resize(static_cast<std::size_t>(images * periods_image * size));
  fill_random(tc.dst_init, to, rng);
}

}  // namespace

TEST_CASE("copy kernel: every type pair on every target equals the reference", "[kernel]") {
  const paths_by_kernel ran = check_cases(make_cases(kernel_kind::copy, 24, 1));
  require_paths(ran, any_target, {"fixed rows", "fixed rows, streamed", "rows", "rows in destination order"});
  require_paths(ran, avx512, {"short rows, masked"});
}

TEST_CASE("transpose kernel: every type pair on every target equals the reference", "[kernel]") {
  const paths_by_kernel ran = check_cases(make_cases(kernel_kind::transpose, 24, 2));
  // with beta, converted rows go through f32 tiles; without, converted then transposed
  require_paths(ran, with_tiles, {"converted then transposed", "f32 tiles, converted rows"});
  require_paths(ran, HWY_SCALAR, {"scalar rows"});
}

TEST_CASE("gather kernel: every type pair on every target equals the reference", "[kernel]") {
  check_cases(make_cases(kernel_kind::gather, 16, 7));
}

/// A random nest of the interleave kind: r (2 to 4) interleaved rows of o, with up to
/// two more column loops, contiguous with r in the source in a random order, and up to
/// two outer loops; the planner's own test (interleave_block) must accept its block.
test_case make_interleave_case(data_type S, data_type D, std::mt19937_64& rng) {
  static const dim o_extents[] = {8, 9, 15, 16, 17, 24, 31, 32, 48};
  static const dim column_extents[] = {2, 3, 4, 5, 9};
  for (;;) {
    test_case tc;
    nest& n = tc.n;
    n.kind = kernel_kind::interleave;
    const dim R = 2 + static_cast<dim>(rng() % 3), O = o_extents[rng() % std::size(o_extents)];
    const int ncolumns = 1 + static_cast<int>(rng() % 3), nouter = static_cast<int>(rng() % 3);
    // loop indices: outer [0, nouter), other columns [nouter, nouter + ncolumns - 1), o, r
    n.nloops = nouter + ncolumns + 1;
    const int o = n.nloops - 2, r = n.nloops - 1;
    std::vector<dim> extents(static_cast<std::size_t>(n.nloops));
    for (int k = 0; k < nouter; ++k) extents[k] = 1 + static_cast<dim>(rng() % 3);
    for (int k = nouter; k < o; ++k) extents[k] = column_extents[rng() % std::size(column_extents)];
    extents[o] = O;
    extents[r] = R;
    dim block = 1;
    for (int k = nouter; k < n.nloops; ++k) block *= extents[k];
    if (block > memfmt::detail::interleave_max) continue;
    // source: the columns contiguous from stride 1 in a random order, then o, then the outer loops
    std::vector<int> columns{r};
    for (int k = nouter; k < o; ++k) columns.push_back(k);
    std::shuffle(columns.begin(), columns.end(), rng);
    std::vector<int> src_order = columns;
    src_order.push_back(o);
    for (int k = 0; k < nouter; ++k) src_order.push_back(k);
    std::vector<dim> src_strides(extents.size()), dst_strides(extents.size()), scale_strides(extents.size(), 0);
    dim stride = 1;
    for (int k : columns) {
      src_strides[k] = stride;
      stride *= extents[k];
    }
    dim src_elems = stride, at = stride + static_cast<dim>(rng() % 3);
    for (std::size_t i = columns.size(); i < src_order.size(); ++i) {
      const int k = src_order[i];
      src_strides[k] = at;
      src_elems = at * extents[k];
      at = src_elems + static_cast<dim>(rng() % 3);
    }
    // destination: r, o, the other columns dense in a random order, then the outer loops with gaps
    dst_strides[r] = 1;
    dst_strides[o] = R;
    std::vector<int> others;
    for (int k = nouter; k < o; ++k) others.push_back(k);
    std::shuffle(others.begin(), others.end(), rng);
    stride = R * O;
    for (int k : others) {
      dst_strides[k] = stride;
      stride *= extents[k];
    }
    dim dst_elems = stride;
    for (int k = nouter - 1; k >= 0; --k) {
      dst_strides[k] = dst_elems + static_cast<dim>(rng() % 3);
      dst_elems = dst_strides[k] * extents[k];
    }
    // the loops in nest order: outer, the other columns by falling dst stride, o, r
    std::sort(others.begin(), others.end(), [&](int a, int b) { return dst_strides[a] > dst_strides[b]; });
    std::vector<int> order;
    for (int k = 0; k < nouter; ++k) order.push_back(k);
    order.insert(order.end(), others.begin(), others.end());
    order.push_back(o);
    order.push_back(r);
    // conversion and scales (constant over the columns: per o, per outer loop, or common)
    conversion& c = n.cvt;
    c.src = S;
    c.dst = D;
    dim scale_elems = 0;
    if (!(S == D && rng() % 3 == 0)) {
      static const float alphas[] = {1.f, 0.37f, 3.1f, -2.f, 255.f / 7.f};
      static const std::int32_t zps[] = {0, 0, 3, -7, 128};
      c.alpha = alphas[rng() % std::size(alphas)];
      c.beta = rng() % 6 == 0 ? 0.5f : 0.f;  // the kernel leaves beta to the strided rows
      c.src_zero_point = zps[rng() % std::size(zps)];
      c.dst_zero_point = zps[rng() % std::size(zps)];
      const auto pick = rng() % 4;
      if (pick == 0) {
        scale_elems = 1;
      } else if (pick == 1 || (pick == 2 && nouter > 0)) {
        const int k = pick == 1 ? o : static_cast<int>(rng() % static_cast<std::uint64_t>(nouter));
        scale_strides[k] = 1;
        scale_elems = extents[k];
      }
      if (S == D && scale_elems == 0 && c.alpha == 1.f && c.beta == 0.f && c.src_zero_point == 0 && c.dst_zero_point == 0)
        c.alpha = 0.5f;
    }
    for (int i = 0; i < n.nloops; ++i) {
      const int k = order[static_cast<std::size_t>(i)];
      n.loops[i] = loop{extents[k], src_strides[k], dst_strides[k], scale_strides[k]};
    }
    n.gather_loops = ncolumns + 1;
    if (memfmt::detail::interleave_block(n.loops, n.nloops) != n.gather_loops) continue;  // columns that do not fit
    n.stream_stores = rng() % 4 == 0;
    fill_buffers(tc, src_elems, dst_elems, scale_elems, rng);
    return tc;
  }
}

TEST_CASE("interleave kernel: every type pair on every target equals the reference", "[kernel]") {
  std::mt19937_64 rng(9);
  std::vector<test_case> cases;
  for (const data_type s : all_types)
    for (const data_type d : all_types)
      for (int k = 0; k < 12; ++k) cases.push_back(make_interleave_case(s, d, rng));
  check_cases(cases);
}

TEST_CASE("strided kernel: every type pair on every target equals the reference", "[kernel]") {
  check_cases(make_cases(kernel_kind::strided, 12, 3));
}

TEST_CASE("zero_fill kernel: every type on every target writes zeros and nothing else", "[kernel]") {
  check_cases(make_cases(kernel_kind::zero_fill, 8, 4));
}

TEST_CASE("transposes with a small packed side (nchw <-> nhwc, nChw8c, ...) on every target equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(8);
  std::vector<test_case> cases;
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 12; ++k) {
        test_case tc = make_case(kernel_kind::transpose, s, d, rng);
        nest& n = tc.n;
        static const dim packed[] = {2, 3, 4, 5, 8, 12, 16, 24};
        const dim m = packed[rng() % std::size(packed)], spatial = 1 + static_cast<dim>(rng() % 200);
        const bool to_packed = k % 2 == 0;  // nchw -> nhwc, else nhwc -> nchw
        const dim batch = 1 + static_cast<dim>(rng() % 2);
        n.nloops = 3;
        n.stream_stores = k % 4 >= 2;  // (both directions, streamed or not)
        // J: dst stride 1; I: src stride 1. Packed side: m elements per position.
        const dim j_extent = to_packed ? m : spatial, i_extent = to_packed ? spatial : m;
        n.loops[0] = loop{batch, m * spatial, m * spatial, 0};
        n.loops[1] = loop{j_extent, i_extent, 1, 0};
        n.loops[2] = loop{i_extent, 1, j_extent, 0};
        if (!tc.scales.empty()) {  // per channel, or per element
          tc.scales.assign(static_cast<std::size_t>(batch * m * spatial), 0.f);
          for (float& v : tc.scales) v = std::uniform_real_distribution<float>(-3.f, 3.f)(rng);
          const bool per_channel = rng() % 2 == 0;
          n.loops[0].scale_stride = per_channel ? 0 : m * spatial;
          n.loops[1].scale_stride = per_channel ? (to_packed ? 1 : 0) : n.loops[1].dst_stride;  // else like dst
          n.loops[2].scale_stride = per_channel ? (to_packed ? 0 : 1) : n.loops[2].dst_stride;
        }
        tc.src.resize(static_cast<std::size_t>(batch * m * spatial) * memfmt::data_type_size(s));
        fill_random(tc.src, s, rng);
        tc.dst_init.resize(static_cast<std::size_t>(batch * m * spatial) * memfmt::data_type_size(d));
        fill_random(tc.dst_init, d, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"interleaved loads", "interleaved stores"});
}

TEST_CASE("streamed transposes whose tile rows are shorter than a line (stacked tiles fill whole lines) on every "
          "target equal the reference",
          "[kernel]") {
  // Destination rows a multiple of a line apart, no farther than the source rows (nchw ->
  // nhwc with 16 or 64 channels): streamed, tiles go in stacks along the source rows so
  // that each destination row of a stack is one whole line. Source rows of every count
  // (stacks and a remainder), columns with a remainder, and images 16 bytes apart in the
  // line, so that some start on a line whatever the buffer's own alignment. Every other
  // case has the source rows closer (nhwc -> nchw), which go in bands.
  std::mt19937_64 rng(22);
  std::vector<test_case> cases;
  for (const data_type from : all_types) {
    for (const data_type to : all_types) {
      const auto size = static_cast<dim>(memfmt::data_type_size(to));
      for (int k = 0; k < 4; ++k) {
        const dim rows = 1 + static_cast<dim>(rng() % 100), cols = 1 + static_cast<dim>(rng() % 40);
        const dim line = 64 / size;  // destination rows a whole number of lines apart
        const dim dst_row = (rows + line - 1) / line * line + (k == 2 ? line : 0);
        const dim src_row = std::max(cols + static_cast<dim>(rng() % 3), k % 2 == 0 ? dst_row : 0);
        const dim images = 4, image = cols * dst_row + 16 / size;
        cases.push_back(block_transpose_case(from, to, rows, cols, src_row, dst_row, k != 3, rng, images, image));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"stacks into lines, streamed", "bands of source rows, stacks"});
}

TEST_CASE("transposes of 8- and 16-bit elements in stacks (whole destination lines) on every target equal the "
          "reference",
          "[kernel]") {
  // Destination rows a whole number of lines apart (nchw -> nhwc of 8- and 16-bit
  // elements with 64 or 32 channels or more; nhwc -> nchw when the columns are few): tiles
  // in stacks of 64 or 32 source rows, transposed unwidened on AVX-512, in cache and
  // streamed. Row counts of one to three stacks with and without a remainder; columns
  // with a remainder of a tile; source rows close, 1 KiB apart, or 2 KiB apart (in cache:
  // row groups over runs of columns, tiles side by side); columns over two loops
  // (several periods, as in oihw -> OIhw16i16o); a second image 16 bytes into a line.
  // Converting pairs transpose strips of at most 16 converted rows: they check that the
  // converting path is unchanged.
  std::mt19937_64 rng(64);
  std::vector<test_case> cases;
  const std::pair<data_type, data_type> pairs[] = {
      {data_type::s8, data_type::s8},   {data_type::u8, data_type::u8},     {data_type::f32, data_type::s8},
      {data_type::s8, data_type::u8},   {data_type::bf16, data_type::bf16}, {data_type::f16, data_type::f16},
      {data_type::f32, data_type::bf16}};
  for (const auto& [from, to] : pairs) {
    const auto size = static_cast<dim>(memfmt::data_type_size(to));
    const auto src_size = static_cast<dim>(memfmt::data_type_size(from));
    const dim line = 64 / size;
    for (const dim rows : {dim{32}, dim{64}, dim{65}, dim{127}, dim{128}, dim{192}, dim{200}}) {
      for (const dim cols : {dim{16}, dim{47}, dim{64}, dim{1024}}) {
        for (int v = 0; v < 7; ++v) {
          const bool stream = v == 1 || v == 3 || v == 6;
          const dim src_row = v < 2 || v > 4 ? cols + 3 : (v == 2 ? 1024 : 2048) / src_size;
          if (src_row < cols) continue;
          const dim dst_row = (rows + line - 1) / line * line + (v == 3 ? line : 0);  // whole lines apart
          const dim images = v == 0 || v > 4 ? 2 : 1;
          test_case tc = block_transpose_case(from, to, rows, cols, src_row, dst_row, stream, rng, images,
                                              cols * dst_row + 16 / size);
          if (v > 4) fold_columns(tc, to, rows, cols, src_row, dst_row, images, rows * src_row, line, rng);
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512, {"stacks into lines", "stacks down runs", "bands of source rows, stacks"});
  require_paths(ran, HWY_AVX2 | HWY_SSE4, {"narrow stacks"});
}

TEST_CASE("transposes of 8- and 16-bit elements in cache to destination rows shorter than a line (tiles side by "
          "side) on every target equal the reference",
          "[kernel]") {
  // nchw -> nChw16c of 8- and 16-bit elements: destination rows of 16 elements or less,
  // not whole lines apart; in cache, strips of 16 source rows go a vector of each row at
  // a time (tiles side by side, on x86 SIMD targets: 64, 32 or 16 bytes). Rows with and
  // without a partial strip; columns around 32 and 64 and their multiples; destination
  // rows back to back (on AVX2 and SSE4, whole lines for 64 rows of bytes), with a gap,
  // or padded to 16; source rows close or 1024 elements apart (for 16-bit elements, 2
  // KiB: row groups over runs of columns); plain and converted; a second image that
  // starts 5 elements into a line. Streamed cases check the path that does not take
  // them.
  std::mt19937_64 rng(65);
  std::vector<test_case> cases;
  const std::pair<data_type, data_type> pairs[] = {{data_type::s8, data_type::s8},
                                                   {data_type::u8, data_type::u8},
                                                   {data_type::f32, data_type::u8},
                                                   {data_type::bf16, data_type::bf16},
                                                   {data_type::f32, data_type::f16}};
  for (const auto& [from, to] : pairs) {
    for (const dim rows : {dim{1}, dim{15}, dim{16}, dim{17}, dim{32}, dim{40}, dim{64}}) {
      for (const dim cols : {dim{31}, dim{32}, dim{63}, dim{64}, dim{65}, dim{128}, dim{200}}) {
        for (int v = 0; v < 4; ++v) {
          const dim dst_row = v == 0 ? rows : v == 1 ? rows + 5 : std::max<dim>((rows + 15) / 16 * 16, 16);
          const dim src_row = v == 3 ? 1024 : cols + static_cast<dim>(v);
          test_case tc = block_transpose_case(from, to, rows, cols, src_row, dst_row, v == 1 && rows == 17, rng, 2,
                                              cols * dst_row + 5, rows * src_row + 3);
          if (v == 2) tc.n.zero_tail = dst_row - rows;
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, x86_simd, {"narrow strips"});
}

TEST_CASE("streamed transposes to destination rows farther apart than the source rows (bands of source rows) on "
          "every target equal the reference",
          "[kernel]") {
  // nhwc -> nchw from memory: tiles go column group by column group down bands of source
  // rows (1 KiB of each destination row, fewer when the source rows are far apart). Row
  // counts over several bands with a remainder, columns with a remainder, source rows
  // close (bands of 1 KiB per destination row) and 4 KiB apart (bands of 32 rows). Only
  // plain pairs reach the bands (conversions transpose strips of W converted rows); the
  // others check that the converting path is unchanged by them.
  std::mt19937_64 rng(24);
  std::vector<test_case> cases;
  for (const data_type from : all_types) {
    for (const data_type to : all_types) {
      const auto src_size = static_cast<dim>(memfmt::data_type_size(from));
      const auto size = static_cast<dim>(memfmt::data_type_size(to));
      for (int k = 0; k < 2; ++k) {
        const dim cols = 1 + static_cast<dim>(rng() % 40);
        const bool far = k == 1;
        const dim src_row = far ? 4096 / src_size : cols + static_cast<dim>(rng() % 3);
        const dim rows = (far ? 64 : 1024 / size * 2) + 1 + static_cast<dim>(rng() % 100);
        const dim line = 64 / size;
        const dim dst_row = (std::max(rows, src_row + 1) + line - 1) / line * line;  // whole lines apart
        cases.push_back(block_transpose_case(from, to, rows, cols, src_row, dst_row, true, rng));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"bands of source rows", "bands of source rows, stacks"});
}

TEST_CASE("transposes whose rows start inside a cache line (first rows or columns up to a line boundary on their "
          "own) on every target equal the reference",
          "[kernel]") {
  // Source and destination rows whole lines apart, blocks starting at every element
  // offset in the line on either side (images a few elements more than a block apart),
  // with row and column counts around the splits; one or several column periods
  // (oihw -> OIhw16i16o: columns over two loops), streamed or not.
  std::mt19937_64 rng(25);
  std::vector<test_case> cases;
  for (const data_type from : all_types) {
    for (const data_type to : all_types) {
      const auto src_size = static_cast<dim>(memfmt::data_type_size(from));
      const auto size = static_cast<dim>(memfmt::data_type_size(to));
      for (int k = 0; k < (from == to ? 6 : 2); ++k) {
        const dim rows = 1 + static_cast<dim>(rng() % 150), cols = 1 + static_cast<dim>(rng() % 90);
        const dim src_line = 64 / src_size, line = 64 / size;
        const dim src_row = (cols + src_line - 1) / src_line * src_line + (k % 3 == 0 ? src_line : 0);
        const dim dst_row = (rows + line - 1) / line * line + (k % 3 == 1 ? line : 0);
        const dim images = 6;
        const dim src_image = rows * src_row + 1 + static_cast<dim>(rng() % 15);
        const dim image = cols * dst_row + 1 + static_cast<dim>(rng() % 15);
        test_case tc = block_transpose_case(from, to, rows, cols, src_row, dst_row, k % 2 == 0, rng, images, image, src_image);
        if (k == 5 && cols >= 6)
          fold_columns(tc, to, rows, cols, src_row, dst_row, images, src_image, 1 + static_cast<dim>(rng() % 15), rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"destination lead", "source lead"});
}

TEST_CASE("transposes in cache whose source rows are a multiple of 2 KiB apart (tiles by row group over runs of "
          "columns) on every target equal the reference",
          "[kernel]") {
  // nchw -> nChw16c with planes of 32 x 32: the rows of a stack share L1 sets, so 8-lane
  // tiles go row group by row group over runs of columns (on AVX-512, 32-bit elements
  // go in 16-lane tiles that read the source line by line). Source rows of every
  // count, columns with remainders of a tile, of two tiles and of a run.
  std::mt19937_64 rng(23);
  std::vector<test_case> cases;
  for (const data_type from : all_types) {
    for (const data_type to : all_types) {
      const auto src_size = static_cast<dim>(memfmt::data_type_size(from));
      const auto size = static_cast<dim>(memfmt::data_type_size(to));
      for (int k = 0; k < (from == to ? 6 : 1); ++k) {
        // destination rows of one line, as in nChw16c: mostly a whole stack of rows
        const bool one_line = k % 2 == 1;
        const dim rows = one_line && k != 5 ? 64 / size : 1 + static_cast<dim>(rng() % (one_line ? 64 / size : 100));
        const dim cols = 1 + static_cast<dim>(rng() % (one_line ? 700 : 80));
        const dim kib2 = (cols * src_size + 2047) / 2048;  // 2 KiB pieces a source row needs
        const dim src_row = kib2 * 2048 / src_size * (1 + static_cast<dim>(rng() % 2));
        const dim dst_row = (rows * size + 63) / 64 * 64 / size;  // whole lines apart
        cases.push_back(block_transpose_case(from, to, rows, cols, src_row, dst_row, false, rng));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles & ~avx512, {"stacks into lines, runs of columns"});
  require_paths(ran, avx512, {"whole tiles, staged", "tiles into lines, read by lines"});
}

TEST_CASE("transposes in cache whose source rows are a multiple of 4 KiB apart into rows farther than a line "
          "apart (nchw -> nhwc with planes of 32 x 32) on every target equal the reference",
          "[kernel]") {
  // On AVX-512 the whole 16-lane tiles of 32-bit elements go through a buffer in L1 in
  // strips of 8 tiles, the rest tile by tile: rows with every remainder of a tile,
  // columns past one and two strips with remainders of a tile and of a strip, source
  // rows 4 and 8 KiB apart, destination rows packed, a line apart or padded to zeros.
  std::mt19937_64 rng(71);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::s32}) {
    for (const dim rows : {dim{16}, dim{17}, dim{31}, dim{48}, dim{64}}) {
      for (const dim cols : {dim{127}, dim{128}, dim{129}, dim{144}, dim{255}, dim{256}, dim{300}}) {
        const int v = static_cast<int>((rows + cols) % 3);
        const dim src_row = 1024 * (1 + static_cast<dim>(rng() % 2));
        const dim dst_row = v == 0 ? rows : v == 1 ? (rows + 15) / 16 * 16 + 16 : rows + 5;
        test_case tc = block_transpose_case(t, t, rows, cols, src_row, dst_row, false, rng);
        if (v == 2) tc.n.zero_tail = 5;  // zeros after each destination row
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512, {"whole tiles, staged"});
}

TEST_CASE("transposes in cache by row group over runs of columns: every edge of a tile, two tiles and a run, "
          "on every target equal the reference",
          "[kernel]") {
  // Destination rows of one line (nChw16c and its 16- and 8-bit kin), source rows 2 or
  // 4 KiB apart (with 8-lane tiles; on AVX-512, 32-bit elements go in 16-lane tiles read
  // line by line), with and without
  // padding after the rows, and a second block that starts inside a line on both sides.
  std::mt19937_64 rng(99);
  std::vector<test_case> cases;
  const dim col_counts[] = {1, 8, 9, 16, 17, 33, 255, 256, 257, 264, 511, 513, 1025};
  for (const data_type t : {data_type::f32, data_type::bf16, data_type::s8}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    const dim line = 64 / size;  // elements: the destination row, and a whole stack of rows
    for (const dim rows : {dim{1}, dim{7}, dim{8}, dim{9}, dim{15}, dim{16}, dim{17}, dim{31}, dim{32}, dim{33}, dim{63},
                           dim{64}}) {
      if (rows > line) continue;
      for (const dim cols : col_counts) {
        const dim kib2 = (cols * size + 2047) / 2048;  // 2 KiB pieces a source row needs
        for (int v = 0; v < 3; ++v) {
          const dim src_row = kib2 * 2048 / size * (v == 0 ? 1 : 2);
          if (v == 2) {  // two blocks, the second 3 elements into the destination, 5 into the source
            cases.push_back(block_transpose_case(t, t, rows, cols, src_row, line, false, rng, 2, cols * line + 3,
                                                 rows * src_row + 5));
            continue;
          }
          test_case tc = block_transpose_case(t, t, rows, cols, src_row, line, false, rng);
          if (v == 1) tc.n.zero_tail = line - rows;  // zeros up to the line
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"stacks into lines, runs of columns"});
}

TEST_CASE("transposes in cache of 32-bit elements into destination rows of one line (nchw -> nChw16c), source rows "
          "read whole, by 128-bit blocks or line by line, on every target equal the reference",
          "[kernel]") {
  // On AVX-512 the whole 16 x 16 tiles read source rows that are a multiple of 16 bytes
  // apart by 128-bit blocks, line by line when the rows are a multiple of 4 KiB apart,
  // and whole otherwise. Blocks of 16 channels (and 15, which leaves no whole tile
  // down), pixels past what the short-block loop takes (64) with every remainder of 4
  // and 16, one block alone or blocks that start 1 or 4 elements past the previous one,
  // so that the source is or is not 16-byte aligned.
  std::mt19937_64 rng(57);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::s32}) {
    for (const dim rows : {dim{16}, dim{15}}) {
      for (const dim cols : {dim{65}, dim{66}, dim{67}, dim{68}, dim{79}, dim{80}, dim{100}, dim{257}}) {
        const dim blocks = (cols + 3) / 4 * 4 + 4;  // rows a multiple of 16 bytes apart
        const dim src_rows[] = {blocks, blocks + 1, (cols + 1023) / 1024 * 1024, 2048, (cols + 511) / 512 * 512};
        for (const dim src_row : src_rows) {
          for (const dim gap : {dim{0}, dim{1}, dim{4}}) {
            const dim images = gap == 0 ? 1 + static_cast<dim>(rng() % 2) : 3;
            test_case tc = block_transpose_case(t, t, rows, cols, src_row, 16, false, rng, images, cols * 16,
                                                rows * src_row + gap);
            if (rows < 16) tc.n.zero_tail = 16 - rows;  // zeros up to the line
            cases.push_back(std::move(tc));
          }
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512,
                {"tiles into lines, read by rows", "tiles into lines, read by blocks", "whole tiles, staged",
                 "tiles into lines, read by lines", "edge gathers"});
  require_paths(ran, with_tiles & ~avx512, {"stacks into lines", "stacks into lines, runs of columns"});
}

TEST_CASE("transposes in cache to destination rows farther apart than the source rows (runs of source rows, "
          "stacks that fill destination lines) on every target equal the reference",
          "[kernel]") {
  // nhwc -> nchw and nChw16c -> nchw in cache: tiles go run by run of source rows, in
  // stacks down each run where they fit (8- and 16-bit ones unwidened: on AVX2 and SSE4
  // in stacks of 16 columns whose destination rows are a vector each); destination rows
  // a multiple of 2 KiB apart take 8-lane tiles for 32-bit elements on AVX-512. Row
  // counts with remainders of a tile, a stack and a run (the largest span several runs),
  // columns with remainders of every tile width and of 16, and 16 columns of a line (the
  // source rows of nChw16c), destination rows 2 KiB multiples, whole lines or odd elements apart;
  // plain and converting pairs (conversions transpose strips of converted rows).
  std::mt19937_64 rng(31);
  std::vector<test_case> cases;
  const std::pair<data_type, data_type> pairs[] = {{data_type::f32, data_type::f32},
                                                   {data_type::bf16, data_type::bf16},
                                                   {data_type::s8, data_type::s8},
                                                   {data_type::f32, data_type::bf16},
                                                   {data_type::u8, data_type::f32}};
  for (const auto& [from, to] : pairs) {
    const auto size = static_cast<dim>(memfmt::data_type_size(to));
    for (const dim rows : {dim{1}, dim{7}, dim{16}, dim{17}, dim{33}, dim{100}, dim{391}, dim{777}}) {
      for (const dim cols : {dim{1}, dim{3}, dim{4}, dim{5}, dim{9}, dim{16}, dim{17}, dim{40}}) {
        for (int v = 0; v < 3; ++v) {
          const dim src_row = cols + (v == 1 ? 2 : 0);
          const dim kib2 = 2048 / size;  // elements in 2 KiB
          const dim dst_row = v == 0 ? (rows + kib2 - 1) / kib2 * kib2 : v == 1 ? rows + 3 : (rows * size + 63) / 64 * 64 / size;
          cases.push_back(block_transpose_case(from, to, rows, cols, src_row, std::max(dst_row, src_row + 1), false, rng));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"runs of source rows", "stacks down runs"});
  require_paths(ran, HWY_AVX2 | HWY_SSE4, {"narrow stacks"});
  require_paths(ran, avx512, {"edge scatters"});
}

TEST_CASE("transposes of many small blocks (nchw <-> nChw16c with few pixels) on every target equal the reference",
          "[kernel]") {
  // Blocks whose rows and columns both fit a tile (with 8-lane tiles, strips up to two
  // tiles wide) go tile by tile by masked rows, in one loop over the blocks (32-bit
  // elements, in cache, on targets with exact masked rows); every row and column count
  // up to 17, blocks back to back or a few elements apart, and the pairs that do not
  // take that loop (16-bit, conversions, streamed).
  std::mt19937_64 rng(43);
  std::vector<test_case> cases;
  const std::pair<data_type, data_type> pairs[] = {{data_type::f32, data_type::f32},
                                                   {data_type::s32, data_type::s32},
                                                   {data_type::bf16, data_type::bf16},
                                                   {data_type::f32, data_type::s8}};
  for (const auto& [from, to] : pairs) {
    for (dim rows = 1; rows <= 17; ++rows) {
      for (dim cols = 1; cols <= 17; ++cols) {
        const int v = static_cast<int>((rows + cols) % 4);
        const dim images = v == 0 ? 2 : v == 1 ? 3 : 7;
        const dim src_row = cols + (v == 2 ? 1 : 0), dst_row = rows + (v == 3 ? 2 : 0);
        const dim gap = v == 1 ? 5 : 0;
        cases.push_back(block_transpose_case(from, to, rows, cols, src_row, dst_row, false, rng, images,
                                             cols * dst_row + gap, rows * src_row + gap));
        if (rows == cols) cases.push_back(block_transpose_case(from, to, rows, cols, src_row, dst_row, true, rng, images));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512 | HWY_AVX2, {"small blocks"});
}

TEST_CASE("transposes of small blocks under two outer loops (OIhw16o16i -> oihw: 9 x 16 per block of input "
          "channels per output channel), cut anywhere, on every target equal the reference",
          "[kernel]") {
  // The kernel walks the innermost outer loop itself, a run at a time (a cut ends a run
  // early); the loop around it moves the runs. Blocks of 1 to 17 rows by 16 or 4 packed
  // columns (the latter by interleaved loads), runs of 3 blocks, the outer loop's steps a
  // few elements past the runs'.
  std::mt19937_64 rng(47);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::bf16}) {
    for (dim rows = 1; rows <= 17; ++rows) {
      for (const dim cols : {dim{4}, dim{16}}) {
        const dim runs = 5, run = 3;
        test_case tc = block_transpose_case(t, t, rows, cols, cols, rows, false, rng, run);
        nest& n = tc.n;
        const loop inner = n.loops[0];
        const dim src_step = run * inner.src_stride + 3, dst_step = run * inner.dst_stride + 2;
        for (int k = n.nloops; k-- > 0;) n.loops[k + 1] = n.loops[k];
        ++n.nloops;
        n.loops[0] = loop{runs, src_step, dst_step, 0};
        const std::size_t size = memfmt::data_type_size(t);
        tc.src.resize(static_cast<std::size_t>(runs * src_step) * size);
        fill_random(tc.src, t, rng);
        tc.dst_init.resize(static_cast<std::size_t>(runs * dst_step) * size);
        fill_random(tc.dst_init, t, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512 | HWY_AVX2, {"small blocks", "interleaved loads"});
}

TEST_CASE("transposes of many blocks a line wide and a few tiles long (nchw <-> nChw16c with 3 x 3 to 8 x 8 pixels) "
          "on every target equal the reference",
          "[kernel]") {
  // Blocks of 4 to 16 by up to 64 32-bit elements, either way round, go in whole tiles in
  // one loop over the blocks, the last tile back at the edge, when the narrow side is a
  // whole number of tiles; every long side from 3 to 66 (past the ends of the range on
  // every target), blocks back to back or a few elements apart, streamed and not.
  std::mt19937_64 rng(61);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::s32}) {
    for (const dim wide : {dim{4}, dim{8}, dim{12}, dim{16}}) {
      for (dim n = 3; n <= 66; ++n) {
        for (const bool long_rows : {false, true}) {
          const dim rows = long_rows ? n : wide, cols = long_rows ? wide : n;
          const int v = static_cast<int>(n % 3);
          const dim images = v == 0 ? 2 : v == 1 ? 3 : 5;
          const dim gap = v == 1 ? 3 : 0;
          cases.push_back(block_transpose_case(t, t, rows, cols, cols, rows, false, rng, images, cols * rows + gap,
                                               rows * cols + gap));
          if (n % 8 == 0) cases.push_back(block_transpose_case(t, t, rows, cols, cols, rows, true, rng, images));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"short blocks"});
}

TEST_CASE("converting transposes of fewer columns than a tile and many rows (nChw16c -> nchw with 3 channels, a type "
          "change), with scales, zero points and beta, on every target equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(25);
  std::vector<test_case> cases;
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 4; ++k) {
        static const dim row_counts[] = {64, 100, 513, 1100};
        const dim rows = row_counts[rng() % std::size(row_counts)], cols = 1 + static_cast<dim>(rng() % 15);
        const dim src_row = cols + static_cast<dim>(rng() % 2) * (16 - cols);  // packed, or blocks of 16
        test_case tc = block_transpose_case(s, d, rows, cols, src_row, rows + static_cast<dim>(rng() % 3), k == 3, rng);
        conversion& c = tc.n.cvt;
        c.alpha = 0.75f;
        if (k == 1) c.beta = -1.25f;
        if (k == 2) {
          c.src_zero_point = 3;
          c.dst_zero_point = -7;
        }
        if (k % 2 == 0) {  // per column, or per element
          tc.n.loops[1].scale_stride = 1;
          if (k == 2) tc.n.loops[0].scale_stride = cols;
          tc.scales.resize(static_cast<std::size_t>(k == 2 ? rows * cols : cols));
          for (float& f : tc.scales) f = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
        }
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"transposed then converted"});
}

TEST_CASE("transposes into destination rows followed by zeros up to a tile (nchw -> nChw8c or nChw16c with 1 to 15 "
          "channels), plain, converted and with beta, on every target equal the reference",
          "[kernel]") {
  // Rows of `channels` elements and `spare` zeros: a tile's lanes (3 + 5, 3 + 13, 5 + 11,
  // 1 + 3: the tiles write the zeros) or not (3 + 4, 2 + 9: the zeros go after).
  std::mt19937_64 rng(23);
  std::vector<test_case> cases;
  const std::pair<dim, dim> rows_and_zeros[] = {{3, 5}, {3, 13}, {5, 11}, {7, 1}, {1, 3}, {2, 6}, {15, 1}, {3, 4}, {2, 9}};
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 6; ++k) {
        const auto [channels, spare] = rows_and_zeros[rng() % std::size(rows_and_zeros)];
        static const dim pixels[] = {5, 16, 17, 100, 257};
        const dim cols = pixels[rng() % std::size(pixels)];
        const dim src_row = cols + static_cast<dim>(rng() % 3);
        test_case tc = block_transpose_case(s, d, channels, cols, src_row, channels + spare, k % 3 == 0, rng,
                                            1 + static_cast<dim>(rng() % 2));
        tc.n.zero_tail = spare;
        if (k % 4 == 3) tc.n.cvt.beta = 0.5f;
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"tiles write the zeros after rows", "few rows, tiles complete the zeros"});
}

TEST_CASE("plain copies of short rows into destination rows a multiple of 2 KiB apart (nChw16c -> nhwc with 512 "
          "channels), walked in destination order, on every target equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(24);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim row_bytes : {16, 32, 64, 128}) {
      for (int k = 0; k < 3; ++k) {
        test_case tc = make_case(kernel_kind::copy, t, t, rng);
        nest& n = tc.n;
        n.cvt = memfmt::detail::conversion{t, t};
        tc.scales.clear();
        n.stream_stores = false;  // (streamed copies keep the source's order)
        n.zero_tail = 0;
        const dim row = row_bytes / size, blocks = 2 + static_cast<dim>(rng() % 20);
        const dim pixels = 8 + static_cast<dim>(rng() % 50), pixel = (2048 << (k % 2)) / size;  // dst rows apart
        if (row * blocks > pixel) continue;
        n.nloops = 3;
        n.loops[0] = loop{blocks, pixels * row + 1, row, 0};
        n.loops[1] = loop{pixels, row, pixel, 0};
        n.loops[2] = loop{row, 1, 1, 0};
        fill_buffers(tc, blocks * (pixels * row + 1), pixels * pixel, 0, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target, {"fixed rows, destination order"});
}

TEST_CASE("converted copies of short rows, many per call: rows back to back in the source, in the destination, in "
          "both or in neither, with every kind of scales, zero points, beta and padding, on every target equal the "
          "reference",
          "[kernel]") {
  // nChw16c -> nChw8c f32 -> bf16 (rows of 8 back to back in the source, two per pixel),
  // nChw8c -> nhwc bf16 -> f32 (back to back in the destination), nChw8c -> nChw8c with
  // 3 channels (neither, zeros after each row): groups of rows, each a row of `row`
  // elements, the rows `src_row` and `dst_row` apart.
  std::mt19937_64 rng(21);
  std::vector<test_case> cases;
  static const dim row_lengths[] = {1, 2, 3, 5, 8, 15, 16, 17, 33, 63};
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 10; ++k) {
        test_case tc = make_case(kernel_kind::copy, s, d, rng);
        nest& n = tc.n;
        if (s == d) n.cvt.alpha = 0.5f;  // a conversion, whatever else was drawn
        const dim row = row_lengths[rng() % std::size(row_lengths)];
        const int layout = k % 4;  // 0: source rows back to back, 1: destination rows, 2: neither, 3: both
        const bool src_packed = layout == 0 || layout == 3, dst_packed = layout == 1 || layout == 3;
        n.zero_tail = dst_packed ? 0 : static_cast<dim>(rng() % 3);
        const dim rows = 2 + static_cast<dim>(rng() % 70), groups = 1 + static_cast<dim>(rng() % 3);
        const dim src_row = src_packed ? row : row + 1 + static_cast<dim>(rng() % 3);
        const dim dst_row = dst_packed ? row : row + n.zero_tail + 1 + static_cast<dim>(rng() % 2);
        const dim src_group = rows * src_row + static_cast<dim>(rng() % 5);
        const dim dst_group = rows * dst_row + static_cast<dim>(rng() % 5);
        // scales: none, one, per row, per element in order, per element with gaps
        dim scale_strides[3] = {0, 0, 0}, scale_elems = 0;
        switch (k % 5) {
          case 1: scale_elems = 1; break;
          case 2:
            scale_strides[1] = 1;
            scale_strides[0] = rows;
            scale_elems = groups * rows;
            break;
          case 3:
            scale_strides[2] = 1;
            scale_strides[1] = row;
            scale_strides[0] = rows * row;
            scale_elems = groups * rows * row;
            break;
          case 4:
            scale_strides[2] = 2;
            scale_strides[1] = 2 * row + 1;
            scale_strides[0] = rows * (2 * row + 1);
            scale_elems = groups * rows * (2 * row + 1);
            break;
          default: break;
        }
        n.nloops = 3;
        n.loops[0] = loop{groups, src_group, dst_group, scale_strides[0]};
        n.loops[1] = loop{rows, src_row, dst_row, scale_strides[1]};
        n.loops[2] = loop{row, 1, 1, scale_strides[2]};
        n.stream_stores = k % 3 == 0;
        fill_buffers(tc, groups * src_group, groups * dst_group, scale_elems, rng);
        if (scale_elems == 0) tc.scales.clear();
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target,
                {"converted source runs, rows moved", "rows moved, converted destination runs", "converted rows, many per call"});
}

TEST_CASE("converted copies in one pass (no zero points, no sum): rows of half a vector two per vector, rows of a "
          "vector and longer, back to back or apart on either side, with no scale, one or one per row, on every target "
          "equal the reference",
          "[kernel]") {
  // nChw16c -> nChw8c s8 -> f32 on AVX-512: rows of 8, half a vector, two per vector;
  // rows of 2, 4 and 8 are half a vector on the 128-bit targets, AVX2 and AVX-512.
  std::mt19937_64 rng(26);
  std::vector<test_case> cases;
  static const dim row_lengths[] = {2, 4, 8, 16, 3, 24, 100};
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 8; ++k) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{s, d};
        n.cvt.alpha = k % 3 == 0 && s != d ? 1.f : 0.75f;
        const dim row = k < 3 ? row_lengths[k] : row_lengths[rng() % std::size(row_lengths)];
        const bool src_packed = rng() % 2 == 0, dst_packed = rng() % 2 == 0;
        n.zero_tail = dst_packed ? 0 : static_cast<dim>(rng() % 3);
        const dim rows = 1 + static_cast<dim>(rng() % 70), groups = 1 + static_cast<dim>(rng() % 3);
        const dim src_row = src_packed ? row : row + 1 + static_cast<dim>(rng() % 9);
        const dim dst_row = dst_packed ? row : row + n.zero_tail + 1 + static_cast<dim>(rng() % 9);
        const dim src_group = rows * src_row + static_cast<dim>(rng() % 5);
        const dim dst_group = rows * dst_row + static_cast<dim>(rng() % 5);
        // scales: none, one, per row (each row's own factor)
        const int scales = static_cast<int>(rng() % 3);
        const dim scale_elems = scales == 0 ? 0 : scales == 1 ? 1 : groups * rows;
        n.nloops = 3;
        n.loops[0] = loop{groups, src_group, dst_group, scales == 2 ? rows : 0};
        n.loops[1] = loop{rows, src_row, dst_row, scales == 2 ? 1 : 0};
        n.loops[2] = loop{row, 1, 1, 0};
        n.stream_stores = k % 4 == 1;
        fill_buffers(tc, groups * src_group, groups * dst_group, scale_elems, rng);
        if (scale_elems == 0) tc.scales.clear();
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_convert_rows, {"converted rows, one pass", "rows of half a vector, two per vector"});
  require_paths(ran, fallbacks, {"converted rows, many per call"});
}

TEST_CASE("converted copies in one pass of rows whose zeros complete half a vector or a vector (nChw8c -> nChw8c "
          "with 3 channels: 3 + 5 zeros), rows apart on both sides, with negative factors, on every target equal the "
          "reference",
          "[kernel]") {
  // spans of 2, 4, 8 and 16 elements: half a vector or a vector on every SIMD target
  std::mt19937_64 rng(28);
  std::vector<test_case> cases;
  const std::pair<dim, dim> rows_and_zeros[] = {{3, 5}, {5, 3}, {1, 7}, {3, 13}, {1, 1}, {3, 1}, {1, 3}, {2, 2}, {7, 1}};
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (int k = 0; k < 6; ++k) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{s, d};
        n.cvt.alpha = k % 2 == 0 ? -0.75f : 1.f;  // (-0.75: zeros times it would be -0)
        if (s == d && n.cvt.alpha == 1.f) n.cvt.alpha = 2.f;
        const auto [row, zeros] = rows_and_zeros[rng() % std::size(rows_and_zeros)];
        n.zero_tail = zeros;
        const dim rows = 1 + static_cast<dim>(rng() % 70), span = row + zeros;
        const dim src_row = span + static_cast<dim>(rng() % 2) * static_cast<dim>(rng() % 5);
        const dim dst_row = span + static_cast<dim>(rng() % 2) * static_cast<dim>(1 + rng() % 4);
        const bool per_row = k % 3 == 2;
        n.nloops = 2;
        n.loops[0] = loop{rows, src_row, dst_row, per_row ? 1 : 0};
        n.loops[1] = loop{row, 1, 1, 0};
        n.stream_stores = k % 4 == 1;
        fill_buffers(tc, rows * src_row, rows * dst_row, per_row ? rows : 0, rng);
        if (!per_row) tc.scales.clear();
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_convert_rows, {"rows and their zeros in half a vector, two per vector"});
}

TEST_CASE("converting transposes in one pass (no zero points, no sum): a strip's rows per call before the tiles, long "
          "rows after them, with no scale, one per source row or one per source column, on every target equal the "
          "reference",
          "[kernel]") {
  std::mt19937_64 rng(27);
  std::vector<test_case> cases;
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      if (s == d) continue;  // (block_transpose_case scales type changes only)
      for (int k = 0; k < 6; ++k) {
        // few columns and many rows: transposed, then converted; else converted, then transposed
        const bool few_columns = k % 2 == 0;
        static const dim row_counts[] = {17, 64, 100, 513};
        const dim rows = few_columns ? row_counts[1 + rng() % 3] : row_counts[rng() % std::size(row_counts)];
        const dim cols = few_columns ? 1 + static_cast<dim>(rng() % 3) : 16 + static_cast<dim>(rng() % 40);
        const dim src_row = cols + static_cast<dim>(rng() % 3);
        test_case tc = block_transpose_case(s, d, rows, cols, src_row, rows + static_cast<dim>(rng() % 3), k == 3, rng);
        nest& n = tc.n;
        const int scales = k / 2;  // none, per source row (J), per source column (I)
        if (scales == 1) {
          n.loops[0].scale_stride = 1;
          tc.scales.resize(static_cast<std::size_t>(rows));
        } else if (scales == 2) {
          n.loops[1].scale_stride = 1;
          tc.scales.resize(static_cast<std::size_t>(cols));
        }
        for (float& f : tc.scales) f = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_convert_rows, {"strips converted in one pass", "transposed, then converted in one pass"});
}

TEST_CASE("converted copies and transposes in one pass with factors NaN, infinite, zero, negative zero, huge or "
          "subnormal (integer sources too: their NaN checks stay when they are multiplied), on every target equal the "
          "reference",
          "[kernel]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float factors[] = {std::numeric_limits<float>::quiet_NaN(), inf, -inf, 0.f, -0.f, 3e38f, -1e-40f, 1.f};
  std::mt19937_64 rng(29);
  std::vector<test_case> cases;
  // each row's own factor, the factors in turn from `first` (rows of 3 + 5 zeros: the
  // zeros stay +0 whatever the factor)
  const auto set_factors = [&](test_case& tc, std::size_t first) {
    for (std::size_t i = 0; i < tc.scales.size(); ++i) tc.scales[i] = factors[(first + i) % std::size(factors)];
  };
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (const auto& [row, zeros] : {std::pair<dim, dim>{8, 0}, {3, 5}, {16, 0}, {37, 0}}) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{s, d};
        n.zero_tail = zeros;
        const dim rows = 2 * static_cast<dim>(std::size(factors)) + 1;
        const dim src_row = row + zeros + static_cast<dim>(rng() % 3), dst_row = row + zeros;
        n.nloops = 2;
        n.loops[0] = loop{rows, src_row, dst_row, 1};
        n.loops[1] = loop{row, 1, 1, 0};
        fill_buffers(tc, rows * src_row, rows * dst_row, rows, rng);
        set_factors(tc, rng() % std::size(factors));
        cases.push_back(std::move(tc));
      }
      if (s == d) continue;  // (block_transpose_case scales type changes only)
      // many columns, a factor per source row: converted, then transposed
      test_case tc = block_transpose_case(s, d, 40, 19, 19, 40, false, rng);
      tc.n.loops[0].scale_stride = 1;
      tc.scales.resize(40);
      set_factors(tc, rng() % std::size(factors));
      cases.push_back(std::move(tc));
      // three columns, a factor per source column: transposed, then converted
      for (const std::size_t first : {0, 3, 6}) {
        test_case few = block_transpose_case(s, d, 64, 3, 4, 65, false, rng);  // (rows apart: not narrow strips)
        few.n.loops[1].scale_stride = 1;
        few.scales.resize(3);
        set_factors(few, first);
        cases.push_back(std::move(few));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_convert_rows,
                {"converted rows, one pass", "strips converted in one pass", "transposed, then converted in one pass"});
  require_paths(ran, avx512, {"rows and their zeros in half a vector, two per vector"});  // (3 + 5: half of 16)
}

namespace {

/// A plain copy of `count` rows of `row` elements of `t`, `src_step` and `dst_step`
/// elements apart, not streamed, with no zeros after them.
test_case plain_rows_case(data_type t, dim count, dim row, dim src_step, dim dst_step, std::mt19937_64& rng) {
  test_case tc = make_case(kernel_kind::copy, t, t, rng);
  nest& n = tc.n;
  n.cvt = memfmt::detail::conversion{t, t};
  tc.scales.clear();
  n.stream_stores = false;
  n.zero_tail = 0;
  n.nloops = 2;
  n.loops[0] = loop{count, src_step, dst_step, 0};
  n.loops[1] = loop{row, 1, 1, 0};
  fill_buffers(tc, (count - 1) * src_step + row, (count - 1) * dst_step + row, 0, rng);
  return tc;
}

}  // namespace

TEST_CASE("plain copies of rows of 384 KiB and more (copied four vectors at a time, not by memcpy) on every target "
          "equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(22);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::bf16, data_type::s8}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim extra : {0, 1, 37, 255}) {
      const dim row = (384 << 10) / size + extra;
      cases.push_back(plain_rows_case(t, 2, row, row + 3, row + 5, rng));
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, x86_simd, {"long row, vectors"});
}

TEST_CASE("plain copies of rows of a vector to 16 vectors, whole or not (f32 BA16a48b -> ab: 192 bytes), copied "
          "inline, on every target equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(23);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::f32, data_type::bf16, data_type::s8}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim bytes : {16, 24, 48, 96, 100, 192, 196, 320, 1000, 1028, 1088}) {
      if (bytes % size != 0) continue;
      const dim row = bytes / size, gap = static_cast<dim>(rng() % 7);
      cases.push_back(plain_rows_case(t, 5, row, row + gap, row + 3, rng));
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, x86_simd, {"rows of vectors, inline"});
}

TEST_CASE("plain copies of short rows back to back (nChw8c -> nChw16c, nhwc -> nChw8c), at every alignment, "
          "streamed or not, on every target equal the reference",
          "[kernel]") {
  // Rows of 4 to 64 bytes: the kernel moves whole aligned lines a line at a time and the
  // partial lines at the ends of each run row by row; the runs start at every offset
  // within a line (gaps between them of whole rows and of odd elements). Some rows are
  // followed by zeros (destination padding), some making a whole line with them.
  std::mt19937_64 rng(9);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim row_bytes : {4, 8, 16, 32, 64}) {
      for (int k = 0; k < 16; ++k) {
        test_case tc = make_case(kernel_kind::copy, t, t, rng);
        nest& n = tc.n;
        n.cvt = memfmt::detail::conversion{t, t};
        tc.scales.clear();
        n.stream_stores = k % 2 == 0;
        const dim row = row_bytes / size;
        if (row == 0) continue;
        // zeros after each row now and then (padding): up to a whole line with the row
        n.zero_tail = k % 3 == 2 ? (64 - row_bytes) / size : k % 3 == 1 ? static_cast<dim>(rng() % 3) : 0;
        const dim runs = 1 + static_cast<dim>(rng() % 5), per_run = 1 + static_cast<dim>(rng() % 9);
        const dim gap = k % 4 < 2 ? row * static_cast<dim>(rng() % 3) : 1 + static_cast<dim>(rng() % 5);
        const dim src_row = row + static_cast<dim>(rng() % 3) * row;  // source rows apart or back to back
        n.nloops = 3;
        const dim dst_row = row + n.zero_tail;
        n.loops[0] = loop{runs, per_run * src_row, per_run * dst_row + gap, 0};
        n.loops[1] = loop{per_run, src_row, dst_row, 0};
        n.loops[2] = loop{row, 1, 1, 0};
        tc.src.resize(static_cast<std::size_t>(runs * per_run * src_row * size));
        fill_random(tc.src, t, rng);
        tc.dst_init.resize(static_cast<std::size_t>(runs * (per_run * dst_row + gap) * size));
        fill_random(tc.dst_init, t, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target, {"rows back to back, by lines", "rows then zeros"});
  require_paths(ran, x86_simd, {"whole lines, streamed"});
}

TEST_CASE("plain copies whose rows fill one line per pixel from several planes (nChw8c -> nChw16c), into a "
          "destination at every offset in a line, on every target equal the reference",
          "[kernel]") {
  // Each pixel's line takes one row from each of 64 / row_bytes source planes; images a
  // few elements more than their lines apart, so that their destinations start at
  // many offsets within a line, aligned or not.
  std::mt19937_64 rng(26);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim row_bytes : {8, 16, 32}) {
      for (int k = 0; k < 4; ++k) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{t, t};
        n.stream_stores = k % 2 == 0;
        const dim row = row_bytes / size, per_line = 64 / row_bytes, line = 64 / size;
        if (row == 0) continue;
        const dim pixels = 1 + static_cast<dim>(rng() % 40), images = 4;
        const dim plane = pixels * row + row * static_cast<dim>(rng() % 2);
        const dim src_image = per_line * plane, dst_image = pixels * line + 1 + static_cast<dim>(rng() % 7);
        n.nloops = 4;
        n.loops[0] = loop{images, src_image, dst_image, 0};
        n.loops[1] = loop{pixels, row, line, 0};
        n.loops[2] = loop{per_line, plane, row, 0};
        n.loops[3] = loop{row, 1, 1, 0};
        tc.src.resize(static_cast<std::size_t>(images * src_image * size));
        fill_random(tc.src, t, rng);
        tc.dst_init.resize(static_cast<std::size_t>(images * dst_image * size));
        fill_random(tc.dst_init, t, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target, {"a line per outer step"});
}

TEST_CASE("plain copies of rows followed by zeros up to 16, 32 or 64 bytes (the last channel block of nChw16c "
          "with 17 or 71 channels), streamed or not, on every target equal the reference",
          "[kernel]") {
  // Every row length below the span, so that a row is moved in one piece or in two
  // overlapping ones; the spans back to back or farther apart; images whole lines apart
  // in a destination that starts on a line, or 16 bytes further apart, so that some
  // spans start on a line whatever the buffer's own alignment.
  std::mt19937_64 rng(23);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim span : {16, 32, 64}) {
      for (dim row = 1; row < span / size; ++row) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{t, t};
        n.stream_stores = row % 2 == 1;
        n.zero_tail = span / size - row;
        const dim pixels = 1 + static_cast<dim>(rng() % 40);
        const dim src_pixel = row + static_cast<dim>(rng() % 3);
        const dim dst_pixel = span / size * (1 + static_cast<dim>(rng() % 2));
        // every other row: images whole lines apart in a destination that starts on a line
        // (as in nChw16c), else 16 bytes further apart
        const bool on_lines = row % 4 < 2;
        if (on_lines) tc.dst_line_offset = 0;
        const dim images = 4, image = pixels * dst_pixel + (on_lines ? 64 * (row % 2) : 16) / size;
        n.nloops = 3;
        n.loops[0] = loop{images, pixels * src_pixel, image, 0};
        n.loops[1] = loop{pixels, src_pixel, dst_pixel, 0};
        n.loops[2] = loop{row, 1, 1, 0};
        tc.src.resize(static_cast<std::size_t>(images * pixels * src_pixel * size));
        fill_random(tc.src, t, rng);
        tc.dst_init.resize(static_cast<std::size_t>(images * image * size));
        fill_random(tc.dst_init, t, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, avx512, {"rows and zeros in a line, streamed", "rows then zeros"});
  require_paths(ran, HWY_AVX2 | HWY_SSE4, {"rows into zeros", "rows into zeros, streamed lines"});
}

TEST_CASE("copies of short rows back to back along the outer loop, a run per inner row (the channel blocks "
          "of each pixel), at every alignment, streamed or not, on every target equal the reference",
          "[kernel]") {
  // Loops (images, pixels, blocks, row) as tile_rows makes them for nhwc -> nChw8c: the rows of
  // a pixel are side by side in the source (after them, the pixel's other channels); in
  // the destination, each block's rows are a run of their own (a plane). The kernel fills
  // a line of every run from a few pixels; each run's rows before its first whole line
  // and after its last go through the cache, and the runs start at every offset within
  // a line. Conversions walk the same nests row by row, each run in turn. With few_rows
  // blocks or more, the kernel owns only the blocks and their rows.
  std::mt19937_64 rng(21);
  std::vector<test_case> cases;
  const std::pair<data_type, data_type> pairs[] = {
      {data_type::f32, data_type::f32}, {data_type::bf16, data_type::bf16}, {data_type::s8, data_type::s8},
      {data_type::f32, data_type::bf16}, {data_type::f32, data_type::s8}, {data_type::u8, data_type::f32}};
  for (const auto& [from, to] : pairs) {
    const auto size = static_cast<dim>(memfmt::data_type_size(to));
    const bool plain = from == to;
    for (const dim row_bytes : {4, 8, 16, 32}) {
      const dim row = row_bytes / size;
      if (row == 0) continue;
      for (int k = 0; k < 12; ++k) {
        test_case tc;
        nest& n = tc.n;
        n.kind = kernel_kind::copy;
        n.cvt = memfmt::detail::conversion{from, to};
        if (!plain) n.cvt.alpha = 0.75f;
        n.stream_stores = k % 2 == 0;
        const dim blocks = k == 11 ? memfmt::detail::nest::few_rows + static_cast<dim>(rng() % 3) : 2 + static_cast<dim>(rng() % 14);
        const dim pixels = 1 + static_cast<dim>(rng() % 70);
        const dim src_pixel = blocks * row + static_cast<dim>(rng() % 3) * static_cast<dim>(rng() % 8);
        // planes whole rows apart (every run starts at a row boundary of a line), or not
        const dim gap = k % 4 == 3 ? 1 + static_cast<dim>(rng() % 5) : row * static_cast<dim>(rng() % 5);
        const dim plane = pixels * row + gap;
        // images around them, the next one 16 bytes further on in the line than the last
        // (whatever the buffer's own alignment, rows of 32 bytes meet both cases)
        const dim images = 1 + static_cast<dim>(rng() % 3), image = blocks * plane + 16 / size;
        n.nloops = 4;
        n.loops[0] = loop{images, pixels * src_pixel, image, 0};
        n.loops[1] = loop{pixels, src_pixel, row, 0};
        n.loops[2] = loop{blocks, row, plane, 0};
        n.loops[3] = loop{row, 1, 1, 0};
        tc.src.resize(static_cast<std::size_t>(images * pixels * src_pixel) * memfmt::data_type_size(from));
        fill_random(tc.src, from, rng);
        tc.dst_init.resize(static_cast<std::size_t>(images * image * size));
        fill_random(tc.dst_init, to, rng);
        cases.push_back(std::move(tc));
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target, {"runs along the outer loop"});
}

TEST_CASE("plain copies of 2 or 4 runs of rows zipped into one run, and of one run unzipped into 2 or 4 (s8 "
          "nChw8c <-> nChw16c, bf16 nChw4c <-> nChw8c), rows of 4 or 8 bytes, any count of pixels, at every "
          "alignment, streamed or not, on every target equal the reference",
          "[kernel]") {
  // Loops (images, pixels, runs, row). Zipped: each run a plane of the source (rows back
  // to back), the runs' rows side by side in the destination; unzipped the other way.
  // Pixels from 1 (no whole vector) to 70 (vectors and a tail); planes back to back or
  // a few elements apart; images 16 bytes further on in a line than whole rows would be.
  std::mt19937_64 rng(31);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim row_bytes : {4, 8}) {
      for (const dim runs : {2, 4}) {
        for (int k = 0; k < 8; ++k) {
          const dim row = row_bytes / size;
          if (row == 0) continue;
          const bool zip = k % 2 == 0;
          test_case tc;
          nest& n = tc.n;
          n.kind = kernel_kind::copy;
          n.cvt = memfmt::detail::conversion{t, t};
          n.stream_stores = k % 4 >= 2;
          const dim pixels = k < 2 ? 1 + static_cast<dim>(rng() % 3) : 1 + static_cast<dim>(rng() % 70);
          const dim plane = pixels * row + (k % 3 == 0 ? 0 : static_cast<dim>(rng() % 5));
          const dim planes = runs * plane, packed = pixels * runs * row;
          const dim images = 1 + static_cast<dim>(rng() % 3);
          const dim src_image = (zip ? planes : packed) + 16 / size, dst_image = (zip ? packed : planes) + 16 / size;
          n.nloops = 4;
          n.loops[0] = loop{images, src_image, dst_image, 0};
          n.loops[1] = zip ? loop{pixels, row, runs * row, 0} : loop{pixels, runs * row, row, 0};
          n.loops[2] = zip ? loop{runs, plane, row, 0} : loop{runs, row, plane, 0};
          n.loops[3] = loop{row, 1, 1, 0};
          fill_buffers(tc, images * src_image, images * dst_image, 0, rng);
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, x86_simd, {"runs zipped", "run unzipped"});
}

TEST_CASE("transposes of 2 to 4 source columns in wider source rows (nChw16c -> nchw with 3 channels), plain "
          "(2 or 3 staged packed, then loaded interleaved) or converting, with a scale per column or a sum, 7 to "
          "1000 rows (fewer than a vector's lanes go as before), on every target equal the reference",
          "[kernel]") {
  std::mt19937_64 rng(32);
  std::vector<test_case> cases;
  static const dim row_counts[] = {7, 16, 17, 100, 513, 1000};
  for (const data_type s : all_types) {
    for (const data_type d : all_types) {
      for (const dim cols : {2, 3, 4}) {
        for (int k = 0; k < 3; ++k) {
          const dim rows = row_counts[rng() % std::size(row_counts)];
          const dim src_row = cols + 1 + static_cast<dim>(rng() % 13);
          test_case tc = block_transpose_case(s, d, rows, cols, src_row, rows + static_cast<dim>(rng() % 3), false, rng);
          if (s != d && k == 1) {  // a scale per column
            tc.n.loops[1].scale_stride = 1;
            tc.scales.resize(static_cast<std::size_t>(cols));
            for (float& f : tc.scales) f = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
          }
          if (s != d && k == 2) tc.n.cvt.beta = 0.5f;  // (reads the destination)
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles, {"interleaved loads, staged"});
}

TEST_CASE("tiles of units spread on one side, zipped or unzipped a vector per part (u8 ab <-> BA16a64b4a, bf16 ab "
          "<-> BA16a64b2a, f32 ab <-> BA16a16b2a, BA16a16b4a), streamed or not, at every offset in a line, on every target equal the reference",
          "[kernel]") {
  // A tile nest of no rows: per outer iteration, `cols` columns whose units of m parts
  // lie m rows apart on the plain side and back to back on the other. Column counts
  // around a vector and a line leave tails after the whole vectors; streamed and not;
  // 1-byte elements in units of 2, 4 and 8 parts, 2-byte in 2 and 4, 4-byte in 2 and 4
  // (8 parts are not zipped: the lane by lane route; after the whole vectors, pairs go
  // lane by lane, fours unit by unit).
  std::mt19937_64 rng(41);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::u8, data_type::s8, data_type::bf16, data_type::f16, data_type::f32}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim m : {2, 4, 8}) {
      if (m * size > (size == 4 ? 16 : 8)) continue;  // (4-byte elements: pairs and fours)
      for (const bool pack : {true, false})
        for (const dim cols : {1, 15, 16, 31, 33, 64, 100}) {
          test_case tc;
          nest& n = tc.n;
          n.kind = kernel_kind::tile;
          n.cvt = memfmt::detail::conversion{t, t};
          n.stream_stores = cols % 2 == 0;
          n.tile_unit = static_cast<int>(m);
          n.tile_column_loops = 1;
          const dim row = cols + static_cast<dim>(rng() % 3);  // the plain side's rows, a little longer
          // (no outer loop for some: the kernel zips one block; else a run of them in one loop)
          const bool outer_loop = cols % 3 != 0;
          const dim outer = outer_loop ? 1 + static_cast<dim>(rng() % 4) : 1, block = m * row;
          n.nloops = 3;
          n.loops[0] = loop{outer, pack ? block : m * cols + 3, pack ? m * cols + 3 : block, 0};
          n.loops[1] = pack ? loop{cols, 1, m, 0} : loop{cols, m, 1, 0};
          n.loops[2] = pack ? loop{m, row, 1, 0} : loop{m, 1, row, 0};
          if (!outer_loop) {
            n.nloops = 2;
            n.loops[0] = n.loops[1];
            n.loops[1] = n.loops[2];
          }
          const dim src_count = pack ? outer * block : outer * (m * cols + 3);
          const dim dst_count = pack ? outer * (m * cols + 3) : outer * block;
          tc.src.resize(static_cast<std::size_t>(src_count * size));
          fill_random(tc.src, t, rng);
          tc.dst_init.resize(static_cast<std::size_t>(dst_count * size));
          fill_random(tc.dst_init, t, rng);
          cases.push_back(std::move(tc));
        }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target,
                {"spread units zipped", "spread units unzipped", "spread units straight, blocks in one loop"});
}

TEST_CASE("tiles of units spread on the plain side whose columns come in runs on the other (u8 ab <-> "
          "BA16a16b4a, BA4b8a8b4a; bf16 ab <-> BA4b8a8b2a; s32 ab <-> BA4b8a8b2a), on every target equal the reference",
          "[kernel]") {
  // A tile nest of no rows whose columns, dense along m rows of the plain side, lie in
  // runs of `run` units on the other: 2 or 3 column loops (the outermost of extent 1
  // too, as a split for threads leaves it), runs `gap` elements apart or back to back,
  // the runs' groups apart likewise. Runs of a vector's columns, a part of one, several,
  // or none of these (48: a vector at a time within a run where it is not); the bytes
  // between runs stay as they were.
  std::mt19937_64 rng(43);
  std::vector<test_case> cases;
  for (const data_type t : {data_type::u8, data_type::s8, data_type::bf16, data_type::f16, data_type::s32}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(t));
    for (const dim m : {2, 4, 8}) {
      if (m * size > (size == 4 ? 16 : 8)) continue;  // (4-byte elements: pairs and fours)
      for (const bool pack : {true, false})
        for (const dim run : {2, 8, 16, 32, 48, 64})
          for (const dim e1 : {2, 5})
            for (const dim e2 : {0, 1, 3}) {  // (0: no third loop)
              test_case tc;
              nest& n = tc.n;
              n.kind = kernel_kind::tile;
              n.cvt = memfmt::detail::conversion{t, t};
              n.stream_stores = e1 == 5;
              n.tile_unit = static_cast<int>(m);
              const dim gap = static_cast<dim>(rng() % 2) * (1 + static_cast<dim>(rng() % 5));
              const dim s1 = run * m + gap, s2 = e1 * s1 + gap;  // steps of runs and groups of them
              const dim groups = std::max<dim>(e2, 1);
              const dim cols = run * e1 * groups, row = cols + static_cast<dim>(rng() % 3);
              const dim outer = 1 + static_cast<dim>(rng() % 3), plain = m * row, blocked = groups * s2 + 1;
              // (the plain side's, then the blocked side's stride of each loop)
              const auto at = [pack](dim extent, dim plain_stride, dim blocked_stride) {
                return pack ? loop{extent, plain_stride, blocked_stride, 0} : loop{extent, blocked_stride, plain_stride, 0};
              };
              n.nloops = 0;
              n.loops[n.nloops++] = at(outer, plain, blocked);
              if (e2 > 0) n.loops[n.nloops++] = at(e2, run * e1, s2);
              n.loops[n.nloops++] = at(e1, run, s1);
              n.loops[n.nloops++] = at(run, 1, m);
              n.loops[n.nloops++] = at(m, row, 1);
              n.tile_column_loops = e2 > 0 ? 3 : 2;
              tc.src.resize(static_cast<std::size_t>(outer * (pack ? plain : blocked) * size));
              fill_random(tc.src, t, rng);
              tc.dst_init.resize(static_cast<std::size_t>(outer * (pack ? blocked : plain) * size));
              fill_random(tc.dst_init, t, rng);
              cases.push_back(std::move(tc));
            }
    }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, any_target, {"spread units zipped, runs of columns", "spread units unzipped, runs of columns"});
}

TEST_CASE("tiles with rows, the last few columns or rows unit by unit, on every target equal the reference",
          "[kernel]") {
  // A tile nest of `rows` rows dense in the destination by `cols` columns dense in the
  // source, per outer iteration: whole units of 1, 2 and 4 bytes (zeros after the rows:
  // a padded block), units of m parts spread in the source (packing OIhw4i16o4i from
  // oihw; f32 pairs: ABcd8a2b; f32 fours, which the planner leaves to straight tiles
  // and the kernel moves unit by unit), or in the destination (the way back). Column counts leave no tail, a tail of
  // a tile, or one or two columns, which go unit by unit; so do a row or two after whole
  // tiles (9 rows; 5 rows and 4 zeros). Whole units also come with their columns in two
  // loops, the inner one the outer in dst (OIhw4i16o4i -> oihw: columns 16o x 4i), also
  // more of them than a chunk of the kernel's column table holds (1026 and 1053: three
  // chunks, the last of 2 columns, which go unit by unit, or of 29, a partial tile), in
  // one loop, or in two whose inner one (of 9) ends mid-chunk.
  // Streamed or not by the parity of rows + columns.
  std::mt19937_64 rng(43);
  std::vector<test_case> cases;
  struct shape {
    data_type t;
    dim m;      // parts per unit (1: whole units)
    int spread;  // 0: none, 1: in the source, 2: in the destination
  };
  for (const shape& sh : {shape{data_type::f32, 1, 0}, shape{data_type::bf16, 1, 0}, shape{data_type::u8, 1, 0},
                          shape{data_type::u8, 4, 1}, shape{data_type::bf16, 2, 1}, shape{data_type::u8, 4, 2},
                          shape{data_type::bf16, 2, 2}, shape{data_type::f32, 2, 1}, shape{data_type::f32, 2, 2},
                          shape{data_type::f32, 4, 1}, shape{data_type::f32, 4, 2}}) {
    const auto size = static_cast<dim>(memfmt::data_type_size(sh.t));
    for (const dim rows : {4, 5, 9, 12, 64})
      for (const dim cols : {1, 2, 8, 9, 10, 13, 17, 33, 1026, 1053})
        for (const bool split : {false, true}) {
          const dim q = cols > 512 ? 9 : 2;  // the inner column loop's extent when split
          if (split && (sh.m > 1 || cols % q != 0)) continue;
          test_case tc;
          nest& n = tc.n;
          n.kind = kernel_kind::tile;
          n.cvt = memfmt::detail::conversion{sh.t, sh.t};
          n.stream_stores = (rows + cols) % 2 == 1;
          n.tile_unit = static_cast<int>(sh.m);
          n.tile_row_loops = 1;
          n.tile_column_loops = 1;
          // (zeros: whole units only)
          const dim m = sh.m, tail = sh.spread == 0 && (rows == 12 || rows == 5) ? 4 : 0;
          n.zero_tail = tail;
          const dim outer = 1 + static_cast<dim>(rng() % 3), block = rows * cols * m, dst_block = (rows + tail) * cols * m;
          n.nloops = sh.m > 1 ? 4 : 3;
          n.loops[0] = loop{outer, block, dst_block, 0};
          if (sh.spread == 2) {  // units whole in the source, parts rows * cols apart in dst
            n.loops[1] = loop{rows, m * cols, 1, 0};
            n.loops[2] = loop{cols, m, rows, 0};
            n.loops[3] = loop{m, 1, rows * cols, 0};
          } else {  // parts cols apart in the source (spread) or whole units in both
            n.loops[1] = loop{rows, m * cols, m, 0};
            n.loops[2] = loop{cols, 1, m * (rows + tail), 0};
            if (sh.m > 1) n.loops[3] = loop{m, cols, 1, 0};
          }
          if (sh.m == 1) {
            n.loops[1] = loop{rows, cols, 1, 0};
            n.loops[2] = loop{cols, 1, rows + tail, 0};
          }
          if (split) {  // columns c = qa + b at a + b * cols / q in dst
            n.nloops = 4;
            n.tile_column_loops = 2;
            n.loops[2] = loop{cols / q, q, rows + tail, 0};
            n.loops[3] = loop{q, 1, (rows + tail) * (cols / q), 0};
          }
          tc.src.resize(static_cast<std::size_t>(outer * block * size));
          fill_random(tc.src, sh.t, rng);
          tc.dst_init.resize(static_cast<std::size_t>(outer * dst_block * size));
          fill_random(tc.dst_init, sh.t, rng);
          cases.push_back(std::move(tc));
        }
  }
  const paths_by_kernel ran = check_cases(cases);
  require_paths(ran, with_tiles,
                {"last columns unit by unit", "last rows unit by unit", "whole tiles", "columns in chunks"});
}

TEST_CASE("transposes of a broadcast source (source rows 0 apart) on every target equal the reference", "[kernel]") {
  // Every row of the block is the same source row, as a source stride of 0 gives: the
  // kernels that size their work by the distance between source rows must not divide
  // by it. Rows up to several runs, columns with every remainder of a tile, destination
  // rows packed, a line apart or farther.
  std::mt19937_64 rng(73);
  std::vector<test_case> cases;
  for (const data_type t : all_types) {
    for (const dim rows : {dim{1}, dim{5}, dim{16}, dim{33}, dim{300}}) {
      for (const dim cols : {dim{1}, dim{3}, dim{4}, dim{17}, dim{40}, dim{130}}) {
        const dim line = 64 / static_cast<dim>(memfmt::data_type_size(t));
        for (const dim dst_row : {rows, (rows + line - 1) / line * line, rows + 2 * line + 1}) {
          test_case tc = block_transpose_case(t, t, rows, cols, 0, dst_row, false, rng, 2, 0, cols);
          cases.push_back(std::move(tc));
        }
      }
    }
  }
  check_cases(cases);
}

TEST_CASE("every kernel kind with buffers that start anywhere in a line, elements split, on every x86 SIMD target "
          "equals the reference",
          "[kernel]") {
  // Buffers need not be aligned to their elements: no kernel may access them as typed
  // elements (the sanitizers' alignment check fails the test). Not on EMU128 and
  // SCALAR, whose Highway 1.0.3 loads and stores move vectors as typed elements.
  std::vector<test_case> cases;
  std::mt19937_64 rng(79);
  const dim offsets[] = {1, 2, 3, 5, 17, 33, 62, 63};
  for (const kernel_kind kind : {kernel_kind::copy, kernel_kind::transpose, kernel_kind::gather, kernel_kind::strided,
                                 kernel_kind::zero_fill}) {
    for (test_case& tc : make_cases(kind, 1, 80 + static_cast<std::uint64_t>(kind))) cases.push_back(std::move(tc));
  }
  for (const data_type from : all_types)
    for (const data_type to : all_types) cases.push_back(make_interleave_case(from, to, rng));
  for (test_case& tc : cases) {
    tc.src_line_offset = offsets[rng() % std::size(offsets)];
    tc.dst_line_offset = offsets[rng() % std::size(offsets)];
  }
  const paths_by_kernel ran = check_cases(cases, x86_simd);
  if ((hwy::SupportedTargets() & memfmt::detail::kernel_targets_compiled() & x86_simd) != 0) CHECK(!ran.empty());
}

TEST_CASE("a kind whose stride contract does not hold still runs correctly", "[kernel]") {
  // The plan should never do this; the kernels fall back to strided rows.
  std::mt19937_64 rng(5);
  std::vector<test_case> cases;
  for (int k = 0; k < 40; ++k) {
    const data_type s = all_types[rng() % std::size(all_types)], d = all_types[rng() % std::size(all_types)];
    test_case tc = make_case(kernel_kind::strided, s, d, rng);
    tc.n.kind = k % 2 == 0 ? kernel_kind::copy : kernel_kind::transpose;
    cases.push_back(std::move(tc));
  }
  check_cases(cases);
}

TEST_CASE("the kernels of every target of this CPU run, AVX-512 included where the CPU has it", "[kernel]") {
  const std::int64_t cpu = hwy::SupportedTargets();
  const paths_by_kernel ran = check_cases(make_cases(kernel_kind::copy, 1, 6));
  std::string names;
  for (const auto& [t, paths] : ran) names += std::string(" ") + hwy::TargetName(t);
  std::printf("kernel targets exercised:%s\n", names.c_str());
  // Each target memfmt compiled and the CPU has ran (the baseline flags decide
  // what is compiled: with -mavx2 there is no SSE4 or scalar code to run).
  const std::int64_t compiled = memfmt::detail::kernel_targets_compiled();
  for (const std::int64_t t : {HWY_AVX3, HWY_AVX2, HWY_SSE4, HWY_EMU128, HWY_SCALAR}) {
    if ((compiled & t) && (cpu & t)) CHECK(ran.count(t) == 1);
  }
  // Without a mock, run_nest uses the best target.
  if ((compiled & HWY_AVX3) && (cpu & HWY_AVX3)) CHECK(memfmt::detail::kernel_target_now() == HWY_AVX3);
}
