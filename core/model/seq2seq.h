// An encoder-decoder checkpoint (bart, mbart, marian, t5, mt5): config.json -> Seq2SeqConfig, the safetensors
// weights bound to Seq2SeqParams (each family's keys, tensor names and twists in core/model/arch/<family>.cpp:
// bart.cpp, marian.cpp, t5.cpp), loaded as one immutable Seq2SeqModel. The forward pass is seq2seq_run.h.
//
// Dimension glossary
//   n_src     source tokens (the encoder's)      n_tgt    decoder tokens (decoder_input_ids)
//   d_model   residual width (both stacks)       d_ff     MLP hidden width (per stack)
//   n_head    heads (per stack)                  d_head   per-head width (t5: d_kv, which need not be d_model / n_head)
//   inner     n_head * d_head: the q | k | v width of a stack's attention
//   vocab     the encoder's token ids            decoder_vocab  the decoder's (== vocab unless marian's
//                                                               share_encoder_decoder_embeddings is false)
//
// The stacks (numbered as seq2seq_run.cpp runs them):
//   encoder  x = embed(src) [* sqrt(d_model)] [+ positions] [-> LayerNorm]; per layer self-attention (every key) and
//            MLP; the encoder output = final_norm(x) where the stack has one (mbart, t5), else x
//   decoder  the same from decoder_input_ids; per layer causal self-attention, cross-attention (queries from the
//            decoder, keys and values from the encoder output), MLP; final_norm where the stack has one
//   LM head  logits = ([final_norm] x [* d_model^-0.5 when t5 ties lm_head]) lm_head^T [+ final_logits_bias]
// Sublayers are post-norm (bart, marian: x = norm(x + f(x))) or pre-norm (mbart, t5: x = x + f(norm(x))).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/config.h"
#include "model/params.h"
#include "model/tensor_store.h"

namespace attnviz::model {

// The three kinds of attention of an encoder-decoder model; kCross is the decoder's cross-attention sublayer.
enum class Seq2SeqStack { kEncoder, kDecoder, kCross };
const char* Seq2SeqStackName(Seq2SeqStack s);  // "encoder", "decoder", "cross"

// How a stack knows where each token sits.
enum class PositionKind {
  kLearned,     // bart, mbart: a learned table, row = position + position_offset (2)
  kSinusoidal,  // marian: a fixed table, sin in the first half of the dims, cos in the second (computed at load)
  kRelative,    // t5: no table; a bias per head added to the scores, from log buckets of (key - query)
};

struct Seq2SeqStackConfig {
  int n_layer = 0, n_head = 0, d_head = 0, d_ff = 0;
  int inner() const { return n_head * d_head; }
};

struct Seq2SeqConfig {
  std::string model_type;  // as in config.json
  std::string family;      // "bart" (bart, mbart), "marian", "t5" (t5, mt5)
  Seq2SeqStackConfig encoder, decoder;  // decoder: its self-attention and cross-attention share n_head and d_head
  int d_model = 0;
  int vocab = 0;          // encoder token ids
  int decoder_vocab = 0;  // decoder token ids and logits (== vocab unless separate decoder embeddings)
  int pad_id = -1, eos_id = -1, bos_id = -1;  // -1: the config has none
  int decoder_start_id = 0;                   // the first decoder input (bart: eos 2; marian, t5: pad)
  // Positions
  PositionKind positions = PositionKind::kLearned;
  int max_positions = 0;    // tokens a stack may hold (max_position_embeddings); 0 = no limit (t5)
  int position_offset = 0;  // kLearned: the table row of position 0 (bart: 2)
  int num_buckets = 0, max_distance = 0;  // kRelative: relative_attention_num_buckets, relative_attention_max_distance
  // Embeddings
  bool scale_embedding = false;  // token embeddings * sqrt(d_model) (scale_embedding)
  bool embed_norm = false;       // LayerNorm after token + position embeddings (layernorm_embedding)
  bool shared_embeddings = true; // encoder and decoder read one table (false: marian's decoder_vocab table)
  // Blocks
  BlockRecipe::Norm norm = BlockRecipe::Norm::kLayerNorm;  // kRms: t5's T5LayerNorm (no mean, no bias)
  double norm_eps = 1e-5;
  bool pre_norm = false;     // x = x + f(norm(x)) (mbart, t5); else x = norm(x + f(x)) (bart, marian)
  bool final_norms = false;  // a norm at the end of each stack (mbart layer_norm, t5 final_layer_norm)
  bool biases = true;        // q, k, v, o, MLP and norms have biases (t5: none)
  bool scale_q = true;       // logits = q.k / sqrt(d_head) (bart, marian: q * d_head^-0.5 before q.k); t5: q.k
  Activation activation = Activation::kGeluErf;
  bool gated_mlp = false;    // t5 v1.1 / mt5 gated-*: down(act(wi_0 x) * wi_1 x); else down(act(up x))
  // LM head
  bool tie_word_embeddings = true;  // lm_head = the decoder's token embeddings
  bool lm_head_rescale = false;     // t5 tied: the decoder output * d_model^-0.5 before lm_head
  bool final_logits_bias = false;   // bart, marian: + final_logits_bias [decoder_vocab] (bound when stored)
  // Tokens generation never picks (config.json bad_words_ids of one token each; marian: [[pad]]).
  std::vector<int> suppressed_ids;

