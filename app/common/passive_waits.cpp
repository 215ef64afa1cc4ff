#include "passive_waits.h"

#include <unistd.h>

#include <cstdlib>

namespace attnviz {

void UsePassiveOpenMpWaits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;  // set by the user, or by our own re-run
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: go on with libgomp's default policy
}

}  // namespace attnviz
