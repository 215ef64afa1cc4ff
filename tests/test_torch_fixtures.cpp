// The engine against PyTorch: every folder under tests/fixtures/ (written by tests/fixtures/make_fixtures.py with
// torch.nn.MultiheadAttention and explicit torch ops, float64) holds a config, inputs, weights in our x @ W layout and
// the expected logits, weights, z and out. Each case runs the forward pass stage by stage
// (Project, Scores, Logits, Softmax, MixValues, OutputProjection), and again with the fused LogitsSoftmax and with the
// weights repacked into the fused QKV layout, and compares every stage.
//
// Tolerance: 1e-5 absolute for logits, weights, z and out, except that at a tiny temperature (< 1e-3, logits ~3e4)
// the logits tolerance is relative: 1e-5 * max|expected logit|.
// The expected .npy files are float64 and are read here by a small reader of our own, independent of core/npy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "sandbox/config.h"
#include "io/npy.h"
#include "sandbox/weights.h"

namespace attnviz {
namespace {

namespace fs = std::filesystem;

constexpr double kTol = 1e-5;

std::string FixtureDir() { return ATTNVIZ_FIXTURE_DIR; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Raw text of `key`'s value in a flat JSON object ("12", "true", "\"causal\""), or "" when absent.
std::string JsonValue(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  at = json.find(':', at + key.size() + 2);
  if (at == std::string::npos) return "";
  ++at;
  while (at < json.size() && std::isspace((unsigned char)json[at])) ++at;
  size_t end = at;
  if (end < json.size() && json[end] == '"') {
    end = json.find('"', end + 1);
    return end == std::string::npos ? "" : json.substr(at + 1, end - at - 1);
  }
  while (end < json.size() && json[end] != ',' && json[end] != '}' && !std::isspace((unsigned char)json[end])) ++end;
  return json.substr(at, end - at);
}

struct Fixture {
  AttentionConfig config;
  int n_q = 0, n_k = 0;
};

// Parses config.json; records a test failure naming the key when one is missing.
bool ReadConfig(const std::string& dir, Fixture* f) {
  std::string json = Slurp(dir + "/config.json");
  if (json.empty()) {
    ADD_FAILURE() << dir << "/config.json is missing or empty";
    return false;
  }
  for (const char* key : {"d_model", "n_head", "d_k", "d_v", "scale", "temperature", "mask", "mode", "n_q", "n_k"}) {
    if (JsonValue(json, key).empty()) {
      ADD_FAILURE() << dir << "/config.json has no \"" << key << "\"";
      return false;
    }
  }
  AttentionConfig& c = f->config;
  c.d_model = std::stoi(JsonValue(json, "d_model"));
  c.n_head = std::stoi(JsonValue(json, "n_head"));
  c.d_k = std::stoi(JsonValue(json, "d_k"));
  c.d_v = std::stoi(JsonValue(json, "d_v"));
  c.scale = JsonValue(json, "scale") == "true";
  c.temperature = std::stof(JsonValue(json, "temperature"));
  c.mask = JsonValue(json, "mask") == "causal" ? MaskKind::kCausal : MaskKind::kNone;
  c.mode = JsonValue(json, "mode") == "cross" ? AttentionMode::kCross : AttentionMode::kSelf;
  c.qkv = QkvLayout::kSeparate;
  f->n_q = std::stoi(JsonValue(json, "n_q"));
  f->n_k = std::stoi(JsonValue(json, "n_k"));
  return true;
}

// A float64 .npy file (little endian, C order), read independently of core/npy.
struct Expected {
  std::vector<size_t> shape;
  std::vector<double> data;
};

bool ReadExpected(const std::string& path, Expected* e) {
  std::string bytes = Slurp(path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    ADD_FAILURE() << path << ": missing or not a .npy file";
    return false;
  }
  size_t header_len, offset;
  if (bytes[6] == 1) {
    header_len = (uint8_t)bytes[8] | ((size_t)(uint8_t)bytes[9] << 8);
    offset = 10;
  } else {
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= (size_t)(uint8_t)bytes[8 + i] << (8 * i);
    offset = 12;
  }
  std::string header = bytes.substr(offset, header_len);
  if (header.find("'descr': '<f8'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) {
    ADD_FAILURE() << path << ": expected float64 C order, header is " << header;
    return false;
  }
  size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  std::string item;
  size_t count = 1;
  e->shape.clear();
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    e->shape.push_back(std::stoul(item));
    count *= e->shape.back();
  }
  offset += header_len;
  if (bytes.size() != offset + count * sizeof(double)) {
    ADD_FAILURE() << path << ": " << bytes.size() - offset << " data bytes, expected " << count * sizeof(double);
    return false;
  }
  e->data.resize(count);
  std::memcpy(e->data.data(), bytes.data() + offset, count * sizeof(double));
  return true;
}

bool AllFinite(const Tensor& t) {
  return std::all_of(t.data.begin(), t.data.end(), [](float v) { return std::isfinite(v); });
}

// Max |got - expected| (checked against tol), or +inf on a shape mismatch or a non-finite value.
double Compare(const char* what, const Tensor& got, const Expected& want, double tol) {
  EXPECT_EQ(got.shape, want.shape) << what << ": shape";
  if (got.shape != want.shape || got.size() != want.data.size()) return INFINITY;
  EXPECT_TRUE(AllFinite(got)) << what << " has a NaN or Inf";
  double worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::fabs((double)got.data[i] - want.data[i]);
    if (!(d <= worst)) {  // also catches NaN
      worst = std::isnan(d) ? INFINITY : d;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, tol) << what << ": max |engine - torch| at flat index " << worst_at << ": engine "
                        << got.data[worst_at] << ", torch " << want.data[worst_at];
  return worst;
}

double MaxAbs(const Expected& e) {
  double m = 0;
  for (double v : e.data) m = std::max(m, std::fabs(v));
  return m;
}

// The separate weights repacked into the fused layout: w_qkv columns = [ Q heads | K heads | V heads ].
ProjectionWeights ToFused(const ProjectionWeights& s) {
  ProjectionWeights f = s;
  f.layout = QkvLayout::kFused;
  size_t d_model = s.d_model, nq = s.w_q.dim(1), nk = s.w_k.dim(1), nv = s.w_v.dim(1), cols = nq + nk + nv;
  f.w_qkv.Resize({d_model, cols});
  for (size_t r = 0; r < d_model; ++r) {
    std::copy_n(&s.w_q.data[r * nq], nq, &f.w_qkv.data[r * cols]);
    std::copy_n(&s.w_k.data[r * nk], nk, &f.w_qkv.data[r * cols + nq]);
    std::copy_n(&s.w_v.data[r * nv], nv, &f.w_qkv.data[r * cols + nq + nk]);
  }
  f.w_q = f.w_k = f.w_v = Tensor();
  return f;
}

std::vector<std::string> FixtureCases() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(FixtureDir(), ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "config.json")) names.push_back(entry.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(TorchFixture, EnoughCasesPresent) {
  std::vector<std::string> names = FixtureCases();
  EXPECT_GE(names.size(), 6u) << "expected at least 6 case folders with config.json under " << FixtureDir()
                              << " (regenerate: /usr/bin/python3 tests/fixtures/make_fixtures.py)";
}

class TorchFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchFixtureTest, EngineMatchesPyTorch) {
  const std::string dir = FixtureDir() + "/" + GetParam();
  Fixture f;
  ASSERT_TRUE(ReadConfig(dir, &f));
  const AttentionConfig& c = f.config;
  Status valid = Validate(c);
  ASSERT_TRUE(valid.ok()) << valid.message();

