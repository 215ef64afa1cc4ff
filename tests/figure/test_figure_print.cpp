// Figures for print (issue 13): titles and file names that name the mask and every non-default setting,
// masked cells drawn apart from weight 0 and never annotated, a size in inches or cm at a DPI with text in
// points and the DPI in the PNG's pHYs chunk, large maps in SVG as one embedded image, head lists, and
// unique CSV headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "figure/canvas.h"
#include "figure/export.h"
#include "figure/figure_names.h"
#include "io/file_io.h"
#include "figure_test_util.h"
#include "figure/font.h"
#include "figure/heatmap_figure.h"
#include "sandbox/pipeline.h"
#include "figure/svg.h"

namespace attnviz {
namespace {

using test::Image;

std::vector<Token> Tokens(const std::vector<std::string>& texts) {
  std::vector<Token> out;
  for (const std::string& t : texts) out.push_back(WordToken(t));
  return out;
}

// A self-attention map of n tokens (one head) with causal rows: weight 0 above the diagonal, as the
// engine leaves masked cells, and a visible 0 on the diagonal of row 1 (a real zero to tell apart).
AttentionTensors CausalTensors(const std::vector<std::string>& words) {
  const int n = (int)words.size();
  AttentionTensors t;
  t.query_tokens = t.kv_tokens = Tokens(words);
  auto probs = std::make_shared<Tensor>();
  probs->Resize({1, (size_t)n, (size_t)n});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) probs->data[(size_t)i * n + j] = 1.0f / (i + 1);
  if (n > 1) probs->data[(size_t)1 * n + 1] = 0.0f, probs->data[(size_t)1 * n + 0] = 1.0f;
  t.probs = probs;
  t.mask = Mask::Causal();
  return t;
}

AttentionConfig Causal() {
  AttentionConfig c;
  c.n_head = 1;
  c.mask = MaskKind::kCausal;
  return c;
}

// The PNG chunks in file order: (type, data), each CRC checked with a bitwise CRC-32 (not the
// library's table), so a wrong CRC fails here.
struct Chunk {
  std::string type, data;
  bool crc_ok = false;
};
uint32_t BitwiseCrc(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
uint32_t Be32(const std::string& s, size_t at) {
  return (uint32_t)(unsigned char)s[at] << 24 | (uint32_t)(unsigned char)s[at + 1] << 16 |
         (uint32_t)(unsigned char)s[at + 2] << 8 | (uint32_t)(unsigned char)s[at + 3];
}
std::vector<Chunk> PngChunks(const std::string& png) {
  std::vector<Chunk> chunks;
  if (png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return chunks;
  size_t at = 8;
  while (at + 12 <= png.size()) {
    uint32_t len = Be32(png, at);
    if (at + 12 + len > png.size()) break;
    Chunk c{png.substr(at + 4, 4), png.substr(at + 8, len)};
    c.crc_ok = BitwiseCrc(png.substr(at + 4, 4 + len)) == Be32(png, at + 8 + len);
    chunks.push_back(c);
    at += 12 + len;
  }
  return chunks;
}

class PrintFigureTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::MakeTempDir(); }
  void TearDown() override { test::RemoveTree(dir_); }
  std::string dir_;
};

// ---------- titles and file names ----------

TEST(FigureNamesTest, TitlesAndFileNamesNameTheMaskAndEveryNonDefaultSetting) {
  AttentionConfig plain;
  HeatmapExportOptions head2;
  head2.head = 2;
  EXPECT_EQ(DefaultHeatmapTitle(plain, head2), "head 2 \u00B7 d_k=16 \u00B7 scaled \u00B7 T=1");
  EXPECT_EQ(DefaultHeatmapFileName(plain, head2, "png"), "attnviz-head2-dk16-scaled.png");

  AttentionConfig causal = plain;
  causal.mask = MaskKind::kCausal;
  EXPECT_EQ(DefaultHeatmapTitle(causal, head2), "head 2 \u00B7 d_k=16 \u00B7 scaled \u00B7 T=1 \u00B7 causal");
  EXPECT_EQ(DefaultHeatmapFileName(causal, head2, "png"), "attnviz-head2-dk16-scaled-causal.png");

  AttentionConfig all = causal;
  all.d_model = 128;
  all.n_head = 8;
  all.d_v = 32;
  all.seed = 3;
  all.positional = false;
  all.temperature = 0.5f;
  all.scale = false;
  EXPECT_EQ(DefaultHeatmapTitle(all, head2),
            "head 2 \u00B7 d_k=16 \u00B7 unscaled \u00B7 T=0.5 \u00B7 causal \u00B7 d_model=128 \u00B7 n_head=8 \u00B7 "
            "d_v=32 \u00B7 seed=3 \u00B7 no positions");
  EXPECT_EQ(DefaultHeatmapFileName(all, head2, "svg"), "attnviz-head2-dk16-unscaled-T0.5-causal-dm128-nh8-dv32-seed3-nopos.svg");

  // Every single setting changed alone gives a new file name.
  std::vector<AttentionConfig> one_each(7, plain);
  one_each[0].mask = MaskKind::kCausal;
  one_each[1].mode = AttentionMode::kCross;
  one_each[2].d_model = 32;
  one_each[3].n_head = 2;
  one_each[4].d_v = 8;
  one_each[5].seed = 1;
  one_each[6].positional = false;
  std::vector<std::string> names = {DefaultHeatmapFileName(plain, head2, "png")};
  for (const AttentionConfig& c : one_each) {
    std::string name = DefaultHeatmapFileName(c, head2, "png");
    EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name;
    names.push_back(name);
  }

  HeatmapExportOptions subset;
  subset.all_heads = true;
  subset.heads = {0, 2, 5};
  AttentionConfig eight = plain;
  eight.n_head = 8;
  EXPECT_EQ(DefaultHeatmapTitle(eight, subset), "3 heads \u00B7 d_k=8 \u00B7 scaled \u00B7 T=1 \u00B7 n_head=8");
  EXPECT_EQ(DefaultHeatmapFileName(eight, subset, "png"), "attnviz-heads-0-2-5-dk8-scaled-nh8.png");

  // The sweep's title and name keep only what the sweep keeps (not d_k, scaling or heads).
  EXPECT_EQ(SweepTitle(causal, 12), "softmax saturation \u00B7 n_k=12 \u00B7 T=1 \u00B7 causal");
  EXPECT_EQ(SweepFileStem(all), "attnviz-saturation-T0.5-causal-dm128-seed3-nopos");
  EXPECT_EQ(SweepFileStem(plain), "attnviz-saturation");
}

// Seed (f): a run whose keys come from word length and scores by -|q - k| must not overwrite the default
// run's figure; the sources and score are in its file name, and in the sweep's title and name.
TEST(FigureNamesTest, SourcesAndScoreAreInFileNamesAndTheSweepTitle) {
  const AttentionConfig plain;
  AttentionConfig f = plain;
  f.query_from = FeatureSource::kLength;
  f.key_from = FeatureSource::kLength;
  f.score = ScoreKind::kNegDistance;
  HeatmapExportOptions head0;
  EXPECT_EQ(DefaultHeatmapFileName(plain, head0, "png"), "attnviz-head0-dk16-scaled.png");
  // The name says what the title says: q and k 1 wide, nothing scaled.
  EXPECT_EQ(DefaultHeatmapFileName(f, head0, "png"), "attnviz-head0-dk1-qlength-klength-scorenegdistance.png");
  // q and k from length are 1 wide; -|q - k| is never divided by sqrt(d_k), so no "scaled"; the score by its formula.
  EXPECT_EQ(DefaultHeatmapTitle(f, head0),
            "head 0 \u00B7 d_k=1 \u00B7 T=1 \u00B7 q from length \u00B7 k from length \u00B7 score "
            "\u2212|q \u2212 k|");
  // Each source or score alone gives a name of its own.
  std::vector<AttentionConfig> one_each(4, plain);
  one_each[0].query_from = FeatureSource::kPosition;
  one_each[1].key_from = FeatureSource::kPosition;
  one_each[2].value_from = FeatureSource::kPosition;
  one_each[3].score = ScoreKind::kDot;
  std::vector<std::string> names = {DefaultHeatmapFileName(plain, head0, "png")};
  for (const AttentionConfig& c : one_each) {
    const std::string name = DefaultHeatmapFileName(c, head0, "png");
    EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name;
    names.push_back(name);
  }
  EXPECT_EQ(SweepTitle(f, 5),
            "softmax saturation \u00B7 n_k=5 \u00B7 T=1 \u00B7 q from length \u00B7 k from length \u00B7 score "
            "\u2212|q \u2212 k|");
  EXPECT_EQ(SweepFileStem(f), "attnviz-saturation-qlength-klength-scorenegdistance");
  EXPECT_EQ(SweepFileStem(plain), "attnviz-saturation");
}

// The sandbox's q/k norm and soft cap name their figures and the sweep, so they never overwrite the plain run's.
TEST(FigureNamesTest, TheQkNormAndTheSoftCapAreInFileNamesAndTheSweepTitle) {
  AttentionConfig c;
  c.d_k = 4096;
  c.scale = false;
  c.qk_norm = true;
  c.softcap = 5;
  HeatmapExportOptions head0;
  EXPECT_EQ(DefaultHeatmapFileName(c, head0, "png"), "attnviz-head0-dk4096-unscaled-qknorm-cap5.png");
  EXPECT_EQ(DefaultHeatmapTitle(c, head0), "head 0 \u00B7 d_k=4096 \u00B7 unscaled \u00B7 T=1 \u00B7 q/k norm \u00B7 cap 5");
  EXPECT_EQ(SweepTitle(c, 7), "softmax saturation \u00B7 n_k=7 \u00B7 T=1 \u00B7 q/k norm \u00B7 cap 5");
  EXPECT_EQ(SweepFileStem(c), "attnviz-saturation-qknorm-cap5");
  c.qk_norm = false;
  c.softcap = 0.5f;
  EXPECT_EQ(SweepFileStem(c), "attnviz-saturation-cap0.5");
}

// The JSON's logit_multiplier is for the width q and k had: one-hot queries and keys of "a b a c" have width 3
// (the vocabulary), so scaled-dot divides by sqrt(3), not by sqrt(d_k = 16).
TEST_F(PrintFigureTest, JsonLogitMultiplierUsesTheQueryKeyWidthActuallyUsed) {
  AttentionConfig c;
  c.query_from = FeatureSource::kOneHot;
  c.key_from = FeatureSource::kOneHot;
  c.temperature = 2.0f;
  Pipeline p;
  ASSERT_TRUE(p.SetText("a b a c").ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kSoftmax).ok());
  HeatmapExportOptions o;
  o.out_path = dir_ + "/onehot.json";
  ASSERT_TRUE(ExportHeatmap(p.tensors(), c, o).ok());
  auto json = ReadFile(o.out_path);
  ASSERT_TRUE(json.ok());
  const size_t at = json->find("\"logit_multiplier\": ");
  ASSERT_NE(at, std::string::npos) << *json;
  const double written = std::stod(json->substr(at + std::strlen("\"logit_multiplier\": ")));
  const double by_hand = 1.0 / std::sqrt(3.0) / 2.0;  // 0.288675...
  EXPECT_NEAR(written, by_hand, 1e-6);
  // And the weights agree with that multiplier: row 0 ("a") over keys a, b, a, c.
  const double e = std::exp(by_hand);
  EXPECT_NEAR(p.tensors().probs->data[0], e / (2 * e + 2), 1e-6);
}

