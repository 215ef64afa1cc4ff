// attnviz-cli model --figure on the PyTorch-made checkpoints of tests/fixtures/models (gpt2, bert, mistral_sharded
// with its sliding window 8 < 24 tokens, llama with GQA and 66 tokens). The fixtures hold ids, not text: each test
// copies a folder and adds a WordLevel tokenizer.json whose word "t<id>" is id <id>, so the text "t10 t54 ..." is
// the fixture's ids. Checked: the PNG decodes (stb_image) to the --size x --dpi pixels; the SVG parses (xmllint),
// carries the title naming the model, layer, head, mask and what-ifs, and its cells are the colours of probs.npy
// (whatif_probs.npy for a what-if on layer 0) for that layer and head; MakeModelHeadFigure, the function the app's
// Export uses too, gives maps equal to probs.npy within 1e-4 and the very bytes the CLI wrote; bad arguments exit 2
// with one line saying why.
#include <gtest/gtest.h>
#include <stb_image.h>  // implementation is in libstb
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "word_level_tokenizer.h"
#include "color/colormap.h"
#include "figure/export.h"
#include "io/file_io.h"
#include "figure/heatmap_figure.h"
#include "model/run.h"
#include "model_figure.h"
#include "model_folder.h"
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using attnviz::cli_test::HasHangul;

const std::string kModels = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models";
constexpr double kTol = 1e-4;
const char* kDot = " \u00B7 ";

json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

// A copy of tests/fixtures/models/<name> with a tokenizer that reads "t<id>" as id <id>; removed at the end.
class Fixture {
 public:
  explicit Fixture(const std::string& name)
      : name_(name), dir_((fs::temp_directory_path() / ("attnviz_cli_figure_" + name + "_" + std::to_string(::getpid()))).string()) {
    fs::remove_all(dir_);
    fs::copy(kModels + "/" + name, dir_, fs::copy_options::recursive);
    config_ = ReadJson(dir_ + "/config.json");
    attnviz::testing::WriteWordLevelTokenizer(dir_, config_["vocab_size"].get<int>());
    case_ = ReadJson(dir_ + "/case.json");
    for (int id : case_["ids"]) text_ += (text_.empty() ? "t" : " t") + std::to_string(id);
  }
  ~Fixture() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  const std::string& text() const { return text_; }
  const std::string& name() const { return name_; }
  std::string Out(const std::string& file) const { return dir_ + "/" + file; }
  int Get(const char* gpt2_key, const char* hf_key) const {
    return config_.contains(gpt2_key) ? config_[gpt2_key].get<int>() : config_[hf_key].get<int>();
  }
  int n_layer() const { return Get("n_layer", "num_hidden_layers"); }
  int n_head() const { return Get("n_head", "num_attention_heads"); }
  int n() const { return (int)case_["ids"].size(); }
  std::string model_type() const { return config_["model_type"]; }
  // case.json's what-if on layer 0 as CLI options on layer 0 only, and the title's words for it.
  std::vector<std::string> Layer0WhatIfArgs(std::string* words) const {
    std::vector<std::string> args;
    *words = "";
    if (case_["whatif"]["no_scale"][0].get<bool>()) {
      args.push_back("--no-scale");
      *words = "no 1/\u221Ad_head";
    }
    const double t = case_["whatif"]["temperature"][0].get<double>();
    if (t != 1.0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", t);
      args.insert(args.end(), {"--temperature", buf});
      *words += (words->empty() ? "" : ", ") + std::string("T=") + buf;
    }
    args.insert(args.end(), {"--layers", "0"});
    *words += " on layer 0";
    return args;
  }
  attnviz::ModelWhatIfs Layer0WhatIfs() const {
    attnviz::ModelWhatIfs w;
    w.no_scale = case_["whatif"]["no_scale"][0].get<bool>();
    w.temperature = case_["whatif"]["temperature"][0].get<float>();
    w.layers = {0};
    return w;
  }
  // The keys query i may not see (drawn grey): after it in a causal model, and before its window (key j hidden
  // when i - j >= window, as HF's mask) in a mistral one.
  bool Masked(int i, int j) const {
    if (model_type() == "bert") return false;
    const int window = config_.contains("sliding_window") && config_["sliding_window"].is_number()
                           ? config_["sliding_window"].get<int>()
                           : 0;
    return j > i || (window > 0 && i - j >= window);
  }
  std::string MaskWords() const {
    if (model_type() == "bert") return "bidirectional";
    if (config_.contains("sliding_window") && config_["sliding_window"].is_number() &&
        config_["sliding_window"].get<int>() < n())
      return "causal, window " + std::to_string(config_["sliding_window"].get<int>());
    return "causal";
  }

