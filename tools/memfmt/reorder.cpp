// `memfmt reorder`: reorders described in the syntax of oneDNN's benchdnn reorder
// driver. For each problem it prints memfmt's plan (loop nests, kernels), checks the
// result against oneDNN bit for bit (mode C) and times memfmt and oneDNN (mode P), and
// memcpy of the same traffic with --memcpy.
//
// Like benchdnn, options apply to the problems (dims) that follow them and stay set
// until changed or `--reset`; comma-separated values (--sdt=f32,bf16) give every
// combination. The whole command line is read first, so a mistake anywhere stops
// the run before anything is measured.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/reorder/reorder.hpp"
#include "reorder_harness.hpp"
#if MEMFMT_HAVE_ONEDNN
#include "memfmt/interop/onednn.hpp"
#endif

namespace memfmt_tool {
namespace {

namespace mb = memfmt_bench;
using memfmt::data_type;
using memfmt::dim;
using memfmt::dims;

enum mode_bits { mode_check = 1, mode_perf = 2 };

/// What the options say at the point a problem is read; lists give every combination.
struct settings {
  std::vector<std::string> sdt{"f32"}, ddt{"f32"}, stag{"abx"}, dtag{"abx"};
  std::string strides;                       ///< SRC:DST strides, each AxBxC or empty
  std::string oflag;                         ///< s8s8_comp:MASK+zp_comp:MASK
  std::vector<std::string> scales{""}, zero_points{""}, post_ops{""};
  int mode = mode_perf;
  double max_ms = 200;
  int fix_times = 0;
  int threads = 0;
  bool memcpy = false;
};

/// One reorder to run, fully resolved, with the benchdnn line that reproduces it.
struct problem {
  std::string repro;
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

/// benchdnn's 'x' in a tag: all the spatial dims (c, d, ... up to ndims), e.g.
/// abx -> abcd and aBx16b -> aBcd16b for 4 dims, axb -> acdb.
std::string expand_tag(const std::string& tag, int ndims) {
  std::size_t letters = 0;
  while (letters < tag.size() && std::isalpha(static_cast<unsigned char>(tag[letters])) != 0) ++letters;
  const std::size_t x = tag.find('x');
  if (x == std::string::npos || x >= letters || tag == "x") return tag;
  for (std::size_t i = 0; i < letters; ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(tag[i])));
    if (c != 'x' && (c < 'a' || c > 'b')) return tag;  // 'x' follows a and b only
  }
  std::string spatial;
  for (int d = 2; d < ndims; ++d) spatial += static_cast<char>('a' + d);
  return tag.substr(0, x) + spatial + tag.substr(x + 1);
}

memfmt::desc make_desc(const dims& shape, data_type dt, const std::string& tag, const std::string& strides,
                       const char* which) {
  if (!strides.empty()) {
    const dims s = parse_dims(strides, std::string("--strides (") + which + ")");
    return memfmt::desc(shape, dt, s);
  }
  return memfmt::desc(shape, dt, expand_tag(tag, shape.size()));
}

/// A mask from a benchdnn policy: common -> 0, per_dim_1 -> 2, per_dim_01 -> 3, ...
int policy_mask(const std::string& policy, int ndims, const std::string& option) {
  if (policy == "common") return 0;
  if (policy.rfind("per_dim_", 0) == 0 && policy.size() > 8) {
    int mask = 0;
    for (char c : policy.substr(8)) {
      if (c < '0' || c > '9' || c - '0' >= ndims)
        throw usage_error(option + ": policy '" + policy + "' names a dim beyond the " + std::to_string(ndims) +
                          " dims of the problem");
      mask |= 1 << (c - '0');
    }
    return mask;
  }
  throw usage_error(option + ": unknown policy '" + policy +
                    "' (memfmt takes common and per_dim_N, e.g. per_dim_1 or per_dim_01)");
}

/// --attr-scales=src:common:0.5+dst:per_dim_1:2. Per-dim scales get varied values
/// (SCALE times 1, 0.5, 2, 0.25, ...), so that a wrong index shows in the check.
void parse_scales(const std::string& spec, const dims& shape, memfmt::reorder_attr& a) {
  if (spec.empty()) return;
  for (const std::string& part : split(spec, '+')) {
    const std::vector<std::string> f = split(part, ':');
    if (f.size() < 2 || f.size() > 3)
      throw usage_error("--attr-scales: '" + part + "' is not ARG:POLICY[:SCALE] (e.g. src:common:0.5)");
    if (f[0] != "src" && f[0] != "dst")
      throw usage_error("--attr-scales: '" + f[0] + "' is not an argument of a reorder (src or dst)");
    std::string value = f.size() == 3 ? f[2] : "1";
    if (!value.empty() && value.back() == '*') value.pop_back();  // benchdnn's "runtime" mark: same values here
    const float scale = parse_float(value, "--attr-scales " + f[0]);
    memfmt::scales s;
    s.mask = policy_mask(f[1], shape.size(), "--attr-scales");
    dim count = 1;
    for (int d = 0; d < shape.size(); ++d)
      if ((s.mask >> d & 1) != 0) count *= shape[d];
    static constexpr float pattern[4] = {1.f, 0.5f, 2.f, 0.25f};
    for (dim k = 0; k < count; ++k) s.values.push_back(s.mask == 0 ? scale : scale * pattern[k % 4]);
    (f[0] == "src" ? a.src_scales : a.dst_scales) = s;
  }
}

/// --attr-zero-points=src:common:2+dst:common:1 (memfmt's reorders take common zero points).
void parse_zero_points(const std::string& spec, memfmt::reorder_attr& a) {
  if (spec.empty()) return;
  for (const std::string& part : split(spec, '+')) {
    const std::vector<std::string> f = split(part, ':');
    if (f.size() != 3)
      throw usage_error("--attr-zero-points: '" + part + "' is not ARG:POLICY:ZERO_POINT (e.g. src:common:2)");
    if (f[0] != "src" && f[0] != "dst")
      throw usage_error("--attr-zero-points: '" + f[0] + "' is not an argument of a reorder (src or dst)");
    if (f[1] != "common")
      throw usage_error("--attr-zero-points: policy '" + f[1] + "': memfmt's reorders take common zero points only");
    std::string value = f[2];
    if (!value.empty() && value.back() == '*') value.pop_back();
    const bool negative = !value.empty() && value[0] == '-';
    const long long v = parse_int(negative ? value.substr(1) : value, "--attr-zero-points " + f[0]);
    if (v > 2147483647LL) throw usage_error("--attr-zero-points: '" + f[2] + "' does not fit in 32 bits");
    (f[0] == "src" ? a.src_zero_point : a.dst_zero_point) = static_cast<std::int32_t>(negative ? -v : v);
  }
}

/// --attr-post-ops=sum[:SCALE[:ZERO_POINT[:DATA_TYPE]]] (a reorder takes one sum).
void parse_post_ops(const std::string& spec, data_type ddt, memfmt::reorder_attr& a) {
  if (spec.empty()) return;
  const std::vector<std::string> ops = split(spec, '+');
  if (ops.size() > 1) throw usage_error("--attr-post-ops: '" + spec + "': a reorder takes one post-op, a sum");
  const std::vector<std::string> f = split(ops[0], ':');
  if (f[0] != "sum")
    throw usage_error("--attr-post-ops: '" + f[0] + "' is not supported by memfmt's reorders (only sum[:SCALE])");
  if (f.size() > 4) throw usage_error("--attr-post-ops: '" + ops[0] + "' is not sum[:SCALE[:ZERO_POINT[:DATA_TYPE]]]");
  a.sum_beta = f.size() >= 2 ? parse_float(f[1], "--attr-post-ops sum scale") : 1.f;
  if (f.size() >= 3 && f[2] != "0")
    throw usage_error("--attr-post-ops: sum zero point '" + f[2] + "': memfmt's sum has no zero point");
  if (f.size() == 4 && f[3] != "undef" && parse_data_type(f[3], "--attr-post-ops sum data type") != ddt)
    throw usage_error("--attr-post-ops: sum data type '" + f[3] + "' differs from the destination's");
}

/// --oflag=s8s8_comp:MASK+zp_comp:MASK: compensation written after the destination.
memfmt::extra_info parse_oflag(const std::string& spec) {
  memfmt::extra_info e;
  if (spec.empty()) return e;
  for (const std::string& part : split(spec, '+')) {
    const std::vector<std::string> f = split(part, ':');
    if (f.size() != 2) throw usage_error("--oflag: '" + part + "' is not FLAG:MASK (e.g. s8s8_comp:1)");
    const int mask = static_cast<int>(parse_int(f[1], "--oflag mask"));
    if (f[0] == "s8s8_comp") {
      e.flags |= memfmt::extra_flags::compensation_conv_s8s8;
      e.compensation_mask = mask;
    } else if (f[0] == "zp_comp") {
      e.flags |= memfmt::extra_flags::compensation_conv_asymmetric_src;
      e.asymm_compensation_mask = mask;
    } else {
      throw usage_error("--oflag: unknown flag '" + f[0] + "' (known: s8s8_comp, zp_comp)");
    }
  }
  return e;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The formula of `a` in words, e.g. "dst = 0.5 * (src - 2) + 0.5 * dst + 1".
std::string describe_attr(const memfmt::reorder_attr& a) {
  std::string x = "src";
  if (a.src_zero_point != 0) x = "(src - " + std::to_string(a.src_zero_point) + ")";
  const auto scale_text = [](const memfmt::scales& s) {
    return s.mask == 0 ? fmt("%g", static_cast<double>(s.values[0])) : "s[mask " + std::to_string(s.mask) + "]";
  };
  if (!a.src_scales.empty()) x = scale_text(a.src_scales) + " * " + x;
  if (a.sum_beta != 0.f) x += " + " + fmt("%g", static_cast<double>(a.sum_beta)) + " * dst";
  if (!a.dst_scales.empty()) x = "(" + x + ") / " + scale_text(a.dst_scales);
  if (a.dst_zero_point != 0) x += " + " + std::to_string(a.dst_zero_point);
  return "dst = " + x;
}

void print_reorder_help() {
  std::printf(
      "usage: memfmt reorder [options] DIMS [[options] DIMS ...]\n"
      "\n"
      "Reorders in the syntax of oneDNN's benchdnn reorder driver. For each problem: the\n"
      "descriptors, memfmt's plan (loop nests, kernels), a bit-for-bit check against oneDNN\n"
      "(mode C) and the time and GB/s of memfmt and oneDNN (mode P), and of memcpy with --memcpy.\n"
      "\n"
      "  DIMS                  2x17x5x5; each DIMS is a problem run with the options before it\n"
      "  --sdt=DT, --ddt=DT    source, destination data type: f32 (default), bf16, f16, s32, s8, u8\n"
      "  --stag=TAG, --dtag=TAG source, destination layout: any oneDNN or abstract tag, with\n"
      "                        benchdnn's x for the spatial dims (abx, axb, aBx16b); default abx\n"
      "  --strides=S:D         source and/or destination strides instead of tags (2x1x..:)\n"
      "  --attr-scales=ARG:POLICY:SCALE[+...]       ARG src or dst; POLICY common or per_dim_N\n"
      "  --attr-zero-points=ARG:common:ZP[+...]     e.g. src:common:2+dst:common:1\n"
      "  --attr-post-ops=sum[:SCALE]                accumulate: dst = ... + SCALE * dst\n"
      "  --oflag=s8s8_comp:MASK[+zp_comp:MASK]      compensation after an s8/u8 destination\n"
      "  --mode=C|P|CP         check against oneDNN, measure performance, or both (default P)\n"
      "  --plan                the descriptors and memfmt's plan only: no check, no timing\n"
      "  --max-ms-per-prb=MS   time spent measuring each implementation (default 200)\n"
      "  --fix-times-per-prb=N exactly N timed runs instead\n"
      "  --threads=N           threads of memfmt and oneDNN (default: all processors)\n"
      "  --memcpy[=true|false] also time memcpy of the same traffic, (src + dst) / 2 bytes, on\n"
      "                        as many threads, and give memfmt's bandwidth as a share of it\n"
      "  --reset               back to the defaults\n"
      "  --batch=FILE          read options and problems from FILE (# starts a comment)\n"
      "Comma-separated values (--sdt=f32,bf16) give every combination. --reorder, --engine=cpu\n"
      "and --allow-enum-tags-only are accepted for pasted benchdnn lines.\n");
}

std::vector<std::string> read_batch(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw usage_error("--batch: cannot read '" + path + "'");
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(f, line)) {
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) tokens.push_back(w);
  }
  return tokens;
}

