// The reader of benchdnn's reorder-driver syntax (see benchdnn_syntax.hpp). The
// option names, defaults, list rules and the split into driver options (reset by
// --reset) and common ones (kept) follow benchdnn's documentation: driver_reorder.md,
// knobs_common.md, knobs_attr.md, knobs_dt.md and knobs_tag.md in oneDNN's
// tests/benchdnn/doc.

#include "benchdnn_syntax.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace memfmt_tool::benchdnn {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_uint(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

/// The driver options that take comma-separated alternatives, in the order their
/// combinations are enumerated, with their defaults (what an empty value means).
struct list_option {
  const char* name;
  const char* def;
};
constexpr std::array<list_option, 19> list_options{{
    {"sdt", "f32"},
    {"ddt", "f32"},
    {"stag", "abx"},
    {"dtag", "abx"},
    {"strides", ""},
    {"oflag", ""},
    {"cross-engine", "none"},
    {"attr-scales", ""},
    {"attr-zero-points", ""},
    {"attr-post-ops", ""},
    {"attr-scratchpad", ""},
    {"attr-fpmath", ""},
    {"attr-acc-mode", ""},
    {"attr-deterministic", ""},
    {"attr-dropout", ""},
    {"attr-rounding-mode", ""},
    {"ctx-init", ""},
    {"ctx-exe", ""},
    {"runtime-dim-mask", "0"},
}};

/// Driver options that do not change a reorder's result: accepted, noted, ignored.
constexpr std::array<const char*, 6> ignored_list_options{
    {"attr-scratchpad", "attr-acc-mode", "attr-deterministic", "ctx-init", "ctx-exe", "cross-engine"}};

/// Common options that do not change what memfmt computes: accepted and ignored.
constexpr std::array<const char*, 19> ignored_common_options{
    {"allow-enum-tags-only", "attr-same-pd-check", "canonical", "check-ref-impl", "cold-cache", "cpu-isa-hints",
     "fast-ref", "global-impl", "global-skip-impl", "mem-check", "memory-kind", "mode-modifier", "num-streams",
     "repeats-per-prb", "stream-kind", "summary", "verbose", "execution-mode", "perf-template"}};

constexpr std::array<std::string_view, 15> benchdnn_types{{"f16", "bf16", "f32", "s32", "s8", "u8", "f64", "boolean",
                                                           "f8_e5m2", "f8_e4m3", "s4", "u4", "e8m0", "f4_e2m1",
                                                           "f4_e3m0"}};
constexpr std::array<std::string_view, 11> memfmt_types{
    {"f16", "bf16", "f32", "s32", "s8", "u8", "f64", "f8_e5m2", "f8_e4m3", "s4", "u4"}};

bool is_policy(const std::string& p) {
  static const char* const known[] = {"common",    "per_oc",    "per_ocic",  "per_dim_0", "per_dim_1",
                                      "per_dim_01", "per_dim_2", "per_dim_3", "per_tensor"};
  const std::string l = lower(p);
  // memfmt also takes per_dim_ with any digits (per_dim_34), as its own batches use
  if (l.rfind("per_dim_", 0) == 0 && is_uint(std::string_view(l).substr(8))) return true;
  return std::any_of(std::begin(known), std::end(known), [&](const char* k) { return l == k; });
}

bool is_attr_arg(const std::string& a) {
  return a == "src" || a == "src0" || a == "src1" || a == "wei" || a == "dst" || a == "attr_post_op_dw_dst" ||
         a == "attr_post_op_dw_wei" || (a.rfind("msrc", 0) == 0 && is_uint(std::string_view(a).substr(4)));
}


void check_post_ops(const std::string& spec) {
  static const char* const kinds[] = {
      "sum",         "dw",        "abs",       "exp",          "exp_dst",     "gelu_erf", "gelu_tanh",
      "log",         "logistic",  "logistic_dst", "mish",      "round",       "sqrt",     "sqrt_dst",
      "square",      "tanh",      "tanh_dst",  "elu",          "elu_dst",     "relu",     "relu_dst",
      "soft_relu",   "swish",     "clip",      "clip_v2",      "clip_v2_dst", "hardsigmoid", "hardswish",
      "linear",      "pow",       "add",       "div",          "eq",          "ge",       "gt",
      "le",          "lt",        "max",       "min",          "mul",         "ne",       "sub",
      "prelu",       "select"};
  if (spec.empty()) return;
  for (const std::string& op : split(spec, '+')) {
    std::string kind = lower(op.substr(0, op.find(':')));
    if (kind.rfind("dw", 0) == 0) kind = "dw";
    if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return kind == k; }))
      throw usage_error("--attr-post-ops: unknown post-op '" + op + "'");
  }
}