// ---------- masked cells ----------

TEST_F(PrintFigureTest, MaskedCellsAreGreyWithALegendAndNeverAnnotated) {
  AttentionTensors t = CausalTensors({"a", "b", "c", "d"});
  HeatmapExportOptions o;
  o.out_path = dir_ + "/causal.png";
  o.cell_size = 60;
  o.annotate = true;
  ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
  Image image;
  ASSERT_TRUE(test::LoadPng(o.out_path, &image));
  auto spec = MakeHeatmapSpec(t, Causal(), o);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->mask, MaskKind::kCausal);
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  EXPECT_GT(layout->annotate_font, 0);
  unsigned char zero[3];
  MapColor(o.colormap, 0.0f, zero);
  const Rgb zero_colour{zero[0], zero[1], zero[2]};
  const HeatmapPanel& panel = layout->panels[0];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      RectF c = layout->CellRect(panel, i, j);
      // A point off the diagonal hatch and off any annotation: the fill.
      Rgb fill = image.At((int)c.x + 8, (int)c.y + 4);
      if (j > i) {
        EXPECT_LE(test::ColorDistance(fill, kMaskedFill), 2) << i << "," << j;
        EXPECT_GT(test::ColorDistance(fill, zero_colour), 60) << "masked cell drawn as weight 0 at " << i << "," << j;
        // No annotation: every pixel of the cell is the fill, the hatch or a blend of the two.
        int foreign = 0;
        for (int y = 2; y < 58; ++y)
          for (int x = 2; x < 58; ++x) {
            Rgb p = image.At((int)c.x + x, (int)c.y + y);
            int lo = std::min({kMaskedHatch.r, kMaskedFill.r}) - 2, hi = std::max({kMaskedHatch.r, kMaskedFill.r}) + 2;
            foreign += p.r < lo || p.r > hi || p.r != p.g || p.g != p.b;
          }
        EXPECT_EQ(foreign, 0) << "text or colour in masked cell " << i << "," << j;
        // The hatch is there.
        EXPECT_LE(test::ColorDistance(image.At((int)(c.x + c.w / 2), (int)(c.y + c.h / 2)), kMaskedHatch), 40);
      } else {
        EXPECT_GT(test::ColorDistance(fill, kMaskedFill), 30) << i << "," << j;
      }
    }
  // The real zero on row 1 keeps the colormap's low end (and its annotation).
  RectF real_zero = layout->CellRect(panel, 1, 1);
  EXPECT_LE(test::ColorDistance(image.At((int)real_zero.x + 8, (int)real_zero.y + 4), zero_colour), 1);
  // The legend: a grey swatch and the word "masked" next to it.
  ASSERT_GT(layout->masked_swatch.w, 0);
  const RectF& m = layout->masked_swatch;
  EXPECT_LE(test::ColorDistance(image.At((int)m.x + 3, (int)m.y + 3), kMaskedFill), 2);
  EXPECT_GT(test::InkPixels(image, {m.right() + 2, m.y - 2, 50, m.h + 4}), 20);

  // SVG: one annotation per visible cell, none in the 6 masked ones; the legend says "masked".
  o.out_path = dir_ + "/causal.svg";
  ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
  std::string svg = test::ReadAll(o.out_path);
  int numbers = 0;  // (the colorbar's ticks have one decimal: 0.0 ... 1.0)
  for (const char* n : {"\">0.00<", "\">0.25<", "\">0.33<", "\">1.00<"})
    for (size_t at = svg.find(n); at != std::string::npos; at = svg.find(n, at + 1)) ++numbers;
  EXPECT_EQ(numbers, 10);
  EXPECT_EQ(svg.find("\u2014"), std::string::npos);
  EXPECT_NE(svg.find(">masked</text>"), std::string::npos);

  // Without a mask (the maps' own: a figure reads the mask the pass used) nothing is grey and there is no legend
  // entry.
  AttentionTensors unmasked = t;
  unmasked.mask = Mask::None();
  spec = MakeHeatmapSpec(unmasked, AttentionConfig{}, HeatmapExportOptions{});
  ASSERT_TRUE(spec.ok());
  layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  EXPECT_EQ(layout->masked_swatch.w, 0);
}

