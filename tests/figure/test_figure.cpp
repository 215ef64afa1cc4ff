// The figure library: colormap tables, fonts (Hangul from NanumGothic), the heatmap PNG and SVG,
// the data formats, the saturation plot and every error path.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "color/colormap.h"
#include "figure/export.h"
#include "figure_test_util.h"
#include "io/file_io.h"
#include "figure/font.h"
#include "figure/heatmap_figure.h"
#include "figure/line_plot.h"
#include "io/npy.h"
#include "figure/svg.h"
#include "sandbox/text.h"

namespace attnviz {
namespace {

using test::Image;

Rgb Lut(Colormap c, int index) {
  const unsigned char* p = ColormapRgb(c) + 3 * index;
  return Rgb{p[0], p[1], p[2]};
}
Rgb Expected(Colormap c, float w, ColorScale s = ColorScale::kLinear, ColorRange r = {}) {
  unsigned char rgb[3];
  MapColor(c, NormalizeForColor(w, s, r), rgb);
  return Rgb{rgb[0], rgb[1], rgb[2]};
}

std::vector<Token> Tokens(const std::vector<std::string>& texts) {
  std::vector<Token> out;
  for (const std::string& t : texts) out.push_back(WordToken(t));
  return out;
}

// Hand-made cross-attention maps: 2 heads, 3 Korean queries, 4 English keys, rows sum to 1,
// with weights spread over the whole colormap (including 0 and 1).
// Key token j of `t` shown as `display` (token lists are shared: a new list).
void SetKeyDisplay(LayerMaps* t, size_t j, const std::string& display) {
  std::vector<Token> keys = t->kv_tokens;
  keys[j].display = display;
  t->kv_tokens = std::move(keys);
}

AttentionTensors MakeTensors() {
  AttentionTensors t;
  t.query_tokens = Tokens({"나는", "사과를", "먹었다"});
  t.kv_tokens = Tokens({"I", "ate", "an", "apple"});
  auto probs = std::make_shared<Tensor>();
  probs->Resize({2, 3, 4});
  const float w[2][3][4] = {{{1.0f, 0.0f, 0.0f, 0.0f}, {0.1f, 0.2f, 0.3f, 0.4f}, {0.05f, 0.55f, 0.15f, 0.25f}},
                            {{0.25f, 0.25f, 0.25f, 0.25f}, {0.01f, 0.09f, 0.7f, 0.2f}, {0.0f, 0.0f, 0.001f, 0.999f}}};
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) probs->data[(h * 3 + i) * 4 + j] = w[h][i][j];
  t.probs = probs;
  return t;
}

AttentionConfig MakeConfig() {
  AttentionConfig c;
  c.n_head = 2;
  c.d_model = 64;
  c.d_k = 512;
  c.scale = false;
  c.mode = AttentionMode::kCross;
  return c;
}

class FigureTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::MakeTempDir(); }
  void TearDown() override { test::RemoveTree(dir_); }
  std::string dir_;
};

// ---------- colormap ----------

TEST(ColormapTest, TablesMatchMatplotlib) {
  EXPECT_EQ(Lut(Colormap::kViridis, 0), (Rgb{68, 1, 84}));
  EXPECT_EQ(Lut(Colormap::kViridis, 128), (Rgb{33, 145, 140}));
  EXPECT_EQ(Lut(Colormap::kViridis, 255), (Rgb{253, 231, 37}));
  EXPECT_EQ(Lut(Colormap::kMagma, 0), (Rgb{0, 0, 4}));
  EXPECT_EQ(Lut(Colormap::kMagma, 255), (Rgb{252, 253, 191}));
  EXPECT_EQ(Lut(Colormap::kCividis, 0), (Rgb{0, 34, 78}));
  EXPECT_EQ(Lut(Colormap::kCividis, 255), (Rgb{254, 232, 56}));
  for (int i = 0; i < 256; ++i) EXPECT_EQ(Lut(Colormap::kGray, i), (Rgb{(unsigned char)i, (unsigned char)i, (unsigned char)i}));
}

// blue-white-red (signed grids): the ends are the Overview's blue and red, the middle white, each half monotone.
TEST(ColormapTest, BlueWhiteRedRunsFromBlueThroughWhiteToRed) {
  EXPECT_EQ(Lut(Colormap::kBlueWhiteRed, 0), (Rgb{59, 76, 192}));
  EXPECT_EQ(Lut(Colormap::kBlueWhiteRed, 255), (Rgb{180, 4, 38}));
  for (int i : {127, 128}) {
    const Rgb c = Lut(Colormap::kBlueWhiteRed, i);
    EXPECT_GE(std::min({c.r, c.g, c.b}), 253) << i;
  }
  for (int i = 1; i < 128; ++i) EXPECT_GE(Lut(Colormap::kBlueWhiteRed, i).r, Lut(Colormap::kBlueWhiteRed, i - 1).r);
  for (int i = 129; i < 256; ++i) EXPECT_LE(Lut(Colormap::kBlueWhiteRed, i).g, Lut(Colormap::kBlueWhiteRed, i - 1).g);
}