void parse(const std::vector<std::string>& args, settings& s, std::vector<problem>& out, int depth = 0) {
  const settings defaults;
  for (const std::string& arg : args) {
    if (arg.rfind("--", 0) != 0) {
      if (arg.empty() || std::isdigit(static_cast<unsigned char>(arg[0])) == 0)
        throw usage_error("'" + arg + "' is neither an option (--name=value) nor dims (2x17x5x5)");
      const dims shape = parse_dims(arg, "problem");
      for (const std::string& sdt_text : s.sdt)
        for (const std::string& ddt_text : s.ddt)
          for (const std::string& stag : s.stag)
            for (const std::string& dtag : s.dtag)
              for (const std::string& sc : s.scales)
                for (const std::string& zp : s.zero_points)
                  for (const std::string& po : s.post_ops) {
                    problem p;
                    std::string repro = "--sdt=" + sdt_text + " --ddt=" + ddt_text;
                    const std::string src_strides = s.strides.substr(0, s.strides.find(':'));
                    const std::string dst_strides =
                        s.strides.find(':') == std::string::npos ? "" : s.strides.substr(s.strides.find(':') + 1);
                    if (src_strides.empty()) repro += " --stag=" + stag;
                    if (dst_strides.empty()) repro += " --dtag=" + dtag;
                    if (!s.strides.empty()) repro += " --strides=" + s.strides;
                    if (!s.oflag.empty()) repro += " --oflag=" + s.oflag;
                    if (!sc.empty()) repro += " --attr-scales=" + sc;
                    if (!zp.empty()) repro += " --attr-zero-points=" + zp;
                    if (!po.empty()) repro += " --attr-post-ops=" + po;
                    repro += " " + arg;
                    p.repro = repro;
                    try {
                      const data_type sdt = parse_data_type(sdt_text, "--sdt"), ddt = parse_data_type(ddt_text, "--ddt");
                      p.src = make_desc(shape, sdt, stag, src_strides, "source");
                      p.dst = make_desc(shape, ddt, dtag, dst_strides, "destination");
                      const memfmt::extra_info extra = parse_oflag(s.oflag);
                      if (extra.flags != 0) p.dst = p.dst.with_extra(extra);
                      parse_scales(sc, shape, p.attr);
                      parse_zero_points(zp, p.attr);
                      parse_post_ops(po, ddt, p.attr);
                      p.attr.threads = s.threads;
                      const memfmt::reorder check(p.src, p.dst, p.attr);  // memfmt's own checks, now
                    } catch (const memfmt::error& e) {
                      throw usage_error("problem '" + repro + "': " + e.what());
                    } catch (const usage_error& e) {
                      throw usage_error("problem '" + repro + "': " + e.what());
                    }
                    p.attr_text = describe_attr(p.attr);
                    p.mode = s.mode;
                    p.max_ms = s.max_ms;
                    p.fix_times = s.fix_times;
                    p.threads = s.threads;
                    p.memcpy = s.memcpy;
                    out.push_back(std::move(p));
                  }
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const bool has_value = eq != std::string::npos;
    const auto need = [&]() -> const std::string& {
      if (!has_value || value.empty()) throw usage_error("option " + name + " needs a value: " + name + "=...");
      return value;
    };
    if (name == "--help") {
      print_reorder_help();
      std::exit(0);
    } else if (name == "--sdt") {
      s.sdt = split(need(), ',');
      for (const std::string& v : s.sdt) parse_data_type(v, "--sdt");
    } else if (name == "--ddt") {
      s.ddt = split(need(), ',');
      for (const std::string& v : s.ddt) parse_data_type(v, "--ddt");
    } else if (name == "--stag") {
      s.stag = split(need(), ',');
    } else if (name == "--dtag") {
      s.dtag = split(need(), ',');
    } else if (name == "--strides") {
      if (need().find(':') == std::string::npos)
        throw usage_error("--strides: '" + value + "' is not SRC_STRIDES:DST_STRIDES (either may be empty)");
      s.strides = value == ":" ? "" : value;
    } else if (name == "--oflag") {
      s.oflag = has_value ? value : "";
      parse_oflag(s.oflag);
    } else if (name == "--attr-scales" || name == "--attr-oscale") {
      s.scales = split(has_value ? value : "", ',');
      // benchdnn 2.x spelled the output scale --attr-oscale=POLICY:SCALE: a source scale here
      if (name == "--attr-oscale")
        for (std::string& v : s.scales)
          if (!v.empty()) v = "src:" + v;
    } else if (name == "--attr-zero-points") {
      s.zero_points = split(has_value ? value : "", ',');
    } else if (name == "--attr-post-ops") {
      s.post_ops = split(has_value ? value : "", ',');
    } else if (name == "--mode") {
      std::string m = need();
      for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (m == "C") s.mode = mode_check;
      else if (m == "P") s.mode = mode_perf;
      else if (m == "CP" || m == "PC") s.mode = mode_check | mode_perf;
      else throw usage_error("--mode: '" + value + "' is not C (check), P (performance) or CP (both)");
    } else if (name == "--plan") {
      if (has_value) throw usage_error("--plan takes no value");
      s.mode = 0;
    } else if (name == "--max-ms-per-prb") {
      s.max_ms = static_cast<double>(parse_int(need(), "--max-ms-per-prb"));
      if (s.max_ms <= 0) throw usage_error("--max-ms-per-prb: must be at least 1");
    } else if (name == "--fix-times-per-prb") {
      s.fix_times = static_cast<int>(parse_int(need(), "--fix-times-per-prb"));
    } else if (name == "--threads") {
      s.threads = static_cast<int>(parse_int(need(), "--threads"));
    } else if (name == "--memcpy") {
      if (has_value && value != "true" && value != "false")
        throw usage_error("--memcpy: '" + value + "' is not true or false");
      s.memcpy = !has_value || value == "true";
    } else if (name == "--reset") {
      s = defaults;
    } else if (name == "--batch") {
      if (depth > 8) throw usage_error("--batch: batch files nest too deeply");
      parse(read_batch(need()), s, out, depth + 1);
    } else if (name == "--reorder" || name == "--allow-enum-tags-only") {
      // accepted so that benchdnn lines can be pasted; nothing to do
    } else if (name == "--engine") {
      if (value != "cpu") throw usage_error("--engine: '" + value + "': memfmt runs on the CPU only");
    } else {
      throw usage_error("unknown option '" + name +
                        "' (known: --sdt --ddt --stag --dtag --strides --oflag --attr-scales --attr-zero-points "
                        "--attr-post-ops --mode --plan --max-ms-per-prb --fix-times-per-prb --threads --memcpy --reset --batch; "
                        "see memfmt reorder --help)");
    }
  }
}

// ------------------------------------------------------------------ running

struct outcome {
  bool checked = false, mismatch = false, failed = false;
  double speedup = 0;  ///< oneDNN's median time over memfmt's (0: not timed against oneDNN)
  double of_memcpy = 0;  ///< memcpy's median time over memfmt's, for the same traffic (0: not timed)
};

/// The first logical element (row-major) where memfmt and oneDNN differ, with its
/// inputs, so that a mismatch can be reproduced by hand.
void print_first_difference(const problem& p, const unsigned char* src, const unsigned char* initial,
                            const unsigned char* mine, const unsigned char* theirs) {
  const int n = p.dst.get_ndims();
  const dims shape = p.dst.get_dims();
  if (p.dst.has_zero_dim()) return;
  const std::size_t ssize = memfmt::data_type_size(p.src.get_data_type()), dsize = memfmt::data_type_size(p.dst.get_data_type());
  dims index = dims::filled(n, 0);
  for (;;) {
    const auto at = static_cast<std::size_t>(p.dst.offset(index)) * dsize;
    if (std::memcmp(mine + at, theirs + at, dsize) != 0) {
      const auto from = static_cast<std::size_t>(p.src.offset(index)) * ssize;
      const auto value = [](memfmt::data_type dt, const unsigned char* x) {
        return static_cast<double>(memfmt::detail::load_as_f32(dt, x));
      };
      std::printf("          first logical difference at (%s): src %.9g, dst before %.9g; memfmt %.9g, oneDNN %.9g\n",
                  dims_text(index, ',').c_str(), value(p.src.get_data_type(), src + from),
                  value(p.dst.get_data_type(), initial + at), value(p.dst.get_data_type(), mine + at),
                  value(p.dst.get_data_type(), theirs + at));
      return;
    }
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
    if (k < 0) break;
  }
  std::printf("          the logical elements agree: the difference is in the padding or the compensation\n");
}

outcome run(const problem& p, int number) {
  outcome result;
  std::printf("[%d] %s\n", number, p.repro.c_str());
  std::printf("    src   %s  (%zu bytes)\n", p.src.str().c_str(), p.src.get_size());
  std::printf("    dst   %s  (%zu bytes)\n", p.dst.str().c_str(), p.dst.get_size());
  std::printf("    attr  %s\n", p.attr_text.c_str());

  const int threads = p.threads > 0 ? p.threads : mb::all_threads();
  mb::set_threads(threads);
  memfmt::reorder_attr attr = p.attr;
  attr.threads = threads == 1 ? 1 : p.threads;
  mb::timing_policy plan_policy;
  plan_policy.min_seconds = 0.02;
  plan_policy.min_reps = 21;
  const mb::timing plan_time = mb::time_runs([&] { memfmt::reorder r(p.src, p.dst, attr); }, plan_policy);
  const memfmt::reorder r(p.src, p.dst, attr);
  std::printf("    plan  %s; kernels for %s; planned in %.2f us\n", mb::summarize(r).text().c_str(),
              mb::kernel_target_name().c_str(), plan_time.median * 1e6);
  for (const auto& n : r.nests()) std::printf("          %s\n", memfmt::detail::nest_str(n).c_str());
  if (p.mode == 0) return result;  // --plan

  const std::size_t src_bytes = p.src.get_size(), dst_bytes = p.dst.get_size();
  std::size_t dst_alloc = dst_bytes;
#if MEMFMT_HAVE_ONEDNN
  std::unique_ptr<mb::onednn_reorder> dnn;
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
      dnn = std::make_unique<mb::onednn_reorder>(p.src, p.dst, p.attr, src.data(), ref.data());
    } catch (const memfmt_onednn::unsupported& e) {
      dnn_error = e.what();
    }
  }
  if (!dnn) std::printf("    oneDNN %s cannot run this reorder: %s\n", mb::onednn_version().c_str(), dnn_error.c_str());
