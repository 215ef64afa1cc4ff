// What the ModelSession tests share: open an e2e fixture folder and run a request to its end, waiting for the
// session's threads.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model_session.h"

namespace attnviz::testing {

inline std::shared_ptr<const ModelResult> RunOnce(ModelSession& session, const ModelRequest& request) {
  session.Submit(request);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const ModelResult> r = session.latest();
  EXPECT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  return r;
}

// tests/fixtures/models_e2e/<fixture>, opened and waited for.
inline std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << session.open_error();
  return session.folder();
}

}  // namespace attnviz::testing
