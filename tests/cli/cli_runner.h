// Runs the real attnviz-cli binary as a user would (through sh), for the CLI test files: exit code,
// stdout, stderr. ATTNVIZ_CLI is the binary's path (tests/cli/CMakeLists.txt).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "sandbox/text.h"

namespace attnviz::cli_test {

struct CliResult {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Whether `text` holds a Hangul syllable (a Korean message, not an English one).
inline bool HasHangul(const std::string& text) {
  for (char32_t c : DecodeUtf8(text))
    if (c >= 0xAC00 && c <= 0xD7A3) return true;
  return false;
}

// Single-quoted for sh.
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `prefix` is shell text run first (e.g. "ulimit -f 100; ").
inline CliResult Cli(const std::vector<std::string>& args, const std::string& prefix = "") {
  static int counter = 0;
  const std::string err_path = (std::filesystem::temp_directory_path() /
                                ("attnviz_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                                   .string();
  std::string cmd = prefix + Quote(ATTNVIZ_CLI);
  for (const auto& a : args) cmd += " " + Quote(a);
  cmd += " 2>" + Quote(err_path);
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  auto err = ReadFile(err_path);
  r.err = err.ok() ? *err : "";
  std::filesystem::remove(err_path);
  return r;
}

// Exit 2 with `part` in stderr, or what came instead.
inline ::testing::AssertionResult Refused(const CliResult& r, const std::string& part) {
  if (r.code == 2 && r.err.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "exit " << r.code << ", stderr '" << r.err.substr(0, 400)
                                       << "' does not contain '" << part << "'";
}

}  // namespace attnviz::cli_test
