// attnviz-cli export and sweep --plot, run as a separate process: exit codes, one-line errors,
// files that decode, and data that equals the engine's weights exactly.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "figure/export.h"
#include "figure_test_util.h"
#include "figure/font.h"
#include "figure/heatmap_figure.h"
#include "figure/line_plot.h"
#include "io/npy.h"
#include "sandbox/pipeline.h"
#include "sandbox/sweep.h"
#include "sandbox/text.h"

namespace attnviz {
namespace {

const char* kEnglish = "The cat sat on the mat because it was tired .";
const char* kKorean = "나는 사과를 먹었다";

test::RunResult Cli(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), ATTNVIZ_CLI);
  return test::Run(args, env);
}

// The engine run in-process with the same text and options the CLI got.
// A colour as the SVG writes it (svg.cpp): "#1f77b4".
std::string SvgColorOf(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

AttentionTensors Engine(const std::string& text, AttentionConfig config) {
  Pipeline p;
  EXPECT_TRUE(p.SetText(text).ok());
  EXPECT_TRUE(p.SetConfig(config).ok());
  EXPECT_TRUE(p.Run(Stage::kSoftmax).ok());
  return p.tensors();
}

class ExportCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::MakeTempDir(); }
  void TearDown() override { test::RemoveTree(dir_); }
  // Exit code 2, exactly one line on stderr naming the subcommand, and no output file.
  void ExpectUsageError(const test::RunResult& r, const std::string& needle) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("export"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err << "expected: " << needle;
  }
  std::string dir_;
};

