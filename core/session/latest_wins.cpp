#include "session/latest_wins.h"

#include <exception>
#include <new>

namespace attnviz {

std::string CurrentExceptionMessage(const std::string& job) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return job + ": out of memory";
  } catch (const std::exception& e) {
    return job + " failed: " + e.what();
  } catch (...) {
    return job + " failed: an unknown error";
  }
}

Status RunGuarded(const std::string& what, const std::function<Status()>& job) {
  try {
    return job();
  } catch (...) {
    return Status::Error(CurrentExceptionMessage(what));
  }
}

}  // namespace attnviz
