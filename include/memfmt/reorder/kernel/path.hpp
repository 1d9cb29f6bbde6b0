#pragma once
/// @file
/// MEMFMT_KERNEL_PATH(name): a kernel marks that it took the path `name` (a string
/// literal), once per block or loop it runs that way, never per tile.
///
/// It expands to nothing unless defined before memfmt is included. The kernel tests
/// define it to record the paths, so that each test of a path also checks that its
/// cases still reach that path: the choice between paths rests on heuristics (block
/// sizes, strides, alignment) that a later change may move. A program must define it
/// the same way in every translation unit that includes memfmt, or not at all.

#ifndef MEMFMT_KERNEL_PATH
#define MEMFMT_KERNEL_PATH(name) static_cast<void>(0)
#endif
