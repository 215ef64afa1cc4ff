// Export of a long input (pooled mode: no full map kept): every format gives the same bytes as the same
// export from a full map (the maps are recomputed exactly from q and k); .npy streams; a figure of a window
// holds only that window; what would hold too many cells is refused with a message naming the way out.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "sandbox/exact_maps.h"
#include "figure/export.h"
#include "io/file_io.h"
#include "io/npy.h"

namespace attnviz {
namespace {

std::string Words(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " w" : "w") + std::to_string(i % 97);
  return text;
}

struct Runs {
  Pipeline full, pooled;
};

void RunBoth(const std::string& text, const AttentionConfig& c, Runs* r) {
  r->pooled.set_pooled_above_cells(1);
  for (Pipeline* p : {&r->full, &r->pooled}) {
    ASSERT_TRUE(p->SetText(text).ok());
    ASSERT_TRUE(p->SetConfig(c).ok());
    ASSERT_TRUE(p->Run(Stage::kSoftmax).ok());
  }
  ASSERT_TRUE(r->pooled.tensors().pooled);
  ASSERT_FALSE(r->full.tensors().pooled);
}

std::string Temp(const std::string& name) {
  return ::testing::TempDir() + "/attnviz_export_long_" + std::to_string(::getpid()) + "_" + name;
}

TEST(ExportLong, EveryFormatEqualsTheExportOfTheFullMap) {
  AttentionConfig c;
  c.n_head = 3;
  c.mask = MaskKind::kCausal;
  c.scale = false;
  Runs r;
  RunBoth(Words(150), c, &r);
  struct Case {
    const char* ext;
    bool all_heads;
  };
  for (Case k : {Case{"npy", true}, Case{"npy", false}, Case{"csv", false}, Case{"csv", true}, Case{"json", true},
                 Case{"png", false}, Case{"svg", true}}) {
    HeatmapExportOptions o;
    o.head = 2;
    o.all_heads = k.all_heads;
    if (k.all_heads && std::string(k.ext) != "json") o.heads = {2, 0};
    const std::string want_path = Temp(std::string("full.") + k.ext), got_path = Temp(std::string("pooled.") + k.ext);
    o.out_path = want_path;
    ASSERT_TRUE(ExportHeatmap(r.full.tensors(), c, o).ok()) << k.ext;
    o.out_path = got_path;
    Status s = ExportHeatmap(r.pooled.tensors(), c, o);
    ASSERT_TRUE(s.ok()) << k.ext << ": " << s.message();
    auto want = ReadFile(want_path), got = ReadFile(got_path);
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_TRUE(*want == *got) << k.ext << (k.all_heads ? " all heads" : " one head");
    std::remove(want_path.c_str());
    std::remove(got_path.c_str());
  }
}

TEST(ExportLong, AFigureOfAWindowHoldsTheWindowsExactCells) {
  AttentionConfig c;
  c.n_head = 2;
  Runs r;
  RunBoth(Words(200), c, &r);
  const MapWindow w{40, 72, 100, 130};
  LayerMaps cut = ExactMaps(r.pooled.tensors(), {1}, w);
  ASSERT_EQ(cut.probs->shape, (std::vector<size_t>{2, 32, 30}));
  ASSERT_EQ(cut.query_tokens.size(), 32u);
  ASSERT_EQ(cut.kv_tokens.size(), 30u);
  EXPECT_EQ(cut.kv_tokens[0].display, r.full.tensors().kv_tokens[100].display);
  const Tensor& full = *r.full.tensors().probs;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 30; ++j) {
      EXPECT_EQ(cut.probs->data[((size_t)1 * 32 + i) * 30 + j], full.data[((size_t)1 * 200 + 40 + i) * 200 + 100 + j]);
      EXPECT_EQ(cut.probs->data[(size_t)i * 30 + j], 0.0f);  // head 0 was not asked for
    }
  HeatmapExportOptions o;
  o.head = 1;
  o.out_path = Temp("window.svg");
  ASSERT_TRUE(ExportHeatmap(r.pooled.tensors(), c, o, &w).ok());
  auto svg = ReadFile(o.out_path);
  ASSERT_TRUE(svg.ok());
  EXPECT_NE(svg->find("queries 40-71, keys 100-129"), std::string::npos);  // the title names the window
  std::remove(o.out_path.c_str());
}