TEST_F(PrintFigureTest, AutoRangeLeavesMaskedZerosOut) {
  AttentionTensors t = CausalTensors({"a", "b", "c"});
  auto probs = std::make_shared<Tensor>(*t.probs);
  probs->data[3 + 1] = 0.25f;  // row 1: 0.75 and 0.25
  probs->data[3 + 0] = 0.75f;
  t.probs = probs;
  HeatmapExportOptions o;
  o.auto_range = true;
  auto spec = MakeHeatmapSpec(t, Causal(), o);
  ASSERT_TRUE(spec.ok());
  EXPECT_FLOAT_EQ(spec->range.lo, 0.25f);  // not the masked cells' 0
  EXPECT_FLOAT_EQ(spec->range.hi, 1.0f);
}

// ---------- size, DPI, text in points, pHYs ----------

TEST_F(PrintFigureTest, PngRecordsTheDpiInAPhysChunk) {
  AttentionTensors t = CausalTensors({"a", "b", "c"});
  for (auto [dpi, ppm] : {std::pair<float, uint32_t>{300, 11811}, {0, 3780}, {600, 23622}}) {
    HeatmapExportOptions o;
    o.out_path = dir_ + "/dpi.png";
    o.dpi = dpi;
    ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
    std::string png = test::ReadAll(o.out_path);
    std::vector<Chunk> chunks = PngChunks(png);
    ASSERT_GE(chunks.size(), 4u);
    EXPECT_EQ(chunks[0].type, "IHDR");
    EXPECT_EQ(chunks[1].type, "pHYs") << "pHYs must come before IDAT";
    EXPECT_EQ(chunks.back().type, "IEND");
    for (const Chunk& c : chunks) EXPECT_TRUE(c.crc_ok) << c.type;
    ASSERT_EQ(chunks[1].data.size(), 9u);
    EXPECT_EQ(Be32(chunks[1].data, 0), ppm);
    EXPECT_EQ(Be32(chunks[1].data, 4), ppm);
    EXPECT_EQ(chunks[1].data[8], 1);  // metres
    Image image;
    EXPECT_TRUE(test::DecodePng(png, &image));
  }
  // Not a PNG: unchanged.
  EXPECT_EQ(InsertPngDpi("GIF89a", 300), "GIF89a");
  // The table CRC agrees with the bitwise one.
  const std::string sample = "IHDR attnviz";
  EXPECT_EQ(PngCrc(reinterpret_cast<const unsigned char*>(sample.data()), sample.size()), BitwiseCrc(sample));
}

