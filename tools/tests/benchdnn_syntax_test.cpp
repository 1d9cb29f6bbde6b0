// The reader of benchdnn's reorder-driver syntax on small snippets: each expansion
// below is written out by hand from benchdnn's documentation.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "benchdnn_syntax.hpp"

using namespace memfmt_tool;
using namespace memfmt_tool::benchdnn;

namespace {

std::vector<problem_spec> read_text(const std::string& text) {
  reader r;
  r.read(tokenize(text, "snippet"));
  return r.problems();
}

std::vector<std::string> words(const std::vector<token>& tokens) {
  std::vector<std::string> w;
  for (const token& t : tokens) w.push_back(t.text);
  return w;
}

}  // namespace

TEST_CASE("batch words: comments and line continuations as benchdnn reads them") {
  const std::vector<token> t = tokenize(
      "--reset # a comment --sdt=s8\n"
      "--attr-scales=src:common:2, \\\n"
      "              src:per_dim_0,\\\n"
      "              dst:per_dim_1\n"
      "2x8x8 #special 8x8\n",
      "f");
  CHECK(words(t) == std::vector<std::string>{"--reset", "--attr-scales=src:common:2,src:per_dim_0,dst:per_dim_1",
                                             "2x8x8"});
  CHECK(t[1].where == "f:2");
  CHECK(t[2].where == "f:5");
}

TEST_CASE("tags: x as benchdnn expands it for the problem's rank") {
  CHECK(expand_tag("abx", 4) == "abcd");
  CHECK(expand_tag("abx", 2) == "ab");
  CHECK(expand_tag("abx", 1) == "a");
  CHECK(expand_tag("axb", 5) == "acdeb");
  CHECK(expand_tag("xba", 4) == "cdba");
  CHECK(expand_tag("xba", 3) == "cba");
  CHECK(expand_tag("bxa", 3) == "bca");
  CHECK(expand_tag("aBx16b", 4) == "aBcd16b");
  CHECK(expand_tag("aBx16b", 2) == "aB16b");
  // a lowercase letter beyond b moves the start of x: grouped weights
  CHECK(expand_tag("aBCx4c16b4c", 4) == "aBCd4c16b4c");
  CHECK(expand_tag("aBCx4c16b4c", 5) == "aBCde4c16b4c");
  CHECK(expand_tag("xcab", 4) == "dcab");
  CHECK(expand_tag("aBxC16b4c", 5) == "aBdeC16b4c");
  CHECK(expand_tag("Abcx16a", 4) == "Abcd16a");
  CHECK(expand_tag("ABx4b16a4b", 2) == "AB4b16a4b");
  CHECK(expand_tag("x", 1) == "a");
  CHECK(expand_tag("nChw16c", 4) == "nChw16c");
  CHECK(expand_tag("any", 4) == "any");
}

TEST_CASE("data type names: benchdnn's and memfmt's") {
  for (const char* dt :
       {"f32", "bf16", "f16", "s32", "s8", "u8", "f64", "f8_e5m2", "f8_e4m3", "s4", "u4", "dnnl_f32", "dnnl_f64", "dnnl_u4"}) {
    CHECK(is_benchdnn_data_type(dt));
    CHECK(is_memfmt_data_type(dt));
  }
  for (const char* dt : {"f4_e2m1", "f4_e3m0", "e8m0", "boolean"}) {
    CHECK(is_benchdnn_data_type(dt));
    CHECK_FALSE(is_memfmt_data_type(dt));
  }
  CHECK_FALSE(is_benchdnn_data_type("f33"));
}