void check_oflag(const std::string& spec) {
  if (spec.empty()) return;
  for (const std::string& part : split(spec, '+')) {
    const std::vector<std::string> f = split(part, ':');
    // (exact spelling: parse_oflag reads the flag as written)
    const std::string& flag = f[0];
    if (f.size() != 2 || (flag != "s8s8_comp" && flag != "zp_comp") || !is_uint(f[1]))
      throw usage_error("--oflag: '" + part + "' is not FLAG:MASK with FLAG s8s8_comp or zp_comp (e.g. s8s8_comp:1)");
  }
}

void check_strides(const std::string& spec) {
  if (spec.empty()) return;
  const std::vector<std::string> sides = split(spec, ':');
  if (sides.size() != 2) throw usage_error("--strides: '" + spec + "' is not SRC_STRIDES:DST_STRIDES (either may be empty)");
  for (const std::string& side : sides)
    if (!side.empty()) parse_dims(side, "--strides");
}

/// Checks one alternative of a list option as benchdnn would (a bad one is an error).
void check_alternative(const std::string& name, const std::string& v) {
  if (name == "sdt" || name == "ddt") {
    if (!is_benchdnn_data_type(v)) throw usage_error("--" + name + ": unknown data type '" + v + "' (benchdnn's: f32, bf16, f16, s32, s8, u8, f64, f8_e5m2, f8_e4m3, s4, u4, f4_e2m1, f4_e3m0, e8m0, boolean)");
  } else if (name == "stag" || name == "dtag") {
    if (v.empty()) throw usage_error("--" + name + ": an empty tag in the list");
  } else if (name == "strides") {
    check_strides(v);
  } else if (name == "oflag") {
    check_oflag(v);
  } else if (name == "runtime-dim-mask") {
    if (!is_uint(v)) throw usage_error("--runtime-dim-mask: '" + v + "' is not a non-negative integer");
  } else if (name == "cross-engine") {
    const std::string l = lower(v);
    if (l != "none" && l != "cpu2gpu" && l != "gpu2cpu")
      throw usage_error("--cross-engine: '" + v + "' is not none, cpu2gpu or gpu2cpu");
  } else if (name == "attr-scales") {
    parse_quant(v, name);
  } else if (name == "attr-zero-points") {
    for (const quant_entry& e : parse_quant(v, name))
      if (!e.value.empty() && e.value.find('.') != std::string::npos)
        throw usage_error("--attr-zero-points: '" + e.value + "' is not an integer");
  } else if (name == "attr-post-ops") {
    check_post_ops(v);
  } else if (name == "attr-fpmath") {
    const std::string m = lower(v.substr(0, v.find(':')));
    if (!v.empty() && m != "strict" && m != "bf16" && m != "f16" && m != "tf32" && m != "any")
      throw usage_error("--attr-fpmath: '" + v + "' is not strict, bf16, f16, tf32 or any[:true|false]");
  } else if (name == "attr-rounding-mode") {
    for (const std::string& part : split(v, '+')) {
      if (v.empty()) break;
      const std::vector<std::string> f = split(part, ':');
      const std::string m = f.size() >= 2 ? lower(f[1]) : "";
      if (f.size() < 2 || f.size() > 3 || (m != "environment" && m != "stochastic"))
        throw usage_error("--attr-rounding-mode: '" + part + "' is not ARG:environment|stochastic[:SEED]");
    }
  } else if (name == "attr-scratchpad") {
    if (!v.empty() && lower(v) != "library" && lower(v) != "user")
      throw usage_error("--attr-scratchpad: '" + v + "' is not library or user");
  } else if (name == "attr-deterministic") {
    if (!v.empty() && v != "true" && v != "false") throw usage_error("--attr-deterministic: '" + v + "' is not true or false");
  }
}