// Ink rows of the row label of query i (the text left of the cells).
int LabelInkHeight(const Image& image, const HeatmapLayout& layout, int i) {
  const HeatmapPanel& p = layout.panels[0];
  int top = -1, bottom = -1;
  for (int y = (int)(p.cells.y + i * layout.cell); y < (int)(p.cells.y + (i + 1) * layout.cell); ++y)
    for (int x = (int)p.row_label_strip.x; x < (int)(p.row_label_strip.right() - 6 * layout.unit); ++x) {
      Rgb c = image.At(x, y);
      if ((c.r + c.g + c.b) / 3 < 128) {
        if (top < 0) top = y;
        bottom = y;
        break;
      }
    }
  return top < 0 ? 0 : bottom - top + 1;
}

// A column-wide figure keeps its whole title (the mask near its end): shrunk, not shortened, while 7 pt
// is enough. Seen cut to "... T=1 · cau…" at 3.3 in, 150 dpi.
TEST_F(PrintFigureTest, ColumnWideFigureKeepsTheWholeTitle) {
  AttentionTensors t = CausalTensors({"The", "cat", "sat", "on", "the", "mat"});
  for (int dpi : {96, 150, 300})
  for (int tenths = 22; tenths <= 40; ++tenths) {
    HeatmapExportOptions o;
    o.size = *ParseFigureSize(std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "x3in");
    o.dpi = dpi;
    auto spec = MakeHeatmapSpec(t, Causal(), o);
    ASSERT_TRUE(spec.ok()) << spec.message();
    auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
    ASSERT_TRUE(layout.ok()) << layout.message();
    // Shortened only when even 7 pt is too wide.
    const bool at_floor = layout->title_font <= 7.0f * dpi / 72.0f + 1e-3f;
    if (!at_floor) EXPECT_EQ(layout->title_text, spec->title) << "at " << dpi << " dpi, " << tenths << " tenths";
    if (tenths == 33 && dpi >= 150) EXPECT_EQ(layout->title_text, spec->title) << "a one-column figure at " << dpi;
  }
}