TEST(ColormapTest, ParseAndNames) {
  for (Colormap c : {Colormap::kViridis, Colormap::kMagma, Colormap::kCividis, Colormap::kGray, Colormap::kBlueWhiteRed}) {
    auto parsed = ParseColormap(ToString(c));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, c);
  }
  auto bad = ParseColormap("jet");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("viridis|magma|cividis|gray|blue-white-red"), std::string::npos) << bad.message();
  EXPECT_FALSE(ParseColorScale("sqrt").ok());
  EXPECT_EQ(*ParseColorScale("log"), ColorScale::kLog);
}

TEST(ColormapTest, LinearAndLogNormalization) {
  ColorRange fixed{0, 1};
  EXPECT_FLOAT_EQ(NormalizeForColor(0.25f, ColorScale::kLinear, fixed), 0.25f);
  EXPECT_FLOAT_EQ(NormalizeForColor(-1, ColorScale::kLinear, fixed), 0.0f);
  EXPECT_FLOAT_EQ(NormalizeForColor(2, ColorScale::kLinear, fixed), 1.0f);
  EXPECT_FLOAT_EQ(NormalizeForColor(0.4f, ColorScale::kLinear, ColorRange{0.2f, 0.6f}), 0.5f);
  EXPECT_FLOAT_EQ(NormalizeForColor(NAN, ColorScale::kLinear, fixed), 0.0f);
  // log10 with a floor of 1e-4: 0 -> 0, 1e-2 -> 0.5, 1 -> 1.
  EXPECT_FLOAT_EQ(NormalizeForColor(0, ColorScale::kLog, fixed), 0.0f);
  EXPECT_FLOAT_EQ(NormalizeForColor(1e-4f, ColorScale::kLog, fixed), 0.0f);
  EXPECT_NEAR(NormalizeForColor(1e-2f, ColorScale::kLog, fixed), 0.5f, 1e-6);
  EXPECT_FLOAT_EQ(NormalizeForColor(1, ColorScale::kLog, fixed), 1.0f);
  EXPECT_NEAR(DenormalizeColor(0.5f, ColorScale::kLog, fixed), 1e-2f, 1e-7);
  EXPECT_NEAR(DenormalizeColor(0.5f, ColorScale::kLinear, ColorRange{0.2f, 0.6f}), 0.4f, 1e-7);
  unsigned char rgb[3];
  MapColor(Colormap::kViridis, NAN, rgb);
  EXPECT_EQ((Rgb{rgb[0], rgb[1], rgb[2]}), Lut(Colormap::kViridis, 0));
  MapColor(Colormap::kViridis, 0.5f, rgb);
  EXPECT_EQ((Rgb{rgb[0], rgb[1], rgb[2]}), Lut(Colormap::kViridis, 128));
  const float values[] = {0.3f, NAN, 0.1f, 0.7f};
  ColorRange r = AutoRange(values, 4);
  EXPECT_FLOAT_EQ(r.lo, 0.1f);
  EXPECT_FLOAT_EQ(r.hi, 0.7f);
}

