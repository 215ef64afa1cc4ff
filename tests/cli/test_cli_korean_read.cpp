// attnviz-cli --lang ko refusing what it cannot read or parse: a device or an oversized file as the sentence
// file (the kind of file said in Korean), a bad --heads list, an unknown --colormap / --color-scale; exit
// code 2, and the English text unchanged without --lang.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli_runner.h"

using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using attnviz::cli_test::HasHangul;

namespace {

// Runs `args` under --lang ko and under a C locale: both exit 2, the Korean one holds `ko`, the English one
// `en` and no Hangul.
void ExpectRefusedInBoth(const std::vector<std::string>& args, const std::string& ko, const std::string& en) {
  std::vector<std::string> korean = {"--lang", "ko"};
  korean.insert(korean.end(), args.begin(), args.end());
  CliResult r = Cli(korean);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(ko), std::string::npos) << r.err;
  r = Cli(args, "LC_ALL=C; export LC_ALL; ");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(HasHangul(r.err)) << r.err;
  EXPECT_NE(r.err.find(en), std::string::npos) << r.err;
}

TEST(CliKoreanRead, DeviceAsSentenceFile) {
  ExpectRefusedInBoth({"compute", "--text-file", "/dev/zero"},
                      "/dev/zero: 일반 파일이 아닙니다 (장치, FIFO 또는 소켓): 문장 파일(으)로 읽지 않습니다",
                      "/dev/zero: is not a regular file (a device, FIFO or socket): refusing to read it as a "
                      "sentence file");
}

TEST(CliKoreanRead, OversizedSentenceFile) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("attnviz_ko_big_" + std::to_string(::getpid()) + ".txt")).string();
  { std::FILE* f = std::fopen(path.c_str(), "wb"); ASSERT_NE(f, nullptr); std::fclose(f); }
  std::filesystem::resize_file(path, (size_t(16) << 20) + 1);  // sparse: takes no disk
  ExpectRefusedInBoth({"compute", "--text-file", path},
                      path + ": 16777217바이트는 문장 파일(으)로 너무 큽니다 (최대 16 MiB)",
                      path + ": 16777217 bytes is too large for a sentence file (at most 16 MiB)");
  std::filesystem::remove(path);
}

// Bad --heads lists (the last one known bad only once n_head is: the default config has 4 heads) and unknown
// colormap / color-scale names: option, value and what is allowed in either language.
TEST(CliKoreanRead, BadHeadListsAndColorOptions) {
  const std::string out = (std::filesystem::temp_directory_path() / "attnviz_ko_read.png").string();
  struct Case {
    const char* option;
    const char* value;
    const char* ko;
    const char* en;
  };
  const Case cases[] = {
      {"--heads", "0,,1", "--heads: 헤드 '0,,1': 빈 항목이 있습니다",
       "--heads: heads '0,,1': an empty item; give all, a list or ranges such as 0,2,5 or 0-3,7"},
      {"--heads", "3-1", "--heads: 헤드 '3-1': 범위 '3-1' 이(가) 거꾸로입니다",
       "--heads: heads '3-1': the range '3-1' runs backwards"},
      {"--heads", "x,1", "--heads: 헤드 'x,1': 'x' 은(는) 헤드 번호가 아닙니다",
       "--heads: heads 'x,1': 'x' is not a head number"},
      {"--heads", "0-9", "--heads: 헤드 9 은(는) 범위를 벗어났습니다: 허용 범위 0..3 (n_head = 4)",
       "--heads: head 9 is out of range: allowed 0..3 (n_head = 4)"},
      {"--colormap", "jet", "--colormap: 알 수 없는 컬러맵 'jet': 허용 viridis|magma|cividis|gray|blue-white-red",
       "--colormap: unknown colormap 'jet': allowed viridis|magma|cividis|gray|blue-white-red"},
      {"--color-scale", "sqrt", "--color-scale: 알 수 없는 색 눈금 'sqrt': 허용 linear|log",
       "--color-scale: unknown color scale 'sqrt': allowed linear|log"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.option) + " " + c.value);
    ExpectRefusedInBoth({"export", "--text", "a b", c.option, c.value, "--out", out}, c.ko, c.en);
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
