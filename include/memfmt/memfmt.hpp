#pragma once
/// @file
/// The whole of memfmt: format tags, layouts, descriptors, memory, reorders, format selection.
///
/// The reorder kernels and the reorder's planning are compiled in every translation unit
/// that includes this header (header-only). To compile them once instead, define
/// MEMFMT_KERNELS_EXTERN everywhere and MEMFMT_KERNELS_IMPLEMENTATION in one translation
/// unit (see docs/compile_time.md).

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dim.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/core/fixed_string.hpp"
#include "memfmt/core/format_kind.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/desc/print.hpp"
#include "memfmt/desc/to_desc.hpp"
#include "memfmt/layout/blocked.hpp"
#include "memfmt/layout/static_layout.hpp"
#include "memfmt/tag/parse.hpp"
#include "memfmt/tag/tag.hpp"
#include "memfmt/tag/tags.hpp"
#include "memfmt/memory/memory.hpp"
#include "memfmt/reorder/attr.hpp"
#include "memfmt/reorder/reorder.hpp"
#include "memfmt/reorder/static_reorder.hpp"
#include "memfmt/select/select.hpp"