int parse_mode(const std::string& value, run_options& run, std::string& note) {
  const std::string m = lower(value);
  if (m == "c") return 1;
  if (m == "p") return 2;
  if (m == "cp" || m == "pc") return 3;
  if (m == "f") {  // benchdnn's fast performance mode
    run.max_ms = 10;
    return 2;
  }
  if (m == "b") {
    note = "--mode=B checked once (memfmt's reorders are deterministic)";
    return 1;
  }
  if (m == "r" || m == "i" || m == "l") {
    note = "--mode=" + value + " planned only";
    return 0;
  }
  throw usage_error("--mode: '" + value + "' is not C (check), P (performance), CP (both), F, B, R, I or L");
}

}  // namespace

std::string_view strip_dnnl(std::string_view name) {
  return name.rfind("dnnl_", 0) == 0 ? name.substr(5) : name;
}

std::vector<quant_entry> parse_quant(const std::string& spec, const std::string& option) {
  std::vector<quant_entry> entries;
  if (spec.empty()) return entries;
  std::vector<std::string> parts = split(spec, '+');
  // benchdnn reads 1e+10 as one number: an entry ending in 'e' continues after the '+'
  for (std::size_t k = 0; k + 1 < parts.size(); ++k)
    if (!parts[k].empty() && parts[k].back() == 'e') {
      parts[k] += "+" + parts[k + 1];
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    }
  for (const std::string& part : parts) {
    const std::vector<std::string> f = split(part, ':');
    if (f.size() < 2 || !is_attr_arg(f[0]))
      throw usage_error("--" + option + ": '" + part + "' is not ARG:POLICY[:VALUE] with ARG src, dst, wei, ...");
    quant_entry e;
    e.arg = f[0];
    e.policy = lower(f[1]);
    if (!is_policy(e.policy)) throw usage_error("--" + option + ": unknown policy '" + f[1] + "' in '" + part + "'");
    std::size_t next = 2;
    if (next < f.size() && (e.policy == "common" || is_number(f[next]) ||
                            (!f[next].empty() && f[next].back() == '*'))) {
      e.value = f[next++];
      std::string v = e.value;
      if (!v.empty() && v.back() == '*') v.pop_back();  // benchdnn 2.x's run-time mark
      if (!is_number(v)) throw usage_error("--" + option + ": '" + e.value + "' is not a number, in '" + part + "'");
    }
    if (next < f.size()) {
      e.dt = f[next++];
      if (!is_benchdnn_data_type(e.dt))
        throw usage_error("--" + option + ": unknown data type '" + e.dt + "' in '" + part + "'");
    }
    if (next < f.size()) e.groups = f[next++];
    if (next < f.size() || (f.size() > 2 && f.back().empty()))
      throw usage_error("--" + option + ": '" + part + "' has too many fields or a dangling ':'");
    entries.push_back(e);
  }
  return entries;
}

// ------------------------------------------------------------------ words and tags

std::vector<token> tokenize(std::string_view text, const std::string& file) {
  std::vector<token> out;
  int line = 1;
  bool continued = false;
  std::size_t k = 0;
  while (k < text.size()) {
    const char c = text[k];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++k;
      continue;
    }
    std::size_t end = k;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
    std::string word(text.substr(k, end - k));
    k = end;
    if (word[0] == '#') {  // a comment runs to the end of the line
      while (k < text.size() && text[k] != '\n') ++k;
      continue;
    }
    const bool glue = continued && !out.empty();
    continued = word.back() == '\\';
    if (continued) word.pop_back();
    if (glue)
      out.back().text += word;
    else if (!word.empty())
      out.push_back({word, file + ":" + std::to_string(line)});
  }
  return out;
}

