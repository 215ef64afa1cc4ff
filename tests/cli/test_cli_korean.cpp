// attnviz-cli --lang ko as a Korean student runs it: the width refusal, a bad option value and an unknown
// option in Korean with exit code 2, the help in Korean, and the English unchanged without --lang.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.h"
#include "file_io.h"
#include "text.h"

using namespace attnviz;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using attnviz::cli_test::HasHangul;

namespace {

TEST(CliKorean, WidthMismatchIsRefusedInKoreanWithExitCode2) {
  CliResult r = Cli({"--lang", "ko", "compute", "--text", "the cat sat", "--query-from", "length", "--key-from",
                     "onehot"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(HasHangul(r.err)) << r.err;
  EXPECT_NE(r.err.find("attnviz-cli compute: 오류: 점수를 내려면 d_q = d_k 여야 합니다"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("onehot에서 온 키의 폭은 3 (n_vocab)"), std::string::npos) << r.err;
  // The same without --lang (a C locale): English.
  r = Cli({"compute", "--text", "the cat sat", "--query-from", "length", "--key-from", "onehot"}, "LC_ALL=C; export LC_ALL; ");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(HasHangul(r.err)) << r.err;
  EXPECT_NE(r.err.find("a score needs d_q = d_k"), std::string::npos) << r.err;
}

TEST(CliKorean, BadValuesAndUnknownOptionsInKorean) {
  CliResult r = Cli({"--lang", "ko", "compute", "--text", "a b", "--heads", "99"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--heads: 99 은(는) 범위를 벗어났습니다: 허용 범위 1..64"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "compute", "--text", "a b", "--score", "manhattan"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--score: score 'manhattan' 은(는) 알 수 없는 값입니다: 허용 값 scaled-dot, dot"),
            std::string::npos)
      << r.err;
  r = Cli({"--lang", "ko", "compute", "--text", "   "});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--text: 문장에 공백만 있습니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "compute", "--frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("모르는 옵션 '--frobnicate'"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "compute", "--text-file", "/nonexistent/s.txt"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/s.txt: 열 수 없습니다: "), std::string::npos) << r.err;
}

TEST(CliKorean, HelpIsKorean) {
  CliResult r = Cli({"--lang", "ko", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("사용법: attnviz-cli 명령 [옵션]"), std::string::npos) << r.out;
  for (const char* command : {"compute", "sweep", "export", "model", "--lang en|ko"})
    EXPECT_NE(r.out.find(command), std::string::npos) << command;
  r = Cli({"--lang", "ko", "compute", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("사용법: attnviz-cli compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("어텐션 설정:"), std::string::npos) << r.out;
  for (const char* option : {"--query-from", "--key-from", "--value-from", "--score", "--dump", "--weights"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  r = Cli({"--lang", "ko", "sweep", "--help"});
  EXPECT_NE(r.out.find("사용법: attnviz-cli sweep"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("어텐션 설정:"), std::string::npos) << r.out;
  r = Cli({"--lang", "ko", "export", "--help"});
  EXPECT_NE(r.out.find("사용법: attnviz-cli export"), std::string::npos) << r.out;
  for (const char* option : {"--out", "--format", "--heads", "--size", "--dpi", "--title"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  r = Cli({"--lang", "en", "--help"});
  EXPECT_FALSE(HasHangul(r.out)) << r.out;
}

TEST(CliKorean, FigureTitleInKorean) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("attnviz_cli_ko_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  CliResult r = Cli({"--lang", "ko", "export", "--text", "the cat sat", "--no-scale", "--key-from", "position",
                     "--query-from", "position", "--out", dir + "/map.svg"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto svg = ReadFile(dir + "/map.svg");
  ASSERT_TRUE(svg.ok());
  EXPECT_NE(svg->find("헤드 0 \u00B7 d_k=16 \u00B7 스케일 없음 \u00B7 T=1 \u00B7 위치에서 온 q \u00B7 위치에서 온 k"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
