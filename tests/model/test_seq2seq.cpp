// core/model/seq2seq.* and the encoder-decoder families (arch/bart.cpp, marian.cpp, t5.cpp): each fixture case's
// config as read, the dispatch between LoadModel and LoadSeq2SeqModel, t5's relative position buckets worked out by
// hand, and the errors of a bad config, a missing tensor and a wrong shape (file, tensor, both shapes).
#include "model/seq2seq.h"

#include <atomic>
#include <cmath>

#include "model/arch/family.h"
#include "model/model.h"
#include "model/seq2seq_run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::CopyDir;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;

std::string CaseDir(const std::string& name) { return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq/" + name; }

const char* kCases[] = {"bart", "mbart", "marian", "marian_separate", "t5", "t5_v11"};

std::shared_ptr<const Seq2SeqModel> Load(const std::string& name) {
  auto m = LoadSeq2SeqModel(CaseDir(name));
  EXPECT_TRUE(m.ok()) << m.message();
  return m.ok() ? *m : nullptr;
}

// A copy of case `name` in `to` with `from` replaced by `replacement` in its config.json.
void CopyWithConfigEdit(const std::string& name, const std::string& to, const std::string& from,
                        const std::string& replacement) {
  CopyDir(CaseDir(name), to);
  std::string cfg = ReadBytes(to + "/config.json");
  ASSERT_NE(cfg.find(from), std::string::npos) << from;
  cfg.replace(cfg.find(from), from.size(), replacement);
  WriteBytes(to + "/config.json", cfg);
}

TEST(Seq2SeqConfig, EachCaseReadsItsTwists) {
  auto bart = Load("bart");
  ASSERT_TRUE(bart);
  const Seq2SeqConfig& b = bart->config();
  EXPECT_EQ(b.family, "bart");
  EXPECT_EQ(b.positions, PositionKind::kLearned);
  EXPECT_EQ(b.position_offset, 2);
  EXPECT_TRUE(b.embed_norm);
  EXPECT_FALSE(b.pre_norm);
  EXPECT_FALSE(b.final_norms);
  EXPECT_TRUE(b.scale_q);
  EXPECT_EQ(b.activation, Activation::kGeluErf);
  EXPECT_EQ(b.encoder.n_layer, 2);
  EXPECT_EQ(b.encoder.n_head, 4);
  EXPECT_EQ(b.encoder.d_head, 8);
  EXPECT_EQ(b.decoder.n_layer, 3);
  EXPECT_EQ(b.decoder.n_head, 2);
  EXPECT_EQ(b.decoder.d_head, 16);
  EXPECT_EQ(b.decoder_start_id, 2);
  EXPECT_EQ(bart->params().lm_head, bart->params().decoder.tok_emb);  // tied to model.shared
  EXPECT_EQ(bart->params().encoder.tok_emb, bart->params().decoder.tok_emb);
  EXPECT_NE(bart->params().final_logits_bias, nullptr);
  EXPECT_THAT(bart->Describe(), HasSubstr("learned positions (64, offset 2)"));

  auto mbart = Load("mbart");
  ASSERT_TRUE(mbart);
  EXPECT_TRUE(mbart->config().pre_norm);
  EXPECT_TRUE(mbart->config().final_norms);
  EXPECT_TRUE(mbart->config().scale_embedding);
  EXPECT_NE(mbart->params().encoder.final_norm.w, nullptr);

  auto marian = Load("marian");
  ASSERT_TRUE(marian);
  const Seq2SeqConfig& m = marian->config();
  EXPECT_EQ(m.positions, PositionKind::kSinusoidal);
  EXPECT_EQ(m.activation, Activation::kSilu);
  EXPECT_FALSE(m.embed_norm);
  EXPECT_EQ(m.decoder_start_id, m.pad_id);
  // The computed table: row 0 is sin 0 = 0 then cos 0 = 1; row p, column 0 is sin p, column d/2 is cos p.
  const float* pos = marian->params().encoder.pos_emb;
  ASSERT_NE(pos, nullptr);
  const int d = m.d_model;
  EXPECT_EQ(pos[0], 0.0f);
  EXPECT_EQ(pos[d / 2], 1.0f);
  EXPECT_FLOAT_EQ(pos[3 * d + 0], (float)std::sin(3.0));
  EXPECT_FLOAT_EQ(pos[3 * d + d / 2], (float)std::cos(3.0));
  EXPECT_FLOAT_EQ(pos[3 * d + 1], (float)std::sin(3.0 / std::pow(10000.0, 2.0 / d)));
  EXPECT_FLOAT_EQ(pos[3 * d + d / 2 + 1], (float)std::cos(3.0 / std::pow(10000.0, 2.0 / d)));

  auto separate = Load("marian_separate");
  ASSERT_TRUE(separate);
  EXPECT_FALSE(separate->config().shared_embeddings);
  EXPECT_EQ(separate->config().vocab, 83);
  EXPECT_EQ(separate->config().decoder_vocab, 78);
  EXPECT_NE(separate->params().encoder.tok_emb, separate->params().decoder.tok_emb);
  EXPECT_NE(separate->params().lm_head, separate->params().decoder.tok_emb);

  auto t5 = Load("t5");
  ASSERT_TRUE(t5);
  const Seq2SeqConfig& t = t5->config();
  EXPECT_EQ(t.positions, PositionKind::kRelative);
  EXPECT_EQ(t.num_buckets, 8);
  EXPECT_EQ(t.max_distance, 10);
  EXPECT_EQ(t.norm, BlockRecipe::Norm::kRms);
  EXPECT_FALSE(t.scale_q);
  EXPECT_FALSE(t.biases);
  EXPECT_TRUE(t.lm_head_rescale);
  EXPECT_FALSE(t.gated_mlp);
  EXPECT_EQ(t.activation, Activation::kRelu);
  EXPECT_EQ(t.max_positions, 0);
  EXPECT_NE(t5->params().encoder.relative_bias, nullptr);
  EXPECT_NE(t5->params().decoder.relative_bias, t5->params().encoder.relative_bias);

  auto v11 = Load("t5_v11");
  ASSERT_TRUE(v11);
  EXPECT_TRUE(v11->config().gated_mlp);
  EXPECT_EQ(v11->config().activation, Activation::kGeluTanh);
  EXPECT_FALSE(v11->config().lm_head_rescale);
  EXPECT_EQ(v11->config().encoder.d_head, 6);
  EXPECT_EQ(v11->config().encoder.inner(), 24);
  EXPECT_THAT(v11->Describe(), HasSubstr("gated gelu (tanh"));
}

// The loaders dispatch: LoadModel names the encoder-decoder kind, LoadSeq2SeqModel the decoder-only one.
TEST(Seq2SeqConfig, EachLoaderRefusesTheOtherKindByName) {
  for (const char* name : kCases) {
    EXPECT_TRUE(IsEncoderDecoderFolder(CaseDir(name))) << name;
    auto m = LoadModel(CaseDir(name));
    ASSERT_FALSE(m.ok()) << name;
    EXPECT_THAT(m.message(), HasSubstr("is an encoder-decoder model"));
    EXPECT_THAT(m.message(), HasSubstr("config.json"));
    ASSERT_FALSE(m.status().parts().empty());  // translatable
  }
  const std::string gpt2 = testing::FixtureDir("gpt2");
  EXPECT_FALSE(IsEncoderDecoderFolder(gpt2));
  EXPECT_FALSE(IsEncoderDecoderFolder("/nonexistent/attnviz"));
  auto g = LoadSeq2SeqModel(gpt2);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.message(), HasSubstr("model_type \"gpt2\" is not an encoder-decoder model (encoder-decoder: bart, mbart, "
                                     "marian, t5, mt5)"));
  EXPECT_TRUE(IsEncoderDecoderConfigText(R"({"model_type": "umt5"})"));
  EXPECT_TRUE(IsEncoderDecoderConfigText(R"({"model_type": "pegasus", "is_encoder_decoder": true})"));
  EXPECT_FALSE(IsEncoderDecoderConfigText(R"({"model_type": "gpt2", "is_encoder_decoder": true})"));
  EXPECT_FALSE(IsEncoderDecoderConfigText(R"({"model_type": "pegasus"})"));
  EXPECT_FALSE(IsEncoderDecoderConfigText("{"));
  EXPECT_FALSE(IsEncoderDecoderConfigText("[1]"));
  // The lists: the encoder-decoder types after the others.
  EXPECT_EQ(SupportedSeq2SeqModelTypes(), "bart, mbart, marian, t5, mt5");
  const std::string all = SupportedModelTypes();
  EXPECT_EQ(all.substr(all.size() - SupportedSeq2SeqModelTypes().size()), SupportedSeq2SeqModelTypes());
  EXPECT_EQ(SupportedModelTypes(/*gguf=*/true).find("bart"), std::string::npos);
}

