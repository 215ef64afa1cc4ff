// attnviz-cli --lang ko as a Korean student runs it: the width refusal, a bad option value and an unknown
// option in Korean with exit code 2, the help in Korean, and the English unchanged without --lang.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.h"
#include "io/file_io.h"
#include "sandbox/text.h"

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
  EXPECT_NE(r.err.find("attnviz-cli compute: 오류: 점수를 내려면 d_q = d_k여야 합니다"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("원-핫 토큰에서 온 키의 차원은 3 (n_vocab)"), std::string::npos) << r.err;
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
  // q and k from position are 1 wide (d_k=1), whatever --dk says.
  EXPECT_NE(svg->find("헤드 0 \u00B7 d_k=1 \u00B7 스케일 없음 \u00B7 T=1 \u00B7 위치에서 온 q \u00B7 위치에서 온 k"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// The input-combination refusals (the shared options and each command's own) in Korean, exit code 2; English
// without --lang.
TEST(CliKorean, InputCombinationsAreRefusedInKorean) {
  CliResult r = Cli({"--lang", "ko", "compute", "--text", "a b", "--text-file", "/tmp/x.txt"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--text와 --text-file 중 하나만 주십시오. 둘을 함께 줄 수는 없습니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "compute", "--text", "a b", "--line", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--line 은 --text-file 과 함께 씁니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "compute"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("문장이 없습니다: --text 문장 또는 --text-file FILE로 주십시오"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "export", "--text", "a b", "--head", "1", "--heads", "all", "--out", "/tmp/x.png"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--head N과 --heads all|LIST 중 하나만 주십시오"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "export", "--text", "a b", "--width", "300", "--cell-size", "20", "--out", "/tmp/x.png"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--cell-size, --width, --size 중 하나만 주십시오"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "export", "--text", "a b"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("출력 파일이 없습니다: --out FILE로 정하십시오"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "export", "--text", "a b", "--size", "3x3", "--out", "/tmp/x.png"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--size: 크기 '3x3' 에 단위 in, cm, mm 가 없습니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "sweep", "--text", "a b", "--random-tokens", "8"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--random-tokens와 문장 중 하나만 주십시오"), std::string::npos) << r.err;
  r = Cli({"compute", "--text", "a b", "--text-file", "/tmp/x.txt"}, "LC_ALL=C; export LC_ALL; ");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("give --text or --text-file, not both"), std::string::npos) << r.err;
  EXPECT_FALSE(HasHangul(r.err)) << r.err;
}

// What the commands print on stdout: "wrote PATH", "wrote PATH (N rows)", "dump written to DIR/" in Korean; a
// file that cannot be written is refused in Korean too.
TEST(CliKorean, OutputLinesAndWriteErrorsInKorean) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("attnviz_cli_ko_out_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  CliResult r = Cli({"--lang", "ko", "export", "--text", "the cat sat", "--out", dir + "/map.csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "저장했습니다: " + dir + "/map.csv\n");
  r = Cli({"--lang", "ko", "sweep", "--text", "the cat sat", "--dks", "1,2", "--seeds", "1", "--out", dir + "/s.csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "저장했습니다: " + dir + "/s.csv (4행)\n");
  r = Cli({"--lang", "ko", "compute", "--text", "the cat sat", "--dump", dir + "/dump"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("덤프를 저장했습니다: " + dir + "/dump/"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind("방식 셀프 · n_q=3 n_k=3 · ", 0), 0u) << r.out;  // the summary line, its words in Korean
  EXPECT_NE(r.out.find(" · 마스크 없음\n"), std::string::npos) << r.out;
  r = Cli({"--lang", "ko", "export", "--text", "the cat sat", "--out", dir + "/map"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(dir + "/map: 형식을 정할 파일 확장자가 없습니다"), std::string::npos) << r.err;
  std::filesystem::create_directories(dir + "/folder.csv");
  r = Cli({"--lang", "ko", "export", "--text", "the cat sat", "--out", dir + "/folder.csv"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(dir + "/folder.csv: 폴더입니다; 파일 이름을 주십시오"), std::string::npos) << r.err;
  // English without --lang.
  r = Cli({"export", "--text", "the cat sat", "--out", dir + "/map.csv"}, "LC_ALL=C; export LC_ALL; ");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + dir + "/map.csv\n");
  r = Cli({"compute", "--text", "the cat sat", "--mask", "causal"}, "LC_ALL=C; export LC_ALL; ");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("mode self · n_q=3 n_k=3 · d_model=", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" · mask causal\n"), std::string::npos) << r.out;
  // d_k once (the summary used to say "d_k=16 d_v=16 · d_k=16 · scaled").
  const std::string summary = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(summary.find("d_k="), summary.rfind("d_k=")) << summary;
  EXPECT_NE(summary.find("d_k=16 d_v=16 · scaled · T=1 · mask causal"), std::string::npos) << summary;
  // Under -|q - k| with q and k from word length: their real width, no "scaled" (nothing is divided), the score by
  // its formula in both languages.
  for (const char* lang : {"en", "ko"}) {
    r = Cli({"--lang", lang, "compute", "--text", "the cat sat", "--query-from", "length", "--key-from", "length",
             "--score", "neg-distance"});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string line = r.out.substr(0, r.out.find('\n'));
    EXPECT_NE(line.find("d_k=1 d_v=16 · T=1 · "), std::string::npos) << line;
    EXPECT_EQ(line.find("scaled"), std::string::npos) << line;
    EXPECT_EQ(line.find("스케일"), std::string::npos) << line;
    EXPECT_NE(line.find("\u2212|q \u2212 k|"), std::string::npos) << line;
    EXPECT_EQ(line.find("neg-distance"), std::string::npos) << line;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