TEST(ColorbarTest, TicksFitTheRangeAndTheHeight) {
  std::vector<float> t = ColorbarTicks(ColorScale::kLinear, ColorRange{0, 1}, 6);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_NEAR(t[1], 0.2f, 1e-6);
  EXPECT_EQ(FormatTicks(t, ColorScale::kLinear, ColorRange{0, 1}),
            (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
  t = ColorbarTicks(ColorScale::kLinear, ColorRange{0, 1}, 3);
  EXPECT_EQ(FormatTicks(t, ColorScale::kLinear, ColorRange{0, 1}), (std::vector<std::string>{"0.0", "0.5", "1.0"}));
  t = ColorbarTicks(ColorScale::kLinear, ColorRange{0.02f, 0.71f}, 6);
  EXPECT_EQ(FormatTicks(t, ColorScale::kLinear, ColorRange{0.02f, 0.71f}),
            (std::vector<std::string>{"0.2", "0.4", "0.6"}));
  EXPECT_LE(t.size(), 6u);
  for (float v : t) EXPECT_TRUE(v >= 0.02f && v <= 0.71f) << v;
  t = ColorbarTicks(ColorScale::kLog, ColorRange{0, 1}, 6);
  EXPECT_EQ(FormatTicks(t, ColorScale::kLog, ColorRange{0, 1}),
            (std::vector<std::string>{"10\u207B\u2074", "10\u207B\u00B3", "10\u207B\u00B2", "10\u207B\u00B9", "1"}));
  t = ColorbarTicks(ColorScale::kLog, ColorRange{0, 1}, 3);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_FLOAT_EQ(t.back(), 1.0f);
  t = ColorbarTicks(ColorScale::kLog, ColorRange{0.021f, 0.71f}, 6);
  EXPECT_EQ(FormatTicks(t, ColorScale::kLog, ColorRange{0.021f, 0.71f}),
            (std::vector<std::string>{"0.05", "0.1", "0.2", "0.5"}));
}

// ---------- fonts ----------

TEST(FontTest, HangulComesFromNanumGothic) {
  auto fonts = FontSet::Default();
  ASSERT_TRUE(fonts.ok()) << fonts.message();
  GlyphRef a = (*fonts)->Glyph(U'A');
  EXPECT_EQ(a.font, 0);
  EXPECT_NE(a.glyph, 0);
  for (char32_t cp : std::u32string(U"나는사과를먹었다")) {
    GlyphRef g = (*fonts)->Glyph(cp);
    EXPECT_EQ(g.font, 1) << (int)cp;
    EXPECT_NE(g.glyph, 0) << (int)cp;
  }
  GlyphRef none = (*fonts)->Glyph(0x10FFFD);  // in neither font
  EXPECT_EQ(none.font, 0);
  EXPECT_EQ(none.glyph, 0);
}

TEST(FontTest, HangulRendersDifferentlyFromTheMissingGlyphBox) {
  auto fonts = FontSet::Default();
  ASSERT_TRUE(fonts.ok()) << fonts.message();
  AlphaMask box;
  (*fonts)->RenderGlyph(GlyphRef{0, 0}, 24, &box);
  ASSERT_GT(box.width * box.height, 0);
  for (char32_t cp : std::u32string(U"나사먹")) {
    AlphaMask mask;
    (*fonts)->RenderGlyph((*fonts)->Glyph(cp), 24, &mask);
    int ink = 0;
    for (unsigned char v : mask.data) ink += v > 128;
    EXPECT_GT(ink, 20) << (int)cp;
    bool same = mask.width == box.width && mask.height == box.height && mask.data == box.data;
    EXPECT_FALSE(same) << (int)cp;
  }
  // Whole lines too: a Hangul word is not drawn as boxes.
  AlphaMask hangul, boxes;
  float ox, oy;
  (*fonts)->RenderLine("사과를", 16, &hangul, &ox, &oy);
  (*fonts)->RenderLine("\U0010FFFD\U0010FFFD\U0010FFFD", 16, &boxes, &ox, &oy);
  EXPECT_NE(hangul.data, boxes.data);
}

TEST(FontTest, MissingFontNamesTheDebianPackage) {
  std::string dir = test::MakeTempDir();
  ASSERT_EQ(setenv("ATTNVIZ_FONT_DIR", dir.c_str(), 1), 0);
  auto none = FontSet::Default();
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("fonts-dejavu-core"), std::string::npos) << none.message();
  // Only DejaVu present: the error names fonts-nanum.
  unsetenv("ATTNVIZ_FONT_DIR");
  auto real = FontSet::FindFontFile("DejaVuSans.ttf", "DejaVu Sans", "fonts-dejavu-core");
  ASSERT_TRUE(real.ok()) << real.message();
  ASSERT_EQ(symlink(real->c_str(), (dir + "/DejaVuSans.ttf").c_str()), 0);
  setenv("ATTNVIZ_FONT_DIR", dir.c_str(), 1);
  auto half = FontSet::Default();
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.message().find("fonts-nanum"), std::string::npos) << half.message();
  // A figure export reports it too.
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir + "/x.png";
  Status s = ExportHeatmap(t, MakeConfig(), o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fonts-nanum"), std::string::npos) << s.message();
  EXPECT_FALSE(test::FileExists(o.out_path));
  unsetenv("ATTNVIZ_FONT_DIR");
  EXPECT_TRUE(FontSet::Default().ok());
  auto bad_file = FontSet::Load(dir + "/nothing.ttf", *real);
  ASSERT_FALSE(bad_file.ok());
  EXPECT_NE(bad_file.message().find("fonts-dejavu-core"), std::string::npos);
  test::RemoveTree(dir);
}

TEST(FontTest, EllipsizeShortensLongTokens) {
  auto fonts = FontSet::Default();
  ASSERT_TRUE(fonts.ok());
  std::string long_token = "internationalization-and-localization";
  std::string s = (*fonts)->Ellipsize(long_token, 12, 80);
  EXPECT_LE((*fonts)->TextWidth(s, 12), 80);
  EXPECT_EQ(s.substr(s.size() - 3), "\u2026");
  EXPECT_EQ(long_token.rfind(s.substr(0, s.size() - 3), 0), 0u);
  EXPECT_EQ((*fonts)->Ellipsize("cat", 12, 80), "cat");
}

// A 100 KB word: each glyph measured once and the cut found by binary search. Re-measuring after
// every dropped character took 29 s for 20 K characters; the hang guard is generous (no speed claim).
TEST(FontTest, EllipsizeA100KbWordIsLinear) {
  auto fonts = FontSet::Default();
  ASSERT_TRUE(fonts.ok());
  std::string word;
  for (int i = 0; word.size() < 100000; ++i) word += (i % 7 == 3) ? "\xEA\xB0\x80" : "w";  // Latin + Hangul
  const auto start = std::chrono::steady_clock::now();
  const std::string s = (*fonts)->Ellipsize(word, 12, 80);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0) << "hang guard";
  EXPECT_LE((*fonts)->TextWidth(s, 12), 80);
  EXPECT_GT((*fonts)->TextWidth(s, 12), 60) << "the longest prefix that fits, not a much shorter one";
  EXPECT_EQ(word.rfind(s.substr(0, s.size() - 3), 0), 0u);
}

// ---------- heatmap PNG ----------

struct Rendered {
  HeatmapSpec spec;
  HeatmapLayout layout;
  Image image;
};