std::string expand_tag(const std::string& tag_in, int ndims) {
  std::string tag = tag_in;
  if (tag == "any" || tag == "undef" || ndims <= 0) return tag;
  if (tag == "x") return "a";
  const std::size_t x = tag.find('x');
  if (x == std::string::npos) return tag;
  char start = 'c';
  for (char c = static_cast<char>('a' + memfmt::max_ndims - 1); c >= 'b'; --c)
    if (tag.find(c) != std::string::npos) {
      start = static_cast<char>(c + 1);
      break;
    }
  std::string tail;
  for (int d = start - 'a'; d < ndims; ++d) tail += static_cast<char>('a' + d);
  tag.replace(x, 1, tail);
  // drop the letters of dims the problem does not have, with their block sizes
  std::string out;
  for (std::size_t i = 0; i < tag.size(); ++i) {
    const char c = tag[i];
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 &&
        std::tolower(static_cast<unsigned char>(c)) - 'a' >= ndims) {
      while (!out.empty() && std::isdigit(static_cast<unsigned char>(out.back())) != 0) out.pop_back();
      continue;
    }
    out += c;
  }
  return out;
}

bool is_benchdnn_data_type(std::string_view name) {
  name = strip_dnnl(name);
  return std::find(benchdnn_types.begin(), benchdnn_types.end(), name) != benchdnn_types.end();
}

bool is_memfmt_data_type(std::string_view name) {
  name = strip_dnnl(name);
  return std::find(memfmt_types.begin(), memfmt_types.end(), name) != memfmt_types.end();
}

// ------------------------------------------------------------------ reading

void reader::read_file(const std::string& path, int depth) {
  if (depth > 16) throw usage_error("--batch=" + path + ": batch files nest too deeply");
  namespace fs = std::filesystem;
  // relative to the including file's directory, else to the working directory
  std::string found = path;
  if (!dirs_.empty() && fs::path(path).is_relative() && fs::exists(fs::path(dirs_.back()) / path))
    found = (fs::path(dirs_.back()) / path).string();
  std::ifstream f(found);
  if (!f) throw usage_error("--batch: cannot read '" + path + "'" +
                            (dirs_.empty() ? "" : " (looked in '" + dirs_.back() + "' and the working directory)"));
  std::stringstream text;
  text << f.rdbuf();
  dirs_.push_back(fs::path(found).parent_path().string());
  read(tokenize(text.str(), found), depth);
  dirs_.pop_back();
}

void reader::read(const std::vector<token>& tokens, int depth) {
  for (const token& t : tokens) {
    try {
      if (t.text.rfind("--", 0) == 0 || (t.text.rfind("-v", 0) == 0 && is_uint(t.text.substr(2))))
        option(t, depth);
      else
        add_problems(t);
    } catch (const located_error&) {
      throw;
    } catch (const usage_error& e) {
      throw located_error(t.where + ": '" + t.text + "': " + e.what());
    }
  }
}

