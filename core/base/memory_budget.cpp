#include "base/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace attnviz {
namespace {

// "8G" -> 8 GiB; 0 when the text is not a size.
size_t ParseSize(const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || !(v > 0) || v > 1e18) return 0;
  double unit = 1;
  switch (*end) {
    case 'k': case 'K': unit = 1024.0, ++end; break;
    case 'm': case 'M': unit = 1024.0 * 1024, ++end; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024, ++end; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024, ++end; break;
    default: break;
  }
  if (*end == 'i' || *end == 'B') ++end;  // "8GiB", "8GB"
  if (*end == 'B') ++end;
  if (*end != '\0') return 0;
  return (size_t)std::min(v * unit, 1e18);
}

}  // namespace

size_t DefaultMemoryLimit(size_t physical_bytes, size_t address_space_bytes) {
  size_t limit = physical_bytes > 0 ? (size_t)((double)physical_bytes * kDefaultMemoryFraction) : size_t(2) << 30;
  // Under an address-space limit the weights' mappings count too: keep the run to half of it.
  if (address_space_bytes > 0) limit = std::min(limit, address_space_bytes / 2);
  return limit;
}

size_t MemoryLimitBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const size_t physical = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  struct rlimit as;
  const size_t address_space =
      ::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY ? (size_t)as.rlim_cur : 0;
  const char* env = std::getenv("ATTNVIZ_MEMORY_LIMIT");
  if (const size_t chosen = env ? ParseSize(env) : 0; chosen > 0)
    return address_space > 0 ? std::min(chosen, address_space / 2) : chosen;
  return DefaultMemoryLimit(physical, address_space);
}

std::string MemoryText(double bytes) {
  char b[48];
  if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(b, sizeof b, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else if (bytes >= 1024.0 * 1024) std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024));
  else std::snprintf(b, sizeof b, "%.0f bytes", bytes);
  return b;
}

}  // namespace attnviz
