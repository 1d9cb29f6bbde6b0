#pragma once
/// @file
/// How a descriptor's layout is given.

namespace memfmt {

/// `undef` for the zero descriptor, `any` for "let the library choose", `blocked` for a
/// concrete layout (plain, strided or blocked).
enum class format_kind { undef, any, blocked };

}  // namespace memfmt