void reader::option(const token& t, int depth) {
  const std::string& arg = t.text;
  if (arg.rfind("-v", 0) == 0 && arg.rfind("--", 0) != 0) {
    s_.common_ignored["verbose"] = arg.substr(2);
    return;
  }
  const std::size_t eq = arg.find('=');
  const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
  const bool has_value = eq != std::string::npos;
  const std::string value = has_value ? arg.substr(eq + 1) : "";
  const auto need_value = [&] {
    if (!has_value) throw usage_error("option --" + name + " needs a value: --" + name + "=...");
  };

  for (const list_option& o : list_options)
    if (name == o.name || (name == "runtime_dim_mask" && std::string_view(o.name) == "runtime-dim-mask")) {
      need_value();
      // benchdnn: an empty value is the default; a list has one alternative per comma
      std::vector<std::string> alternatives = value.empty() ? std::vector<std::string>{o.def} : split(value, ',');
      for (std::string& a : alternatives) {
        if (a.empty()) a = o.def;
        check_alternative(o.name, a);
      }
      s_.driver[o.name] = alternatives;
      return;
    }

  if (name == "help") {
    if (help_ != nullptr) help_();
    std::exit(0);
  } else if (name == "reset") {
    s_.driver.clear();
    s_.driver_single.clear();
  } else if (name == "batch") {
    need_value();
    if (value.empty()) throw usage_error("--batch needs a file name");
    read_file(value, depth + 1);
  } else if (name == "attr-oscale") {  // benchdnn 2.x: an output scale, a source scale here
    need_value();
    std::vector<std::string> alternatives = split(value, ',');
    for (std::string& a : alternatives)
      if (!a.empty()) a = "src:" + a;
    for (const std::string& a : alternatives) check_alternative("attr-scales", a);
    s_.driver["attr-scales"] = alternatives;
  } else if (name == "impl" || name == "skip-impl" || name == "match") {
    need_value();
    if (name == "match") {
      try {
        std::regex check(value);
      } catch (const std::regex_error&) {
        throw usage_error("--match: '" + value + "' is not a regular expression");
      }
    }
    s_.driver_single[name] = value;
  } else if (name == "mode") {
    need_value();
    std::string note;
    s_.run.mode = parse_mode(value, s_.run, note);
    if (note.empty()) s_.common_ignored.erase("mode");
    else s_.common_ignored["mode"] = note;
  } else if (name == "plan") {
    if (has_value) throw usage_error("--plan takes no value");
    s_.run.mode = 0;
  } else if (name == "max-ms-per-prb") {
    need_value();
    s_.run.max_ms = static_cast<double>(parse_int(value, "--max-ms-per-prb"));
    if (s_.run.max_ms <= 0) throw usage_error("--max-ms-per-prb: must be at least 1");
  } else if (name == "fix-times-per-prb") {
    need_value();
    s_.run.fix_times = static_cast<int>(parse_int(value, "--fix-times-per-prb"));
  } else if (name == "threads") {
    need_value();
    s_.run.threads = static_cast<int>(parse_int(value, "--threads"));
  } else if (name == "memcpy") {
    if (has_value && value != "true" && value != "false")
      throw usage_error("--memcpy: '" + value + "' is not true or false");
    s_.run.memcpy = !has_value || value == "true";
  } else if (name == "engine") {
    need_value();
    const std::string kind = lower(value.substr(0, value.find(':')));
    if (kind != "cpu" && kind != "gpu") throw usage_error("--engine: '" + value + "' is not cpu or gpu[:INDEX]");
    s_.engine = value;
  } else if (name == "start") {
    need_value();
    s_.start = static_cast<int>(parse_int(value, "--start"));
  } else if (name == "reorder") {
    // benchdnn's driver selector
  } else if (std::find(ignored_common_options.begin(), ignored_common_options.end(), name) !=
             ignored_common_options.end()) {
    s_.common_ignored[name] = value;
  } else {
    throw usage_error("unknown option '--" + name +
                      "' (memfmt reads benchdnn's reorder-driver and common options; see memfmt reorder --help)");
  }
}

int policy_mask(const std::string& policy, int ndims, const std::string& option) {
  if (policy == "common") return 0;
  if (policy == "per_tensor") return (1 << ndims) - 1;
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
                    "' (memfmt takes common, per_tensor and per_dim_N, e.g. per_dim_1 or per_dim_01)");
}

bool is_groups(std::string_view field) {
  const std::size_t x = field.find('x');
  return x != std::string_view::npos && is_uint(field.substr(0, x)) && is_uint(field.substr(x + 1));
}

std::vector<memfmt::dim> quant_groups(const std::string& field, int mask, const memfmt::dims& shape,
                                      const std::string& option) {
  if (!is_groups(field)) throw usage_error(option + ": groups '" + field + "' are not AxB");
  const std::size_t x = field.find('x');
  const memfmt::dim last2[2] = {std::strtoll(field.substr(0, x).c_str(), nullptr, 10),
                                std::strtoll(field.substr(x + 1).c_str(), nullptr, 10)};
  const int n = shape.size();
  if (n < 2 && last2[0] != 1)
    throw usage_error(option + ": group " + std::to_string(last2[0]) + " of the dim before the last, which a " +
                      std::to_string(n) + "-dim problem lacks");
  std::vector<memfmt::dim> groups;
  for (int d = 0; d < n; ++d) {
    const memfmt::dim g = d >= n - 2 ? last2[d - (n - 2)] : 1;
    const bool masked = (mask >> d & 1) != 0;
    if (g != 1 && (!masked || g < 1 || shape[d] % g != 0))
      throw usage_error(option + ": group " + std::to_string(g) + " of dim " + std::to_string(d) + " (" +
                        std::to_string(shape[d]) + (masked ? ") does not divide it" : ") on a dim the policy leaves out"));
    if (masked) groups.push_back(g);
  }
  return groups;
}