TEST_CASE("comma lists give every combination, the first option outermost; empty alternatives are the default") {
  const auto p = read_text("--sdt=f32,s8 --oflag=,s8s8_comp:1 --ddt=s8 2x3");
  REQUIRE(p.size() == 4);
  CHECK(p[0].sdt == "f32");
  CHECK(p[0].oflag.empty());
  CHECK(p[1].sdt == "f32");
  CHECK(p[1].oflag == "s8s8_comp:1");
  CHECK(p[2].sdt == "s8");
  CHECK(p[2].oflag.empty());
  CHECK(p[3].repro == "--sdt=s8 --ddt=s8 --stag=abx --dtag=abx --oflag=s8s8_comp:1 2x3");

  const auto q = read_text("--attr-scales=src:per_dim_1, --attr-post-ops=,sum:0.5 --sdt= 4x5");
  REQUIRE(q.size() == 4);
  CHECK(q[0].scales == "src:per_dim_1");
  CHECK(q[0].post_ops.empty());
  CHECK(q[1].post_ops == "sum:0.5");
  CHECK(q[2].scales.empty());
  CHECK(q[3].sdt == "f32");  // an empty value is the default
}

TEST_CASE("--reset resets the driver's options, not --mode or the other common ones") {
  const auto p = read_text("--mode=C --max-ms-per-prb=7 --sdt=s8 --stag=axb --attr-scales=src:common:2 2x3 --reset 2x3");
  REQUIRE(p.size() == 2);
  CHECK(p[0].sdt == "s8");
  CHECK(p[1].sdt == "f32");
  CHECK(p[1].stag == "abx");
  CHECK(p[1].scales.empty());
  CHECK(p[1].run.mode == 1);
  CHECK(p[1].run.max_ms == 7);
  CHECK(read_text("--plan --reset 2x3")[0].run.mode == 0);
}

TEST_CASE("problems memfmt cannot run are skipped with their reason") {
  const auto p = read_text("--sdt=f32,f4_e2m1 --runtime-dim-mask=0,63 2x3");
  REQUIRE(p.size() == 4);
  CHECK(p[0].skip.empty());
  CHECK(p[1].skip == "run-time dims (--runtime-dim-mask) not supported yet: memfmt's desc has none");
  CHECK(read_text("--runtime-dim-mask=00 2x3")[0].skip.empty());  // a mask of no dims
  CHECK(p[2].skip == "data type f4_e2m1 not supported yet");
  CHECK(p[3].skip == "data type f4_e2m1 not supported yet");

  CHECK(read_text("--engine=gpu 2x3")[0].skip == "engine gpu: memfmt runs on the CPU only");
  CHECK(read_text("--attr-fpmath=bf16 2x3")[0].skip == "--attr-fpmath=bf16 not supported");
  CHECK(read_text("--attr-rounding-mode=dst:stochastic:123 2x3")[0].skip ==
        "stochastic rounding (--attr-rounding-mode) not supported yet");
  // groups of the last two dims: they must divide them and fall on masked dims
  CHECK(read_text("--attr-scales=src:per_tensor:f32:8x1 16x3")[0].skip.empty());
  CHECK(read_text("--attr-scales=src:per_tensor:f32:1x16 2x5x32")[0].skip.empty());
  CHECK(read_text("--attr-scales=src:per_tensor:f32:8x1 2x3")[0].skip ==
        "--attr-scales: group 8 of dim 0 (2) does not divide it");
  CHECK(read_text("--attr-scales=src:per_dim_1:f32:8x1 16x3")[0].skip ==
        "--attr-scales: group 8 of dim 0 (16) on a dim the policy leaves out");
  CHECK(read_text("--attr-scales=src:per_dim_0:f32:1x4 16")[0].skip.empty());
  CHECK(read_text("--attr-scales=src:per_dim_0:f32:4x1 16")[0].skip ==
        "--attr-scales: group 4 of the dim before the last, which a 1-dim problem lacks");
  // scales stored as f32, f16, bf16 or e8m0; zero points per index and per group, in
  // s32, s8, u8, s4 or u4
  for (const char* dt : {"f32", "f16", "bf16", "e8m0", "dnnl_bf16"})
    CHECK(read_text(std::string("--attr-scales=src:per_tensor:") + dt + ":1x16 2x32")[0].skip.empty());
  CHECK(read_text("--attr-scales=src:per_tensor:s8 2x3")[0].skip == "scales of data type s8 (memfmt's are f32, f16, bf16 or e8m0)");
  CHECK(read_text("--attr-zero-points=src:per_tensor:s8 2x3")[0].skip.empty());
  CHECK(read_text("--attr-zero-points=src:per_tensor:s4:1x16 2x32")[0].skip.empty());
  CHECK(read_text("--attr-zero-points=dst:per_dim_1:u4 2x32")[0].skip.empty());
  CHECK(read_text("--attr-zero-points=src:per_tensor:f32 2x3")[0].skip ==
        "zero points of data type f32 (memfmt's are s32, s8, u8, s4 or u4)");
  CHECK(read_text("--attr-zero-points=src:per_tensor:s4:1x16 2x24")[0].skip ==
        "--attr-zero-points: group 16 of dim 1 (24) does not divide it");
  CHECK(read_text("--attr-zero-points=src:per_ocic:s4 2x24")[0].skip ==
        "zero points policy per_ocic is ambiguous for a reorder");
  CHECK(read_text("--attr-post-ops=relu 2x3")[0].skip == "post-op relu not supported by memfmt's reorders (sum only)");
  CHECK(read_text("--attr-rounding-mode=dst:environment --attr-scales=src:per_tensor:f32 2x3")[0].skip.empty());
  // memfmt's addition: any per_dim_ digits, and a scale after a per-dim policy
  CHECK(read_text("--attr-scales=src:per_dim_34:4 2x3x4x5x6")[0].scales == "src:per_dim_34:4");
}

