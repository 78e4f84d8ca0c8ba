#pragma once
// The Lapis release these binaries are (lapirun --version, lapis_info).

namespace lapis {

inline constexpr const char* kLapisVersion = "0.1.0";

}  // namespace lapis
