#include "base/title_words.h"

#include <cstdio>

namespace attnviz {

std::string ShortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace attnviz