TEST_CASE("options that do not change a reorder are accepted and noted") {
  const auto p = read_text("--skip-impl=ref,simple --engine=cpu --attr-scratchpad=user --ctx-init=2 -v5 2x3");
  REQUIRE(p.size() == 1);
  CHECK(p[0].skip.empty());
  CHECK(p[0].notes == "--attr-scratchpad=user --ctx-init=2 --skip-impl=ref,simple --verbose=5");
  CHECK(read_text("--skip-impl=ref --reset 2x3")[0].notes.empty());  // a driver option: reset
}

TEST_CASE("dims with a name, --match and --start") {
  const auto p = read_text("48x64_n\"2d_scale:0\" 17x32");
  REQUIRE(p.size() == 2);
  CHECK(p[0].dims == memfmt::dims{48, 64});
  CHECK(p[0].dims_text == "48x64_n\"2d_scale:0\"");
  CHECK(p[1].dims == memfmt::dims{17, 32});

  const auto m = read_text("--match=axb --dtag=abx,axb 2x3");
  CHECK(m[0].skip == "not matched by --match");
  CHECK(m[1].skip.empty());
  const auto s = read_text("--start=1 2x3 3x4");
  CHECK(s[0].skip == "before --start");
  CHECK(s[1].skip.empty());
}

TEST_CASE("lines benchdnn rejects are errors naming the file and line") {
  const auto error_of = [](const std::string& text) {
    try {
      read_text(text);
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("--sdt=f32\n--frobnicate=1 2x3").rfind("snippet:2: '--frobnicate=1': unknown option", 0) == 0);
  CHECK(error_of("--sdt=f33 2x3").rfind("snippet:1: '--sdt=f33': --sdt: unknown data type 'f33'", 0) == 0);
  CHECK(error_of("--oflag=comp:1 2x3").find("is not FLAG:MASK") != std::string::npos);
  // flags as benchdnn spells them only: another spelling is no flag, not some other one
  CHECK(error_of("--oflag=S8S8_COMP:1 2x3").find("is not FLAG:MASK") != std::string::npos);
  CHECK(error_of("--attr-scales=src:sometimes 2x3").find("unknown policy 'sometimes'") != std::string::npos);
  CHECK(error_of("\n\nnchw").rfind("snippet:3: 'nchw': neither an option", 0) == 0);
  CHECK(error_of("-sdt=f32 2x3").find("options start with '--'") != std::string::npos);
}
