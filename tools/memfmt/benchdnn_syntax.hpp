#pragma once
// The reader of oneDNN benchdnn's reorder-driver syntax, for `memfmt reorder`: command
// lines and batch files as benchdnn takes them, expanded into one problem_spec per
// problem. It decides what memfmt honours, what it accepts and ignores (with a note on
// the problem) and which problems it cannot run yet (skipped with a reason); only a
// line benchdnn would reject too is an error (usage_error naming the file and line).
// It knows nothing of memfmt's descriptors, so that it is tested on text alone.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "memfmt/core/dims.hpp"

namespace memfmt_tool::benchdnn {

/// A usage_error that already names the file and line it comes from.
class located_error : public usage_error {
 public:
  using usage_error::usage_error;
};

/// A word of a command line or batch file, and where it was written (for errors).
struct token {
  std::string text;
  std::string where;  ///< "FILE:LINE", or "command line"
};

/// benchdnn's batch-file words: split at white space; a word starting with '#' comments
/// out the rest of its line; a word ending in '\' (or a lone '\') is glued to the next
/// word, so `--attr-scales=a, \` NEWLINE `b` is the one word `--attr-scales=a,b`.
std::vector<token> tokenize(std::string_view text, const std::string& file);

/// benchdnn's tag expansion for a problem of `ndims` dims: 'x' stands for the letters
/// after the last lowercase letter the tag names (from 'c' when it names none beyond
/// 'b'), up to ndims; letters beyond ndims are dropped with their block sizes.
/// abx -> abcd, xba -> cdba, aBCx4c16b4c -> aBCd4c16b4c, xcab -> dcab for 4 dims;
/// abx -> ab for 2. A tag without 'x' is returned as it is; "x" is "a".
std::string expand_tag(const std::string& tag, int ndims);

/// Every data type name benchdnn knows (f32, f8_e5m2, s4, e8m0, ..., also "dnnl_f32").
bool is_benchdnn_data_type(std::string_view name);
/// Those memfmt converts: f64, f32, bf16, f16, s32, s8, u8, f8_e5m2, f8_e4m3 (a "dnnl_"
/// prefix is dropped).
bool is_memfmt_data_type(std::string_view name);

/// A mask from a benchdnn policy: common -> 0, per_dim_1 -> 2, per_dim_01 -> 3,
/// per_tensor -> every dim; a usage_error naming `option` otherwise.
int policy_mask(const std::string& policy, int ndims, const std::string& option);

/// One entry of --attr-scales or --attr-zero-points, ARG:POLICY[:VALUE][:DT[:GROUPS]],
/// VALUE for the common policy only (memfmt also reads a number after another policy
/// as the scale, as its earlier syntax did).
struct quant_entry {
  std::string arg, policy, value, dt, groups;
};

/// The entries of an --attr-scales or --attr-zero-points value (`option` names it in a
/// usage_error).
std::vector<quant_entry> parse_quant(const std::string& spec, const std::string& option);

/// A data type's name without oneDNN's "dnnl_" prefix.
std::string_view strip_dnnl(std::string_view name);

/// True for a benchdnn group field, "AxB" (`src:per_tensor:f16:1x16`).
bool is_groups(std::string_view field);

/// The group field "AxB" of a quantization entry as memfmt::scales::groups for `mask`
/// over `shape`: A and B are the groups of the last two dims, as benchdnn reads them, 1
/// elsewhere; one entry per masked dim. A usage_error naming `option` when a group other
/// than 1 falls on a dim the mask leaves out or does not divide its dim.
std::vector<memfmt::dim> quant_groups(const std::string& field, int mask, const memfmt::dims& shape,
                                      const std::string& option);

/// How a problem is run: the common (global) options, which --reset keeps.
struct run_options {
  int mode = 2;  ///< bit 1: check against oneDNN (C), bit 2: time (P); 0: plan only
  double max_ms = 200;
  int fix_times = 0;
  int threads = 0;
  bool memcpy = false;
};

/// One problem: the alternative of every option at the point its dims were read.
struct problem_spec {
  std::string where;        ///< "FILE:LINE" of its dims
  memfmt::dims dims;
  std::string dims_text;    ///< the descriptor as written, with its _nNAME
  std::string sdt, ddt, stag, dtag;
  std::string src_strides, dst_strides;  ///< AxBxC each, or empty
  std::string oflag;        ///< FLAG:MASK[+...], or empty
  std::string scales, zero_points, post_ops;  ///< benchdnn's attribute text, or empty
  std::string repro;        ///< the benchdnn options and dims that give this problem
  std::string notes;        ///< options accepted and ignored, e.g. "--skip-impl=ref ignored"
  std::string skip;         ///< why memfmt cannot run it yet; empty when it can
  run_options run;
};

/// The options at some point of the reading: benchdnn's driver options (lists, reset
/// by --reset) and the common ones (kept).
struct reader_state {
  std::map<std::string, std::vector<std::string>> driver;  ///< option name -> alternatives
  std::map<std::string, std::string> driver_single;        ///< --impl, --skip-impl, --match
  std::map<std::string, std::string> common_ignored;       ///< accepted, no effect on memfmt
  std::string engine = "cpu";
  run_options run;
  int start = 0;  ///< --start=N: problems before the N-th are skipped
};

/// Reads benchdnn reorder-driver words and appends a spec per problem. --batch=FILE is
/// read relative to the directory of the file that names it (the working directory for
/// the command line). --help prints help through `help` and exits.
class reader {
 public:
  explicit reader(void (*help)() = nullptr) : help_(help) {}
  void read(const std::vector<token>& tokens, int depth = 0);
  void read_file(const std::string& path, int depth = 0);
  std::vector<problem_spec>& problems() { return out_; }
  reader_state& state() { return s_; }

 private:
  void option(const token& t, int depth);
  void add_problems(const token& t);
  std::string skip_reason(const std::map<std::string, std::string>& pick, const memfmt::dims& dims) const;

  reader_state s_;
  std::vector<problem_spec> out_;
  std::vector<std::string> dirs_;  ///< directories of the batch files being read
  int counted_ = 0;                ///< problems read, for --start
  void (*help_)();
};

}  // namespace memfmt_tool::benchdnn