TEST(Seq2SeqConfig, Umt5IsRefusedByNameInBothLoaders) {
  auto a = ParseSeq2SeqConfig(R"({"model_type": "umt5", "d_model": 8})", "u/config.json");
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.message(), HasSubstr("u/config.json: model_type \"umt5\" is not supported: each of its layers has a "
                                     "relative position bias of its own"));
  auto b = ParseModelConfig(R"({"model_type": "umt5"})", "u/config.json");
  EXPECT_THAT(b.message(), HasSubstr("model_type \"umt5\" is not supported"));
}

TEST(Seq2SeqConfig, BadValuesNameTheKeyAndWhatIsAllowed) {
  const std::string bart =
      R"({"model_type": "bart", "d_model": 32, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
          "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 50)";
  auto parse = [](const std::string& text) { return ParseSeq2SeqConfig(text, "c/config.json"); };
  EXPECT_TRUE(parse(bart + "}").ok()) << parse(bart + "}").message();
  EXPECT_THAT(parse(R"({"model_type": "bart"})").message(),
              HasSubstr("c/config.json: missing key \"d_model\" (an integer in [1, 131072])"));
  EXPECT_THAT(parse(bart + R"(, "encoder_attention_heads": 5})").message(), HasSubstr("d_model 32 is not a multiple of encoder_attention_heads 5"));
  EXPECT_THAT(parse(bart + R"(, "decoder_start_token_id": 50})").message(),
              HasSubstr("\"decoder_start_token_id\" is 50; allowed: an integer in [0, 49]"));
  EXPECT_THAT(parse(bart + R"(, "activation_function": "tanh"})").message(), HasSubstr("\"activation_function\" is \"tanh\""));
  EXPECT_THAT(parse(bart + R"(, "bad_words_ids": [[3], "x"]})").message(), HasSubstr("\"bad_words_ids\""));
  auto banned = parse(bart + R"(, "bad_words_ids": [[3], [4, 5], [7]]})");
  ASSERT_TRUE(banned.ok());
  EXPECT_EQ(banned->suppressed_ids, (std::vector<int>{3, 7}));  // one-token entries only
  const std::string marian =
      R"({"model_type": "marian", "d_model": 8, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
          "decoder_attention_heads": 2, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16, "vocab_size": 10, "pad_token_id": 9)";
  auto m = parse(marian + "}");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->decoder_start_id, 9);  // MarianConfig: the pad token
  EXPECT_THAT(parse(marian + R"(, "decoder_vocab_size": 7})").message(),
              HasSubstr("\"decoder_vocab_size\" is 7; allowed: an integer in [10, 10]"));
  // Separate tables: the decoder start (the pad 9 by default) must be a decoder id.
  EXPECT_THAT(parse(marian + R"(, "decoder_vocab_size": 7, "share_encoder_decoder_embeddings": false})").message(),
              HasSubstr("\"decoder_start_token_id\" is 9; allowed: an integer in [0, 6]"));
  EXPECT_TRUE(parse(marian + R"(, "decoder_vocab_size": 7, "share_encoder_decoder_embeddings": false,
                                  "decoder_start_token_id": 6})").ok());
  const std::string t5 = R"({"model_type": "t5", "d_model": 8, "d_kv": 2, "num_heads": 2, "vocab_size": 10)";
  auto t = parse(t5 + "}");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->decoder.n_layer, 6);  // num_decoder_layers defaults to num_layers
  EXPECT_THAT(parse(t5 + R"(, "feed_forward_proj": "gated-gelu-x"})").message(),
              HasSubstr("\"feed_forward_proj\" is \"gated-gelu-x\""));
  EXPECT_THAT(parse(t5 + R"(, "feed_forward_proj": "gated-tanh"})").message(), HasSubstr("\"feed_forward_proj\" is \"tanh\""));
  auto silu = parse(t5 + R"(, "feed_forward_proj": "gated-silu"})");
  ASSERT_TRUE(silu.ok());
  EXPECT_TRUE(silu->gated_mlp);
  EXPECT_EQ(silu->activation, Activation::kSilu);
  EXPECT_THAT(parse(t5 + R"(, "relative_attention_num_buckets": 2})").message(),
              HasSubstr("\"relative_attention_num_buckets\" is 2; allowed: an integer in [4, 65536]"));
  EXPECT_THAT(parse(t5 + R"(, "relative_attention_max_distance": 2})").message(),
              HasSubstr("\"relative_attention_max_distance\" is 2; allowed: an integer in [9, "));
}

