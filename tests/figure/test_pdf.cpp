// The PDF painter (core/figure/pdf.h) and PDF export: the same figure gives the same bytes, the file is a PDF a
// reader opens (header, objects where the xref says, trailer; pdftotext reads the title when poppler-utils is
// installed), the page is the figure's size at its DPI, text WinAnsi cannot show is refused by name, and attnviz-cli
// export --format pdf and sweep --plot x.pdf write PDFs, the same bytes each time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "figure/export.h"
#include "figure/pdf.h"
#include "figure_test_util.h"
#include "sandbox/pipeline.h"
#include "sandbox/sweep.h"

namespace attnviz {
namespace {

AttentionTensors Tensors(const std::string& text, AttentionConfig config = AttentionConfig()) {
  Pipeline p;
  EXPECT_TRUE(p.SetText(text).ok());
  EXPECT_TRUE(p.SetConfig(config).ok());
  EXPECT_TRUE(p.Run(Stage::kSoftmax).ok());
  return p.tensors();
}

// Every object the xref names starts where it says ("N 0 obj"), and startxref points at the xref.
void ExpectWellFormed(const std::string& pdf) {
  ASSERT_EQ(pdf.rfind("%PDF-1.4\n", 0), 0u);
  ASSERT_GE(pdf.size(), 6u);
  EXPECT_EQ(pdf.substr(pdf.size() - 6), "%%EOF\n");
  const size_t startxref = pdf.rfind("startxref\n");
  ASSERT_NE(startxref, std::string::npos);
  const size_t xref = std::stoul(pdf.substr(startxref + 10));
  ASSERT_EQ(pdf.compare(xref, 5, "xref\n"), 0);
  const size_t count_at = xref + 5 + 2;  // "0 N\n"
  const int count = std::stoi(pdf.substr(count_at));
  ASSERT_GT(count, 5);
  size_t entry = pdf.find('\n', count_at) + 1 + 20;  // past the free entry
  for (int k = 1; k < count; ++k, entry += 20) {
    const size_t offset = std::stoul(pdf.substr(entry, 10));
    const std::string obj = std::to_string(k) + " 0 obj\n";
    EXPECT_EQ(pdf.compare(offset, obj.size(), obj), 0) << "object " << k << " at " << offset;
  }
  EXPECT_NE(pdf.find("trailer\n<< /Size " + std::to_string(count) + " /Root 1 0 R"), std::string::npos);
}

std::string Pdftotext(const std::string& path) {
  test::RunResult r = test::Run({"/usr/bin/pdftotext", "-layout", path, "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

class PdfTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::MakeTempDir(); }
  void TearDown() override { test::RemoveTree(dir_); }
  std::string dir_;
};

TEST(PdfText, WinAnsiAndTheSpelledOutForms) {
  std::string out;
  char32_t bad = 0;
  ASSERT_TRUE(ToWinAnsi("head 2 \u00B7 d_k=512 \u00B7 caf\u00E9 \u2026", &out, &bad));
  EXPECT_EQ(out, "head 2 \xB7 d_k=512 \xB7 caf\xE9 \x85");
  ASSERT_TRUE(ToWinAnsi("scaled (q\u00B7k / \u221Ad_k), no 1/\u221Ad_head, \u221A2, \u221A", &out, &bad));
  EXPECT_EQ(out, "scaled (q\xB7k / sqrt(d_k)), no 1/sqrt(d_head), sqrt(2), sqrt");
  ASSERT_TRUE(ToWinAnsi("10\u207B\u00B3 x\u00B2 \u22121", &out, &bad));
  EXPECT_EQ(out, "10^-3 x\xB2 -1");
  EXPECT_FALSE(ToWinAnsi("\uB098\uB294", &out, &bad));  // 나는
  EXPECT_EQ(bad, U'\uB098');
  EXPECT_EQ(HelveticaWidth("Hi"), 722 + 222);
}

TEST_F(PdfTest, TheSameFigureGivesTheSameBytesAndAReaderReadsIt) {
  const AttentionTensors t = Tensors("The cat sat on the mat .");
  HeatmapExportOptions o;
  o.title = "Figure 3 (d_k=16)";
  o.dpi = 300;
  o.size = FigureSize{3.3, 3.0};
  o.out_path = dir_ + "/a.pdf";
  ASSERT_TRUE(ExportHeatmap(t, AttentionConfig(), o).ok());
  o.out_path = dir_ + "/b.pdf";
  ASSERT_TRUE(ExportHeatmap(t, AttentionConfig(), o).ok());
  const std::string a = test::ReadAll(dir_ + "/a.pdf"), b = test::ReadAll(dir_ + "/b.pdf");
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "two exports of one figure differ";
  ExpectWellFormed(a);
  // 3.3 x 3 in at any dpi: 237.6 x 216 points.
  EXPECT_NE(a.find("/MediaBox [0 0 237.6 216]"), std::string::npos);
  EXPECT_NE(a.find("/BaseFont /Helvetica /Encoding /WinAnsiEncoding"), std::string::npos);
  EXPECT_EQ(a.find("CreationDate"), std::string::npos);  // nothing that changes between runs
  // The format from the extension, or from --format.
  o.out_path = dir_ + "/c.bin";
  o.format = "pdf";
  ASSERT_TRUE(ExportHeatmap(t, AttentionConfig(), o).ok());
  EXPECT_TRUE(test::ReadAll(dir_ + "/c.bin") == a);
  if (access("/usr/bin/pdftotext", X_OK) != 0) GTEST_SKIP() << "poppler-utils is not installed: no pdftotext";
  const std::string text = Pdftotext(dir_ + "/a.pdf");
  EXPECT_NE(text.find("Figure 3 (d_k=16)"), std::string::npos) << text;
  EXPECT_NE(text.find("query"), std::string::npos) << text;
  EXPECT_NE(text.find("mat"), std::string::npos) << text;
}

TEST_F(PdfTest, LargeMapsAreOneImageAndTextWinAnsiCannotShowIsRefused) {
  std::string text;
  for (int i = 0; i < 140; ++i) text += "t" + std::to_string(i) + " ";
  const AttentionTensors t = Tensors(text);
  HeatmapExportOptions o;
  o.out_path = dir_ + "/big.pdf";
  ASSERT_TRUE(ExportHeatmap(t, AttentionConfig(), o).ok());
  const std::string pdf = test::ReadAll(o.out_path);
  ExpectWellFormed(pdf);
  EXPECT_NE(pdf.find("/Subtype /Image /Width " + std::to_string(t.n_k()) + " /Height " + std::to_string(t.n_q())),
            std::string::npos);
  EXPECT_LT(pdf.size(), 400000u);
  // Hangul: refused, naming the character; no file.
  const AttentionTensors ko = Tensors("\uB098\uB294 \uC0AC\uACFC\uB97C \uBA39\uC5C8\uB2E4");
  o.out_path = dir_ + "/ko.pdf";
  Status s = ExportHeatmap(ko, AttentionConfig(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Helvetica"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("U+B098"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("PNG or SVG"), std::string::npos) << s.message();
  EXPECT_FALSE(test::FileExists(o.out_path));
}

TEST_F(PdfTest, CliWritesPdfByExtensionOrFormatAndTheSameBytesEachTime) {
  const std::string text = "I go home .";
  const std::string by_ext = dir_ + "/head1.pdf", by_format = dir_ + "/head1.out";
  test::RunResult r = test::Run({ATTNVIZ_CLI, "--lang", "en", "export", "--text", text, "--head", "1", "--out", by_ext});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::Run(
      {ATTNVIZ_CLI, "--lang", "en", "export", "--text", text, "--head", "1", "--format", "pdf", "--out", by_format});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string pdf = test::ReadAll(by_ext);
  ExpectWellFormed(pdf);
  EXPECT_TRUE(test::ReadAll(by_format) == pdf) << "attnviz-cli export --format pdf differs from .pdf";
  // The saturation plot as PDF, the same bytes twice.
  const std::string plot = dir_ + "/sat.pdf";
  r = test::Run({ATTNVIZ_CLI, "--lang", "en", "sweep", "--text", text, "--plot", plot});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string sat = test::ReadAll(plot);
  ExpectWellFormed(sat);
  r = test::Run({ATTNVIZ_CLI, "--lang", "en", "sweep", "--text", text, "--plot", plot});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::ReadAll(plot) == sat);
}

}  // namespace
}  // namespace attnviz
