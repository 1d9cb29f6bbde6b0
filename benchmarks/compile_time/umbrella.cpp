// The cost of including the whole library.
#include <memfmt/memfmt.hpp>

int main() { return 0; }