 private:
  std::string name_, dir_, text_;
  json config_, case_;
};

// The fill colours of the cells of `head` in an SVG attnviz wrote, row by row.
std::vector<std::string> SvgCellFills(const std::string& svg, int head) {
  std::vector<std::string> fills;
  const size_t begin = svg.find("<g id=\"cells-head-" + std::to_string(head) + "\"");
  if (begin == std::string::npos) return fills;
  const size_t end = svg.find("</g>", begin);
  for (size_t at = svg.find("<rect", begin); at < end; at = svg.find("<rect", at + 1)) {
    const size_t fill = svg.find("fill=\"", at);
    fills.push_back(svg.substr(fill + 6, 7));
  }
  return fills;
}

std::string Hex(const unsigned char rgb[3]) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

// Each cell's fill is the viridis colour of the expected weight (within kTol: a weight on the edge of two of the
// 256 colours may take either); masked cells the masked grey, and their weight is exactly 0.
void ExpectCellsAre(const std::string& svg, int head, const float* want, const Fixture& f) {
  const int n = f.n();
  const std::vector<std::string> fills = SvgCellFills(svg, head);
  ASSERT_EQ(fills.size(), (size_t)n * n) << "cells of head " << head;
  int checked = 0, masked = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::string& got = fills[(size_t)i * n + j];
      if (f.Masked(i, j)) {
        const unsigned char grey[3] = {attnviz::kMaskedFill.r, attnviz::kMaskedFill.g, attnviz::kMaskedFill.b};
        EXPECT_EQ(got, Hex(grey)) << i << "," << j;
        EXPECT_EQ(want[(size_t)i * n + j], 0.0f) << i << "," << j;
        ++masked;
        continue;
      }
      std::vector<std::string> allowed;
      for (double d : {-kTol, 0.0, kTol}) {
        unsigned char rgb[3];
        attnviz::MapColor(attnviz::Colormap::kViridis, (float)std::clamp(want[(size_t)i * n + j] + d, 0.0, 1.0), rgb);
        allowed.push_back(Hex(rgb));
      }
      EXPECT_NE(std::find(allowed.begin(), allowed.end(), got), allowed.end())
          << "cell " << i << "," << j << ": " << got << " for weight " << want[(size_t)i * n + j];
      ++checked;
    }
  EXPECT_GT(checked, n);
  if (f.name() == "mistral_sharded") EXPECT_GT(masked, n * (n - 1) / 2) << "the window masks cells below the diagonal";
}

bool XmlParses(const std::string& path) {
  return std::system((attnviz::cli_test::Quote(ATTNVIZ_XMLLINT) + " --noout " + attnviz::cli_test::Quote(path)).c_str()) == 0;
}

// ---------------------------------------------------------------------------------------------- per fixture

class CliModelFigure : public ::testing::TestWithParam<std::string> {};

// The last layer's last head without what-ifs: probs.npy.
TEST_P(CliModelFigure, SvgCellsAreProbsNpyAndTheTitleNamesLayerHeadMask) {
  Fixture f(GetParam());
  const int layer = f.n_layer() - 1, head = f.n_head() - 1, n = f.n();
  const std::string svg = f.Out("head.svg");
  CliResult r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", svg, "--layer",
                     std::to_string(layer), "--head", std::to_string(head)});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + svg), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layer 0:"), std::string::npos) << "the summary is printed as well: " << r.out;
  ASSERT_TRUE(XmlParses(svg));
  const std::string bytes = attnviz::ReadFile(svg).value();
  const std::string title = f.model_type() + kDot + "layer " + std::to_string(layer) + kDot + "head " +
                            std::to_string(head) + kDot + f.MaskWords();
  EXPECT_NE(bytes.find(">" + title + "</text>"), std::string::npos) << title;
  auto want = attnviz::ReadNpy(f.dir() + "/probs.npy");
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(want->shape, (std::vector<size_t>{(size_t)f.n_layer(), (size_t)f.n_head(), (size_t)n, (size_t)n}));
  ExpectCellsAre(bytes, head, want->data.data() + ((size_t)layer * f.n_head() + head) * n * n, f);
}

