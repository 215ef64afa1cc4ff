// What the harnesses share: the input as text, split into parts, and written to scratch files for the
// parsers that read files by path (tokenizers, safetensors). A failed expectation aborts, so libFuzzer
// reports it like a crash.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace attnviz::fuzz {

inline std::string AsText(const uint8_t* data, size_t size) { return std::string((const char*)data, size); }

// "a\0b\0c" -> {"a", "b", "c"}: several files or arguments in one input.
inline std::vector<std::string> SplitOnNul(const std::string& text) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == '\0') parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

// A folder of this process's own under $TMPDIR (removed at exit), for files the parsers open by path.
inline const std::string& ScratchDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/attnviz-fuzz-XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    static std::string path;
    path = tmpl;
    std::atexit([] { std::system(("rm -rf '" + path + "'").c_str()); });
    return tmpl;
  }();
  return dir;
}

// Writes `bytes` to ScratchDir()/name and returns the path.
inline std::string WriteScratch(const std::string& name, const std::string& bytes) {
  const std::string path = ScratchDir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
  return path;
}

#define FUZZ_EXPECT(cond)                                                   \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

}  // namespace attnviz::fuzz