TEST_F(ExportCliTest, HelpListsTheOptions) {
  test::RunResult r = Cli({"export", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--out", "--format", "--head", "--heads all", "--colormap", "--color-scale", "--range",
                          "--cell-size", "--width", "--annotate", "--title", "--text"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST_F(ExportCliTest, PngMatchesTheEngineWeights) {
  std::string out = dir_ + "/head2.png";
  test::RunResult r = Cli({"export", "--text", kEnglish, "--head", "2", "--dk", "512", "--no-scale", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::Image image;
  ASSERT_TRUE(test::LoadPng(out, &image));
  // Recompute the figure's layout from the same weights and check the cells.
  AttentionConfig config;
  config.d_k = 512;
  config.scale = false;
  AttentionTensors t = Engine(kEnglish, config);
  HeatmapExportOptions o;
  o.head = 2;
  auto spec = MakeHeatmapSpec(t, config, o);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->title, "head 2 \u00B7 d_k=512 \u00B7 unscaled \u00B7 T=1");
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(image.width, layout->width);
  EXPECT_EQ(image.height, layout->height);
  for (int i = 0; i < t.n_q(); i += 3)
    for (int j = 0; j < t.n_k(); j += 2) {
      RectF c = layout->CellRect(layout->panels[0], i, j);
      unsigned char rgb[3];
      MapColor(Colormap::kViridis, t.probs->data[(2 * t.n_q() + i) * t.n_k() + j], rgb);
      EXPECT_LE(test::ColorDistance(image.At((int)(c.x + c.w / 2), (int)(c.y + c.h / 2)), Rgb{rgb[0], rgb[1], rgb[2]}), 1)
          << i << "," << j;
    }
  EXPECT_GT(test::InkPixels(image, layout->panels[0].row_label_strip), 100);
  EXPECT_GT(test::InkPixels(image, layout->panels[0].col_label_strip), 100);
}

// --annotate with cells too small for the weights: the figure is written, and a note on stderr says so with the cell
// size the numbers need; at that --cell-size they are printed and there is no note.
TEST_F(ExportCliTest, AnnotateOnCellsTooSmallSaysWhatCellItNeeds) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "w" + std::to_string(i) + " ";
  const std::string png = dir_ + "/small.png";
  test::RunResult r = Cli({"--lang", "en", "export", "--text", text, "--annotate", "--out", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::FileExists(png));
  const std::string note = "note: --annotate printed no weights: the cells are ";
  ASSERT_EQ(r.err.rfind(note, 0), 0u) << r.err;
  int cell = 0, needed_px = 0;
  ASSERT_EQ(std::sscanf(r.err.c_str() + note.size(), "%d px and the numbers need %d px cells", &cell, &needed_px), 2)
      << r.err;
  EXPECT_GT(cell, 0);
  EXPECT_GT(needed_px, cell) << r.err;
  const std::string needed = std::to_string(needed_px);
  r = Cli({"--lang", "en", "export", "--text", text, "--annotate", "--cell-size", needed, "--out", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // In Korean too.
  r = Cli({"--lang", "ko", "export", "--text", text, "--annotate", "--out", png});
  EXPECT_NE(r.err.find("참고: --annotate가 수치를 표시하지 않았습니다"), std::string::npos) << r.err;
}

TEST_F(ExportCliTest, KoreanSingleHeadAndAllHeadsSvg) {
  std::string png = dir_ + "/ko.png";
  test::RunResult r = Cli({"export", "--text", kKorean, "--colormap", "magma", "--color-scale", "log", "--range",
                           "auto", "--annotate", "--title", "한국어 제목", "--out", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::Image image;
  ASSERT_TRUE(test::LoadPng(png, &image));
  EXPECT_GT(image.width, 100);

  std::string svg = dir_ + "/all.svg";
  r = Cli({"export", "--text", kKorean, "--heads", "all", "--out", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::RunResult lint = test::Run({ATTNVIZ_XMLLINT, "--noout", svg});
  EXPECT_EQ(lint.exit_code, 0) << lint.err;
  test::RunResult count = test::Run(
      {ATTNVIZ_XMLLINT, "--xpath", "count(//*[local-name()='g'][@id='cells-head-3']/*[local-name()='rect'])", svg});
  EXPECT_EQ(count.out, "9\n");  // 3 x 3 cells in head 3 (4 heads by default)
  EXPECT_NE(test::ReadAll(svg).find(">사과를</text>"), std::string::npos);
  // --heads N (a number) still sets the head count.
  r = Cli({"export", "--text", kKorean, "--heads", "2", "--heads", "all", "--out", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  count = test::Run({ATTNVIZ_XMLLINT, "--xpath",
                     "count(//*[local-name()='g'][starts-with(@id,'cells-head-')]/*[local-name()='rect'])", svg});
  EXPECT_EQ(count.out, "18\n");
}

// Under --lang ko the figure's own words are Korean as its title is: the axes, the colorbar, the masked legend
// and the grid's panel titles (the learner saw query/key/weight/masked in a Korean figure).
TEST_F(ExportCliTest, KoreanFigureHasKoreanAxisAndLegendWords) {
  const std::string svg = dir_ + "/ko.svg";
  test::RunResult r = Cli({"--lang", "ko", "export", "--text", kEnglish, "--mask", "causal", "--heads", "all",
                           "--color-scale", "log", "--out", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ko = test::ReadAll(svg);
  for (const char* word : {">쿼리</text>", ">키</text>", ">가중치 (로그)</text>", ">마스크됨</text>", ">헤드 0</text>"})
    EXPECT_NE(ko.find(word), std::string::npos) << word;
  for (const char* word : {">query</text>", ">key</text>", "weight", ">masked</text>", ">head 0</text>"})
    EXPECT_EQ(ko.find(word), std::string::npos) << word;
  // English by default.
  r = Cli({"export", "--text", kEnglish, "--mask", "causal", "--out", svg}, {"LC_ALL=C"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string en = test::ReadAll(svg);
  for (const char* word : {">query</text>", ">key</text>", ">weight</text>", ">masked</text>"})
    EXPECT_NE(en.find(word), std::string::npos) << word;
}

// The saturation figure (attnviz-cli sweep --plot; the app's Export of it runs the same code) in Korean: its legend,
// panel titles and axes (LocalizedSaturationWords), no English word left. Under a score never divided by sqrt(d_k)
// the legend names that score, in either language, and the figure draws one line, not a "scaled" one.
TEST_F(ExportCliTest, KoreanSaturationFigureHasKoreanWordsAndNamesItsScore) {
  const std::string svg = dir_ + "/sat.svg";
  test::RunResult r =
      Cli({"--lang", "ko", "sweep", "--text", kEnglish, "--dks", "1,4,16", "--seeds", "1", "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ko = test::ReadAll(svg);
  for (const char* word : {">스케일 적용 (q\u00B7k / \u221Ad_k)</text>", ">스케일 없음 (q\u00B7k)</text>", ">최대 가중치</text>",
                           ">평균 최대 가중치</text>", ">엔트로피</text>", ">정규화 엔트로피</text>", ">기울기 크기</text>",
                           ">softmax 기울기 크기</text>", ">d_k (로그 눈금)</text>"})
    EXPECT_NE(ko.find(word), std::string::npos) << word;
  for (const char* word : {"scaled", "max weight", "entropy", "normalized", "gradient", "log scale"})
    EXPECT_EQ(ko.find(word), std::string::npos) << word;
  EXPECT_NE(ko.find("\"" + SvgColorOf(kScaledColor) + "\""), std::string::npos);  // the scaled line is drawn

  // Cosine is never divided by sqrt(d_k): one line, named by the score's formula, in Korean and in English.
  r = Cli({"--lang", "ko", "sweep", "--text", kEnglish, "--dks", "1,4,16", "--seeds", "1", "--score", "cosine",
           "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cosine_ko = test::ReadAll(svg);
  EXPECT_NE(cosine_ko.find(">q\u00B7k / (|q| |k|), \u221Ad_k로 나누지 않음</text>"), std::string::npos) << cosine_ko;
  EXPECT_EQ(cosine_ko.find("스케일 적용"), std::string::npos);
  EXPECT_EQ(cosine_ko.find("스케일 없음"), std::string::npos);
  EXPECT_EQ(cosine_ko.find("\"" + SvgColorOf(kScaledColor) + "\""), std::string::npos);  // no second, equal line
  r = Cli({"sweep", "--text", kEnglish, "--dks", "1,4,16", "--seeds", "1", "--score", "cosine", "--plot", svg},
          {"LC_ALL=C"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cosine_en = test::ReadAll(svg);
  EXPECT_NE(cosine_en.find(">q\u00B7k / (|q| |k|), not divided by \u221Ad_k</text>"), std::string::npos) << cosine_en;
  EXPECT_EQ(cosine_en.find("scaled ("), std::string::npos);
  EXPECT_NE(cosine_en.find(">mean max weight</text>"), std::string::npos);
}

// --dk N marks the width q and k really have, as the app's Saturation panel does: q and k from word length are one
// number wide whatever --dk says (lesson f).
TEST_F(ExportCliTest, SweepPlotMarksTheWidthQAndKHave) {
  const std::string svg = dir_ + "/marked.svg";
  test::RunResult r = Cli({"sweep", "--text", kEnglish, "--dks", "1,4,16,64", "--seeds", "1", "--dk", "64", "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::ReadAll(svg).find(">d_k=64</text>"), std::string::npos);
  r = Cli({"sweep", "--text", kEnglish, "--dks", "1,4,16,64", "--seeds", "1", "--dk", "64", "--query-from", "length",
           "--key-from", "length", "--score", "neg-distance", "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string length = test::ReadAll(svg);
  EXPECT_NE(length.find(">d_k=1</text>"), std::string::npos);
  EXPECT_EQ(length.find(">d_k=64</text>"), std::string::npos);
}

TEST_F(ExportCliTest, CsvAndNpyEqualTheEngineWeightsExactly) {
  AttentionConfig config;
  config.seed = 7;
  config.n_head = 3;
  AttentionTensors t = Engine(kEnglish, config);
  const int n = t.n_q();
  std::string npy = dir_ + "/all.npy";
  test::RunResult r = Cli({"export", "--text", kEnglish, "--seed", "7", "--heads", "3", "--heads", "all", "--out", npy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto all = ReadNpy(npy);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(all->shape, (std::vector<size_t>{3, (size_t)n, (size_t)n}));
  EXPECT_EQ(all->data, t.probs->data);

  std::string one = dir_ + "/one.data";
  r = Cli({"export", "--text", kEnglish, "--seed", "7", "--heads", "3", "--head", "1", "--format", "npy", "--out", one});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto single = ReadNpy(one);
  ASSERT_TRUE(single.ok()) << single.message();
  EXPECT_EQ(single->shape, (std::vector<size_t>{(size_t)n, (size_t)n}));
  EXPECT_EQ(single->data, std::vector<float>(t.probs->data.begin() + n * n, t.probs->data.begin() + 2 * n * n));

  std::string csv = dir_ + "/one.csv";
  r = Cli({"export", "--text", kEnglish, "--seed", "7", "--heads", "3", "--head", "1", "--out", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::ReadAll(csv);
  std::vector<float> values;
  size_t line_start = text.find('\n') + 1;
  EXPECT_EQ(text.substr(0, line_start), "query,0:The,1:cat,2:sat,3:on,4:the,5:mat,6:because,7:it,8:was,9:tired,10:.\n");
  while (line_start < text.size()) {
    size_t end = text.find('\n', line_start);
    std::string line = text.substr(line_start, end - line_start);
    size_t comma = line.find(',');
    while (comma != std::string::npos) {
      values.push_back(std::strtof(line.c_str() + comma + 1, nullptr));
      comma = line.find(',', comma + 1);
    }
    line_start = end + 1;
  }
  EXPECT_EQ(values, single->data);

  std::string json = dir_ + "/w.json";
  r = Cli({"export", "--text", kEnglish, "--out", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::ReadAll(json).find("\"key_tokens\": [\"The\", \"cat\""), std::string::npos);
}

TEST_F(ExportCliTest, BadInputsExitTwoWithOneLineAndNoFile) {
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", dir_ + "/missing/x.png"}), dir_ + "/missing/x.png");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", "/proc/attnviz_cli_test.png"}),
                   "/proc/attnviz_cli_test.png");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", "/dev/full", "--format", "png"}), "/dev/full");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", "/dev/full", "--format", "csv"}), "/dev/full");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", dir_ + "/x.txt"}), "unknown extension '.txt'");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--out", dir_ + "/x.png", "--format", "gif"}),
                   "unknown format 'gif'");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--head", "4", "--out", dir_ + "/x.png"}),
                   "--head 4 is out of range: allowed 0..3");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--heads", "2", "--head", "2", "--out", dir_ + "/x.png"}),
                   "allowed 0..1");
  ExpectUsageError(Cli({"export", "--text", "", "--out", dir_ + "/x.png"}), "text");
  ExpectUsageError(Cli({"export", "--text", "   ", "--out", dir_ + "/x.png"}), "--text");
  ExpectUsageError(Cli({"export", "--text", kEnglish}), "--out");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--colormap", "jet", "--out", dir_ + "/x.png"}), "viridis");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--color-scale", "sqrt", "--out", dir_ + "/x.png"}),
                   "linear|log");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--range", "wide", "--out", dir_ + "/x.png"}), "fixed|auto");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--cell-size", "0", "--out", dir_ + "/x.png"}), "--cell-size");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--cell-size", "9", "--width", "500", "--out", dir_ + "/x.png"}),
                   "not several");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--size", "3x3in", "--width", "500", "--out", dir_ + "/x.png"}),
                   "not several");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--size", "3x3", "--out", dir_ + "/x.png"}), "--size");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--dpi", "5", "--out", dir_ + "/x.png"}), "--dpi");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--heads", "0,4", "--out", dir_ + "/x.png"}),
                   "--heads: head 4 is out of range: allowed 0..3 (n_head = 4)");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--heads", "0,x", "--out", dir_ + "/x.png"}), "0-3,7");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--head", "1", "--heads", "all", "--out", dir_ + "/x.png"}),
                   "not both");
  ExpectUsageError(Cli({"export", "--text", kEnglish, "--frobnicate", "--out", dir_ + "/x.png"}), "--frobnicate");
  // A missing font names the Debian package.
  std::string fonts = dir_ + "/nofonts";
  ASSERT_EQ(mkdir(fonts.c_str(), 0755), 0);
  ExpectUsageError(Cli({"export", "--text", kKorean, "--out", dir_ + "/x.png"}, {"ATTNVIZ_FONT_DIR=" + fonts}),
                   "fonts-dejavu-core");
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"nofonts"});
  EXPECT_FALSE(test::FileExists("/proc/attnviz_cli_test.png"));
}

TEST_F(ExportCliTest, HeadListsSizeDpiAndTheCausalTitle) {
  // --heads 0,2 (the app's "visible heads"): two panels, heads 0 and 2, the NPY holds exactly those.
  AttentionConfig config;
  config.mask = MaskKind::kCausal;
  AttentionTensors t = Engine(kEnglish, config);
  const size_t n = (size_t)t.n_q();
  std::string npy = dir_ + "/h.npy";
  test::RunResult r = Cli({"export", "--text", kEnglish, "--mask", "causal", "--heads", "0,2-3", "--out", npy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto heads = ReadNpy(npy);
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(heads->shape, (std::vector<size_t>{3, n, n}));
  EXPECT_EQ(std::vector<float>(heads->data.begin(), heads->data.begin() + n * n),
            std::vector<float>(t.probs->data.begin(), t.probs->data.begin() + n * n));
  EXPECT_EQ(std::vector<float>(heads->data.begin() + n * n, heads->data.end()),
            std::vector<float>(t.probs->data.begin() + 2 * n * n, t.probs->data.end()));
  std::string svg = dir_ + "/h.svg";
  r = Cli({"export", "--text", kEnglish, "--mask", "causal", "--heads", "0,2", "--out", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string doc = test::ReadAll(svg);
  EXPECT_NE(doc.find("cells-head-2"), std::string::npos);
  EXPECT_EQ(doc.find("cells-head-1"), std::string::npos);
  EXPECT_NE(doc.find("2 heads \u00B7 d_k=16 \u00B7 scaled \u00B7 T=1 \u00B7 causal</text>"), std::string::npos);
  EXPECT_NE(doc.find(">masked</text>"), std::string::npos);

  // --size 3.3x3in --dpi 300: 990 x 900 pixels, 11811 pixels per metre in pHYs.
  std::string png = dir_ + "/print.png";
  r = Cli({"export", "--text", kEnglish, "--size", "3.3x3in", "--dpi", "300", "--out", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::Image image;
  ASSERT_TRUE(test::LoadPng(png, &image));
  EXPECT_EQ(image.width, 990);
  EXPECT_EQ(image.height, 900);
  std::string bytes = test::ReadAll(png);
  size_t phys = bytes.find("pHYs");
  ASSERT_NE(phys, std::string::npos);
  EXPECT_LT(phys, bytes.find("IDAT"));
  EXPECT_EQ(bytes.substr(phys + 4, 9), std::string("\0\0\x2e\x23\0\0\x2e\x23\x01", 9));  // 11811 = 0x2E23
  r = Cli({"export", "--text", kEnglish, "--size", "8.382x7.62cm", "--dpi", "300", "--out", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(test::LoadPng(png, &image));
  EXPECT_EQ(image.width, 990);
}

TEST_F(ExportCliTest, SweepIsTheStandardSweep) {
  // attnviz-cli sweep without --seeds runs StandardSweepOptions: the numbers the app's sweep gives.
  std::string csv = dir_ + "/s.csv";
  test::RunResult r = Cli({"sweep", "--text", kEnglish, "--mask", "causal", "--dks", "1,64,1024", "--out", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto tokens = Tokenize(kEnglish);
  ASSERT_TRUE(tokens.ok());
  AttentionConfig base;
  base.mask = MaskKind::kCausal;
  SweepOptions options = StandardSweepOptions(tokens->size());
  EXPECT_EQ(options.n_seeds, 2);
  EXPECT_EQ(options.n_head, 2);
  EXPECT_EQ(StandardSweepOptions(4096).n_seeds, 1);
  options.d_ks = {1, 64, 1024};
  auto points = SweepDk(*tokens, *tokens, base, options);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ(test::ReadAll(csv), SweepToCsv(*points));
}

TEST_F(ExportCliTest, SweepPlotPngAndSvg) {
  std::string png = dir_ + "/sat.png", svg = dir_ + "/sat.svg";
  test::RunResult r = Cli({"sweep", "--text", kEnglish, "--dks", "1,8,64,512", "--seeds", "1", "--plot", png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  test::Image image;
  ASSERT_TRUE(test::LoadPng(png, &image));
  EXPECT_GT(image.width, 600);
  std::string bytes = test::ReadAll(png);
  EXPECT_EQ(bytes.substr(bytes.find("pHYs") + 4, 9), std::string("\0\0\x0e\xc4\0\0\x0e\xc4\x01", 9));  // 3780 /m = 96 dpi
  r = Cli({"sweep", "--text", kEnglish, "--dks", "1,8,64,512", "--seeds", "1", "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::Run({ATTNVIZ_XMLLINT, "--noout", svg}).exit_code, 0);
  r = Cli({"sweep", "--text", kEnglish, "--dks", "1,8", "--seeds", "1", "--plot", dir_ + "/sat.bmp"});
  EXPECT_EQ(r.exit_code, 2);
  r = Cli({"sweep", "--text", kEnglish, "--dks", "1,8", "--seeds", "1", "--plot", dir_ + "/missing/sat.png"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(test::FileExists(dir_ + "/sat.bmp"));
}

}  // namespace
}  // namespace attnviz
