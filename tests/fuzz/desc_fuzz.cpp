// Fuzzes the descriptor's constructors (string tag, strides, any) and what derives new
// descriptors from them (submemory_desc, reshape, permute_axes), plus offset, matches,
// tag_str and str. Bad input may only throw memfmt::error (or give the zero desc with
// allow_empty); anything else escaping, a crash, UB or a broken invariant is a failure.
//
// Input: a header byte (mode, allow_empty, data type), the dims, then the layout (tag text,
// a tag name or strides), then operations until the input ends. Numbers are one byte
// (0..71, or a small negative), or with a marker byte, eight raw bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <memfmt/memfmt.hpp>

namespace {

using memfmt::data_type;
using memfmt::desc;
using memfmt::dim;
using memfmt::dims;

constexpr std::string_view tag_names[] = {
#define MEMFMT_TAG_NAME(name) #name,
#include "memfmt/tag/onednn_names.inc"
#undef MEMFMT_TAG_NAME
};

constexpr data_type types[] = {data_type::f32, data_type::bf16,    data_type::f16,     data_type::s32, data_type::s8,
                               data_type::u8,  data_type::f8_e5m2, data_type::f8_e4m3, data_type::f64, data_type::undef};

std::string show(const dims& v) {
  std::string s = "{";
  for (int i = 0; i < v.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

[[noreturn]] void broken(const char* what, const desc& d) {
  std::fprintf(stderr, "desc_fuzz: invariant broken: %s\n  desc %s dims %s padded %s strides %s offset0 %lld\n", what,
               d.str().c_str(), show(d.get_dims()).c_str(), show(d.get_padded_dims()).c_str(),
               show(d.get_strides()).c_str(), static_cast<long long>(d.get_submemory_offset()));
  std::abort();
}
#define FUZZ_CHECK(cond, d) \
  do {                      \
    if (!(cond)) broken(#cond, d); \
  } while (0)

class reader {
 public:
  reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  /// 0..71 mostly; negative or a raw 64-bit value when asked for by the byte.
  dim number() {
    const std::uint8_t s = byte();
    if (s < 0xC0) return s % 72;
    if (s < 0xE0) return -static_cast<dim>(s - 0xBF);
    std::uint64_t raw = 0;
    for (int i = 0; i < 8; ++i) raw = raw << 8 | byte();
    return static_cast<dim>(raw);
  }
  /// Up to 13 numbers: one more than a dims may hold, to reach its capacity check.
  std::vector<dim> numbers() {
    std::vector<dim> v(byte() % 14);
    for (dim& x : v) x = number();
    return v;
  }
  std::string text() {
    std::string s(byte() % 24, '\0');
    for (char& c : s) c = static_cast<char>(byte());
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// Runs `f`; memfmt::error is an accepted outcome, and reports false.
template <class F>
bool attempt(F&& f) {
  try {
    f();
    return true;
  } catch (const memfmt::error& e) {
    if (std::strlen(e.what()) == 0) std::abort();  // every error says something
    return false;
  }
}

/// An index inside `d` chosen by the input.
dims some_index(reader& in, const desc& d) {
  dims index = dims::filled(d.get_ndims(), 0);
  for (int i = 0; i < d.get_ndims(); ++i) index[i] = d.get_dims()[i] > 0 ? static_cast<dim>(in.byte()) % d.get_dims()[i] : 0;
  return index;
}

/// Another data type of the same size.
data_type same_size_other(data_type t) {
  switch (t) {
    case data_type::f32: return data_type::s32;
    case data_type::s32: return data_type::f32;
    case data_type::bf16: return data_type::f16;
    case data_type::f16: return data_type::bf16;
    case data_type::s8: return data_type::u8;
    case data_type::u8: return data_type::s8;
    case data_type::f8_e5m2: return data_type::f8_e4m3;
    case data_type::f8_e4m3: return data_type::f8_e5m2;
    case data_type::s4: return data_type::u4;
    case data_type::u4: return data_type::s4;
    case data_type::f64:  // (the only type of 8 bytes)
    case data_type::undef: break;
  }
  return data_type::undef;
}

/// The elements of a buffer for `d` (0 when `d` has none, or is no blocked tensor).
dim elements(const desc& d) {
  if (d.get_format_kind() != memfmt::format_kind::blocked || d.has_zero_dim()) return 0;
  return static_cast<dim>(d.get_size() / memfmt::data_type_size(d.get_data_type()));
}

/// What every descriptor must satisfy; `bound` is the number of elements of the buffer it
/// lives in: views, reshapes and permutations stay inside their source's buffer.
void check_invariants(const desc& d, dim bound, reader& in) {
  const desc copy = d;
  FUZZ_CHECK(copy == d, d);
  FUZZ_CHECK(!d.str().empty(), d);
  FUZZ_CHECK(d.is_zero() == (d == desc()), d);
  if (d.is_zero()) {
    FUZZ_CHECK(d.get_size() == 0, d);
    return;
  }
  FUZZ_CHECK(d.get_ndims() >= 1 && d.get_ndims() <= memfmt::max_ndims, d);
  if (d.get_format_kind() != memfmt::format_kind::blocked) {
    FUZZ_CHECK(d.get_size() == 0, d);
    return;
  }
  const std::string tag = d.tag_str();
  const memfmt::tag_parse_result parsed = memfmt::parse_tag(tag);
  FUZZ_CHECK(parsed.ok(), d);
  FUZZ_CHECK(parsed.layout.ndims == d.get_ndims(), d);
  // Equality compares what a descriptor holds: the same tensor built again through another
  // constructor is equal, and the same layout of another data type of the same size is
  // not. A descriptor that starts at its buffer's start is rebuilt from its tag when it is
  // that tag's dense layout, and from its strides when it has no inner block. (A rebuild
  // may refuse dims that only the other constructor accepts, e.g. over 2^62.)
  bool from_start = d.get_submemory_offset() == 0;
  for (dim v : d.get_padded_offsets()) from_start = from_start && v == 0;
  const auto rebuilt_equal = [&](auto layout) {
    desc same, retyped;
    if (attempt([&] { same = desc(d.get_dims(), d.get_data_type(), layout); }))
      FUZZ_CHECK(same == d, d);
    if (attempt([&] { retyped = desc(d.get_dims(), same_size_other(d.get_data_type()), layout); }))
      FUZZ_CHECK(!(retyped == d), d);
  };
  if (from_start && d.matches(tag)) rebuilt_equal(std::string_view(tag));
  if (from_start && d.get_inner_nblks() == 0 && d.get_padded_dims() == d.get_dims()) rebuilt_equal(d.get_strides());
  for (int i = 0; i < d.get_ndims(); ++i) {
    FUZZ_CHECK(d.get_dims()[i] >= 0, d);
    FUZZ_CHECK(d.get_padded_dims()[i] >= d.get_dims()[i], d);
    FUZZ_CHECK(d.get_strides()[i] >= 0, d);
  }
  FUZZ_CHECK(d.get_size() % memfmt::data_type_size(d.get_data_type()) == 0, d);
  if (d.has_zero_dim()) {
    FUZZ_CHECK(d.get_size() == 0, d);
    return;
  }
  if (bound == 0) return;
  // The first, the last and one chosen element lie inside the buffer.
  dims last = d.get_dims();
  for (dim& v : last) v -= 1;
  for (const dims& index : {dims::filled(d.get_ndims(), 0), last, some_index(in, d)}) {
    const dim off = d.offset(index);
    FUZZ_CHECK(off >= 0 && off < bound, d);
  }
}

void run_operations(reader& in, desc d, dim bound) {
  check_invariants(d, bound, in);
  for (int step = 0; step < 16 && !in.empty() && !d.is_zero(); ++step) {
    const std::uint8_t op = in.byte();
    const bool allow_empty = (op & 0x80) != 0;
    desc next;
    switch (op % 8) {
      case 0: {  // a view, whose elements are the parent's, shifted
        dims sizes, offsets;
        bool read = attempt([&] {
          for (int i = 0; i < d.get_ndims(); ++i) sizes.push_back(in.number());
          for (int i = 0; i < d.get_ndims(); ++i) offsets.push_back(in.number());
        });
        if (!read) return;
        if (!attempt([&] { next = d.submemory_desc(sizes, offsets, allow_empty); }) || next.is_zero()) break;
        if (!next.has_zero_dim()) {
          const dims index = some_index(in, next);
          dims shifted = index;
          for (int i = 0; i < index.size(); ++i) shifted[i] += offsets[i];
          FUZZ_CHECK(next.offset(index) == d.offset(shifted), next);
        }
        d = next;
        break;
      }
      case 1: {  // reshape: the elements stay where they are, in row-major order
        std::vector<dim> new_dims = in.numbers();
        if (!attempt([&] { next = d.reshape(new_dims, allow_empty); }) || next.is_zero()) break;
        if (!next.has_zero_dim() && next.get_format_kind() == memfmt::format_kind::blocked) {
          const dims index = some_index(in, next);
          dim linear = 0;
          for (int i = 0; i < index.size(); ++i) linear = linear * next.get_dims()[i] + index[i];
          dims old_index = dims::filled(d.get_ndims(), 0);
          for (int i = d.get_ndims() - 1; i >= 0; --i) {
            old_index[i] = linear % d.get_dims()[i];
            linear /= d.get_dims()[i];
          }
          FUZZ_CHECK(next.offset(index) == d.offset(old_index), next);
        }
        d = next;
        break;
      }
      case 2: {  // permute_axes by a fuzzed (maybe invalid) permutation
        std::vector<int> perm(static_cast<std::size_t>(in.byte() % 2 == 0 ? d.get_ndims() : in.byte() % 14));
        for (int& p : perm) p = static_cast<int>(in.byte() % (d.get_ndims() + 2)) - 1;
        if (!attempt([&] { next = d.permute_axes(perm, allow_empty); }) || next.is_zero()) break;
        if (next.get_format_kind() == memfmt::format_kind::blocked && !next.has_zero_dim()) {
          const dims index = some_index(in, d);
          dims moved = index;
          for (int i = 0; i < index.size(); ++i) moved[perm[static_cast<std::size_t>(i)]] = index[i];
          FUZZ_CHECK(next.offset(moved) == d.offset(index), next);
        }
        // Undoing the permutation gives the descriptor back.
        std::vector<int> inverse(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
        FUZZ_CHECK(next.permute_axes(inverse) == d, next);
        d = next;
        break;
      }
      case 3: {  // offset of a fuzzed index: inside the dims or an error
        dims index;
        if (!attempt([&] {
              for (int i = 0; i < d.get_ndims(); ++i) index.push_back(in.number());
            }))
          return;
        attempt([&] { (void)d.offset(index); });
        break;
      }
      case 4: {  // matching a oneDNN tag name or fuzzed text; a match has the tag's ndims
        const std::string tag = (op & 0x40) != 0 ? in.text() : std::string(tag_names[in.byte() % std::size(tag_names)]);
        if (d.matches(tag)) FUZZ_CHECK(memfmt::parse_tag(tag).layout.ndims == d.get_ndims(), d);
        break;
      }
      case 5: {  // reshape to the same dims changes nothing
        if (!attempt([&] { next = d.reshape(d.get_dims(), true); })) std::abort();
        // Unless a unit dim is padded (as in oneDNN) or blocked (a view of one index of a
        // blocked dim): it then pairs with the innermost unit dim of the output (a {2,1,1}
        // aBc8b becomes padded {2,1,8}); the elements stay where they are.
        bool kept_unit_dim = false;
        const dims blocks = d.get_blocks();
        for (int i = 0; i < d.get_ndims(); ++i)
          kept_unit_dim = kept_unit_dim || (d.get_dims()[i] == 1 && (d.get_padded_dims()[i] != 1 || blocks[i] > 1));
        const bool blocked = d.get_format_kind() == memfmt::format_kind::blocked;
        if (kept_unit_dim && blocked && !next.is_zero() && !d.has_zero_dim()) {
          const dims index = some_index(in, d);
          FUZZ_CHECK(next.offset(index) == d.offset(index), next);
        }
        // A tensor with a dim of 0 has no element for its strides to place: the strides of
        // its other dims are whatever reshape derives.
        if (!next.is_zero() && !kept_unit_dim && !d.has_zero_dim() && !(next == d)) {
          std::fprintf(stderr, "reshaped: padded %s strides %s\n", show(next.get_padded_dims()).c_str(),
                       show(next.get_strides()).c_str());
          broken("reshape(get_dims()) == d", d);
        }
        break;
      }
      case 6: {  // a plain descriptor of the same dims
        if (d.get_format_kind() != memfmt::format_kind::blocked) break;
        if (!attempt([&] { next = d.plain(); })) break;
        FUZZ_CHECK(next.get_dims() == d.get_dims(), next);
        FUZZ_CHECK(next.matches(std::string_view("abcdefghijkl").substr(0, static_cast<std::size_t>(d.get_ndims()))), next);
        d = next;
        bound = elements(d);
        break;
      }
      default:
        check_invariants(d, bound, in);
        break;
    }
    check_invariants(d, bound, in);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in(data, size);
  const std::uint8_t header = in.byte();
  const int mode = header & 3;
  const bool allow_empty = (header & 4) != 0;
  const data_type dt = types[(header >> 3) % std::size(types)];
  std::vector<dim> dim_values = in.numbers();
  desc d;
  bool made = false;
  switch (mode) {
    case 0: {  // fuzzed tag text; a bad tag's message quotes it
      const std::string tag = in.text();
      const memfmt::tag_parse_result r = memfmt::parse_tag(tag);
      if (!r.ok()) {
        const std::string message = memfmt::explain(tag, r);
        if (message.find("tag '" + tag + "'") != 0) std::abort();
      } else {
        const std::string canonical(memfmt::abstract_tag(r.layout).view());
        if (!(memfmt::parse_tag(canonical).layout == r.layout)) std::abort();
      }
      made = attempt([&] { d = desc(dim_values, dt, tag, allow_empty); });
      break;
    }
    case 1: {  // a oneDNN tag name
      const std::string_view tag = tag_names[(in.byte() << 8 | in.byte()) % std::size(tag_names)];
      made = attempt([&] { d = desc(dim_values, dt, tag, allow_empty); });
      break;
    }
    case 2: {  // strides
      std::vector<dim> strides = in.numbers();
      made = attempt([&] { d = desc(dim_values, dt, dims(strides), allow_empty); });
      break;
    }
    default:
      made = attempt([&] { d = desc::any(dim_values, dt); });
      break;
  }
  if (!made || d.is_zero()) return 0;
  run_operations(in, d, elements(d));
  return 0;
}