#endif

  if ((p.mode & mode_check) != 0) {
    r.execute(src.data(), out.data());
#if MEMFMT_HAVE_ONEDNN
    if (dnn) {
      dnn->execute();
      result.checked = true;
      if (std::memcmp(out.data(), ref.data(), dst_bytes) == 0) {
        std::printf("    check memfmt == oneDNN %s (%s) bit for bit, %zu bytes\n", mb::onednn_version().c_str(),
                    dnn->impl().c_str(), dst_bytes);
      } else {
        result.mismatch = true;
        const std::size_t esize = memfmt::data_type_size(p.dst.get_data_type());
        std::size_t first = 0, count = 0;
        for (std::size_t k = 0; k + esize <= dst_bytes; k += esize)
          if (std::memcmp(out.data() + k, ref.data() + k, esize) != 0) {
            if (count++ == 0) first = k;
          }
        std::printf("    check MISMATCH: %zu of %zu elements differ from oneDNN %s (%s); first at element %zu "
                    "(byte %zu)\n",
                    count, dst_bytes / esize, mb::onednn_version().c_str(), dnn->impl().c_str(), first / esize, first);
        print_first_difference(p, src.data(), initial.data(), out.data(), ref.data());
      }
    } else {
      std::printf("    check skipped: no oneDNN reorder to compare with\n");
    }
#else
    std::printf("    check skipped: built without oneDNN\n");
#endif
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
  settings s;
  std::vector<problem> problems;
  parse(args, s, problems);
  if (problems.empty())
    throw usage_error("no problem given: end the command with dims, e.g. 'memfmt reorder --stag=nchw "
                      "--dtag=nChw16c 2x17x5x5'");
  int checked = 0, mismatches = 0, timed = 0, slower = 0, copied = 0;
  double log_speedups = 0, worst = 0, log_of_memcpy = 0, lowest_of_memcpy = 0;
  std::size_t worst_index = 0, lowest_index = 0;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const outcome o = run(problems[k], static_cast<int>(k + 1));
    checked += o.checked;
    mismatches += o.mismatch;
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
  std::printf("%zu problem%s; %d checked against oneDNN, %d mismatch%s\n", problems.size(),
              problems.size() == 1 ? "" : "s", checked, mismatches, mismatches == 1 ? "" : "es");
  if (timed > 1)
    std::printf("speedup over oneDNN: geomean %.2fx over %d timed, %d slower than oneDNN, worst %.2fx ([%zu])\n",
                std::exp(log_speedups / timed), timed, slower, worst, worst_index);
  if (copied > 1)
    std::printf("bandwidth over memcpy's: geomean %.0f%% over %d timed, lowest %.0f%% ([%zu])\n",
                100 * std::exp(log_of_memcpy / copied), copied, 100 * lowest_of_memcpy, lowest_index);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace memfmt_tool