// Exports through the public API and decodes the PNG; the layout is recomputed from the same spec.
::testing::AssertionResult ExportPng(const AttentionTensors& t, const HeatmapExportOptions& o, Rendered* out) {
  Status s = ExportHeatmap(t, MakeConfig(), o);
  if (!s.ok()) return ::testing::AssertionFailure() << s.message();
  auto spec = MakeHeatmapSpec(t, MakeConfig(), o);
  if (!spec.ok()) return ::testing::AssertionFailure() << spec.message();
  out->spec = *spec;
  auto layout = LayoutHeatmap(*FontSet::Default().value(), out->spec);
  if (!layout.ok()) return ::testing::AssertionFailure() << layout.message();
  out->layout = *layout;
  if (!test::LoadPng(o.out_path, &out->image)) return ::testing::AssertionFailure() << "cannot decode " << o.out_path;
  return ::testing::AssertionSuccess();
}

void ExpectCellColors(const Rendered& r, int tolerance = 1) {
  for (const HeatmapPanel& panel : r.layout.panels)
    for (int i = 0; i < r.spec.n_q; ++i)
      for (int j = 0; j < r.spec.n_k; ++j) {
        RectF cell = r.layout.CellRect(panel, i, j);
        int cx = (int)(cell.x + cell.w / 2), cy = (int)(cell.y + cell.h / 2);
        Rgb want = Expected(r.spec.colormap, r.spec.value(panel.head, i, j), r.spec.scale, r.spec.range);
        Rgb got = r.image.At(cx, cy);
        EXPECT_LE(test::ColorDistance(got, want), tolerance)
            << "head " << panel.head << " cell (" << i << "," << j << ") at (" << cx << "," << cy << "): got "
            << (int)got.r << "," << (int)got.g << "," << (int)got.b << " want " << (int)want.r << "," << (int)want.g
            << "," << (int)want.b;
      }
}

TEST_F(FigureTest, PngSizeCellColoursAndLabelInk) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/map.png";
  o.head = 1;
  Rendered r;
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_EQ(r.image.width, r.layout.width);
  EXPECT_EQ(r.image.height, r.layout.height);
  EXPECT_GT(r.layout.width, 200);
  ASSERT_EQ(r.layout.panels.size(), 1u);
  ExpectCellColors(r);
  // Corners are white background.
  EXPECT_EQ(r.image.At(0, 0), kWhite);
  EXPECT_EQ(r.image.At(r.image.width - 1, r.image.height - 1), kWhite);
  // The label strips hold ink; a strip right of the colorbar (tick labels) too.
  const HeatmapPanel& p = r.layout.panels[0];
  EXPECT_GT(test::InkPixels(r.image, p.row_label_strip), 60);
  EXPECT_GT(test::InkPixels(r.image, p.col_label_strip), 30);
  EXPECT_GT(test::InkPixels(r.image, {0, 0, (float)r.image.width, p.cells.y - 2}), 60);  // title
  EXPECT_GT(test::InkPixels(r.image, {r.layout.colorbar.right() + 2, r.layout.colorbar.y - 6, 40,
                                      r.layout.colorbar.h + 12}),
            30);
  // The colorbar runs from the low end (bottom) to the high end (top).
  const RectF& cb = r.layout.colorbar;
  EXPECT_LE(test::ColorDistance(r.image.At((int)(cb.x + cb.w / 2), (int)cb.bottom() - 1), Lut(o.colormap, 0)), 3);
  EXPECT_LE(test::ColorDistance(r.image.At((int)(cb.x + cb.w / 2), (int)cb.y), Lut(o.colormap, 255)), 3);
}

TEST_F(FigureTest, HangulLabelsAreNotMissingGlyphBoxes) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/ko.png";
  o.cell_size = 40;
  Rendered hangul;
  ASSERT_TRUE(ExportPng(t, o, &hangul));
  AttentionTensors boxes = t;
  boxes.query_tokens = Tokens({"\U0010FFFD\U0010FFFD", "\U0010FFFD\U0010FFFD\U0010FFFD", "\U0010FFFD\U0010FFFD\U0010FFFD"});
  o.out_path = dir_ + "/boxes.png";
  Rendered box;
  ASSERT_TRUE(ExportPng(boxes, o, &box));
  const RectF& strip = hangul.layout.panels[0].row_label_strip;
  ASSERT_GT(test::InkPixels(hangul.image, strip), 100);
  // Compare the label strips pixel by pixel, right-aligned (the widths may differ).
  const RectF& strip2 = box.layout.panels[0].row_label_strip;
  int differing = 0;
  for (int y = 0; y < (int)strip.h; ++y)
    for (int x = 1; x < 60; ++x) {
      Rgb a = hangul.image.At((int)strip.right() - x, (int)strip.y + y);
      Rgb b = box.image.At((int)strip2.right() - x, (int)strip2.y + y);
      if (test::ColorDistance(a, b) > 60) ++differing;
    }
  EXPECT_GT(differing, 100);
}

