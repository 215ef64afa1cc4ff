#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace attnviz {

void ShapeCheckFailed(const char* file, int line, const char* condition, const std::string& detail) {
  if (detail.empty())
    std::fprintf(stderr, "attnviz: shape check failed at %s:%d: %s\n", file, line, condition);
  else
    std::fprintf(stderr, "attnviz: shape check failed at %s:%d: %s (%s)\n", file, line, condition, detail.c_str());
  std::abort();
}

}  // namespace attnviz
