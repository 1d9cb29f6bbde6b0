// `memfmt reorder`: reorders described in the syntax of oneDNN's benchdnn reorder
// driver. For each problem it prints memfmt's plan (loop nests, kernels), checks the
// result against oneDNN bit for bit (mode C: where they differ, or oneDNN cannot run
// the problem, the scalar reference of tests/support/reference.hpp settles who is
// right) and times memfmt and oneDNN (mode P), and memcpy of the same traffic with
// --memcpy.
//
// benchdnn's batch files run as they are (benchdnn_syntax.hpp reads them): options
// apply to the problems (dims) that follow them until changed or `--reset`; comma
// lists give every combination. A problem memfmt cannot run yet is skipped with its
// reason and counted; only a line benchdnn would reject too stops the run. The whole
// input is read first, so such a mistake stops the run before anything is measured.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "benchdnn_syntax.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "measure.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/plan_str.hpp"
#include "memfmt/reorder/reorder.hpp"
#include "reference.hpp"
#if MEMFMT_HAVE_ONEDNN
#include "memfmt/interop/onednn.hpp"
#include "onednn_bridge.hpp"
#endif

namespace memfmt_tool {
namespace {

namespace mb = memfmt_bench;
using memfmt::data_type;
using memfmt::dim;
using memfmt::dims;

enum mode_bits { mode_check = 1, mode_perf = 2 };

/// One reorder to run, fully resolved, with the benchdnn line that reproduces it. A
/// problem memfmt cannot run has `skip` (why), or `rejected` (memfmt's error) set.
struct problem {
  std::string repro;
  std::string where;   ///< FILE:LINE of its dims
  std::string notes;   ///< benchdnn options accepted and ignored
  std::string skip;    ///< why memfmt cannot run it yet
  std::string rejected;  ///< memfmt's error for a problem benchdnn's syntax allows
  memfmt::desc src, dst;
  memfmt::reorder_attr attr;
  std::string attr_text;
  int mode = mode_perf;
  double max_ms = 200;
  int fix_times = 0;
  int threads = 0;
  bool memcpy = false;  ///< also time memcpy of the same traffic (mode P)
};

// ------------------------------------------------------------------ parsing

memfmt::desc make_desc(const dims& shape, data_type dt, const std::string& tag, const std::string& strides,
                       const char* which) {
  if (!strides.empty()) {
    const dims s = parse_dims(strides, std::string("--strides (") + which + ")");
    return memfmt::desc(shape, dt, s);
  }
  return memfmt::desc(shape, dt, benchdnn::expand_tag(tag, shape.size()));
}

/// The mask, groups and number of values of an --attr-scales or --attr-zero-points entry.
template <class Q>
dim lay_out(const benchdnn::quant_entry& e, const dims& shape, const std::string& option, Q& q) {
  q.mask = benchdnn::policy_mask(e.policy, shape.size(), option);
  if (!e.groups.empty()) q.groups = benchdnn::quant_groups(e.groups, q.mask, shape, option);
  dim count = 1;
  for (int d = 0, g = 0; d < shape.size(); ++d)
    if ((q.mask >> d & 1) != 0) count *= shape[d] / (q.groups.empty() ? 1 : q.groups[g++]);
  return count;
}

/// --attr-scales=src:common:0.5+dst:per_dim_1. Per-dim scales get varied values
/// (SCALE times 1, 0.5, 2, 0.25, ...), so that a wrong index shows in the check; SCALE
/// is 1 unless a number follows the policy (memfmt's addition to benchdnn's syntax).
/// Groups (`src:per_tensor:f32:8x1`) apply to the last two dims, as in benchdnn; a data
/// type (f32, f16, bf16, e8m0) is the type the scales are stored in.
void parse_scales(const std::string& spec, const dims& shape, memfmt::reorder_attr& a) {
  for (const benchdnn::quant_entry& e : benchdnn::parse_quant(spec, "attr-scales")) {
    std::string value = e.value.empty() ? "1" : e.value;
    if (value.back() == '*') value.pop_back();  // benchdnn 2.x's "runtime" mark: same values here
    const float scale = parse_float(value, "--attr-scales " + e.arg);
    memfmt::scales s;
    const dim count = lay_out(e, shape, "--attr-scales", s);
    const std::string_view dt = benchdnn::strip_dnnl(e.dt);
    s.type = dt == "f16" ? memfmt::scale_type::f16 : dt == "bf16" ? memfmt::scale_type::bf16
             : dt == "e8m0" ? memfmt::scale_type::e8m0 : memfmt::scale_type::f32;
    static constexpr float pattern[4] = {1.f, 0.5f, 2.f, 0.25f};
    // stored as the type says, as benchdnn stores them (f16 and bf16 round to nearest
    // even; e8m0 takes powers of two only, and memfmt names any other value)
    const auto as_stored = [&s](float v) {
      if (s.type == memfmt::scale_type::f16) return memfmt::detail::f16_bits_to_f32(memfmt::detail::f32_to_f16_bits(v));
      if (s.type == memfmt::scale_type::bf16) return memfmt::detail::bf16_bits_to_f32(memfmt::detail::f32_to_bf16_bits(v));
      return v;
    };
    for (dim k = 0; k < count; ++k) s.values.push_back(as_stored(s.mask == 0 ? scale : scale * pattern[k % 4]));
    (e.arg == "dst" ? a.dst_scales : a.src_scales) = s;
  }
}

/// --attr-zero-points=src:common:2+dst:per_tensor:u4:1x128. Per-dim zero points get
/// varied values, in [-8, 7] for signed types and [0, 15] for unsigned ones (starting
/// from a number after the policy, if any), so that a wrong index shows in the check;
/// groups apply to the last two dims, as for scales.
void parse_zero_points(const std::string& spec, const dims& shape, memfmt::reorder_attr& a) {
  for (const benchdnn::quant_entry& e : benchdnn::parse_quant(spec, "attr-zero-points")) {
    std::string value = e.value.empty() ? "0" : e.value;
    if (value.back() == '*') value.pop_back();
    const bool negative = value[0] == '-';
    const long long v = parse_int(negative ? value.substr(1) : value, "--attr-zero-points " + e.arg);
    if (v > (negative ? 2147483648LL : 2147483647LL))
      throw usage_error("--attr-zero-points: '" + e.value + "' does not fit in 32 bits");
    memfmt::zero_points z;
    const dim count = lay_out(e, shape, "--attr-zero-points", z);
    const std::string_view dt = benchdnn::strip_dnnl(e.dt);
    z.type = dt == "s8" ? data_type::s8 : dt == "u8" ? data_type::u8 : dt == "s4" ? data_type::s4
             : dt == "u4" ? data_type::u4 : data_type::s32;
    const bool is_signed = z.type == data_type::s32 || z.type == data_type::s8 || z.type == data_type::s4;
    const auto first = static_cast<std::int32_t>(negative ? -v : v), lo = is_signed ? -8 : 0;
    for (dim k = 0; k < count; ++k)  // (in 64 bits: first - lo may leave s32)
      z.values.push_back(z.mask == 0 ? first : lo + static_cast<std::int32_t>(((dim{first} - lo + 7 * k) % 16 + 16) % 16));
    (e.arg == "dst" ? a.dst_zero_points : a.src_zero_points) = z;
  }
}

/// --attr-post-ops=sum[:SCALE] (the reader skips other post-ops).
void parse_post_ops(const std::string& spec, memfmt::reorder_attr& a) {
  if (spec.empty()) return;
  const std::vector<std::string> f = split(spec, ':');
  a.sum_beta = f.size() >= 2 ? parse_float(f[1], "--attr-post-ops sum scale") : 1.f;
}

/// --oflag=s8s8_comp:MASK+zp_comp:MASK: compensation written after the destination.
memfmt::extra_info parse_oflag(const std::string& spec) {
  memfmt::extra_info e;
  if (spec.empty()) return e;
  for (const std::string& part : split(spec, '+')) {
    const std::vector<std::string> f = split(part, ':');
    const int mask = static_cast<int>(parse_int(f[1], "--oflag mask"));
    if (f[0] == "s8s8_comp") {
      e.flags |= memfmt::extra_flags::compensation_conv_s8s8;
      e.compensation_mask = mask;
    } else {  // zp_comp (the reader allows no other flag)
      e.flags |= memfmt::extra_flags::compensation_conv_asymmetric_src;
      e.asymm_compensation_mask = mask;
    }
  }
  return e;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The formula of `a` in words, e.g. "dst = 0.5 * (src - 2) + 0.5 * (dst - 1) + 1".
std::string describe_attr(const memfmt::reorder_attr& a) {
  std::string x = "src";
  const auto zp_text = [](const memfmt::zero_points& z) {
    return z.mask == 0 ? std::to_string(z.common_value()) : "zp[mask " + std::to_string(z.mask) + "]";
  };
  if (!a.src_zero_points.empty()) x = "(src - " + zp_text(a.src_zero_points) + ")";
  const auto scale_text = [](const memfmt::scales& s) {
    return s.mask == 0 ? fmt("%g", static_cast<double>(s.values[0])) : "s[mask " + std::to_string(s.mask) + "]";
  };
  if (!a.src_scales.empty()) x = scale_text(a.src_scales) + " * " + x;
  if (a.sum_beta != 0.f)
    x += " + " + fmt("%g", static_cast<double>(a.sum_beta)) +
         (!a.dst_zero_points.empty() ? " * (dst - " + zp_text(a.dst_zero_points) + ")" : " * dst");
  if (!a.dst_scales.empty()) x = "(" + x + ") / " + scale_text(a.dst_scales);
  if (!a.dst_zero_points.empty()) x += " + " + zp_text(a.dst_zero_points);
  return "dst = " + x;
}

void print_reorder_help() {
  std::printf(
      "usage: memfmt reorder [options] DIMS [[options] DIMS ...]\n"
      "\n"
      "Reorders in the syntax of oneDNN's benchdnn reorder driver; its batch files run as they\n"
      "are. For each problem: the descriptors, memfmt's plan (loop nests, kernels), a bit-for-bit\n"
      "check against oneDNN (mode C; where they differ, or oneDNN cannot run the problem, the\n"
      "scalar reference reorder says who is right) and the time and GB/s of memfmt and oneDNN\n"
      "(mode P), and of memcpy with --memcpy. Comma lists give every combination; an empty\n"
      "alternative is the default (--oflag=,s8s8_comp:1 is no flag, then s8s8_comp:1).\n"
      "\n"
      "Honoured, as in benchdnn:\n"
      "  DIMS[_nNAME]          2x17x5x5; each DIMS is a problem run with the options before it\n"
      "  --sdt=DT, --ddt=DT    source, destination data type (default f32)\n"
      "  --stag=TAG, --dtag=TAG source, destination layout: any oneDNN or abstract tag, with\n"
      "                        benchdnn's x for the spatial dims (abx, xba, aBCx4c16b4c); default abx\n"
      "  --strides=S:D         source and/or destination strides instead of tags (2x1x..:)\n"
      "  --oflag=FLAG:MASK[+...]  s8s8_comp, zp_comp: compensation after an s8/u8 destination\n"
      "  --attr-scales=ARG:POLICY[:SCALE][:DT[:AxB]][+...]  ARG src or dst; POLICY common,\n"
      "                        per_dim_N, per_tensor; a number after a per-dim policy scales its\n"
      "                        values; DT f32, f16, bf16 or e8m0, how they are stored; AxB: groups\n"
      "                        of the last two dims (e.g. per_tensor:f16:1x16)\n"
      "  --attr-zero-points=ARG:POLICY[:ZP][:DT[:AxB]][+...]  as scales, DT s32, s8, u8, s4 or\n"
      "                        u4 (e.g. src:common:2+dst:per_tensor:u4:1x128)\n"
      "  --attr-post-ops=sum[:SCALE]                accumulate: dst = ... + SCALE * dst\n"
      "  --mode=C|P|CP|F       check (against oneDNN, settled by the reference), measure\n"
      "                        performance, both (default P), fast P; B checks, R, I and L plan only\n"
      "  --max-ms-per-prb=MS   time spent measuring each implementation (default 200)\n"
      "  --fix-times-per-prb=N exactly N timed runs instead\n"
      "  --match=REGEX         only the problems whose line matches; --start=N from the N-th\n"
      "  --reset               the driver options back to their defaults; common options\n"
      "                        (--mode, --engine, --max-ms-per-prb, ...) stay as they are\n"
      "  --batch=FILE          read options and problems from FILE (relative to the directory\n"
      "                        of the file that names it; # starts a comment, \\ joins lines)\n"
      "memfmt's own:\n"
      "  --plan                the descriptors and memfmt's plan only: no check, no timing\n"
      "  --threads=N           threads of memfmt and oneDNN (default: all processors)\n"
      "  --memcpy[=true|false] also time memcpy of the same traffic, (src + dst) / 2 bytes, on\n"
      "                        as many threads, and give memfmt's bandwidth as a share of it\n"
      "Accepted and ignored (noted on the problem): --skip-impl, --impl, --attr-scratchpad,\n"
      "  --attr-acc-mode, --attr-deterministic, --ctx-init, --ctx-exe, --reorder, --verbose (-vN),\n"
      "  --allow-enum-tags-only, --canonical, --cold-cache, --cpu-isa-hints, --fast-ref,\n"
      "  --mem-check, --memory-kind, --mode-modifier, --num-streams, --repeats-per-prb,\n"
      "  --stream-kind, --summary, --execution-mode, --perf-template, --attr-same-pd-check,\n"
      "  --check-ref-impl, --global-impl, --global-skip-impl.\n"
      "Skipped with the reason, and counted: data types memfmt lacks (f4_e2m1, f4_e3m0, e8m0,\n"
      "  boolean), s4 and u4 layouts with an odd stride, --runtime-dim-mask other than 0,\n"
      "  --engine=gpu, --cross-engine other than none, --attr-fpmath other than strict,\n"
      "  stochastic --attr-rounding-mode, --attr-dropout, scales or zero points of other data\n"
      "  types or of the per_oc and per_ocic policies, post-ops other than one sum, and\n"
      "  (modes C and P) problems that need more than half the available memory.\n"
      "A problem benchdnn's syntax allows but memfmt's descriptors refuse is reported as rejected\n"
      "with memfmt's error; the run goes on and ends with status 2. The summary gives the\n"
      "problems checked: equal to oneDNN, equal to the reference where oneDNN is wrong, equal to\n"
      "the reference where oneDNN cannot run them, and mismatches (memfmt differs from the\n"
      "reference: exit status 1); then those planned, skipped and rejected, and the skips by\n"
      "reason, most frequent first.\n");
}

/// Resolves a spec into descriptors and attributes; what memfmt refuses is `rejected`.
problem build(const benchdnn::problem_spec& s) {
  problem p;
  p.repro = s.repro;
  p.where = s.where;
  p.notes = s.notes;
  p.skip = s.skip;
  p.mode = s.run.mode;
  p.max_ms = s.run.max_ms;
  p.fix_times = s.run.fix_times;
  p.threads = s.run.threads;
  p.memcpy = s.run.memcpy;
  if (!p.skip.empty()) return p;
  try {
    const auto plain = [](const std::string& dt) { return dt.rfind("dnnl_", 0) == 0 ? dt.substr(5) : dt; };
    const data_type sdt = parse_data_type(plain(s.sdt), "--sdt"), ddt = parse_data_type(plain(s.ddt), "--ddt");
    p.src = make_desc(s.dims, sdt, s.stag, s.src_strides, "source");
    p.dst = make_desc(s.dims, ddt, s.dtag, s.dst_strides, "destination");
    const memfmt::extra_info extra = parse_oflag(s.oflag);
    if (extra.flags != 0) p.dst = p.dst.with_extra(extra);
    parse_scales(s.scales, s.dims, p.attr);
    parse_zero_points(s.zero_points, p.src.get_dims(), p.attr);
    parse_post_ops(s.post_ops, p.attr);
    p.attr.threads = s.run.threads;
    const memfmt::reorder check(p.src, p.dst, p.attr);  // memfmt's own checks, now
    p.attr_text = describe_attr(p.attr);
  } catch (const memfmt::error& e) {
    p.rejected = e.what();
    // (oneDNN's batches hold s4 and u4 layouts with odd strides, which oneDNN 3.13
    // refuses to make too)
    if (p.rejected.find(" packs two elements per byte, so dim ") != std::string::npos) {
      p.skip = "s4 or u4 with an odd stride (oneDNN 3.13 refuses such descriptors too)";
      p.rejected.clear();
    }
  } catch (const usage_error& e) {
    p.rejected = e.what();
  }
  return p;
}

// ------------------------------------------------------------------ running

/// What the check of a problem found (mode C), from the scalar reference wherever
/// memfmt and oneDNN differ or oneDNN cannot run the problem.
enum class verdict {
  none,            ///< not checked
  equal_onednn,    ///< memfmt == oneDNN, bit for bit
  onednn_wrong,    ///< they differ, and memfmt == the reference
  reference_only,  ///< oneDNN cannot run it, and memfmt == the reference
  mismatch,        ///< memfmt differs from the reference: memfmt is wrong
};

struct outcome {
  bool planned = false, rejected = false;
  verdict check = verdict::none;
  bool known = false;  ///< oneDNN's difference is a known error of oneDNN 2.6, checked element by element
  std::string skip;  ///< why it was not run
  double speedup = 0;  ///< oneDNN's median time over memfmt's (0: not timed against oneDNN)
  double of_memcpy = 0;  ///< memcpy's median time over memfmt's, for the same traffic (0: not timed)
};

/// Where two results of the same destination differ, bit for bit (-0 is not +0, and
/// NaNs must have the same bits): elements of the tensor, other element positions of
/// its data (padding, and gaps between strided elements), values of the compensation.
struct differences {
  std::size_t elements = 0, padding = 0, compensation = 0;
  bool has_first = false;  ///< `first`: the first element of the tensor that differs (row-major)
  memfmt::dims first;
  std::size_t first_padding = 0;       ///< byte of the first other position in the data that differs
  std::size_t first_compensation = 0;  ///< index of the first compensation value that differs
  std::size_t total() const { return elements + padding + compensation; }
};

/// The same for s4 and u4, nibble by nibble (`first_padding` is then a nibble's offset).
differences compare_nibbles(const memfmt::desc& d, const unsigned char* a, const unsigned char* b) {
  differences r;
  const auto nibble = [](const unsigned char* p, dim at) { return memfmt_test::nibble_value(data_type::u4, p, at); };
  std::size_t slots = 0;
  const auto nibbles = static_cast<dim>(d.get_data_size() * 2);
  std::vector<bool> element(static_cast<std::size_t>(nibbles), false);
  memfmt_test::for_each_index(d.get_dims(), [&](const dims& i) {
    const dim at = d.offset(i);
    element[static_cast<std::size_t>(at)] = true;
    if (nibble(a, at) != nibble(b, at) && r.elements++ == 0) {
      r.has_first = true;
      r.first = i;
    }
  });
  for (dim k = 0; k < nibbles; ++k)
    if (!element[static_cast<std::size_t>(k)] && nibble(a, k) != nibble(b, k) && slots++ == 0)
      r.first_padding = static_cast<std::size_t>(k);
  r.padding = slots;
  return r;
}

differences compare(const memfmt::desc& d, const unsigned char* a, const unsigned char* b) {
  if (memfmt::is_sub_byte(d.get_data_type())) return compare_nibbles(d, a, b);
  differences r;
  const std::size_t esize = memfmt::data_type_size(d.get_data_type()), data = d.get_data_size();
  std::size_t slots = 0;
  bool padding_seen = false;
  for (std::size_t k = 0; k + esize <= data; k += esize)
    if (std::memcmp(a + k, b + k, esize) != 0) ++slots;
  for (std::size_t k = data, n = 0; k + 4 <= d.get_size(); k += 4, ++n)
    if (std::memcmp(a + k, b + k, 4) != 0 && r.compensation++ == 0) r.first_compensation = n;
  if (slots == 0) return r;
  memfmt_test::for_each_index(d.get_dims(), [&](const dims& i) {
    const auto at = static_cast<std::size_t>(d.offset(i)) * esize;
    if (std::memcmp(a + at, b + at, esize) == 0) return;
    if (r.elements++ == 0) {
      r.has_first = true;
      r.first = i;
    }
  });
  r.padding = slots - r.elements;
  if (r.padding == 0) return r;
  // the first differing position that is no element of the tensor
  std::vector<bool> element(data / esize, false);
  memfmt_test::for_each_index(d.get_dims(), [&](const dims& i) { element[static_cast<std::size_t>(d.offset(i))] = true; });
  for (std::size_t k = 0; k + esize <= data && !padding_seen; k += esize)
    if (!element[k / esize] && std::memcmp(a + k, b + k, esize) != 0) {
      r.first_padding = k;
      padding_seen = true;
    }
  return r;
}

/// "K elements", with those in the padding and the compensation named.
std::string count_text(const differences& d) {
  std::string t = std::to_string(d.total()) + (d.total() == 1 ? " element" : " elements");
  std::string parts;
  if (d.padding != 0) parts += std::to_string(d.padding) + " in the padding";
  if (d.compensation != 0)
    parts += (parts.empty() ? "" : ", ") + std::to_string(d.compensation) + " compensation value" +
             (d.compensation == 1 ? "" : "s");
  return parts.empty() ? t : t + " (" + parts + ")";
}

/// A value of type `dt` as text: integers exactly, floating-point values to 9 digits (f64 to 17).
std::string value_text(data_type dt, const unsigned char* x) {
  char buf[64];
  if (dt == data_type::s32) {
    std::int32_t v;
    std::memcpy(&v, x, 4);
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(v));
  } else if (dt == data_type::s8) {
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(static_cast<std::int8_t>(*x)));
  } else if (dt == data_type::u8) {
    std::snprintf(buf, sizeof buf, "%d", static_cast<int>(*x));
  } else if (dt == data_type::f64) {
    double v;
    std::memcpy(&v, x, 8);
    std::snprintf(buf, sizeof buf, "%.17g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(memfmt::detail::load_as_f32(dt, x)));
  }
  return buf;
}

/// The first difference `d` found, with the source value and the destination's value
/// before, and the value each of `results` (a name and its destination) has there, so
/// that it can be reproduced by hand.
void print_first_difference(const problem& p, const differences& d, const unsigned char* src,
                            const unsigned char* initial,
                            const std::vector<std::pair<std::string, const unsigned char*>>& results) {
  const data_type sdt = p.src.get_data_type(), ddt = p.dst.get_data_type();
  const std::size_t esize = memfmt::data_type_size(ddt);
  std::string line;
  const auto values = [&](data_type dt, std::size_t at) {
    std::string t;
    for (const auto& [name, base] : results) t += (t.empty() ? "" : ", ") + name + " " + value_text(dt, base + at);
    return t;
  };
  if (memfmt::is_sub_byte(sdt) || memfmt::is_sub_byte(ddt)) {
    // (values of packed elements: their nibbles)
    const auto element = [](data_type dt, const unsigned char* base, dim at) {
      if (!memfmt::is_sub_byte(dt)) return value_text(dt, base + at * static_cast<dim>(memfmt::data_type_size(dt)));
      return std::to_string(memfmt_test::nibble_value(dt, base, at));
    };
    if (d.has_first) {
      const dim at = p.dst.offset(d.first);
      line = "first at (" + dims_text(d.first, ',') + "): src " + element(sdt, src, p.src.offset(d.first)) +
             ", dst before " + element(ddt, initial, at) + ";";
      for (const auto& [name, base] : results) line += " " + name + " " + element(ddt, base, at);
    } else {
      line = "first in the padding, at element " + std::to_string(d.first_padding) + ":";
      for (const auto& [name, base] : results) line += " " + name + " " + element(ddt, base, static_cast<dim>(d.first_padding));
    }
  } else if (d.has_first) {
    const auto at = static_cast<std::size_t>(p.dst.offset(d.first)) * esize;
    const auto from = static_cast<std::size_t>(p.src.offset(d.first)) * memfmt::data_type_size(sdt);
    line = "first at (" + dims_text(d.first, ',') + "): src " + value_text(sdt, src + from) + ", dst before " +
           value_text(ddt, initial + at) + "; " + values(ddt, at);
  } else if (d.padding != 0) {
    line = "first in the padding, at byte " + std::to_string(d.first_padding) + ": " + values(ddt, d.first_padding);
  } else {
    line = "first in the compensation, value " + std::to_string(d.first_compensation) + ": " +
           values(data_type::s32, p.dst.get_data_size() + 4 * d.first_compensation);
  }
  std::printf("          %s\n", line.c_str());
}

/// Bytes of memory free for new allocations (MemAvailable), or 0 when unknown.
std::size_t available_memory() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size) : 0;
}

