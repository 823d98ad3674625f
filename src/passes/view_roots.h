#pragma once
// What a value is a view of, for the passes that move math to where values live in memory.
#include "solder/fusion.h"

namespace solder {

// An input, a constant, a matmul's result (the library writes it to memory), or views of one
// (not a pad): what a kernel reads as it is.
bool memory_rooted(const Fusion& f, int v);

// The constant that v is a view of (an expand of a fill), or -1: the same value at every index.
int constant_root(const Fusion& f, int v);

}  // namespace solder