TEST_F(PrintFigureTest, SizeInInchesOrCmAtADpiWithTextInPoints) {
  AttentionTensors t = CausalTensors({"H", "E", "H", "E"});
  HeatmapExportOptions o;
  o.out_path = dir_ + "/print.png";
  o.size = *ParseFigureSize("3.3x3in");
  o.dpi = 300;
  Status exported = ExportHeatmap(t, Causal(), o);
  ASSERT_TRUE(exported.ok()) << exported.message();
  Image image;
  ASSERT_TRUE(test::LoadPng(o.out_path, &image));
  EXPECT_EQ(image.width, 990);
  EXPECT_EQ(image.height, 900);
  auto spec = MakeHeatmapSpec(t, Causal(), o);
  ASSERT_TRUE(spec.ok());
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->width, 990);
  EXPECT_EQ(layout->height, 900);
  // Labels are 9 pt: 9 / 72 * 300 = 37.5 px em; the capital H's ink is its cap height (0.73 em in DejaVu Sans).
  EXPECT_FLOAT_EQ(layout->label_font, 37.5f);
  EXPECT_FLOAT_EQ(layout->tick_font, 11 * 300 / 96.0f);
  const float cap = 0.729f * 37.5f;
  EXPECT_NEAR(LabelInkHeight(image, *layout, 0), cap, 2.5f);
  // The same figure at 96 dpi: the same text in points is 300/96 times fewer pixels.
  o.dpi = 96;
  o.out_path = dir_ + "/screen.png";
  ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
  Image small;
  ASSERT_TRUE(test::LoadPng(o.out_path, &small));
  EXPECT_EQ(small.width, 317);  // 3.3 in x 96
  EXPECT_EQ(small.height, 288);
  auto small_layout = LayoutHeatmap(*FontSet::Default().value(), *MakeHeatmapSpec(t, Causal(), o));
  EXPECT_FLOAT_EQ(small_layout->label_font, 12.0f);
  EXPECT_NEAR(LabelInkHeight(small, *small_layout, 0), 0.729f * 12, 1.5f);

  // cm and mm; the SVG states the physical size.
  auto cm = ParseFigureSize("8.382x7.62cm");
  ASSERT_TRUE(cm.ok());
  EXPECT_NEAR(cm->width_in, 3.3, 1e-9);
  EXPECT_NEAR(cm->height_in, 3.0, 1e-9);
  EXPECT_NEAR(ParseFigureSize("84x76.2 mm")->width_in, 84 / 25.4, 1e-9);
  EXPECT_NEAR(ParseFigureSize("3.3in x 3in")->height_in, 3.0, 1e-9);
  o.size = *cm;
  o.dpi = 300;
  o.out_path = dir_ + "/print.svg";
  ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
  EXPECT_NE(test::ReadAll(o.out_path).find("width=\"3.3in\" height=\"3in\" viewBox=\"0 0 990 900\""),
            std::string::npos);

  for (const char* bad : {"3.3x3", "3.3x3pt", "x3in", "3.3xin", "0.1x3in", "50x3in", "axbin", ""}) {
    auto r = ParseFigureSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.message().find("3.3x3in"), std::string::npos) << r.message();
    }
  }
  // Too small for its content at that dpi: a clear error with the size needed.
  o.size = FigureSize{0.5, 0.5};
  o.dpi = 600;
  o.out_path = dir_ + "/tiny.png";
  t = CausalTensors(std::vector<std::string>(300, "word"));
  Status s = ExportHeatmap(t, Causal(), o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("too small"), std::string::npos) << s.message();
  o.dpi = 5;
  EXPECT_NE(ExportHeatmap(t, Causal(), o).message().find("allowed 10..2400"), std::string::npos);
}