/// Which known error of oneDNN 2.6 (docs/reorder.md) explains every element where
/// memfmt and oneDNN differ, checked element by element from its inputs; empty when
/// none does. Explained so far, into f32 without scales, where memfmt's value is the
/// documented one, (x + beta * (dst - zp_dst)) + zp_dst: a sum with a destination zero
/// point (2.6 reads dst with its zero point and adds zp_dst first, (x + zp_dst) +
/// beta * dst), and zero points its jit reorder drops (2.6 writes the source as is).
std::string known_onednn26_error(const problem& p, const unsigned char* src, const unsigned char* initial,
                                 const unsigned char* mine, const unsigned char* theirs, std::size_t dst_bytes) {
  const memfmt::reorder_attr& a = p.attr;
  if (p.dst.get_data_type() != data_type::f32 || !a.src_scales.empty() || !a.dst_scales.empty() ||
      p.dst.has_zero_dim() || a.src_zero_points.mask != 0 || a.dst_zero_points.mask != 0)
    return "";
  const std::int32_t src_zp = a.src_zero_points.common_value(), dst_zp = a.dst_zero_points.common_value();
  const bool sum_order = a.sum_beta != 0.f && dst_zp != 0;
  const bool dropped = a.sum_beta == 0.f && (src_zp != 0 || dst_zp != 0);
  if (!sum_order && !dropped) return "";
  const int n = p.dst.get_ndims();
  const dims shape = p.dst.get_dims();
  const std::size_t ssize = memfmt::data_type_size(p.src.get_data_type());
  const auto f32_at = [](const unsigned char* base, std::size_t byte) {
    float v;
    std::memcpy(&v, base + byte, sizeof v);
    return v;
  };
  std::size_t logical_differences = 0;
  dims index = dims::filled(n, 0);
  for (;;) {
    const auto at = static_cast<std::size_t>(p.dst.offset(index)) * sizeof(float);
    if (std::memcmp(mine + at, theirs + at, sizeof(float)) != 0) {
      ++logical_differences;
      const auto from = static_cast<std::size_t>(p.src.offset(index)) * ssize;
      // volatile: each step rounded to f32, no fused multiply-add
      const volatile float s = memfmt::detail::load_as_f32(p.src.get_data_type(), src + from);
      const volatile float x = s - static_cast<float>(src_zp);
      const volatile float zp = static_cast<float>(dst_zp);
      const volatile float old = f32_at(initial, at), old_value = old - zp;
      const volatile float beta_dst = a.sum_beta * old, beta_value = a.sum_beta * old_value;
      const volatile float documented_part = x + (a.sum_beta != 0.f ? beta_value : 0.f), onednn26_part = x + zp;
      const float documented = documented_part + zp;
      const float onednn26 = sum_order ? onednn26_part + beta_dst : s;
      if (f32_at(mine, at) != documented || f32_at(theirs, at) != onednn26) return "";
    }
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
    if (k < 0) break;
  }
  // every differing element must be a logical one: none in padding or compensation
  std::size_t differing = 0;
  for (std::size_t k = 0; k + sizeof(float) <= dst_bytes; k += sizeof(float))
    differing += std::memcmp(mine + k, theirs + k, sizeof(float)) != 0;
  if (differing != logical_differences) return "";
  return sum_order ? "its sum reads dst with its zero point, added before the sum: (x + zp_dst) + beta * dst"
                   : "its jit reorder drops the zero points, writing the source as it is";
}