  ProjectionWeights separate;
  Status loaded = LoadWeights(dir, c, &separate);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  Result<Tensor> xq = ReadNpy(dir + "/xq.npy");
  Result<Tensor> x = ReadNpy(dir + "/x.npy");
  ASSERT_TRUE(xq.ok()) << xq.message();
  ASSERT_TRUE(x.ok()) << x.message();
  ASSERT_EQ(xq->shape, (std::vector<size_t>{(size_t)f.n_q, (size_t)c.d_model}));
  ASSERT_EQ(x->shape, (std::vector<size_t>{(size_t)f.n_k, (size_t)c.d_model}));

  Expected want_logits, want_weights, want_z, want_out;
  ASSERT_TRUE(ReadExpected(dir + "/logits.npy", &want_logits));
  ASSERT_TRUE(ReadExpected(dir + "/weights.npy", &want_weights));
  ASSERT_TRUE(ReadExpected(dir + "/z.npy", &want_z));
  ASSERT_TRUE(ReadExpected(dir + "/out.npy", &want_out));
  const double logits_tol = c.temperature < 1e-3f ? kTol * std::max(1.0, MaxAbs(want_logits)) : kTol;

  struct Variant {
    const char* name;
    bool fused_weights;
    bool fused_softmax;
  };
  for (Variant variant : {Variant{"separate weights, Logits+Softmax", false, false},
                          Variant{"separate weights, LogitsSoftmax", false, true},
                          Variant{"fused weights, Logits+Softmax", true, false}}) {
    SCOPED_TRACE(GetParam() + " (" + variant.name + ")");
    ProjectionWeights w = variant.fused_weights ? ToFused(separate) : separate;
    Tensor q, k, v, scores, logits, weights, z, concat, out;
    Project(*xq, *x, w, &q, &k, &v);
    Scores(q, k, &scores);
    if (variant.fused_softmax) {
      LogitsSoftmax(scores, c.logit_multiplier(), c.mask, &logits, &weights);
    } else {
      Logits(scores, c.logit_multiplier(), &logits);
      Softmax(logits, c.mask, &weights);
    }
    MixValues(weights, v, &z);
    OutputProjection(z, w.w_o, &concat, &out);

    for (const Tensor* t : {&q, &k, &v, &scores, &concat}) EXPECT_TRUE(AllFinite(*t));
    double d_logits = Compare("logits", logits, want_logits, logits_tol);
    double d_weights = Compare("weights", weights, want_weights, kTol);
    double d_z = Compare("z", z, want_z, kTol);
    double d_out = Compare("out", out, want_out, kTol);

    // Masked entries: exactly 0 in the reference and in the engine.
    if (c.mask == MaskKind::kCausal && weights.shape == want_weights.shape) {
      int bad = 0;
      for (int h = 0; h < c.n_head; ++h)
        for (int i = 0; i < f.n_q; ++i)
          for (int j = Mask(c.mask).End(i, f.n_k); j < f.n_k; ++j) {
            size_t at = ((size_t)h * f.n_q + i) * f.n_k + j;
            EXPECT_EQ(want_weights.data[at], 0.0);
            bad += weights.data[at] != 0.0f;
          }
      EXPECT_EQ(bad, 0) << "masked weights that are not exactly 0";
    }
    std::printf("[ fixture  ] %-28s %-34s max|diff| logits %.2e (tol %.1e)  weights %.2e  z %.2e  out %.2e\n",
                GetParam().c_str(), variant.name, d_logits, logits_tol, d_weights, d_z, d_out);
  }
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum((unsigned char)ch)) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Torch, TorchFixtureTest, ::testing::ValuesIn(FixtureCases()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TorchFixtureTest);

}  // namespace
}  // namespace attnviz