std::string reader::skip_reason(const std::map<std::string, std::string>& pick, const memfmt::dims& dims) const {
  const std::string engine = lower(s_.engine.substr(0, s_.engine.find(':')));
  if (engine != "cpu") return "engine " + s_.engine + ": memfmt runs on the CPU only";
  if (lower(pick.at("cross-engine")) != "none")
    return "cross-engine " + pick.at("cross-engine") + ": memfmt runs on the CPU only";
  for (const char* dt : {"sdt", "ddt"})
    if (!is_memfmt_data_type(pick.at(dt))) return "data type " + pick.at(dt) + " not supported yet";
  if (std::strtoll(pick.at("runtime-dim-mask").c_str(), nullptr, 10) != 0)
    return "run-time dims (--runtime-dim-mask) not supported yet: memfmt's desc has none";
  const std::string fpmath = lower(pick.at("attr-fpmath"));
  if (!fpmath.empty() && fpmath.rfind("strict", 0) != 0) return "--attr-fpmath=" + fpmath + " not supported";
  if (lower(pick.at("attr-rounding-mode")).find("stochastic") != std::string::npos)
    return "stochastic rounding (--attr-rounding-mode) not supported yet";
  if (const std::string& d = pick.at("attr-dropout"); !d.empty() && std::strtod(d.c_str(), nullptr) != 0)
    return "dropout (--attr-dropout) not supported by memfmt's reorders";
  for (const char* option : {"attr-scales", "attr-zero-points"}) {
    const bool scales = option == std::string_view("attr-scales");
    const std::string what = scales ? "scales" : "zero points";
    for (const quant_entry& e : parse_quant(pick.at(option), option)) {
      if (e.arg != "src" && e.arg != "src0" && e.arg != "dst") return what + " of '" + e.arg + "': not an argument of a reorder";
      const std::string_view dt = strip_dnnl(e.dt);
      if (scales && !e.dt.empty() && dt != "f32" && dt != "f16" && dt != "bf16" && dt != "e8m0")
        return "scales of data type " + e.dt + " (memfmt's are f32, f16, bf16 or e8m0)";
      if (!scales && !e.dt.empty() && dt != "s32" && dt != "s8" && dt != "u8" && dt != "s4" && dt != "u4")
        return "zero points of data type " + e.dt + " (memfmt's are s32, s8, u8, s4 or u4)";
      if (e.policy == "per_oc" || e.policy == "per_ocic") return what + " policy " + e.policy + " is ambiguous for a reorder";
      if (!e.groups.empty()) {  // (memfmt takes the groups benchdnn's reorder takes)
        try {
          quant_groups(e.groups, policy_mask(e.policy, dims.size(), "--" + std::string(option)), dims, "--" + std::string(option));
        } catch (const usage_error& x) {
          return x.what();
        }
      }
    }
  }
  if (const std::string& po = pick.at("attr-post-ops"); !po.empty()) {
    const std::vector<std::string> ops = split(po, '+');
    if (ops.size() > 1) return "more than one post-op: a reorder takes one sum";
    const std::vector<std::string> f = split(ops[0], ':');
    if (lower(f[0]) != "sum") return "post-op " + f[0] + " not supported by memfmt's reorders (sum only)";
    if (f.size() >= 3 && f[2] != "0") return "sum with a zero point not supported yet";
    if (f.size() >= 4 && f[3] != "undef" && strip_dnnl(f[3]) != strip_dnnl(pick.at("ddt")))
      return "sum of data type " + f[3] + " (not the destination's) not supported yet";
  }
  return "";
}