// ---------- SVG of a large map ----------

TEST_F(PrintFigureTest, LargeSvgEmbedsTheCellsAsOneImageAndStaysSmall) {
  std::string text;
  for (int i = 0; i < 1024; ++i) text += (i ? " t" : "t") + std::to_string(i);
  Pipeline p;
  ASSERT_TRUE(p.SetText(text).ok());
  AttentionConfig c;
  c.mask = MaskKind::kCausal;
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kSoftmax).ok());
  HeatmapExportOptions o;
  o.out_path = dir_ + "/big.svg";
  ASSERT_TRUE(ExportHeatmap(p.tensors(), c, o).ok());
  std::string svg = test::ReadAll(o.out_path);
  EXPECT_LT(svg.size(), 5u * 1000 * 1000) << "a one-head SVG at 1024 tokens must stay under 5 MB";
  size_t group = svg.find("<g id=\"cells-head-0\"");
  ASSERT_NE(group, std::string::npos);
  size_t image = svg.find("<image ", group);
  ASSERT_NE(image, std::string::npos);
  EXPECT_LT(image, svg.find("</g>", group));
  EXPECT_EQ(svg.find("<rect", group), svg.find("<rect", svg.find("</g>", group)));  // no rect in the cells group
  // The embedded PNG holds one pixel per cell, the colours of the engine's weights (grey where masked).
  const std::string uri = "data:image/png;base64,";
  size_t at = svg.find(uri, image) + uri.size();
  std::string b64 = svg.substr(at, svg.find('"', at) - at);
  std::string png;
  int bits = 0;
  unsigned buffer = 0;  // unsigned: the bits shifted out of the top are dropped, not signed overflow (UBSan)
  for (char ch : b64) {
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* pos = std::strchr(alphabet, ch);
    if (ch == '=' || !pos) break;
    buffer = (buffer << 6) | (unsigned)(pos - alphabet);
    bits += 6;
    if (bits >= 8) png += (char)((buffer >> (bits -= 8)) & 0xFF);
  }
  Image cells;
  ASSERT_TRUE(test::DecodePng(png, &cells));
  EXPECT_EQ(cells.width, 1024);
  EXPECT_EQ(cells.height, 1024);
  unsigned char rgb[3];
  MapColor(Colormap::kViridis, p.tensors().probs->data[(size_t)700 * 1024 + 3], rgb);
  EXPECT_EQ(cells.At(3, 700), (Rgb{rgb[0], rgb[1], rgb[2]}));
  EXPECT_EQ(cells.At(900, 3), kMaskedFill);
  // Labels stay vector text.
  EXPECT_NE(svg.find(">t0</text>"), std::string::npos);
  EXPECT_EQ(test::Run({ATTNVIZ_XMLLINT, "--noout", o.out_path}).exit_code, 0);

  // Beyond the stated maximum: refused, naming the limit and what to use instead. (No cell is read.)
  HeatmapSpec huge;
  float one = 0;
  huge.probs = &one;
  huge.n_head = 1;
  huge.n_q = huge.n_k = 1025;
  huge.heads = {0};
  huge.query_labels = huge.key_labels = std::vector<std::string>(1025, "x");
  Result<std::string> refused = RenderHeatmap(huge, "svg");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("at most 1048576"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("PNG"), std::string::npos);
}