TEST_F(FigureTest, LogScaleAutoRangeAndOtherColormaps) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/log.png";
  o.colormap = Colormap::kMagma;
  o.color_scale = ColorScale::kLog;
  Rendered r;
  ASSERT_TRUE(ExportPng(t, o, &r));
  ExpectCellColors(r);
  // 0.01 under log10 with the 1e-4 floor sits in the middle of the colormap.
  HeatmapExportOptions o1 = o;
  o1.head = 1;
  o1.out_path = dir_ + "/log1.png";
  ASSERT_TRUE(ExportPng(t, o1, &r));
  RectF c = r.layout.CellRect(r.layout.panels[0], 1, 0);  // weight 0.01
  EXPECT_LE(test::ColorDistance(r.image.At((int)(c.x + c.w / 2), (int)(c.y + c.h / 2)), Lut(Colormap::kMagma, 128)), 1);

  o.out_path = dir_ + "/auto.png";
  o.colormap = Colormap::kCividis;
  o.color_scale = ColorScale::kLinear;
  o.auto_range = true;
  o.head = 1;
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_FLOAT_EQ(r.spec.range.lo, 0.0f);
  EXPECT_FLOAT_EQ(r.spec.range.hi, 0.999f);
  ExpectCellColors(r);
  RectF top = r.layout.CellRect(r.layout.panels[0], 2, 3);  // the maximum: top of the colormap
  EXPECT_EQ(r.image.At((int)(top.x + top.w / 2), (int)(top.y + top.h / 2)), Lut(Colormap::kCividis, 255));

  o.out_path = dir_ + "/gray.png";
  o.colormap = Colormap::kGray;
  o.auto_range = false;
  ASSERT_TRUE(ExportPng(t, o, &r));
  ExpectCellColors(r);
}

TEST_F(FigureTest, AllHeadsGridSharesOneColorbar) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/grid.png";
  o.all_heads = true;
  Rendered r;
  ASSERT_TRUE(ExportPng(t, o, &r));
  ASSERT_EQ(r.layout.panels.size(), 2u);
  EXPECT_EQ(r.layout.panels[0].head, 0);
  EXPECT_EQ(r.layout.panels[1].head, 1);
  EXPECT_TRUE(r.layout.panels[0].row_labels);
  EXPECT_FALSE(r.layout.panels[1].row_labels);
  ExpectCellColors(r);
  // Each panel is titled: ink above both panels.
  for (const HeatmapPanel& p : r.layout.panels)
    EXPECT_GT(test::InkPixels(r.image, {p.cells.x, p.cells.y - 18, p.cells.w, 16}), 20);
  // The default title counts the heads.
  EXPECT_EQ(r.spec.title, "2 heads \u00B7 d_k=512 \u00B7 unscaled \u00B7 T=1 \u00B7 cross \u00B7 n_head=2");
  // A subset of heads.
  o.heads = {1};
  o.out_path = dir_ + "/subset.png";
  ASSERT_TRUE(ExportPng(t, o, &r));
  ASSERT_EQ(r.layout.panels.size(), 1u);
  EXPECT_EQ(r.layout.panels[0].head, 1);
  ExpectCellColors(r);
}

TEST_F(FigureTest, CellSizeWidthAnnotateAndTitle) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/c.png";
  o.cell_size = 30;
  o.title = "my title";
  Rendered r;
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_EQ(r.layout.cell, 30);
  EXPECT_EQ(r.spec.title, "my title");
  EXPECT_EQ(r.layout.annotate_font, 0);
  // Without --annotate a cell is one flat colour.
  RectF c = r.layout.CellRect(r.layout.panels[0], 1, 2);
  Rgb fill = r.image.At((int)(c.x + 15), (int)(c.y + 15));
  for (int y = 2; y < 28; ++y)
    for (int x = 2; x < 28; ++x) ASSERT_EQ(r.image.At((int)c.x + x, (int)c.y + y), fill);

  o.width = 700;
  o.cell_size = 0;
  o.out_path = dir_ + "/w.png";
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_EQ(r.image.width, 700);
  EXPECT_GT(r.layout.cell, 30);
  ExpectCellColors(r);

  o.width = 0;
  o.cell_size = 60;
  o.annotate = true;
  o.out_path = dir_ + "/a.png";
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_GT(r.layout.annotate_font, 0);
  // With --annotate the cell holds text in a contrasting colour.
  c = r.layout.CellRect(r.layout.panels[0], 1, 2);
  Rgb bg = Expected(o.colormap, t.probs->data[1 * 4 + 2]);
  int text_pixels = 0;
  for (int y = 5; y < 55; ++y)
    for (int x = 5; x < 55; ++x) text_pixels += test::ColorDistance(r.image.At((int)c.x + x, (int)c.y + y), bg) > 80;
  EXPECT_GT(text_pixels, 20);

  // Cells too small for the numbers: none printed, and the notes name the cell size that prints them.
  ExportNotes notes;
  o.cell_size = 12;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o, nullptr, &notes).ok());
  EXPECT_EQ(notes.cell, 12);
  EXPECT_GT(notes.annotate_needs_cell, 12);
  const int needed = notes.annotate_needs_cell;
  o.cell_size = needed - 1;
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_EQ(r.layout.annotate_font, 0);
  EXPECT_EQ(r.layout.annotate_needs_cell, needed);
  o.cell_size = needed;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o, nullptr, &notes).ok());
  EXPECT_EQ(notes.annotate_needs_cell, 0);
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_GT(r.layout.annotate_font, 0);

  o.cell_size = 0;
  o.annotate = false;
  o.width = 20;  // far too small
  Status s = ExportHeatmap(t, MakeConfig(), o);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("too small"), std::string::npos) << s.message();
}