// Layer 0 with case.json's layer-0 what-if (on layer 0 only): whatif_probs.npy, and the title names the what-if.
TEST_P(CliModelFigure, WhatIfOnLayer0IsInTheCellsAndTheTitle) {
  Fixture f(GetParam());
  const int head = 1 % f.n_head(), n = f.n();
  std::string words;
  std::vector<std::string> args = {"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure",
                                   f.Out("whatif.svg"), "--layer", "0", "--head", std::to_string(head)};
  for (const std::string& a : f.Layer0WhatIfArgs(&words)) args.push_back(a);
  CliResult r = Cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string bytes = attnviz::ReadFile(f.Out("whatif.svg")).value();
  const std::string title =
      f.model_type() + kDot + "layer 0" + kDot + "head " + std::to_string(head) + kDot + f.MaskWords() + kDot + words;
  EXPECT_NE(bytes.find(">" + title + "</text>"), std::string::npos) << title;
  auto want = attnviz::ReadNpy(f.dir() + "/whatif_probs.npy");
  ASSERT_TRUE(want.ok()) << want.message();
  ExpectCellsAre(bytes, head, want->data.data() + (size_t)head * n * n, f);
}

// The function behind both programs' figures: its maps are probs.npy within 1e-4, and the figure it describes is
// byte for byte the one the CLI wrote.
TEST_P(CliModelFigure, MakeModelHeadFigureIsProbsNpyAndTheCliBytes) {
  Fixture f(GetParam());
  const int n = f.n(), n_head = f.n_head();
  auto folder = attnviz::OpenModelFolder(f.dir());
  ASSERT_TRUE(folder.ok()) << folder.message();
  const attnviz::model::ModelConfig& c = (*folder)->model->config();
  auto tokens = attnviz::TokenizeForModel(**folder, f.text());
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  ASSERT_EQ((int)tokens->size(), n);
  for (bool what_if : {false, true}) {
    SCOPED_TRACE(what_if ? "what-if on layer 0" : "plain");
    const attnviz::ModelWhatIfs w = what_if ? f.Layer0WhatIfs() : attnviz::ModelWhatIfs{};
    auto run = attnviz::model::RunModel(*(*folder)->model, attnviz::TokenIds(*tokens),
                                        attnviz::WhatIfRunOptions(w, c.n_layer));
    ASSERT_TRUE(run.ok()) << run.message();
    auto want = attnviz::ReadNpy(f.dir() + (what_if ? "/whatif_probs.npy" : "/probs.npy"));
    ASSERT_TRUE(want.ok()) << want.message();
    for (int layer = 0; layer < (what_if ? 1 : c.n_layer); ++layer) {
      auto probs = std::make_shared<attnviz::Tensor>();
      probs->Resize({(size_t)n_head, (size_t)n, (size_t)n});
      const size_t plane = (size_t)n_head * n * n;
      std::copy_n(run->probs.data.data() + layer * plane, plane, probs->data.begin());
      for (int head = 0; head < n_head; ++head) {
        auto figure = attnviz::MakeModelHeadFigure(
            c, attnviz::ModelLayerMaps(c, *tokens, probs, layer, attnviz::WhatIfRunOptions(w, c.n_layer)), n, layer,
            head, w);
        ASSERT_TRUE(figure.ok()) << figure.message();
        attnviz::HeatmapExportOptions o;
        o.head = figure->head;
        o.title = figure->title;
        auto spec = attnviz::MakeHeatmapSpec(figure->maps, nullptr, o);
        ASSERT_TRUE(spec.ok()) << spec.message();
        ASSERT_EQ(spec->heads, std::vector<int>{head});
        ASSERT_EQ(spec->n_q, n);
        ASSERT_EQ(spec->query_labels.front(), "t" + std::to_string(tokens->front().id));
        double worst = 0;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            worst = std::max(worst, std::fabs((double)spec->value(head, i, j) -
                                              want->data[(((size_t)layer * n_head + head) * n + i) * n + j]));
        EXPECT_LE(worst, kTol) << "layer " << layer << " head " << head;
        if (layer == 0 && head == n_head - 1) {  // the CLI's file is this figure
          auto svg = attnviz::RenderHeatmap(*spec, "svg");
          ASSERT_TRUE(svg.ok()) << svg.message();
          std::vector<std::string> args = {"--lang", "en", "model", "--model", f.dir(), "--text", f.text(),
                                           "--figure", f.Out("same.svg"), "--layer", "0", "--head",
                                           std::to_string(head)};
          std::string words;
          if (what_if)
            for (const std::string& a : f.Layer0WhatIfArgs(&words)) args.push_back(a);
          CliResult r = Cli(args);
          ASSERT_EQ(r.code, 0) << r.err;
          EXPECT_TRUE(attnviz::ReadFile(f.Out("same.svg")).value() == *svg) << "the CLI's figure is not MakeModelHeadFigure's";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliModelFigure, ::testing::Values("gpt2", "bert", "mistral_sharded", "llama"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// ---------------------------------------------------------------------------------------------- PNG, options

TEST(CliModelFigurePng, SizeAndDpiGiveThePixels) {
  Fixture f("gpt2");
  const std::string png = f.Out("head.png");
  CliResult r = Cli({"model", "--model", f.dir(), "--text", f.text(), "--figure", png, "--layer", "1", "--head", "0",
                     "--size", "3x2.5in", "--dpi", "200", "--colormap", "magma", "--color-scale", "log"});
  ASSERT_EQ(r.code, 0) << r.err;
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr) << stbi_failure_reason();
  stbi_image_free(pixels);
  EXPECT_EQ(w, 600);
  EXPECT_EQ(h, 500);
  // Without --size: a figure all the same, of some sensible size.
  r = Cli({"model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("plain.png"), "--layer", "0", "--head", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  pixels = stbi_load(f.Out("plain.png").c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr) << stbi_failure_reason();
  stbi_image_free(pixels);
  EXPECT_GT(w, 200);
  EXPECT_GT(h, 200);
}

TEST(CliModelFigurePng, TitleOptionAndEveryLayerWhatIfs) {
  Fixture f("llama");
  CliResult r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("t.svg"),
                     "--layer", "1", "--head", "2", "--title", "Figure 3: a head of layer 1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("t.svg")).value().find(">Figure 3: a head of layer 1</text>"), std::string::npos);
  // Both what-ifs on every layer; --layers 0,1 names the layers.
  r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("w.svg"), "--layer", "1",
           "--head", "2", "--no-scale", "--temperature", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("w.svg")).value().find(std::string(kDot) + "no 1/\u221Ad_head, T=2 on every layer</text>"),
            std::string::npos);
  r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("w.svg"), "--layer", "1",
           "--head", "2", "--temperature", "2", "--layers", "1,0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("w.svg")).value().find(std::string(kDot) + "T=2 on layers 0, 1</text>"),
            std::string::npos);
  // In Korean: the title's words too.
  r = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("ko.svg"), "--layer", "1",
           "--head", "2", "--no-scale", "--layers", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("ko.svg")).value().find(">llama \u00B7 층 1 \u00B7 헤드 2 \u00B7 인과 \u00B7 1/\u221Ad_head 스케일 없음 (층 0)</text>"),
            std::string::npos);
}

// A mistral text no longer than its window: no window is in effect, none is named.
TEST(CliModelFigurePng, WindowNamedOnlyWhenShorterThanTheText) {
  Fixture f("mistral_sharded");
  const std::string first = f.text().substr(0, f.text().find(' '));
  std::string text;
  std::istringstream words(f.text());
  std::string w;
  for (int i = 0; i < 8 && words >> w; ++i) text += (text.empty() ? "" : " ") + w;
  CliResult r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", text, "--figure", f.Out("short.svg"),
                     "--layer", "0", "--head", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("short.svg")).value().find(">mistral \u00B7 layer 0 \u00B7 head 0 \u00B7 causal</text>"),
            std::string::npos);
  text += " " + first;  // 9 tokens: the window of 8 cuts
  r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", text, "--figure", f.Out("long.svg"), "--layer", "0",
           "--head", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("long.svg")).value().find(" \u00B7 causal, window 8</text>"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------- refusals

TEST(CliModelFigureErrors, RefusedWithExitCode2AndAReason) {
  Fixture f("gpt2");  // 2 layers, 4 heads
  const std::string png = f.Out("x.png");
  auto refused = [&](std::vector<std::string> extra, const std::string& reason) {
    std::vector<std::string> args = {"--lang", "en", "model", "--model", f.dir(), "--text", f.text()};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = Cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_EQ(r.out, "") << "nothing runs";
  };
  refused({"--figure", png, "--layer", "7", "--head", "0"}, "--layer: 7 is out of range: allowed 0..1 (the model has 2 layers)");
  refused({"--figure", png, "--layer", "1", "--head", "4"}, "--head: 4 is out of range: allowed 0..3 (the model has 4 heads)");
  refused({"--figure", png}, "--figure needs --layer L and --head H");
  refused({"--figure", png, "--head", "0"}, "--figure needs --layer L and --head H");
  refused({"--figure", png, "--layer", "0"}, "--figure needs --layer L and --head H");
  refused({"--figure", f.Out("x.bmp"), "--layer", "0", "--head", "0"},
          f.Out("x.bmp") + ": unknown figure extension '.bmp': allowed .png .svg .pdf");
  refused({"--figure", f.Out("x"), "--layer", "0", "--head", "0"}, f.Out("x") + ": no file extension: a figure is .png, .svg or .pdf");
  refused({"--head", "1"}, "--head goes with --figure OUT.png|OUT.svg|OUT.pdf");
  refused({"--layer", "1"}, "--layer goes with --figure OUT.png|OUT.svg|OUT.pdf");
  refused({"--dpi", "300"}, "--dpi goes with --figure OUT.png|OUT.svg|OUT.pdf");
  refused({"--figure", png, "--layer", "0", "--head", "0", "--size", "3x3"}, "--size");
  refused({"--figure", png, "--layer", "0", "--head", "0", "--size", "3x3in", "--width", "400"},
          "give one of --cell-size, --width and --size, not several");
  refused({"--figure", png, "--layer", "0", "--head", "0", "--colormap", "jet"}, "--colormap");
  refused({"--figure", png, "--layer", "x", "--head", "0"}, "'x' is not a whole number");
  EXPECT_FALSE(fs::exists(png)) << "no figure from a refused command";
  EXPECT_FALSE(fs::exists(f.Out("x.bmp")));

  // In Korean: the same reasons, with the model's numbers.
  CliResult ko = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--figure", png, "--layer", "7",
                      "--head", "0"});
  EXPECT_EQ(ko.code, 2);
  EXPECT_TRUE(HasHangul(ko.err)) << ko.err;
  EXPECT_NE(ko.err.find("--layer: 7 은(는) 범위를 벗어났습니다: 허용 범위 0..1 (모델의 층은 2개입니다)"), std::string::npos) << ko.err;
  ko = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--head", "1"});
  EXPECT_EQ(ko.code, 2);
  EXPECT_NE(ko.err.find("--head 은(는) --figure OUT.png|OUT.svg|OUT.pdf 와 함께 씁니다"), std::string::npos) << ko.err;
}