outcome run(const problem& p, int number) {
  outcome result;
  std::printf("[%d] %s\n", number, p.repro.c_str());
  if (!p.notes.empty()) std::printf("    note  ignored (no effect on memfmt): %s\n", p.notes.c_str());
  if (!p.skip.empty()) {
    std::printf("    skipped: %s  (%s)\n", p.skip.c_str(), p.where.c_str());
    result.skip = p.skip;
    return result;
  }
  if (!p.rejected.empty()) {
    std::printf("    rejected by memfmt: %s  (%s)\n", p.rejected.c_str(), p.where.c_str());
    result.rejected = true;
    return result;
  }
  if (p.mode != 0) {
    // src, and dst four times (memfmt's, oneDNN's, the initial values, the reference's), as
    // benchdnn's memory check
    const double need = static_cast<double>(p.src.get_size()) + 4.0 * static_cast<double>(p.dst.get_size());
    const std::size_t free_bytes = available_memory();
    if (free_bytes > 0 && need > 0.5 * static_cast<double>(free_bytes)) {
      std::printf("    skipped: needs more than half the available memory (%.0f of %.0f MiB)  (%s)\n",
                  need / 1048576.0, static_cast<double>(free_bytes) / 1048576.0, p.where.c_str());
      result.skip = "needs more than half the available memory";
      return result;
    }
  }
  result.planned = true;
  std::printf("    src   %s  (%zu bytes)\n", p.src.str().c_str(), p.src.get_size());
  std::printf("    dst   %s  (%zu bytes)\n", p.dst.str().c_str(), p.dst.get_size());
  std::printf("    attr  %s\n", p.attr_text.c_str());

  const int threads = p.threads > 0 ? p.threads : mb::all_threads();
  mb::set_threads(threads);
  memfmt::reorder_attr attr = p.attr;
  attr.threads = threads == 1 ? 1 : p.threads;
  mb::timing_policy plan_policy;
  plan_policy.min_seconds = p.mode == 0 ? 0.0 : 0.02;  // --plan of a whole batch: no time to spare
  plan_policy.min_reps = p.mode == 0 ? 5 : 21;
  const mb::timing plan_time = mb::time_runs([&] { memfmt::reorder r(p.src, p.dst, attr); }, plan_policy);
  const memfmt::reorder r(p.src, p.dst, attr);
  std::printf("    plan  %s; kernels for %s; planned in %.2f us\n", mb::summarize(r).text().c_str(),
              mb::kernel_target_name().c_str(), plan_time.median * 1e6);
  // (s4 and u4: which side the plan unpacks into scratch, its first lines; an
  // element-wise plan: why)
  const std::string plan_text = r.plan_str();
  for (std::size_t at = 0, end = 0; at < plan_text.size(); at = end + 1) {
    end = plan_text.find('\n', at);
    const std::string line = plan_text.substr(at, end - at);
    if (line.rfind("unpack ", 0) != 0 && line.rfind("pack ", 0) != 0 && line.rfind("element-wise", 0) != 0) break;
    std::printf("          %s\n", line.c_str());
  }
  for (const auto& n : r.nests()) std::printf("          %s\n", memfmt::detail::nest_str(n).c_str());
  if (p.mode == 0) return result;  // --plan

  const std::size_t src_bytes = p.src.get_size(), dst_bytes = p.dst.get_size();
  std::size_t dst_alloc = dst_bytes;
#if MEMFMT_HAVE_ONEDNN
  std::unique_ptr<memfmt_onednn::reorder> dnn;
  std::string dnn_error;
  try {
    memfmt_onednn::cpu_engine();
    dst_alloc = std::max(dst_alloc, memfmt::to_dnnl(p.dst).get_size());  // oneDNN 2.6 may count compensation thrice
  } catch (const dnnl::error& e) {
    dnn_error = e.what();
  } catch (const memfmt::error& e) {  // (a oneDNN whose descriptors the bridge cannot write)
    dnn_error = e.what();
  }
#endif
  mb::buffer src(src_bytes), out(dst_alloc), ref(dst_alloc), initial(dst_alloc);
  mb::fill_random(p.src, src.data(), -10.f, 10.f, 0xC0FFEE);
  mb::fill_random(p.dst, initial.data(), -10.f, 10.f, 0xBEEF);  // what a sum post-op adds to
  std::memcpy(out.data(), initial.data(), dst_alloc);
  std::memcpy(ref.data(), initial.data(), dst_alloc);
#if MEMFMT_HAVE_ONEDNN
  if (dnn_error.empty()) {
    try {
      dnn = std::make_unique<memfmt_onednn::reorder>(p.src, p.dst, p.attr);
      dnn->bind(src.data(), ref.data());
    } catch (const memfmt_onednn::unsupported& e) {
      dnn_error = e.what();
    }
  }
  if (!dnn) std::printf("    oneDNN %s cannot run this reorder: %s\n", mb::onednn_version().c_str(), dnn_error.c_str());
#endif

  if ((p.mode & mode_check) != 0) {
    r.execute(src.data(), out.data());
    std::string theirs;  // oneDNN's name, when it ran the problem
#if MEMFMT_HAVE_ONEDNN
    if (dnn) {
      dnn->execute();
      theirs = "oneDNN " + mb::onednn_version() + " (" + dnn->impl() + ")";
    }
#endif
    if (!theirs.empty() && std::memcmp(out.data(), ref.data(), dst_bytes) == 0) {
      result.check = verdict::equal_onednn;
      std::printf("    check memfmt == %s bit for bit, %zu bytes\n", theirs.c_str(), dst_bytes);
    } else {
      // memfmt and oneDNN differ, or oneDNN cannot run the problem: the reference settles it
      mb::buffer expected(dst_alloc);
      std::memcpy(expected.data(), initial.data(), dst_alloc);
      memfmt_test::reference_reorder(p.src, p.dst, p.attr, src.data(), expected.data());
      const differences ours = compare(p.dst, out.data(), expected.data());
      std::vector<std::pair<std::string, const unsigned char*>> results = {{"memfmt", out.data()},
                                                                          {"reference", expected.data()}};
      if (!theirs.empty()) results.emplace_back("oneDNN", ref.data());
      if (ours.total() == 0 && theirs.empty()) {
        result.check = verdict::reference_only;
        std::printf("    check memfmt == the reference bit for bit, %zu bytes (no oneDNN reorder to compare with)\n",
                    dst_bytes);
      } else if (ours.total() == 0) {
        result.check = verdict::onednn_wrong;
        const differences wrong = compare(p.dst, ref.data(), expected.data());
        std::printf("    check %s differs from the reference in %s, memfmt equals the reference\n", theirs.c_str(),
                    count_text(wrong).c_str());
        print_first_difference(p, wrong, src.data(), initial.data(), results);
        const std::string known = known_onednn26_error(p, src.data(), initial.data(), out.data(), ref.data(), dst_bytes);
        if (!known.empty()) {
          result.known = true;
          std::printf("          every difference is a known error of oneDNN 2.6: %s (docs/reorder.md)\n", known.c_str());
        }
      } else {
        result.check = verdict::mismatch;
        std::string also = " (no oneDNN reorder to compare with)";
        if (!theirs.empty()) also = "; " + theirs + " differs from it in " + count_text(compare(p.dst, ref.data(), expected.data()));
        std::printf("    check MISMATCH: memfmt differs from the reference in %s%s\n", count_text(ours).c_str(),
                    also.c_str());
        print_first_difference(p, ours, src.data(), initial.data(), results);
      }
    }
  }

  if ((p.mode & mode_perf) != 0) {
    mb::timing_policy policy;
    policy.min_seconds = p.max_ms / 1000.0;
    policy.min_reps = 5;
    policy.fixed_reps = p.fix_times;
    const double traffic = static_cast<double>(src_bytes + dst_bytes);
    const mb::timing t = mb::time_runs([&] { r.execute(src.data(), out.data()); }, policy);
    std::printf("    perf  memfmt  median %.4f ms, min %.4f ms, %.2f GB/s  (%d runs, %d thread%s)\n", t.median * 1e3,
                t.min * 1e3, mb::gbps(traffic, t.median), t.reps, threads, threads == 1 ? "" : "s");
#if MEMFMT_HAVE_ONEDNN
    if (dnn) {
      const mb::timing u = mb::time_runs([&] { dnn->execute(); }, policy);
      std::printf("          oneDNN  median %.4f ms, min %.4f ms, %.2f GB/s  (%d runs, %s)\n", u.median * 1e3,
                  u.min * 1e3, mb::gbps(traffic, u.median), u.reps, dnn->impl().c_str());
      result.speedup = u.median / t.median;
      std::printf("          memfmt speedup over oneDNN: %.2fx\n", result.speedup);
    }
#endif
    if (p.memcpy) {
      // buffers of its own, as large as the traffic: a type change reads and writes unequal sizes
      const std::size_t copy_bytes = (src_bytes + dst_bytes) / 2;
      mb::buffer copy_src(copy_bytes, 1), copy_dst(copy_bytes, 2);
      const mb::timing c = mb::time_runs(
          [&] { mb::parallel_memcpy(copy_dst.data(), copy_src.data(), copy_bytes, threads); }, policy);
      result.of_memcpy = c.median / t.median;
      std::printf("          memcpy  median %.4f ms, min %.4f ms, %.2f GB/s  (%d runs, %zu bytes copied)\n",
                  c.median * 1e3, c.min * 1e3, mb::gbps(2.0 * static_cast<double>(copy_bytes), c.median), c.reps,
                  copy_bytes);
      std::printf("          memfmt at %.0f%% of memcpy's bandwidth\n", 100 * result.of_memcpy);
    }
  }
  std::fflush(stdout);
  return result;
}

}  // namespace