  const Seq2SeqStackConfig& Stack(Seq2SeqStack s) const { return s == Seq2SeqStack::kEncoder ? encoder : decoder; }
  // "bart: encoder 2 layers x 4 heads x 8, decoder 3 layers x 2 heads x 16, d_model 32, ..."
  std::string Describe() const;
};

// One attention sublayer: its projections and its norm (pre-norm: of the input; post-norm: of x + output).
struct AttentionParams {
  Norm norm;
  Linear q, k, v;  // [in d_model] -> [inner]; cross: q reads the decoder, k and v the encoder output
  Linear o;        // [inner] -> [d_model]
};

// The MLP sublayer: down(act(up x)), or gated down(act(gate x) * up x) (t5 wi_0 = gate, wi_1 = up).
struct MlpParams {
  Norm norm;
  Linear up, gate, down;  // gate.w null unless gated
};

struct Seq2SeqLayerParams {
  AttentionParams self_attn;
  AttentionParams cross_attn;  // decoder layers only (all null in the encoder's)
  MlpParams mlp;
};

struct Seq2SeqStackParams {
  const float* tok_emb = nullptr;   // [vocab of the stack, d_model]
  // kLearned: [max_positions + position_offset, d_model]; kSinusoidal: [max_positions, d_model] (computed at load,
  // a stored table is not read); kRelative: null.
  const float* pos_emb = nullptr;
  // kRelative: [num_buckets, n_head], the stack's first layer's relative_attention_bias, shared by its layers.
  const float* relative_bias = nullptr;
  Norm emb_norm;                            // layernorm_embedding (embed_norm)
  std::vector<Seq2SeqLayerParams> layers;   // [n_layer]
  Norm final_norm;                          // final_norms
};

struct Seq2SeqParams {
  Seq2SeqStackParams encoder, decoder;
  const float* lm_head = nullptr;            // [decoder_vocab, d_model] (tied: the decoder's tok_emb)
  const float* final_logits_bias = nullptr;  // [decoder_vocab] or null (zeros)
};

class Seq2SeqModel {
 public:
  const Seq2SeqConfig& config() const { return config_; }
  const Seq2SeqParams& params() const { return params_; }
  const std::string& dir() const { return dir_; }
  // The config line + the weights' files, dtypes, bytes mapped and converted.
  std::string Describe() const;

 private:
  friend Result<std::shared_ptr<const Seq2SeqModel>> BindSeq2SeqModel(Seq2SeqConfig, std::shared_ptr<TensorStore>,
                                                                       std::string);
  Seq2SeqConfig config_;
  std::shared_ptr<TensorStore> store_;  // keeps the maps (and converted copies, computed tables) alive
  Seq2SeqParams params_;
  std::string dir_;
};

// Whether config.json text / a folder's config.json names an encoder-decoder model_type this file builds (or one
// no family builds but whose config says is_encoder_decoder: true, so the caller shows this loader's refusal).
// Cheap: reads config.json only; false when it cannot be read or parsed (LoadModel then says why).
bool IsEncoderDecoderConfigText(const std::string& json_text);
bool IsEncoderDecoderFolder(const std::string& dir);

// `json_text`: config.json's bytes; `where`: its path (messages). Every key range-checked as config.h does.
Result<Seq2SeqConfig> ParseSeq2SeqConfig(const std::string& json_text, const std::string& where);
Result<Seq2SeqConfig> ReadSeq2SeqConfig(const std::string& path);

// dir/config.json + dir/model.safetensors (or the shards of dir/model.safetensors.index.json). Errors name the file,
// the key or tensor, and both shapes.
Result<std::shared_ptr<const Seq2SeqModel>> LoadSeq2SeqModel(const std::string& dir);
// A config and an open store (tests). `dir` is only a label.
Result<std::shared_ptr<const Seq2SeqModel>> BindSeq2SeqModel(Seq2SeqConfig config, std::shared_ptr<TensorStore> store,
                                                             std::string dir);

// The log-bucket of a relative position (key - query) as T5Attention._relative_position_bucket makes it:
// bidirectional (encoder): half the buckets for keys after the query; causal (decoder): keys at or before only.
// Within each half, max_exact = half / 2 exact buckets, then log-spaced ones up to max_distance, the last bucket
// for everything beyond (the log computed in float32, as torch does).
int RelativePositionBucket(int relative_position, bool bidirectional, int num_buckets, int max_distance);

}  // namespace attnviz::model
