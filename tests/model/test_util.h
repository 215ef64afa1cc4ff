// Helpers for the model tests: temporary folders, hand-made safetensors files, fixture paths.
#pragma once
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnviz::model::testing {

inline std::string FixtureDir(const std::string& name) { return std::string(ATTNVIZ_MODEL_FIXTURES) + "/" + name; }

inline const std::vector<std::string>& AllFixtures() {
  static const std::vector<std::string> k = {"gpt2", "gpt2_f16", "bert", "bert_legacy", "llama", "qwen2",
                                             "mistral_sharded", "gpt_neox", "gpt_neox_seq_bf16", "phi3",
                                             "phi3_partial_f16", "roberta", "xlm_roberta", "qwen3",
                                             "qwen3_sliding", "olmo2", "gemma2", "gemma2_bf16", "gemma3_text"};
  return k;
}

// A fresh folder under /tmp, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attnviz_model_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), (std::streamsize)bytes.size());
}

inline std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A safetensors file from a header given as JSON text and a data section.
inline std::string SafetensorsBytes(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = char((n >> (8 * i)) & 0xff);
  return out + header + data;
}

struct RawTensor {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

inline std::string FloatBytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// A well-formed file (offsets packed in order, header padded with spaces to 8 bytes).
inline std::string MakeSafetensors(const std::vector<RawTensor>& tensors) {
  nlohmann::ordered_json h;
  h["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& t : tensors) {
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data += t.bytes;
  }
  std::string header = h.dump();
  header.append((8 - header.size() % 8) % 8, ' ');
  return SafetensorsBytes(header, data);
}

// Copies a fixture folder so a test can change one file.
inline void CopyDir(const std::string& from, const std::string& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
}

// Copies fixture folder `name` to `to` with `from` replaced by `replacement` in its config.json.
inline void CopyWithConfigEdit(const std::string& name, const std::string& to, const std::string& from,
                               const std::string& replacement) {
  CopyDir(FixtureDir(name), to);
  std::string cfg = ReadBytes(to + "/config.json");
  ASSERT_NE(cfg.find(from), std::string::npos) << from;
  cfg.replace(cfg.find(from), from.size(), replacement);
  WriteBytes(to + "/config.json", cfg);
}

}  // namespace attnviz::model::testing