TEST(CliModelFigureErrors, HelpNamesTheFigureOptions) {
  for (const char* lang : {"en", "ko"}) {
    CliResult help = Cli({"--lang", lang, "model", "--help"});
    EXPECT_EQ(help.code, 0);
    for (const char* option : {"--figure OUT", "--layer L, --head H", "--size WxH", "--dpi N", "--title TEXT",
                               "--colormap NAME", "--color-scale S", "--pool F|auto", "--pool-mode max|mean"})
      EXPECT_NE(help.out.find(option), std::string::npos) << lang << ": " << option;
  }
}

// ---------------------------------------------------------------------------------------------- long inputs (issue 42)

// --pool 3: each cell of the figure is the max (or the mean over the cells it covers, masked ones as 0) of a 3 x 3
// block of probs.npy's map, a block whose every cell is masked is grey, the axes name the blocks, and the title
// says how the cells were pooled.
TEST_P(CliModelFigure, PooledCellsAreTheBlocksOfProbsNpy) {
  Fixture f(GetParam());
  const int layer = f.n_layer() - 1, head = f.n_head() - 1, n = f.n(), pool = 3, nb = (n + pool - 1) / pool;
  auto probs = attnviz::ReadNpy(f.dir() + "/probs.npy");
  ASSERT_TRUE(probs.ok()) << probs.message();
  const float* map = probs->data.data() + ((size_t)layer * f.n_head() + head) * n * n;
  for (const std::string mode : {"max", "mean"}) {
    SCOPED_TRACE(mode);
    const std::string svg = f.Out("pooled-" + mode + ".svg");
    CliResult r = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", svg, "--layer",
                       std::to_string(layer), "--head", std::to_string(head), "--pool", std::to_string(pool),
                       "--pool-mode", mode});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(XmlParses(svg));
    const std::string bytes = attnviz::ReadFile(svg).value();
    const std::string title = f.model_type() + kDot + "layer " + std::to_string(layer) + kDot + "head " +
                              std::to_string(head) + kDot + mode + "-pooled 3x3" + kDot + f.MaskWords();
    EXPECT_NE(bytes.find(">" + title + "</text>"), std::string::npos) << title;
    EXPECT_NE(bytes.find(">0-2</text>"), std::string::npos) << "the axes name the blocks";
    // The head alone was kept: its cells are the figure's only group (head 0 of the one map kept).
    const std::vector<std::string> fills = SvgCellFills(bytes, 0);
    ASSERT_EQ(fills.size(), (size_t)nb * nb);
    int masked = 0;
    for (int bi = 0; bi < nb; ++bi)
      for (int bj = 0; bj < nb; ++bj) {
        double m = 0, sum = 0;
        int cells = 0;
        bool all_masked = true;
        for (int i = bi * pool; i < std::min(n, (bi + 1) * pool); ++i)
          for (int j = bj * pool; j < std::min(n, (bj + 1) * pool); ++j) {
            const float w = map[(size_t)i * n + j];
            m = std::max(m, (double)w), sum += w, ++cells;
            all_masked = all_masked && f.Masked(i, j);
          }
        const std::string& got = fills[(size_t)bi * nb + bj];
        if (all_masked) {
          const unsigned char grey[3] = {attnviz::kMaskedFill.r, attnviz::kMaskedFill.g, attnviz::kMaskedFill.b};
          EXPECT_EQ(got, Hex(grey)) << bi << "," << bj;
          ++masked;
          continue;
        }
        const double want = mode == "max" ? m : sum / cells;
        std::vector<std::string> allowed;
        for (double d : {-kTol, 0.0, kTol}) {
          unsigned char rgb[3];
          attnviz::MapColor(attnviz::Colormap::kViridis, (float)std::clamp(want + d, 0.0, 1.0), rgb);
          allowed.push_back(Hex(rgb));
        }
        EXPECT_NE(std::find(allowed.begin(), allowed.end(), got), allowed.end())
            << "block " << bi << "," << bj << ": " << got << " for " << want;
      }
    if (f.model_type() != "bert") EXPECT_GE(masked, nb * (nb - 1) / 2) << "the blocks after the diagonal are masked";
    else EXPECT_EQ(masked, 0);
  }
  if (GetParam() != "gpt2") return;
  // In Korean, the title's pooling too.
  CliResult ko = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("ko.svg"),
                      "--layer", "0", "--head", "0", "--pool", "3"});
  ASSERT_EQ(ko.code, 0) << ko.err;
  EXPECT_NE(attnviz::ReadFile(f.Out("ko.svg")).value().find(" \u00B7 3x3 최대 풀링 \u00B7 "), std::string::npos);
}

