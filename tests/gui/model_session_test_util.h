// What the ModelSession tests share: open an e2e fixture folder and run a request to its end, waiting for the
// session's threads.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "model/run.h"
#include "model_display.h"

namespace attnviz::testing {

inline std::shared_ptr<const ModelResult> RunOnce(ModelSession& session, const ModelRequest& request) {
  session.Submit(request);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const ModelResult> r = session.latest();
  EXPECT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  return r;
}

// Layer `layer` of a run as the screen shows it with exact rows (LayerWithExactRows: a streamed layer's q and k made
// from its input); a copy of the LayerMaps (its tensors shared), empty when the layer is not there.
inline LayerMaps ExactLayer(const ModelResult& r, int layer) {
  Result<std::shared_ptr<const LayerMaps>> made = LayerWithExactRows(r, layer);
  EXPECT_TRUE(made) << made.message();
  return made && *made ? **made : LayerMaps();
}

// tests/fixtures/models_e2e/<fixture>, opened and waited for.
inline std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << OpenErrorText(session);
  return session.folder();
}

// Each layer's probs [n_head, n, n] of a model::RunModel (the core's side of a comparison).
class LayerProbsSink : public model::LayerSink {
 public:
  Status OnLayer(const model::LayerOutput& out) override {
    probs.emplace_back(out.probs, out.probs + (size_t)out.n_head * out.n * out.n);
    return Status::Ok();
  }
  std::vector<std::vector<float>> probs;
};

// A copy of tests/fixtures/models_e2e/<fixture> in `to` whose config.json has `key` replaced by `value` (e.g. more
// positions, another model_type); returns `to`. The key must be in the config.
// A checkpoint of tests/fixtures/models (which has no tokenizer: its numbers are checked against torch by id) with
// a word-level tokenizer.json beside it whose words "w0" .. "w<vocab-1>" are the ids themselves, so a text of those
// words runs the ids the app is asked for.
inline std::string WithWordIdTokenizer(const std::string& fixture, const std::string& to) {
  namespace fs = std::filesystem;
  const fs::path from = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/models" / fixture;
  fs::create_directories(to);
  for (const fs::directory_entry& f : fs::directory_iterator(from)) {  // the config and the weights (shards too)
    const std::string name = f.path().filename().string();
    if (name == "config.json" || name.find(".safetensors") != std::string::npos)
      fs::copy_file(f.path(), fs::path(to) / name, fs::copy_options::overwrite_existing);
  }
  std::ifstream in(from / "config.json");
  const std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = config.find("\"vocab_size\": ");
  EXPECT_NE(at, std::string::npos);
  const int vocab = std::stoi(config.substr(at + 14));
  std::string words;
  for (int i = 0; i < vocab; ++i) words += (i ? ", \"w" : "\"w") + std::to_string(i) + "\": " + std::to_string(i);
  std::ofstream(fs::path(to) / "tokenizer.json")
      << "{\"version\": \"1.0\", \"added_tokens\": [], \"normalizer\": null, "
         "\"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}, \"post_processor\": null, \"decoder\": null, "
         "\"model\": {\"type\": \"WordLevel\", \"unk_token\": \"w0\", \"vocab\": {" << words << "}}}";
  return to;
}

inline std::string PatchedE2eFixture(const std::string& fixture, const std::string& to, const std::string& key,
                                     const std::string& value) {
  namespace fs = std::filesystem;
  const fs::path from = fs::path(ATTNVIZ_SOURCE_DIR) / "tests/fixtures/models_e2e" / fixture;
  fs::create_directories(to);
  for (const char* f : {"model.safetensors", "tokenizer.json"})
    fs::copy_file(from / f, fs::path(to) / f, fs::copy_options::overwrite_existing);
  std::ifstream in(from / "config.json");
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = config.find(key);
  EXPECT_NE(at, std::string::npos) << key << " not in " << (from / "config.json").string();
  if (at != std::string::npos) config.replace(at, key.size(), value);
  std::ofstream(fs::path(to) / "config.json") << config;
  return to;
}

}  // namespace attnviz::testing