TEST(Seq2SeqBind, AWrongShapeNamesTheFileTheTensorAndBothShapes) {
  TempDir dir;
  CopyWithConfigEdit("bart", dir.path(), "\"max_position_embeddings\": 64", "\"max_position_embeddings\": 63");
  auto m = LoadSeq2SeqModel(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("model.encoder.embed_positions.weight"));
  EXPECT_THAT(m.message(), HasSubstr(dir.path() + "/model.safetensors"));
  EXPECT_THAT(m.message(), HasSubstr("[66, 32]"));  // stored: 64 + 2 rows
  EXPECT_THAT(m.message(), HasSubstr("[65, 32]"));  // what the config needs
  EXPECT_THAT(m.message(), HasSubstr("bart checkpoint"));
}

TEST(Seq2SeqBind, AMissingTensorIsNamedWithTheFile) {
  TempDir gated, untied;
  CopyWithConfigEdit("t5", gated.path(), "\"feed_forward_proj\": \"relu\"", "\"feed_forward_proj\": \"gated-gelu\"");
  auto a = LoadSeq2SeqModel(gated.path());
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.message(), HasSubstr("missing tensor 'encoder.block.0.layer.1.DenseReluDense.wi_0.weight'"));
  EXPECT_THAT(a.message(), HasSubstr(gated.path() + "/model.safetensors"));
  CopyWithConfigEdit("t5", untied.path(), "\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false");
  auto b = LoadSeq2SeqModel(untied.path());
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.message(), HasSubstr("missing tensor 'lm_head.weight'"));
  TempDir heads;  // d_kv 8 -> 4: the projections are [32, 32] in the file, [16, 32] in the config
  CopyWithConfigEdit("t5", heads.path(), "\"d_kv\": 8", "\"d_kv\": 4");
  auto c = LoadSeq2SeqModel(heads.path());
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.message(), HasSubstr("encoder.block.0.layer.0.SelfAttention.q.weight"));
  EXPECT_THAT(c.message(), HasSubstr("[32, 32]"));
  EXPECT_THAT(c.message(), HasSubstr("[16, 32]"));
}

