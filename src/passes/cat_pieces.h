#pragma once
#include <string>

#include "solder/fusion.h"

namespace solder {

// cat(F0(a...), F1(b...), axis) -> where(window0, F0(pad(a)...), F1(pad(b)...)): a cat whose
// pieces are element math over inputs (or views of inputs) becomes element math over the cat's
// own shape, so the pieces, the cat and what reads it run as one kernel. Each piece's leaves are
// padded into the piece's place along the axis (a pad is a masked read of the leaf, never a
// copy) and a window (true where the index along the axis is in the piece) picks the piece
// (RoPE's rotate-half: cat(-x2, x1) * sin + x * cos is one kernel). Pieces of constant or
// symbolic sizes (H, K+-1*min(K, 256): the bounds are then size expressions, which kernels take
// as runtime scalars) where that saves traffic (the cat is read, or a piece would be copied);
// few pieces of small cones (each element computes every piece); other cats stay cats (pieces
// written in place where they are made). A cat of such cats (F.pad of two dims) is read as
// pieces too: its leaves are pads of pads, one pad a dim (two along one axis are one pad).
Fusion cat_pieces_in_kernels(const Fusion& f);

// Why `cat` (a node of f) is not read as pieces in one kernel, or "" where it is.
std::string cat_stays_why(const Fusion& f, const Node& cat);

}  // namespace solder
