// Compiles: memfmt_add_compile_fail_test must report it as a failure.
#include <type_traits>

template <class T>
struct integral_only {
  static_assert(std::is_integral_v<T>, "memfmt-selftest: T must be an integral type");
  T value;
};

int main() {
  integral_only<int> x{0};
  return x.value;
}
