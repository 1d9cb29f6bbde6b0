#pragma once
/// @file
/// The whole of memfmt: format tags, layouts, descriptors, memory, reorders, format selection.

#include "memfmt/core/data_type.hpp"
#include "memfmt/core/dim.hpp"
#include "memfmt/core/dims.hpp"
#include "memfmt/core/error.hpp"
#include "memfmt/core/fixed_string.hpp"
#include "memfmt/core/format_kind.hpp"
#include "memfmt/desc/desc.hpp"
#include "memfmt/desc/print.hpp"
#include "memfmt/layout/blocked.hpp"
#include "memfmt/layout/static_layout.hpp"
#include "memfmt/tag/parse.hpp"
#include "memfmt/tag/tag.hpp"
#include "memfmt/tag/tags.hpp"
#include "memfmt/memory/memory.hpp"
#include "memfmt/select/select.hpp"
