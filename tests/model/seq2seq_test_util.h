// The encoder-decoder fixture cases (tests/fixtures/seq2seq, make_seq2seq_fixtures.py) as the seq2seq tests read
// them: the model, the ids, the reference files.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "io/npy.h"
#include "model/seq2seq.h"
#include "model/seq2seq_run.h"

namespace attnviz::model::seq2seq_cases {

inline std::string CaseDir(const std::string& name) {
  return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq/" + name;
}

inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// reference/<file> of a case.
inline Tensor Reference(const std::string& name, const std::string& file) {
  auto t = ReadNpy(CaseDir(name) + "/reference/" + file);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : Tensor{};
}

struct Case {
  std::shared_ptr<const Seq2SeqModel> model;
  std::vector<int> src, tgt, labels;  // source_ids, decoder_input_ids, labels of reference/tokens.json
  nlohmann::json loss;                // reference/loss.json
};

inline Case Load(const std::string& name) {
  Case c;
  auto m = LoadSeq2SeqModel(CaseDir(name));
  EXPECT_TRUE(m.ok()) << m.message();
  if (m.ok()) c.model = *m;
  const nlohmann::json tokens = ReadJson(CaseDir(name) + "/reference/tokens.json");
  c.src = tokens["source_ids"].get<std::vector<int>>();
  c.tgt = tokens["decoder_input_ids"].get<std::vector<int>>();
  c.labels = tokens["labels"].get<std::vector<int>>();
  c.loss = ReadJson(CaseDir(name) + "/reference/loss.json");
  return c;
}

// |a - b| <= tol everywhere, same shape; the message names the first cell that is not.
inline void ExpectNear(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double diff = std::abs((double)got.data[i] - (double)want.data[i]);
    if (diff > worst) worst = diff, at = i;
  }
  EXPECT_LE(worst, tol) << what << ": worst at flat index " << at << ": " << got.data[at] << " vs " << want.data[at];
}

// A tolerance relative to the reference's largest magnitude (hidden states and logits grow with the layers).
inline double Scale(const Tensor& t) {
  double m = 0;
  for (float v : t.data) m = std::max(m, (double)std::abs(v));
  return std::max(1.0, m);
}

// The loss of c.labels at every decoder position after one run with o.
inline std::vector<double> TokenLossOf(const Case& c, const Seq2SeqRunOptions& o) {
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt, o);
  EXPECT_TRUE(run.ok()) << run.message();
  if (!run.ok()) return {};
  const int n_tgt = (int)c.tgt.size(), n_dec = c.model->config().decoder.n_layer;
  auto loss = Seq2SeqTokenLoss(*c.model,
                               run->decoder_hidden.data.data() + (size_t)n_dec * n_tgt * c.model->config().d_model,
                               n_tgt, c.labels);
  EXPECT_TRUE(loss.ok()) << loss.message();
  return loss.ok() ? *loss : std::vector<double>{};
}

}  // namespace attnviz::model::seq2seq_cases