TEST_F(FigureTest, LongTokensAreShortenedWithAnEllipsis) {
  AttentionTensors t = MakeTensors();
  SetKeyDisplay(&t, 3, "Donaudampfschifffahrtsgesellschaftskapitän");
  auto spec = MakeHeatmapSpec(t, MakeConfig(), HeatmapExportOptions{});
  ASSERT_TRUE(spec.ok());
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  ASSERT_EQ(layout->label_stride, 1);
  ASSERT_EQ(layout->col_labels.size(), t.kv_tokens.size());
  const std::string& label = layout->col_labels[3].text;
  EXPECT_LT(label.size(), t.kv_tokens[3].display.size());
  EXPECT_EQ(label.substr(label.size() - 3), "\u2026");
  EXPECT_EQ(layout->col_labels[0].text, "I");
}

TEST_F(FigureTest, ManyTokensLabelEveryFewRows) {
  std::vector<std::string> words;
  for (int i = 0; i < 200; ++i) words.push_back("w" + std::to_string(i));
  AttentionTensors t;
  t.query_tokens = t.kv_tokens = Tokens(words);
  auto probs = std::make_shared<Tensor>();
  probs->Resize({1, 200, 200});
  for (size_t i = 0; i < probs->data.size(); ++i) probs->data[i] = (float)((i * 7919) % 1000) / 1000.0f;
  t.probs = probs;
  HeatmapExportOptions o;
  o.out_path = dir_ + "/big.png";
  Rendered r;
  ASSERT_TRUE(ExportPng(t, o, &r));
  EXPECT_GT(r.layout.label_stride, 1);
  EXPECT_LT(r.image.width, 1100);
  ExpectCellColors(r);
}

// A thinned axis of a text cut into fragments (" c|at s|at m|at" ...) names whole words at word starts.
TEST_F(FigureTest, AThinnedAxisNamesWordsNotFragments) {
  std::vector<std::string> pieces;
  for (int i = 0; i < 100; ++i) {
    pieces.push_back(" " + std::string(1, (char)('b' + i % 20)));
    pieces.push_back("at");
  }
  AttentionTensors t;
  t.query_tokens = t.kv_tokens = Tokens(pieces);
  auto probs = std::make_shared<Tensor>();
  probs->Resize({1, 200, 200});
  for (size_t i = 0; i < probs->data.size(); ++i) probs->data[i] = 1.0f / 200;
  t.probs = probs;
  auto spec = MakeHeatmapSpec(t, MakeConfig(), HeatmapExportOptions{});
  ASSERT_TRUE(spec.ok());
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  ASSERT_GT(layout->label_stride, 1);
  ASSERT_FALSE(layout->col_labels.empty());
  for (const AxisLabel& a : layout->col_labels) {
    EXPECT_EQ(a.index % 2, 0) << "a label on the fragment at " << a.index;
    EXPECT_EQ(a.text.substr(a.text.size() - 2), "at") << a.text;
    EXPECT_GE(a.text.size(), 3u) << a.text;
  }
}

// ---------- SVG ----------

std::string Xmllint(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ATTNVIZ_XMLLINT};
  argv.insert(argv.end(), args.begin(), args.end());
  test::RunResult r = test::Run(argv);
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return std::to_string(r.exit_code) + ":" + r.out;
}

TEST_F(FigureTest, SvgIsValidXmlWithOneRectPerCellAndUtf8Labels) {
  ASSERT_TRUE(test::FileExists(ATTNVIZ_XMLLINT)) << "xmllint (libxml2-utils) is needed";
  AttentionTensors t = MakeTensors();
  SetKeyDisplay(&t, 1, "<&\"'>");  // must be escaped
  HeatmapExportOptions o;
  o.out_path = dir_ + "/map.svg";
  o.head = 1;
  o.annotate = true;
  o.cell_size = 40;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  EXPECT_EQ(Xmllint({"--noout", o.out_path}), "0:");
  EXPECT_EQ(Xmllint({"--xpath", "count(//*[local-name()='g'][@id='cells-head-1']/*[local-name()='rect'])", o.out_path}),
            "0:12");
  std::string svg = test::ReadAll(o.out_path);
  EXPECT_NE(svg.find(">사과를</text>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;&amp;&quot;&apos;&gt;"), std::string::npos);
  // Same layout as the PNG: same size, same cell rectangle for (0, 0).
  auto spec = MakeHeatmapSpec(t, MakeConfig(), o);
  auto layout = LayoutHeatmap(*FontSet::Default().value(), *spec);
  ASSERT_TRUE(layout.ok());
  EXPECT_NE(svg.find("width=\"" + std::to_string(layout->width) + "\" height=\"" + std::to_string(layout->height) + "\""),
            std::string::npos);
  RectF c = layout->CellRect(layout->panels[0], 0, 0);
  char rect[128];
  snprintf(rect, sizeof rect, "<rect x=\"%d\" y=\"%d\" width=\"40\" height=\"40\" fill=\"%s\"/>", (int)c.x, (int)c.y,
           SvgColor(Expected(o.colormap, 0.25f)).c_str());
  EXPECT_NE(svg.find(rect), std::string::npos) << rect;

  o.all_heads = true;
  o.out_path = dir_ + "/grid.svg";
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  EXPECT_EQ(Xmllint({"--noout", o.out_path}), "0:");
  EXPECT_EQ(Xmllint({"--xpath", "count(//*[local-name()='g'][starts-with(@id,'cells-head-')]/*[local-name()='rect'])",
                     o.out_path}),
            "0:24");
}