int reorder_main(const std::vector<std::string>& args) {
  benchdnn::reader reader(print_reorder_help);
  std::vector<benchdnn::token> tokens;
  for (const std::string& a : args) tokens.push_back({a, "command line"});
  reader.read(tokens);
  if (reader.problems().empty())
    throw usage_error("no problem given: end the command with dims, e.g. 'memfmt reorder --stag=nchw "
                      "--dtag=nChw16c 2x17x5x5'");
  std::vector<problem> problems;
  problems.reserve(reader.problems().size());
  for (const benchdnn::problem_spec& s : reader.problems()) problems.push_back(build(s));
  reader.problems().clear();

  int planned = 0, rejected = 0, skipped = 0, timed = 0, slower = 0, copied = 0, known = 0;
  std::map<verdict, int> verdicts;
  std::map<std::string, int> skips;
  double log_speedups = 0, worst = 0, log_of_memcpy = 0, lowest_of_memcpy = 0;
  std::size_t worst_index = 0, lowest_index = 0;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const outcome o = run(problems[k], static_cast<int>(k + 1));
    planned += o.planned;
    ++verdicts[o.check];
    known += o.known;
    rejected += o.rejected;
    if (!o.skip.empty()) {
      ++skipped;
      ++skips[o.skip];
    }
    if (o.speedup > 0) {
      ++timed;
      slower += o.speedup < 1;
      log_speedups += std::log(o.speedup);
      if (worst == 0 || o.speedup < worst) {
        worst = o.speedup;
        worst_index = k + 1;
      }
    }
    if (o.of_memcpy > 0) {
      ++copied;
      log_of_memcpy += std::log(o.of_memcpy);
      if (lowest_of_memcpy == 0 || o.of_memcpy < lowest_of_memcpy) {
        lowest_of_memcpy = o.of_memcpy;
        lowest_index = k + 1;
      }
    }
  }
  const int mismatches = verdicts[verdict::mismatch];
  const int checked = verdicts[verdict::equal_onednn] + verdicts[verdict::onednn_wrong] +
                      verdicts[verdict::reference_only] + mismatches;
  std::printf("%zu problem%s; %d checked: %d equal to oneDNN, %d equal to the reference where oneDNN is wrong (%d "
              "known oneDNN 2.6 errors), %d equal to the reference where oneDNN cannot run them, %d mismatch%s "
              "(memfmt differs from the reference); %d planned, %d skipped, %d rejected by memfmt\n",
              problems.size(), problems.size() == 1 ? "" : "s", checked, verdicts[verdict::equal_onednn],
              verdicts[verdict::onednn_wrong], known, verdicts[verdict::reference_only], mismatches,
              mismatches == 1 ? "" : "es", planned, skipped, rejected);
  std::vector<std::pair<std::string, int>> by_count(skips.begin(), skips.end());
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [reason, count] : by_count) std::printf("  skipped %6d  %s\n", count, reason.c_str());
  if (timed > 1)
    std::printf("speedup over oneDNN: geomean %.2fx over %d timed, %d slower than oneDNN, worst %.2fx ([%zu])\n",
                std::exp(log_speedups / timed), timed, slower, worst, worst_index);
  if (copied > 1)
    std::printf("bandwidth over memcpy's: geomean %.0f%% over %d timed, lowest %.0f%% ([%zu])\n",
                100 * std::exp(log_of_memcpy / copied), copied, 100 * lowest_of_memcpy, lowest_index);
  if (mismatches > 0) return 1;
  return rejected == 0 ? 0 : 2;
}

}  // namespace memfmt_tool