void reader::add_problems(const token& t) {
  const std::string& arg = t.text;
  if (arg[0] == '-') throw usage_error("options start with '--'");
  // DIMS[_nNAME]: the name runs from the first 'n'
  std::string dims_text = arg.substr(0, arg.find('n'));
  if (!dims_text.empty() && dims_text.back() == '_') dims_text.pop_back();
  if (dims_text.empty() || std::isdigit(static_cast<unsigned char>(dims_text[0])) == 0)
    throw usage_error("neither an option (--name=value) nor dims (2x17x5x5)");
  const memfmt::dims dims = parse_dims(dims_text, "problem");

  // every combination of the alternatives, the first option outermost
  std::vector<std::pair<std::string, const std::vector<std::string>*>> lists;
  std::vector<std::vector<std::string>> defaults;
  defaults.reserve(list_options.size());
  for (const list_option& o : list_options) {
    const auto it = s_.driver.find(o.name);
    if (it != s_.driver.end()) {
      lists.emplace_back(o.name, &it->second);
    } else {
      defaults.push_back({o.def});
      lists.emplace_back(o.name, &defaults.back());
    }
  }
  std::vector<std::size_t> at(lists.size(), 0);
  std::string regex_text;
  if (const auto m = s_.driver_single.find("match"); m != s_.driver_single.end()) regex_text = m->second;
  for (;;) {
    std::map<std::string, std::string> pick;
    for (std::size_t k = 0; k < lists.size(); ++k) pick[lists[k].first] = (*lists[k].second)[at[k]];

    problem_spec p;
    p.where = t.where;
    p.dims = dims;
    p.dims_text = arg;
    p.sdt = pick["sdt"];
    p.ddt = pick["ddt"];
    p.stag = pick["stag"];
    p.dtag = pick["dtag"];
    if (!pick["strides"].empty()) {
      const std::vector<std::string> sides = split(pick["strides"], ':');
      p.src_strides = sides[0];
      p.dst_strides = sides[1];
      for (const std::string& side : sides)
        if (!side.empty() && parse_dims(side, "--strides").size() != dims.size())
          throw usage_error("--strides=" + pick["strides"] + ": not as many strides as the " +
                            std::to_string(dims.size()) + " dims of " + dims_text);
    }
    p.oflag = pick["oflag"];
    p.scales = pick["attr-scales"];
    p.zero_points = pick["attr-zero-points"];
    p.post_ops = pick["attr-post-ops"];
    p.run = s_.run;

    std::string repro = "--sdt=" + p.sdt + " --ddt=" + p.ddt;
    if (p.src_strides.empty()) repro += " --stag=" + p.stag;
    if (p.dst_strides.empty()) repro += " --dtag=" + p.dtag;
    if (!pick["strides"].empty()) repro += " --strides=" + pick["strides"];
    if (!p.oflag.empty()) repro += " --oflag=" + p.oflag;
    if (pick["runtime-dim-mask"] != "0") repro += " --runtime-dim-mask=" + pick["runtime-dim-mask"];
    if (lower(pick["cross-engine"]) != "none") repro += " --cross-engine=" + pick["cross-engine"];
    for (const char* a : {"attr-scales", "attr-zero-points", "attr-post-ops", "attr-fpmath", "attr-rounding-mode",
                          "attr-dropout"})
      if (!pick[a].empty()) repro += std::string(" --") + a + "=" + pick[a];
    repro += " " + arg;
    if (lower(s_.engine) != "cpu") repro = "--engine=" + s_.engine + " " + repro;
    p.repro = repro;

    std::string notes;
    for (const char* a : ignored_list_options)
      if (!pick[a].empty() && !(std::string_view(a) == "cross-engine"))
        notes += std::string(notes.empty() ? "" : " ") + "--" + a + "=" + pick[a];
    for (const auto& [name, value] : s_.driver_single)
      if (name != "match") notes += std::string(notes.empty() ? "" : " ") + "--" + name + "=" + value;
    for (const auto& [name, value] : s_.common_ignored)
      notes += std::string(notes.empty() ? "" : " ") + (name == "mode" ? value : "--" + name + "=" + value);
    p.notes = notes;

    ++counted_;
    if (counted_ <= s_.start)
      p.skip = "before --start";
    else if (!regex_text.empty() && !std::regex_search(repro, std::regex(regex_text)))
      p.skip = "not matched by --match";
    else
      p.skip = skip_reason(pick, dims);
    out_.push_back(std::move(p));

    std::size_t k = lists.size();
    while (k > 0) {
      --k;
      if (++at[k] < lists[k].second->size()) break;
      at[k] = 0;
      if (k == 0) return;
    }
    if (lists.empty()) return;
  }
}

}  // namespace memfmt_tool::benchdnn
