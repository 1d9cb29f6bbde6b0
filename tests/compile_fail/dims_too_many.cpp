// dims holds at most 12 values; a 13th in a constant expression must not compile.
#include <memfmt/core/dims.hpp>

constexpr memfmt::dims d{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

int main() { return d.size(); }