// ---------- data formats ----------

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

TEST_F(FigureTest, CsvRoundTripsExactly) {
  AttentionTensors t = MakeTensors();
  auto awkward = std::make_shared<Tensor>(*t.probs);
  for (float& w : awkward->data) w = std::nextafter(w, 2.0f);  // awkward floats
  t.probs = awkward;
  SetKeyDisplay(&t, 2, "a,\"b\"");
  HeatmapExportOptions o;
  o.out_path = dir_ + "/w.csv";
  o.head = 1;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  std::istringstream in(test::ReadAll(o.out_path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = SplitCsvLine(line);
  ASSERT_EQ(header.size(), 5u);
  EXPECT_EQ(header[0], "query");
  for (int j = 0; j < 4; ++j) EXPECT_EQ(header[j + 1], std::to_string(j) + ":" + t.kv_tokens[j].display);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(std::getline(in, line));
    std::vector<std::string> f = SplitCsvLine(line);
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[0], t.query_tokens[i].display);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(std::strtof(f[j + 1].c_str(), nullptr), t.probs->data[(12 + i * 4) + j]);
  }
  EXPECT_FALSE(std::getline(in, line));

  o.all_heads = true;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  std::istringstream all(test::ReadAll(o.out_path));
  std::getline(all, line);
  EXPECT_EQ(SplitCsvLine(line)[0], "head");
  int rows = 0;
  while (std::getline(all, line)) {
    std::vector<std::string> f = SplitCsvLine(line);
    int h = std::stoi(f[0]), i = rows % 3;
    for (int j = 0; j < 4; ++j) EXPECT_EQ(std::strtof(f[j + 2].c_str(), nullptr), t.probs->data[(h * 3 + i) * 4 + j]);
    ++rows;
  }
  EXPECT_EQ(rows, 6);
}

TEST_F(FigureTest, NpyRoundTripsExactlyWithPyTorchShapes) {
  AttentionTensors t = MakeTensors();
  auto awkward = std::make_shared<Tensor>(*t.probs);
  for (float& w : awkward->data) w = std::nextafter(w, -1.0f);
  t.probs = awkward;
  HeatmapExportOptions o;
  o.out_path = dir_ + "/w.npy";
  o.head = 1;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  auto one = ReadNpy(o.out_path);
  ASSERT_TRUE(one.ok()) << one.message();
  EXPECT_EQ(one->shape, (std::vector<size_t>{3, 4}));
  EXPECT_EQ(one->data, std::vector<float>(t.probs->data.begin() + 12, t.probs->data.end()));
  o.all_heads = true;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  auto all = ReadNpy(o.out_path);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->shape, (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(all->data, t.probs->data);
}

TEST_F(FigureTest, JsonHoldsTokensConfigAndWeights) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/w.json";
  o.all_heads = true;
  ASSERT_TRUE(ExportHeatmap(t, MakeConfig(), o).ok());
  std::string json = test::ReadAll(o.out_path);
  EXPECT_NE(json.find("\"query_tokens\": [\"나는\", \"사과를\", \"먹었다\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"key_tokens\": [\"I\", \"ate\", \"an\", \"apple\"]"), std::string::npos);
  EXPECT_NE(json.find("\"d_k\": 512"), std::string::npos);
  EXPECT_NE(json.find("\"scale\": false"), std::string::npos);
  EXPECT_NE(json.find("\"shape\": [2, 3, 4]"), std::string::npos);
  // The numbers after "weights" are exactly the weights, in order.
  size_t pos = json.find("\"weights\"");
  ASSERT_NE(pos, std::string::npos);
  std::vector<float> values;
  const char* p = json.c_str() + pos + 10;
  while (*p) {
    if ((*p >= '0' && *p <= '9') || *p == '-') {
      char* end;
      values.push_back(std::strtof(p, &end));
      p = end;
    } else {
      ++p;
    }
  }
  EXPECT_EQ(values, t.probs->data);
  // Python's json module accepts it.
  test::RunResult py = test::Run({"/usr/bin/python3", "-c", "import json,sys; d=json.load(open(sys.argv[1])); "
                                                            "print(len(d['weights']), d['config']['n_head'])",
                                  o.out_path});
  if (py.exit_code != 127) {
    EXPECT_EQ(py.out, "2 2\n") << py.err;
  }
}

// ---------- errors: nothing half-written ----------

