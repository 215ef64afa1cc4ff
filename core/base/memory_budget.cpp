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

size_t MemoryLimitBytes() {
  size_t limit = size_t(2) << 30;
  if (const char* env = std::getenv("ATTNVIZ_MEMORY_LIMIT"); env && ParseSize(env) > 0) {
    limit = ParseSize(env);
  } else {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) limit = std::min(limit, (size_t)pages * (size_t)page / 2);
  }
  // Under an address-space limit the weights' mappings count too: keep the run to half of it.
  struct rlimit as;
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    limit = std::min(limit, (size_t)as.rlim_cur / 2);
  return limit;
}

std::string MemoryText(double bytes) {
  char b[48];
  if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(b, sizeof b, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else if (bytes >= 1024.0 * 1024) std::snprintf(b, sizeof b, "%.1f MiB", bytes / (1024.0 * 1024));
  else std::snprintf(b, sizeof b, "%.0f bytes", bytes);
  return b;
}

}  // namespace attnviz
