// Replay driver for memfmt's fuzz targets in builds without libFuzzer.
//
// Usage: <fuzz-target> [FILE|DIR]... [-runs=N] [-max_len=N] [-seed=N]
//
// Feeds LLVMFuzzerTestOneInput every file given (folders: every regular file
// in them, in name order), then N deterministic pseudo-random inputs
// (default 4096, lengths 0..max_len, default 256). If an input makes the
// target crash, abort or throw, the driver prints that input in hex before
// the process dies, so the failure can be reproduced.

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
#if defined(__GNUC__) || defined(__clang__)
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
#else
extern "C" int (*const LLVMFuzzerInitialize)(int*, char***) = nullptr;
#endif

namespace {

const std::vector<std::uint8_t>* g_current = nullptr;
const char* g_current_name = "";

void print_current_input() {
  if (g_current == nullptr) return;
  std::fprintf(stderr, "\nfuzz replay: failure on input '%s' (%zu bytes):\n", g_current_name,
               g_current->size());
  for (std::size_t i = 0; i < g_current->size(); ++i) {
    std::fprintf(stderr, "%02x%s", (*g_current)[i], (i % 32 == 31) ? "\n" : "");
  }
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

extern "C" void on_fatal_signal(int sig) {
  print_current_input();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void run_one(const std::vector<std::uint8_t>& input, const char* name) {
  g_current = &input;
  g_current_name = name;
  // A copy of exactly the right size, so that reads past the end are caught
  // by AddressSanitizer where it is enabled.
  std::vector<std::uint8_t> copy(input);
  LLVMFuzzerTestOneInput(copy.empty() ? nullptr : copy.data(), copy.size());
  g_current = nullptr;
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool parse_flag(const char* arg, const char* name, unsigned long long& value) {
  const std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0) return false;
  value = std::strtoull(arg + n, nullptr, 10);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGABRT, on_fatal_signal);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGFPE, on_fatal_signal);
  std::signal(SIGILL, on_fatal_signal);
  std::set_terminate([] {
    print_current_input();
    std::abort();
  });

  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  unsigned long long runs = 4096;
  unsigned long long max_len = 256;
  unsigned long long seed = 0x6d656d666d74ULL;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (parse_flag(argv[i], "-runs=", runs) || parse_flag(argv[i], "-max_len=", max_len) ||
        parse_flag(argv[i], "-seed=", seed)) {
      continue;
    }
    if (argv[i][0] == '-') continue;  // other libFuzzer flags are ignored
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> entries;
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (entry.is_regular_file()) entries.push_back(entry.path());
      }
      std::sort(entries.begin(), entries.end());
      files.insert(files.end(), entries.begin(), entries.end());
    } else {
      files.push_back(path);
    }
  }

  for (const auto& path : files) {
    const std::string name = path.string();
    run_one(read_file(path), name.c_str());
  }

  // xorshift64*: deterministic for a given -seed.
  std::uint64_t state = seed == 0 ? 1 : seed;
  auto next = [&state] {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  };
  std::vector<std::uint8_t> input;
  for (unsigned long long r = 0; r < runs; ++r) {
    const std::size_t len = max_len == 0 ? 0 : static_cast<std::size_t>(next() % (max_len + 1));
    input.resize(len);
    for (auto& byte : input) byte = static_cast<std::uint8_t>(next() >> 56);
    const std::string name = "random #" + std::to_string(r);
    run_one(input, name.c_str());
  }

  std::printf("fuzz replay: %zu file input(s) and %llu pseudo-random input(s) passed\n",
              files.size(), runs);
  return 0;
}
