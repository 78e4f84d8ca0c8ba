#pragma once
// Runs files through a harness's LLVMFuzzerTestOneInput without libFuzzer
// (the gcc build's replay driver and the corpus tests).

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace lapis::fuzz {

// Runs `path` (a file, or every regular file of a folder) through the
// harness. Returns how many inputs ran; -1 if `path` cannot be read.
long replay(const std::string& path);

}  // namespace lapis::fuzz
