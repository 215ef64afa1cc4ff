// The encoder-decoder session: opens an encoder-decoder folder (model::LoadSeq2SeqModel and
// tokenize::LoadSeq2SeqTokenizers) and runs it off the caller's thread on one "latest request wins" queue
// (latest_wins.h): a newer request cancels the running one (RunSeq2Seq and GreedyGenerate check the flag per
// layer). A result holds the three stacks of maps as the screen reads them (layer_stack.h): `encoder`
// [n_src x n_src], `decoder` (causal) [n_tgt x n_tgt] and `cross` [n_tgt x n_src] (rows: target tokens, columns:
// source tokens), each layer its own LayerMaps. A generation (Translate) publishes each new token's rows of the
// decoder and cross maps as GreedyGenerate makes them, then the whole run of the generated target.
//
// Dimension glossary (core/model/seq2seq.h)
//   n_src  source tokens (the encoder's)     n_tgt  decoder tokens: the start token, then the target's ids without
//                                                   the end-of-sequence id its tokenizer appends (shift_right)
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "maps/layer_stack.h"
#include "model/predict.h"  // PositionTop
#include "model/seq2seq.h"
#include "model/seq2seq_run.h"  // Seq2SeqAblatedHead
#include "session/latest_wins.h"
#include "tokenize/seq2seq_tokenizers.h"

namespace attnviz {

// An opened encoder-decoder folder: its model and its tokenizers (immutable, shared by results).
struct Seq2SeqFolder {
  std::string dir;
  std::shared_ptr<const model::Seq2SeqModel> model;
  tokenize::Seq2SeqTokenizers tokenizers;
};
// Loads `dir` (errors name the file, as LoadSeq2SeqModel and LoadSeq2SeqTokenizers say them).
Result<std::shared_ptr<const Seq2SeqFolder>> OpenSeq2SeqFolder(const std::string& dir);
// A target-vocabulary id as the panels and figures show it ("·the"), or "#id" when the vocabulary has no text.
std::string TargetTokenText(const Seq2SeqFolder& folder, int id);

// What the user asks of an encoder-decoder model.
struct Seq2SeqRequest {
  std::string dir;          // the folder (opened once, kept while later requests name it)
  std::string source_text;  // the encoder's text
  std::string target_text;  // the decoder's text (forced); ignored when generating
  int generate = 0;         // > 0: the target made by greedy decoding, at most this many new tokens
  // Heads of any stack ablated in every run of the request (GreedyGenerate's decoder takes kZero only).
  std::vector<model::Seq2SeqAblatedHead> ablate;
  bool operator==(const Seq2SeqRequest& o) const {
    return dir == o.dir && source_text == o.source_text && target_text == o.target_text && generate == o.generate &&
           ablate == o.ablate;
  }
  bool operator!=(const Seq2SeqRequest& o) const { return !(*this == o); }
};

// Indices of Seq2SeqResult::stacks.
enum Seq2SeqStackIndex { kEncoderStack = 0, kDecoderStack = 1, kCrossStack = 2 };

struct Seq2SeqResult {
  uint64_t generation = 0;
  Seq2SeqRequest request;
  Status status;
  std::shared_ptr<const Seq2SeqFolder> folder;
  std::vector<tokenize::Token> source_tokens;   // n_src, as the source tokenizer made them (</s> appended)
  std::vector<tokenize::Token> decoder_tokens;  // n_tgt: the start token, then the target's tokens but the last
  std::vector<int> labels;                      // n_tgt: what each decoder position predicts (the target's ids)
  std::vector<tokenize::Token> label_tokens;    // n_tgt: the labels as tokens (the target's, eos last)
  // With a complete run (else empty): each decoder position's loss of its label, -log p in nats
  // (model::Seq2SeqTokenLoss), their mean, and the kPredictTopK (model_session.h) most probable tokens there, as
  // many as a decoder-only run keeps (model::Seq2SeqTopTokens).
  std::vector<double> token_loss;          // [n_tgt]
  double loss = 0;
  std::vector<model::PositionTop> top;     // [n_tgt]
  // With ablations in the request: the same losses of the model as trained (one more run, without them); else
  // base_token_loss is empty and base_loss equals loss.
  std::vector<double> base_token_loss;     // [n_tgt]
  double base_loss = 0;
  // [3]: encoder, decoder, cross (Seq2SeqStackIndex); each layer's probs [n_head, n_q, n_k], metrics, mask.
  std::shared_ptr<const std::vector<LayerStack>> stacks;
  // A generation: the new ids so far (ending with eos when it stopped there), their text, and whether it is done.
  std::vector<int> generated_ids;
  std::string generated_text;
  bool generating = false;  // a step of a generation: the decoder and cross stacks hold the rows made so far
  bool complete() const { return status.ok() && !generating && stacks != nullptr; }
};

// One layer of a stack as LayerMaps: its maps, each head's row figures (and logit figures when `logits` is not
// empty), the stack's mask. probs, logits: [n_head, n_q, n_k]; rows: n_q tokens, columns: n_k tokens.
std::shared_ptr<const LayerMaps> Seq2SeqLayerMaps(Tensor probs, const Tensor& logits, const TokenList& rows,
                                                  const TokenList& columns, model::Seq2SeqStack stack, int d_head,
                                                  float multiplier);
StackKind Seq2SeqStackKind(model::Seq2SeqStack stack);

// Runs one request: opens the folder when it differs from the last one, tokenizes, runs or generates, and reads the
// losses and top tokens of the complete run.
// Generation steps are handed to `publish` (may be empty). Cancelled: Status::Cancelled().
std::shared_ptr<Seq2SeqResult> RunSeq2SeqRequest(const Seq2SeqRequest& request, const RunControl& control,
                                                 std::shared_ptr<const Seq2SeqFolder>* cache,
                                                 const std::function<void(std::shared_ptr<Seq2SeqResult>)>& publish);

class Seq2SeqSession {
 public:
  explicit Seq2SeqSession(std::function<void()> on_change = {});
  uint64_t Submit(const Seq2SeqRequest& request) { return queue_.Submit(request); }
  void Cancel() { queue_.CancelRunning(); }
  std::shared_ptr<const Seq2SeqResult> latest() const { return queue_.latest(); }
  bool busy() const { return queue_.busy(); }
  bool running() const { return queue_.running(); }
  JobProgress progress() const { return queue_.progress(); }
  bool WaitIdle(double seconds) const { return queue_.WaitIdle(seconds); }

 private:
  std::shared_ptr<const Seq2SeqFolder> folder_;  // the worker thread's: the last folder opened
  LatestWins<Seq2SeqRequest, Seq2SeqResult> queue_;
};

}  // namespace attnviz
