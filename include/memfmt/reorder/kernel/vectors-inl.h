// The vector types every kernel shares (f32 lanes and their integer twins) and the
// unrolling pragma of tile loops.
//
// Compiled once per target by pass-inl.h (Highway's toggle idiom, memfmt's toggle).

#if defined(MEMFMT_REORDER_KERNEL_VECTORS_INL_H_) == defined(MEMFMT_KERNEL_TOGGLE)
#ifdef MEMFMT_REORDER_KERNEL_VECTORS_INL_H_
#undef MEMFMT_REORDER_KERNEL_VECTORS_INL_H_
#else
#define MEMFMT_REORDER_KERNEL_VECTORS_INL_H_
#endif

#ifndef MEMFMT_UNROLL
// A tile stays in registers only when the loops over its rows are unrolled completely,
// which GCC's -O2 does not do by itself for bodies this large.
#define MEMFMT_UNROLL _Pragma("GCC unroll 16")
#endif

// (types only: no HWY_BEFORE_NAMESPACE, whose target attribute would apply to nothing)
namespace memfmt::detail::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using VU = hn::Vec<DU>;

}  // namespace memfmt::detail::HWY_NAMESPACE

#endif  // MEMFMT_REORDER_KERNEL_VECTORS_INL_H_
