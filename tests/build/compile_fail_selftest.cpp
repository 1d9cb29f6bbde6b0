// Must not compile: checks that memfmt_add_compile_fail_test passes on the
// expected diagnostic and fails on any other.
#include <type_traits>

template <class T>
struct integral_only {
  static_assert(std::is_integral_v<T>, "memfmt-selftest: T must be an integral type");
  T value;
};

int main() {
  integral_only<double> x{1.0};
  return static_cast<int>(x.value);
}