// T5Attention._relative_position_bucket, worked out by hand.
TEST(Seq2SeqBuckets, RelativePositionBucketsAsT5MakesThem) {
  // Encoder (bidirectional), 8 buckets, max_distance 10: 4 per direction, 2 exact, then log(|rp| / 2) / log 5 * 2.
  EXPECT_EQ(RelativePositionBucket(0, true, 8, 10), 0);
  EXPECT_EQ(RelativePositionBucket(-1, true, 8, 10), 1);
  EXPECT_EQ(RelativePositionBucket(1, true, 8, 10), 5);    // keys after the query: the upper half
  EXPECT_EQ(RelativePositionBucket(-2, true, 8, 10), 2);   // log 1 = 0
  EXPECT_EQ(RelativePositionBucket(-4, true, 8, 10), 2);   // 0.861
  EXPECT_EQ(RelativePositionBucket(-5, true, 8, 10), 3);   // 1.138
  EXPECT_EQ(RelativePositionBucket(3, true, 8, 10), 6);    // 4 + 2 + 0.504
  EXPECT_EQ(RelativePositionBucket(-100, true, 8, 10), 3); // past max_distance: the last bucket
  EXPECT_EQ(RelativePositionBucket(100, true, 8, 10), 7);
  // Decoder (causal): 8 buckets, 4 exact, then log(rp / 4) / log 2.5 * 4; keys after the query share bucket 0.
  EXPECT_EQ(RelativePositionBucket(3, false, 8, 10), 0);
  EXPECT_EQ(RelativePositionBucket(-3, false, 8, 10), 3);
  EXPECT_EQ(RelativePositionBucket(-4, false, 8, 10), 4);
  EXPECT_EQ(RelativePositionBucket(-6, false, 8, 10), 5);  // 1.77
  EXPECT_EQ(RelativePositionBucket(-9, false, 8, 10), 7);  // 3.54
  EXPECT_EQ(RelativePositionBucket(-10, false, 8, 10), 7); // exactly max_distance: 8, kept at 7
  EXPECT_EQ(RelativePositionBucket(-1000, false, 8, 10), 7);
  // t5-small's 32 buckets, max_distance 128: 16 per direction, 8 exact; log 2 / log 16 * 8 = 2 exactly.
  EXPECT_EQ(RelativePositionBucket(-16, true, 32, 128), 10);
  EXPECT_EQ(RelativePositionBucket(-15, true, 32, 128), 9);
  EXPECT_EQ(RelativePositionBucket(16, true, 32, 128), 26);
  EXPECT_EQ(RelativePositionBucket(-127, true, 32, 128), 15);
}

