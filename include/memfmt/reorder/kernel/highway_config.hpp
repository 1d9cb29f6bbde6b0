#pragma once
/// @file
/// Highway settings that memfmt needs before any Highway header.
///
/// Highway 1.0 means to add AVX3_DL to its targets when the compiler's baseline has it,
/// but its check reads a macro that does not exist, so a baseline of AVX3_DL
/// (-march=native on a processor with AVX-512 VNNI, VBMI2, BITALG and AVX-VNNI) stops at Highway's
/// "#error Logic error: best baseline should be included in dynamic targets".
/// Opting in with HWY_WANT_AVX3_DL, only for such a baseline, does what Highway meant;
/// other baselines are untouched. The macro stays defined, so that Highway headers
/// included later agree. A translation unit that includes Highway before memfmt needs
/// -DHWY_WANT_AVX3_DL itself with those flags.

#if !defined(HWY_WANT_AVX3_DL) && defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
    defined(__AVX512BW__) && defined(__AVXVNNI__) && defined(__VAES__) && defined(__VPCLMULQDQ__) &&       \
    defined(__AVX512VBMI__) && defined(__AVX512VBMI2__) && defined(__AVX512VPOPCNTDQ__) &&                 \
    defined(__AVX512BITALG__)
#define HWY_WANT_AVX3_DL
#endif
