#pragma once
// Horizontal fusion, the code generator's half: one launch runs several members that generate
// the same kernel (segment/horizontal.h), each on its own parameter block. The member's kernel
// becomes a device function whose `blockIdx` and `gridDim` are parameters (they shadow the
// built-ins, so the template's text runs unchanged on the member's own block numbering), and a
// group kernel maps its block to the member: blocks [start[m], start[m+1]) are member m's,
// numbered x-fastest over the member's grid gx[m] x gy[m]. The members' Params sit in the
// group's by-value parameter block:
//   i64 start[M + 1], i64 gx[M], Params m[M]   (every field 8 bytes, like Params)
#include <string>

#include "codegen/kernel_codegen.h"
#include "codegen/param_layout.h"

namespace solder {

struct GroupLayout {
  int members = 0;
  int member_words = 0;  // ParamLayout::size() of the member kernel
  int start(int m) const { return m; }
  int gx(int m) const { return members + 1 + m; }
  int member(int m) const { return 2 * members + 1 + m * member_words; }
  int size() const { return member(members); }
  // Members whose group block fits `limit_bytes` of kernel parameters.
  static int max_members(int member_words, int limit_bytes) { return (limit_bytes / 8 - 1) / (2 + member_words); }
};

// The group kernel for `members` launches of `member`'s kernel. Throws solder::Error where the
// member source has no kernel entry of the template's form.
KernelSource generate_group_kernel(const KernelSource& member, int members);

// The source with comments dropped, the kernel's name replaced and, in the kernel body, the
// names derived from value ids (m36, rm32, v71, ...) renamed by their first appearance: equal
// for two kernels when one is the other with value ids changed, so the same compiled code runs
// either on its own Params. Every other name must match as written.
std::string canonical_kernel_text(const std::string& source);

}  // namespace solder