// What a run refuses, before anything is computed.
TEST(Seq2SeqRunInputs, BadInputsAreNamed) {
  auto bart = Load("bart");
  auto separate = Load("marian_separate");
  ASSERT_TRUE(bart && separate);
  EXPECT_THAT(RunSeq2Seq(*bart, {}, {2}).message(), HasSubstr("no source tokens"));
  EXPECT_THAT(RunSeq2Seq(*bart, {0, 5}, {}).message(), HasSubstr("no decoder tokens"));
  EXPECT_THAT(RunSeq2Seq(*bart, {0, 296}, {2}).message(),
              HasSubstr("source tokens: token 1 has id 296; allowed: 0..295 (vocab_size 296)"));
  // marian_separate: decoder ids are checked against the decoder's vocabulary.
  EXPECT_THAT(RunSeq2Seq(*separate, {0, 80}, {77, 78}).message(),
              HasSubstr("decoder tokens: token 1 has id 78; allowed: 0..77 (decoder_vocab_size 78)"));
  EXPECT_TRUE(RunSeq2Seq(*separate, {0, 80}, {77, 70}).ok());
  EXPECT_THAT(RunSeq2Seq(*bart, std::vector<int>(65, 4), {2}).message(),
              HasSubstr("65 source tokens exceed the model's 64 positions"));
  Seq2SeqRunOptions o;
  o.ablate.push_back({Seq2SeqStack::kCross, 3, 0, AblateMode::kZero});
  EXPECT_THAT(RunSeq2Seq(*bart, {0, 5}, {2}, o).message(), HasSubstr("ablated cross layer 3 is out of range: allowed 0..2"));
  o.ablate = {{Seq2SeqStack::kEncoder, 1, 4, AblateMode::kZero}};
  EXPECT_THAT(RunSeq2Seq(*bart, {0, 5}, {2}, o).message(), HasSubstr("ablated encoder head 4 of layer 1 is out of range: allowed 0..3"));
  std::atomic<bool> cancel{true};
  Seq2SeqRunOptions cancelled;
  cancelled.control.cancel = &cancel;
  EXPECT_TRUE(RunSeq2Seq(*bart, {0, 5}, {2}, cancelled).status().cancelled());
  // Logits and loss arguments.
  auto run = RunSeq2Seq(*bart, {0, 5, 2}, {2, 7});
  ASSERT_TRUE(run.ok());
  const float* last = run->decoder_hidden.data.data() + 3 * 2 * 32;
  EXPECT_THAT(Seq2SeqLogits(*bart, last, 2, {2}).message(), HasSubstr("position = 2 is out of range: allowed 0..1"));
  EXPECT_THAT(Seq2SeqTokenLoss(*bart, last, 2, {7}).message(), HasSubstr("labels has 1 entries"));
  EXPECT_THAT(Seq2SeqTokenLoss(*bart, last, 2, {7, 296}).message(), HasSubstr("label 1 is 296"));
  auto ignored = Seq2SeqTokenLoss(*bart, last, 2, {7, -100});
  ASSERT_TRUE(ignored.ok());
  EXPECT_TRUE(std::isnan((*ignored)[1]));
  EXPECT_EQ(MeanLoss(*ignored), (*ignored)[0]);
}

