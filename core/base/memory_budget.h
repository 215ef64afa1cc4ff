// The memory one run may ask for (a model's forward pass, a sandbox layer), checked against an estimate made from
// the sizes before anything is allocated: a run that would not fit is refused with the estimate and the limit,
// never started to end in an abort (std::bad_alloc) or to push the machine into swap.
#pragma once
#include <cstddef>
#include <string>

namespace attnviz {

// ATTNVIZ_MEMORY_LIMIT when set (bytes, or a number with K, M, G or T: "8G"), else 2 GiB, or half the physical
// memory when that is less; never more than half the address-space limit (RLIMIT_AS) when one is set.
size_t MemoryLimitBytes();
// "3.4 GiB", "512 MiB", "900 bytes": an estimate for a message.
std::string MemoryText(double bytes);

}  // namespace attnviz