// The bundled model over 162 tokens: long enough for a figure past 16384 pixels at --cell-size 200.
std::string LongText() {
  std::string text;
  for (int i = 0; i < 18; ++i) text += (i ? " " : "") + std::string("the cat sat on the mat");
  return text;
}

// Under a memory limit too small for any run (ATTNVIZ_MEMORY_LIMIT), a command is refused by the run's own memory
// check, unless something refused it before the run.
const std::string kNoRunFits = "ATTNVIZ_MEMORY_LIMIT=64K ";

CliResult Tiny(std::vector<std::string> extra, const std::string& prefix = "") {
  std::vector<std::string> args = {"--lang", "en", "model", "--model", "tiny", "--text", LongText()};
  args.insert(args.end(), extra.begin(), extra.end());
  return Cli(args, prefix);
}

int PngWidth(const std::string& path, int* height) {
  int w = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, height, &channels, 3);
  if (!pixels) return 0;
  stbi_image_free(pixels);
  return w;
}

// A figure too large is refused before the run (not after every layer), naming the tokens, the reason and what
// fits; what it names does fit, and one step past it does not.
TEST(CliModelFigureFit, TooLargeIsRefusedBeforeTheRunWithWhatFits) {
  const std::string dir = (fs::temp_directory_path() / ("attnviz_cli_fit_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  const std::string png = dir + "/fig.png";
  // The limit stops every run: a figure that fits is refused by the run's memory check.
  CliResult r = Tiny({"--figure", png, "--layer", "0", "--head", "1", "--cell-size", "10"}, kNoRunFits);
  ASSERT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("of memory, more than the limit"), std::string::npos) << r.err;
  // Too large: the figure's reason, so it came before the run.
  r = Tiny({"--figure", png, "--layer", "0", "--head", "1", "--cell-size", "200"}, kNoRunFits);
  ASSERT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--figure of 162 tokens, refused before the run (what fits: --cell-size "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("): the figure would be "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pixels, more than 16384x16384"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(png));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("what fits: --cell-size ([0-9]+), --pool ([0-9]+)\\)"))) << r.err;
  const int cell = std::stoi(m[1]), pool = std::stoi(m[2]);
  EXPECT_GE(cell, 1);
  EXPECT_LT(cell, 200);
  EXPECT_GE(pool, 2);
  // What it named fits: it passes the check and reaches the run (refused there by the limit; a 16000-pixel PNG is
  // not worth writing here: its layout is the one the file is drawn with, FitsAt / LayoutForFormat); one step past
  // it is refused before the run.
  auto reaches_the_run = [&](std::vector<std::string> extra) {
    CliResult got = Tiny(extra, kNoRunFits);
    return got.code == 2 && got.err.find("of memory, more than the limit") != std::string::npos;
  };
  auto refused_before = [&](std::vector<std::string> extra) {
    CliResult got = Tiny(extra, kNoRunFits);
    return got.code == 2 && got.err.find("refused before the run") != std::string::npos;
  };
  const std::vector<std::string> figure = {"--figure", png, "--layer", "0", "--head", "1"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = figure;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  EXPECT_TRUE(reaches_the_run(with({"--cell-size", std::to_string(cell)})));
  EXPECT_TRUE(refused_before(with({"--cell-size", std::to_string(cell + 1)})));
  EXPECT_TRUE(reaches_the_run(with({"--cell-size", "200", "--pool", std::to_string(pool)})));
  if (pool > 2) EXPECT_TRUE(refused_before(with({"--cell-size", "200", "--pool", std::to_string(pool - 1)})));
  // The advice at its word: that figure is written (a smaller one: --cell-size 20 at the advised pool's share).
  r = Tiny(with({"--cell-size", "20", "--pool", std::to_string(pool)}));
  ASSERT_EQ(r.code, 0) << r.err;
  int h = 0;
  const int w = PngWidth(png, &h);
  EXPECT_GT(w, (162 + pool - 1) / pool * 20);
  EXPECT_LT(w, 162 * 20) << "pooled cells";
  // An SVG of too many cells, and a size too small for the tokens: refused before the run as well.
  r = Tiny({"--figure", dir + "/fig.svg", "--layer", "0", "--head", "1", "--size", "2x2in", "--dpi", "96"}, kNoRunFits);
  ASSERT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--figure of 162 tokens, refused before the run (what fits: --pool "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is too small for this figure at 96 dpi"), std::string::npos) << r.err;
  // In Korean.
  r = Cli({"--lang", "ko", "model", "--model", "tiny", "--text", LongText(), "--figure", png, "--layer", "0", "--head",
           "1", "--cell-size", "200"}, kNoRunFits);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("토큰 162개의 --figure 는 실행 전에 거절됩니다 (맞는 설정: --cell-size "), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// --pool auto: the smallest factor whose figure fits the size asked, the factor the refusal named.