// The sink's views: the probs of every sublayer are softmax(q.k * multiplier + position bias) of the q and k it
// hands over (what the neuron view will read), with t5's bias in self-attention only.
class RecomputeSink : public Seq2SeqSink {
 public:
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    order.push_back(std::string(Seq2SeqStackName(out.stack)) + std::to_string(out.layer));
    if (out.stack == Seq2SeqStack::kCross) cross_bias_seen |= out.position_bias != nullptr;
    else self_bias_seen |= out.position_bias != nullptr;
    const int h = out.n_head - 1, i = out.n_q - 1;
    std::vector<double> logit((size_t)out.n_k);
    double mx = -1e300;
    for (int j = 0; j < out.n_k; ++j) {
      double dot = 0;
      for (int t = 0; t < out.d_head; ++t) dot += (double)out.q.Head(h)(i, t) * out.k.Head(h)(j, t);
      logit[(size_t)j] = dot * out.multiplier + (out.position_bias ? out.position_bias[((size_t)h * out.n_q + i) * out.n_k + j] : 0);
      mx = std::max(mx, logit[(size_t)j]);
    }
    double sum = 0;
    for (double& l : logit) sum += (l = std::exp(l - mx));
    for (int j = 0; j < out.n_k; ++j)
      worst = std::max(worst, std::abs(logit[(size_t)j] / sum - out.probs[((size_t)h * out.n_q + i) * out.n_k + j]));
    return Status::Ok();
  }
  std::vector<std::string> order;
  bool self_bias_seen = false, cross_bias_seen = false;
  double worst = 0;
};

TEST(Seq2SeqRunSink, ViewsRecomputeTheMapsAndLayersComeInOrder) {
  for (const char* name : {"bart", "t5"}) {
    auto m = Load(name);
    ASSERT_TRUE(m);
    RecomputeSink sink;
    std::vector<int> src(30), tgt(12);
    for (size_t i = 0; i < src.size(); ++i) src[i] = (int)(3 + i % 40);
    for (size_t i = 0; i < tgt.size(); ++i) tgt[i] = (int)(5 + (7 * i) % 50);
    ASSERT_TRUE(RunSeq2Seq(*m, src, tgt, {}, &sink).ok());
    EXPECT_LT(sink.worst, 1e-5) << name;
    const bool t5 = std::string(name) == "t5";
    EXPECT_EQ(sink.self_bias_seen, t5) << name;
    EXPECT_FALSE(sink.cross_bias_seen) << name;
    std::vector<std::string> want;
    for (int l = 0; l < m->config().encoder.n_layer; ++l) want.push_back("encoder" + std::to_string(l));
    for (int l = 0; l < m->config().decoder.n_layer; ++l)
      want.push_back("decoder" + std::to_string(l)), want.push_back("cross" + std::to_string(l));
    EXPECT_EQ(sink.order, want) << name;
  }
}

TEST(Seq2SeqGenerate, SuppressedIdsAndMeanAblationsOfTheDecoder) {
  auto t5 = Load("t5");
  ASSERT_TRUE(t5);
  const std::vector<int> src = {24, 16, 27, 4, 15, 3, 10, 6, 1};
  GreedyOptions g;
  g.max_new_tokens = 4;
  auto free_run = GreedyGenerate(*t5, src, g);
  ASSERT_TRUE(free_run.ok()) << free_run.message();
  g.suppressed_ids = {free_run->ids[0]};
  auto banned = GreedyGenerate(*t5, src, g);
  ASSERT_TRUE(banned.ok());
  ASSERT_FALSE(banned->ids.empty());
  for (int id : banned->ids) EXPECT_NE(id, free_run->ids[0]);
  g.suppressed_ids = {82};
  EXPECT_THAT(GreedyGenerate(*t5, src, g).message(), HasSubstr("suppressed id 82 is out of range"));
  g.suppressed_ids.clear();
  g.run.ablate = {{Seq2SeqStack::kCross, 0, 0, AblateMode::kMean}};
  EXPECT_THAT(GreedyGenerate(*t5, src, g).message(), HasSubstr("a mean ablation of a cross head"));
  g.run.ablate = {{Seq2SeqStack::kEncoder, 0, 0, AblateMode::kMean}};
  EXPECT_TRUE(GreedyGenerate(*t5, src, g).ok());
  g.run.ablate.clear();
  g.max_new_tokens = 0;
  EXPECT_THAT(GreedyGenerate(*t5, src, g).message(), HasSubstr("max_new_tokens = 0 is out of range"));
  // A callback's error stops generation and comes back.
  g.max_new_tokens = 4;
  int calls = 0;
  auto stopped = GreedyGenerate(*t5, src, g, [&](const GeneratedToken&) {
    ++calls;
    return Status::Error("enough");
  });
  EXPECT_EQ(stopped.message(), "enough");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace attnviz::model
