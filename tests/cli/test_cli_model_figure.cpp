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
                               "--colormap NAME", "--color-scale S"})
      EXPECT_NE(help.out.find(option), std::string::npos) << lang << ": " << option;
  }
}

}  // namespace