TEST(CliModelFigureFit, PoolAutoPicksTheSmallestFactorThatFits) {
  const std::string dir = (fs::temp_directory_path() / ("attnviz_cli_auto_" + std::to_string(::getpid()))).string();
  fs::create_directories(dir);
  // (3 x 3 in: room for the whole title; a smaller figure shortens it.)
  CliResult r = Tiny({"--figure", dir + "/a.svg", "--layer", "1", "--head", "2", "--size", "3x3in", "--pool-mode",
                      "mean", "--pool", "1"});
  ASSERT_EQ(r.code, 2);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("what fits: --pool ([0-9]+)\\)"))) << r.err;
  const std::string pool = m[1];
  r = Tiny({"--figure", dir + "/a.svg", "--layer", "1", "--head", "2", "--size", "3x3in", "--pool", "auto",
            "--pool-mode", "mean"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(attnviz::ReadFile(dir + "/a.svg").value().find(kDot + std::string("mean-pooled ") + pool + "x" + pool + kDot),
            std::string::npos) << "pooled " << pool;
  // A figure that fits as it is: auto does not pool.
  r = Tiny({"--figure", dir + "/b.svg", "--layer", "1", "--head", "2", "--pool", "auto"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(attnviz::ReadFile(dir + "/b.svg").value().find("pooled"), std::string::npos);
  // PNG at the size asked.
  r = Tiny({"--figure", dir + "/c.png", "--layer", "1", "--head", "2", "--size", "2x2in", "--dpi", "96", "--pool", "auto"});
  ASSERT_EQ(r.code, 0) << r.err;
  int h = 0;
  EXPECT_EQ(PngWidth(dir + "/c.png", &h), 192);
  EXPECT_EQ(h, 192);
  // Refusals of the options themselves.
  EXPECT_TRUE(attnviz::cli_test::Refused(Tiny({"--figure", dir + "/d.png", "--layer", "0", "--head", "0", "--pool", "x"}),
                                         "--pool: 'x' is not a pooling factor"));
  EXPECT_TRUE(attnviz::cli_test::Refused(Tiny({"--figure", dir + "/d.png", "--layer", "0", "--head", "0", "--pool", "163"}),
                                         "--pool 163 is more than the text's 162 tokens: at most 162"));
  EXPECT_TRUE(attnviz::cli_test::Refused(Tiny({"--figure", dir + "/d.png", "--layer", "0", "--head", "0", "--pool-mode", "max"}),
                                         "--pool-mode goes with --pool F|auto"));
  EXPECT_TRUE(attnviz::cli_test::Refused(Tiny({"--figure", dir + "/d.png", "--layer", "0", "--head", "0", "--pool", "2",
                                               "--pool-mode", "median"}),
                                         "--pool-mode: pool mode 'median' is unknown: allowed max, mean"));
  EXPECT_TRUE(attnviz::cli_test::Refused(Tiny({"--pool", "2"}), "--pool goes with --figure"));
  EXPECT_FALSE(fs::exists(dir + "/d.png"));
  fs::remove_all(dir);
}

// --figure --layer 0 alone runs layer 0 only: the summary lists it and no later layer. With an output that reads
// every layer (--roles) every layer runs, and the figure is the same file byte for byte.
TEST(CliModelFigureFit, AFigureAloneStopsTheRunAfterItsLayer) {
  Fixture f("gpt2");  // 2 layers
  CliResult alone = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("alone.svg"),
                         "--layer", "0", "--head", "2"});
  ASSERT_EQ(alone.code, 0) << alone.err;
  EXPECT_NE(alone.out.find("layer 0:"), std::string::npos) << alone.out;
  EXPECT_EQ(alone.out.find("layer 1:"), std::string::npos) << "layer 1 ran: " << alone.out;
  CliResult roles = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure", f.Out("roles.svg"),
                         "--layer", "0", "--head", "2", "--roles"});
  ASSERT_EQ(roles.code, 0) << roles.err;
  EXPECT_NE(roles.out.find("\n1,3,"), std::string::npos) << "the roles of layer 1's last head: " << roles.out;
  EXPECT_TRUE(attnviz::ReadFile(f.Out("alone.svg")).value() == attnviz::ReadFile(f.Out("roles.svg")).value());
  // A pooled figure stops alike.
  CliResult pooled = Cli({"--lang", "en", "model", "--model", f.dir(), "--text", f.text(), "--figure",
                          f.Out("pooled.svg"), "--layer", "0", "--head", "2", "--pool", "2"});
  ASSERT_EQ(pooled.code, 0) << pooled.err;
  EXPECT_EQ(pooled.out.find("layer 1:"), std::string::npos) << pooled.out;
}

// --dump whose files would not fit the disk is refused before the run (a run of thousands of tokens would fill the
// disk first). /proc: a file system with no free blocks.
TEST(CliModelFigureFit, ADumpPastTheFreeDiskIsRefusedBeforeTheRun) {
  CliResult r = Tiny({"--dump", "/proc/attnviz_no_room/dump"}, kNoRunFits);
  ASSERT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--dump: the files would take "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" and /proc/attnviz_no_room/dump has 0 bytes free (checked before the run): at most 0 of these "
                       "162 tokens fit there"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