TEST_F(FigureTest, BadPathsAndFormatsLeaveNoFile) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  for (std::string name : {"x.txt", "x", "x.PNG.bak"}) {
    o.out_path = dir_ + "/" + name;
    Status s = ExportHeatmap(t, MakeConfig(), o);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find(".png .svg .pdf .csv .npy .json"), std::string::npos) << s.message();
  }
  o.out_path = dir_ + "/x.png";
  o.format = "bmp";
  Status s = ExportHeatmap(t, MakeConfig(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("png|svg|pdf|csv|npy|json"), std::string::npos) << s.message();
  o.format = "";
  // A folder that does not exist, and a "folder" that is a file.
  ASSERT_TRUE(WriteFileAtomic(dir_ + "/file", "x").ok());
  for (std::string path : {dir_ + "/missing/x.png", dir_ + "/file/x.png", std::string("/proc/attnviz_test.png")}) {
    o.out_path = path;
    s = ExportHeatmap(t, MakeConfig(), o);
    EXPECT_FALSE(s.ok()) << path;
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  }
  EXPECT_FALSE(test::FileExists("/proc/attnviz_test.png"));
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"file"});  // no temp files left behind
  // A full disk.
  for (std::string fmt : {"png", "svg", "csv", "npy", "json"}) {
    o.out_path = "/dev/full";
    o.format = fmt;
    s = ExportHeatmap(t, MakeConfig(), o);
    EXPECT_FALSE(s.ok()) << fmt;
    EXPECT_NE(s.message().find("/dev/full"), std::string::npos) << s.message();
  }
  Status plot = WriteSaturationPlot(dir_ + "/missing/sat.png", {SweepPoint{4, true, 1, 0.5f, 1, 0.5f, 2, 0.3f, 1}}, "t");
  EXPECT_FALSE(plot.ok());
  EXPECT_NE(plot.message().find(dir_ + "/missing/sat.png"), std::string::npos) << plot.message();
  EXPECT_EQ(test::ListDir(dir_), std::vector<std::string>{"file"});
}

TEST_F(FigureTest, HeadOutOfRangeAndEmptyMaps) {
  AttentionTensors t = MakeTensors();
  HeatmapExportOptions o;
  o.out_path = dir_ + "/x.png";
  o.head = 2;
  Status s = ExportHeatmap(t, MakeConfig(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("head 2 is out of range: allowed 0..1"), std::string::npos) << s.message();
  o.head = -1;
  EXPECT_FALSE(ExportHeatmap(t, MakeConfig(), o).ok());
  o.head = 0;
  o.all_heads = true;
  o.heads = {0, 5};
  EXPECT_FALSE(ExportHeatmap(t, MakeConfig(), o).ok());
  AttentionTensors empty;
  o = HeatmapExportOptions{};
  o.out_path = dir_ + "/x.png";
  s = ExportHeatmap(empty, MakeConfig(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s.message();
  o.out_path = "";
  EXPECT_FALSE(ExportHeatmap(t, MakeConfig(), o).ok());
  EXPECT_TRUE(test::ListDir(dir_).empty());
}

// ---------- saturation plot ----------

TEST_F(FigureTest, SaturationPlotUnscaledEndsAboveScaled) {
  auto tokens = Tokenize("The cat sat on the mat because it was tired .");
  ASSERT_TRUE(tokens.ok());
  AttentionConfig base;
  base.d_model = 64;
  SweepOptions sweep;
  sweep.d_ks = {1, 4, 16, 64, 256, 1024};
  sweep.n_seeds = 2;
  auto points = SweepDk(*tokens, *tokens, base, sweep);
  ASSERT_TRUE(points.ok()) << points.message();
  std::string path = dir_ + "/sat.png";
  ASSERT_TRUE(WriteSaturationPlot(path, *points, "saturation", 64).ok());
  Image image;
  ASSERT_TRUE(test::LoadPng(path, &image));
  auto layout = LayoutSaturation(*points);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(image.width, layout->width);
  EXPECT_EQ(image.height, layout->height);
  ASSERT_EQ(layout->panels.size(), 3u);
  // In the max-weight panel, at the last d_k, find the orange (unscaled) and blue (scaled) markers.
  const RectF& axes = layout->panels[0].axes;
  int x = (int)layout->ToPixel(0, 1024, 0).x;
  int orange_y = -1, blue_y = -1;
  for (int y = (int)axes.y; y < (int)axes.bottom(); ++y) {
    Rgb c = image.At(x, y);
    if (orange_y < 0 && test::ColorDistance(c, kUnscaledColor) < 30) orange_y = y;
    if (blue_y < 0 && test::ColorDistance(c, kScaledColor) < 30) blue_y = y;
  }
  ASSERT_GE(orange_y, 0);
  ASSERT_GE(blue_y, 0);
  EXPECT_LT(orange_y, blue_y - 20) << "the unscaled line must end above the scaled one";
  // Axis labels and legend hold ink.
  EXPECT_GT(test::InkPixels(image, {axes.x, axes.bottom() + 4, axes.w, 40}), 50);
  EXPECT_GT(test::InkPixels(image, layout->legend), 50);

  std::string svg = dir_ + "/sat.svg";
  ASSERT_TRUE(WriteSaturationPlot(svg, *points, "saturation").ok());
  EXPECT_EQ(Xmllint({"--noout", svg}), "0:");
  EXPECT_EQ(Xmllint({"--xpath", "count(//*[local-name()='polyline'])", svg}).substr(0, 2), "0:");

  Status bad = WriteSaturationPlot(dir_ + "/sat.txt", *points, "x");
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(WriteSaturationPlot(dir_ + "/empty.png", {}, "x").ok());
  EXPECT_EQ(test::ListDir(dir_).size(), 2u);
}

}  // namespace
}  // namespace attnviz