// A column-scaled long map (value-weighted: LayerMaps::col_scale) exports scaled cells: the streamed .npy and a
// window both equal the full map times col_scale[h, j].
TEST(ExportLong, AColumnScaledMapExportsItsScaledCells) {
  AttentionConfig c;
  c.n_head = 2;
  c.mask = MaskKind::kCausal;
  Runs r;
  RunBoth(Words(120), c, &r);
  const Tensor& full = *r.full.tensors().probs;
  const size_t n = full.dim(1);
  auto scale = std::make_shared<Tensor>();
  scale->Resize({2, n});
  for (size_t c2 = 0; c2 < scale->size(); ++c2) scale->data[c2] = 0.5f + (float)(c2 % 7);
  LayerMaps scaled = r.pooled.tensors();
  scaled.col_scale = scale;
  auto want = [&](size_t h, size_t i, size_t j) { return full.data[(h * n + i) * n + j] * scale->data[h * n + j]; };
  HeatmapExportOptions o;
  o.all_heads = true;
  o.out_path = Temp("scaled.npy");
  ASSERT_TRUE(ExportHeatmap(scaled, nullptr, o).ok());
  Result<Tensor> got = ReadNpy(o.out_path);
  ASSERT_TRUE(got.ok()) << got.message();
  ASSERT_EQ(got->shape, (std::vector<size_t>{2, n, n}));
  for (size_t h = 0; h < 2; ++h)
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) ASSERT_EQ(got->data[(h * n + i) * n + j], want(h, i, j)) << h << " " << i << " " << j;
  std::remove(o.out_path.c_str());
  const MapWindow w{30, 60, 10, 50};
  const LayerMaps cut = ExactMaps(scaled, {1}, w);
  EXPECT_TRUE(cut.col_scale->empty()) << "scaled once";
  for (int i = w.r0; i < w.r1; ++i)
    for (int j = w.c0; j < w.c1; ++j)
      ASSERT_EQ(cut.probs->data[((size_t)1 * w.rows() + (i - w.r0)) * w.cols() + (j - w.c0)], want(1, i, j)) << i << " " << j;
}

TEST(ExportLong, TooManyCellsInMemoryIsRefusedNamingTheStreamedWay) {
  AttentionConfig c;
  c.n_head = 4;
  c.d_model = 16;
  Pipeline p;  // 4 x 2100 x 2100 cells: over 2^24, pooled by default
  ASSERT_TRUE(p.SetText(Words(2100)).ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kSoftmax).ok());
  ASSERT_TRUE(p.tensors().pooled);
  HeatmapExportOptions o;
  o.all_heads = true;
  o.out_path = Temp("big.json");
  Status s = ExportHeatmap(p.tensors(), c, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("export .npy (streamed"), std::string::npos) << s.message();
  EXPECT_FALSE(ReadFile(o.out_path).ok());  // nothing written
  // One head's CSV fits (2100 x 2100 cells), the first row of the file is the key tokens.
  o.all_heads = false;
  o.head = 3;
  o.out_path = Temp("one.csv");
  ASSERT_TRUE(ExportHeatmap(p.tensors(), c, o).ok());
  auto csv = ReadFile(o.out_path);
  ASSERT_TRUE(csv.ok());
  size_t lines = 0;
  for (char ch : *csv) lines += ch == '\n';
  EXPECT_EQ(lines, 2101u);
  std::remove(o.out_path.c_str());
  // So does one head's figure: it holds that head's cells only, not the layer's 4 planes (17.6 M cells).
  o.out_path = Temp("one.png");
  o.cell_size = 1;
  ASSERT_TRUE(ExportHeatmap(p.tensors(), c, o).ok());
  EXPECT_TRUE(ReadFile(o.out_path).ok());
  std::remove(o.out_path.c_str());
}

}  // namespace
}  // namespace attnviz