// ---------- head lists, CSV headers ----------

TEST(HeadListTest, ListsRangesAllAndClearErrors) {
  EXPECT_EQ(*ParseHeadList("0,2,5", 8), (std::vector<int>{0, 2, 5}));
  EXPECT_EQ(*ParseHeadList("0-3,7", 8), (std::vector<int>{0, 1, 2, 3, 7}));
  EXPECT_EQ(*ParseHeadList("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*ParseHeadList("5, 1-2, 1", 8), (std::vector<int>{5, 1, 2}));
  auto out = ParseHeadList("0-9", 4);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.message().find("head 9 is"), std::string::npos) << out.message();  // the end as typed
  EXPECT_NE(out.message().find("allowed 0..3 (n_head = 4)"), std::string::npos) << out.message();
  for (const char* bad : {"", ",", "1,,2", "a", "3-1", "1-", "-2", "1.5"}) {
    auto r = ParseHeadList(bad, 8);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.message().find("0-3,7"), std::string::npos) << r.message();
    }
  }
  EXPECT_TRUE(ParseHeadList("0-7", 0).ok());  // syntax only
  // A range far past n_head is refused by its end as typed (the message was about head 4, or, before n_head
  // was known, "allowed head numbers from 0"); it is never expanded first.
  auto far = ParseHeadList("0-999999", 12);
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.message().find("head 999999 is out of range: allowed 0..11 (n_head = 12)"), std::string::npos)
      << far.message();
  EXPECT_TRUE(ParseHeadList("0-999999", 0).ok());  // syntax only: the range is checked once n_head is known
  EXPECT_TRUE(ParseHeadList("0-999999999999999999", 0).ok());
  EXPECT_NE(ParseHeadList("5-99999999999999999999", 8).message().find("not a range"), std::string::npos);
}

