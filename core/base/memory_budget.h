// The memory one run may ask for (a model's forward pass, a sandbox layer), checked against an estimate made from
// the sizes before anything is allocated: a run that would not fit is refused with the estimate and the limit,
// never started to end in an abort (std::bad_alloc) or to push the machine into swap.
#pragma once
#include <cstddef>
#include <string>

namespace attnviz {

// The share of the physical memory a run may take by default: the rest is the weights' pages, the other program's
// share when the app and attnviz-cli run side by side, and the desktop.
constexpr double kDefaultMemoryFraction = 0.6;

// ATTNVIZ_MEMORY_LIMIT when set (bytes, or a number with K, M, G or T: "8G"), else DefaultMemoryLimit of this
// machine; never more than half the address-space limit (RLIMIT_AS) when one is set. The same in every program.
size_t MemoryLimitBytes();
// The default for a machine of `physical_bytes` (0: unknown, then 2 GiB) under an address-space limit of
// `address_space_bytes` (0: none): kDefaultMemoryFraction of the physical memory, at most half the limit.
size_t DefaultMemoryLimit(size_t physical_bytes, size_t address_space_bytes);
// "3.4 GiB", "512 MiB", "900 bytes": an estimate for a message.
std::string MemoryText(double bytes);

}  // namespace attnviz
