#pragma once
// Where the CUDA toolkit's headers and libraries live, found at run time (not baked in at build
// time) so binaries keep working when the toolkit sits elsewhere on the machine that runs them.
#include <string>

namespace solder {

// Folder holding cuda_fp16.h & co: $SOLDER_CUDA_INCLUDE, else next to the loaded libnvrtc
// (<toolkit>/lib/../include), else $CUDA_HOME/$CUDA_PATH, else /usr/local/cuda. "" if none.
const std::string& cuda_include_dir();
// Folder of the loaded libnvrtc (where libcublasLt usually sits too), or "".
const std::string& cuda_library_dir();

}  // namespace solder
