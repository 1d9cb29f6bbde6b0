// Run at configure time: exits with 0 when this CPU has Highway's AVX3_DL target,
// so that the AVX3_DL kernel test is built only where it can run.
#include <hwy/targets.h>

int main() { return (hwy::SupportedTargets() & HWY_AVX3_DL) != 0 ? 0 : 1; }