TEST_F(PrintFigureTest, CsvHeaderIsUniqueForRepeatedTokens) {
  AttentionTensors t = CausalTensors({"the", "cat", "saw", "the"});
  HeatmapExportOptions o;
  o.out_path = dir_ + "/w.csv";
  ASSERT_TRUE(ExportHeatmap(t, Causal(), o).ok());
  std::string csv = test::ReadAll(o.out_path);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "query,0:the,1:cat,2:saw,3:the");
  EXPECT_EQ(WeightsCsvHeader({"a,b", "c"}, true), "head,query,\"0:a,b\",1:c\n");
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// A sliding window (Mistral's): the cells before each row's window are masked like the ones after the diagonal,
// and so are the cells of a zoomed cut of the map (Mask::Cut keeps each cell's mask from the whole map).
TEST(WindowFigure, CellsOutsideTheWindowAreMaskedInTheFigureAndInACut) {
  const int n = 10, window = 3;
  AttentionTensors t;
  std::vector<std::string> words;
  for (int i = 0; i < n; ++i) words.push_back("w" + std::to_string(i));
  std::vector<Token> tokens;
  for (const std::string& w : words) tokens.push_back(WordToken(w));
  t.query_tokens = t.kv_tokens = tokens;
  auto probs = std::make_shared<Tensor>();
  probs->Resize({1, (size_t)n, (size_t)n});
  for (int i = 0; i < n; ++i) {
    const int lo = std::max(0, i - window + 1);
    for (int j = lo; j <= i; ++j) probs->data[(size_t)i * n + j] = 1.0f / (float)(i - lo + 1);
  }
  t.probs = probs;
  t.mask = Mask::Causal(window);
  HeatmapExportOptions o;
  Result<HeatmapSpec> spec = MakeHeatmapSpec(t, AttentionConfig{}, o);
  ASSERT_TRUE(spec.ok()) << spec.message();
  int masked = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const bool outside = j > i || i - j >= window;
      EXPECT_EQ(spec->masked(i, j), outside) << i << "," << j;
      masked += outside;
    }
  EXPECT_EQ(masked, n * n - (1 + 2 + 3 * (n - 2)));
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  EXPECT_GT(layout->masked_swatch.w, 0) << "the legend names the masked cells";
  // Drawn: every masked cell is hatched, before the window as after the diagonal.
  spec->cell_size = 20;
  Result<std::string> svg = RenderHeatmap(*spec, "svg");
  ASSERT_TRUE(svg.ok()) << svg.message();
  const size_t group = svg->find("<g id=\"masked-head-0\"");
  ASSERT_NE(group, std::string::npos);
  const std::string hatch = svg->substr(group, svg->find("</g>", group) - group);
  int lines = 0;
  for (size_t at = hatch.find("<polyline"); at != std::string::npos; at = hatch.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, masked);
  // A cut: rows 6..9, keys 2..7 of the map. Cell (r, c) there is cell (6 + r, 2 + c) here.
  const Mask cut = t.mask.Cut(6, 2);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) EXPECT_EQ(cut.Masked(r, c, 6), t.mask.Masked(6 + r, 2 + c, n)) << r << "," << c;
  EXPECT_TRUE(cut.AllMasked(2, 4, 0, 3, 6));   // rows 8, 9 see keys 6.. only; keys 2..4 are before their window
  EXPECT_FALSE(cut.AllMasked(0, 4, 0, 3, 6));  // row 6 sees key 4
}

}  // namespace
}  // namespace attnviz
