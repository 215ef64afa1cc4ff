// The encoder-decoder session (seq2seq_session.h). Steps of a request:
//   1. open the folder (kept while later requests name it), 2. tokenize the source, 3. the target: forced (its
//   tokenizer's ids, shift_right) or generated (GreedyGenerate, each token's rows published as a step), 4. the whole
//   run over source and decoder ids (under the request's ablations), kept as three stacks of LayerMaps, 5. each decoder
//   position's loss of its label and top tokens, and with ablations the losses of a run without them.
#include "session/seq2seq_session.h"

#include <algorithm>

#include "attention/metrics.h"
#include "model/seq2seq_run.h"
#include "session/loaded_model.h"  // TokenIds, TokenOfId
#include "session/model_session.h"  // kPredictTopK
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

using model::Seq2SeqStack;
using tokenize::Token;

}  // namespace

StackKind Seq2SeqStackKind(Seq2SeqStack s) {
  return s == Seq2SeqStack::kEncoder ? StackKind::kEncoder
         : s == Seq2SeqStack::kDecoder ? StackKind::kDecoder : StackKind::kCross;
}

std::shared_ptr<const LayerMaps> Seq2SeqLayerMaps(Tensor probs, const Tensor& logits, const TokenList& rows,
                                         const TokenList& columns, Seq2SeqStack stack, int d_head, float multiplier) {
  auto maps = std::make_shared<LayerMaps>();
  const size_t n_head = probs.dim(0), n_q = probs.dim(1), n_k = probs.dim(2);
  const Mask mask = stack == Seq2SeqStack::kDecoder ? Mask::Causal() : Mask::Bidirectional();
  ComputeProbMetrics(probs.data.data(), logits.empty() ? nullptr : logits.data.data(), n_head, n_q, n_k, mask,
                     &maps->metrics);
  maps->probs = std::make_shared<const Tensor>(std::move(probs));
  maps->query_tokens = rows;
  maps->kv_tokens = columns;
  maps->mask = mask;
  maps->d_qk = d_head;
  maps->multiplier = multiplier;
  maps->scaled = multiplier != 1.0f;
  return maps;
}

namespace {

// Keeps the decoder's last residual stream [n_tgt, d_model]: what the LM head reads.
class DecoderLastSink : public model::Seq2SeqSink {
 public:
  Status OnLayer(const model::Seq2SeqLayerOutput& out) override {
    if (out.stack == Seq2SeqStack::kDecoder && out.layer == out.n_layer - 1)
      last_.assign(out.hidden, out.hidden + (size_t)out.n_q * (size_t)out.d_model);
    return Status::Ok();
  }
  const std::vector<float>& last() const { return last_; }

 private:
  std::vector<float> last_;
};

// Keeps every attention sublayer of a run as LayerMaps, with its logits q.k * multiplier (+ t5's bias), and the
// decoder's last residual stream.
class StackSink : public DecoderLastSink {
 public:
  StackSink(const model::Seq2SeqConfig& c, TokenList source, TokenList decoder)
      : source_(std::move(source)), decoder_(std::move(decoder)) {
    layers_[0].resize((size_t)c.encoder.n_layer);
    layers_[1].resize((size_t)c.decoder.n_layer);
    layers_[2].resize((size_t)c.decoder.n_layer);
  }
  Status OnLayer(const model::Seq2SeqLayerOutput& out) override {
    DecoderLastSink::OnLayer(out);
    const size_t n_head = (size_t)out.n_head, n_q = (size_t)out.n_q, n_k = (size_t)out.n_k;
    Tensor probs, logits;
    probs.Resize({n_head, n_q, n_k});
    std::copy(out.probs, out.probs + probs.size(), probs.data.begin());
    logits.Resize({n_head, n_q, n_k});
    for (size_t h = 0; h < n_head; ++h) {
      RowMap l = logits.Slice(h);
      l.noalias() = out.q.Head(h) * out.k.Head(h).transpose() * out.multiplier;
      if (out.position_bias) l += ConstRowMap(out.position_bias + h * n_q * n_k, (Eigen::Index)n_q, (Eigen::Index)n_k);
    }
    const bool rows_are_source = out.stack == Seq2SeqStack::kEncoder;
    const bool columns_are_source = out.stack != Seq2SeqStack::kDecoder;
    layers_[(int)out.stack][(size_t)out.layer] =
        Seq2SeqLayerMaps(std::move(probs), logits, rows_are_source ? source_ : decoder_, columns_are_source ? source_ : decoder_,
                out.stack, out.d_head, out.multiplier);
    return Status::Ok();
  }
  std::shared_ptr<const std::vector<LayerStack>> Stacks() {
    auto stacks = std::make_shared<std::vector<LayerStack>>();
    for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder, Seq2SeqStack::kCross})
      stacks->push_back(StackOfLayers(layers_[(int)s], Seq2SeqStackKind(s)));
    return stacks;
  }
  // The multiplier of each decoder layer's self- and cross-attention (what generation steps keep).
  float Multiplier(Seq2SeqStack s, int layer) const {
    const auto& l = layers_[(int)s];
    return layer < (int)l.size() && l[(size_t)layer] ? l[(size_t)layer]->multiplier : 1.0f;
  }

 private:
  TokenList source_, decoder_;
  std::vector<std::shared_ptr<const LayerMaps>> layers_[3];
};

// A generation's stacks so far: the encoder's (from the first run), and per decoder layer the rows made.
class GrowingStacks {
 public:
  GrowingStacks(const model::Seq2SeqConfig& c, std::shared_ptr<const std::vector<LayerStack>> first)
      : c_(c), first_(std::move(first)) {}
  // Appends one generated token's rows: self_rows [n_layer, n_head, step + 1], cross_rows [n_layer, n_head, n_src].
  void Add(const model::GeneratedToken& g) {
    self_rows_.push_back(g.self_rows);
    cross_rows_.push_back(g.cross_rows);
  }
  std::shared_ptr<const std::vector<LayerStack>> Stacks(const TokenList& source, const TokenList& decoder) const {
    const int n_layer = c_.decoder.n_layer, n_head = c_.decoder.n_head, t = (int)self_rows_.size();
    const int n_src = (int)source.size();
    auto stacks = std::make_shared<std::vector<LayerStack>>();
    stacks->push_back((*first_)[kEncoderStack]);
    std::vector<std::shared_ptr<const LayerMaps>> self_layers, cross_layers;
    for (int l = 0; l < n_layer; ++l) {
      Tensor self, cross;
      self.Resize({(size_t)n_head, (size_t)t, (size_t)t});  // zeros: above the diagonal stays exactly 0
      cross.Resize({(size_t)n_head, (size_t)t, (size_t)n_src});
      for (int i = 0; i < t; ++i)
        for (int h = 0; h < n_head; ++h) {
          const float* s = self_rows_[(size_t)i].data.data() + ((size_t)l * n_head + h) * (size_t)(i + 1);
          std::copy(s, s + i + 1, self.data.begin() + ((size_t)h * t + i) * t);
          const float* x = cross_rows_[(size_t)i].data.data() + ((size_t)l * n_head + h) * (size_t)n_src;
          std::copy(x, x + n_src, cross.data.begin() + ((size_t)h * t + i) * n_src);
        }
      const LayerMaps* first_self = (*first_)[kDecoderStack].layer(l);
      const LayerMaps* first_cross = (*first_)[kCrossStack].layer(l);
      self_layers.push_back(Seq2SeqLayerMaps(std::move(self), Tensor(), decoder, decoder, Seq2SeqStack::kDecoder,
                                    c_.decoder.d_head, first_self ? first_self->multiplier : 1.0f));
      cross_layers.push_back(Seq2SeqLayerMaps(std::move(cross), Tensor(), decoder, source, Seq2SeqStack::kCross,
                                     c_.decoder.d_head, first_cross ? first_cross->multiplier : 1.0f));
    }
    stacks->push_back(StackOfLayers(std::move(self_layers), StackKind::kDecoder));
    stacks->push_back(StackOfLayers(std::move(cross_layers), StackKind::kCross));
    return stacks;
  }

 private:
  const model::Seq2SeqConfig& c_;
  std::shared_ptr<const std::vector<LayerStack>> first_;
  std::vector<Tensor> self_rows_, cross_rows_;
};

// A run's three stacks; `decoder_last` (may be null) receives the decoder's last residual stream [n_tgt, d_model].
Result<std::shared_ptr<const std::vector<LayerStack>>> RunStacks(const model::Seq2SeqModel& m,
                                                                   const std::vector<Token>& source,
                                                                   const std::vector<Token>& decoder,
                                                                   const model::Seq2SeqRunOptions& options,
                                                                   std::vector<float>* decoder_last = nullptr) {
  StackSink sink(m.config(), TokenList(source), TokenList(decoder));
  if (Status st = model::RunSeq2Seq(m, TokenIds(source), TokenIds(decoder), options, &sink); !st) return st;
  if (decoder_last) *decoder_last = sink.last();
  return sink.Stacks();
}

// 5. The losses and top tokens of a complete run (decoder_last [n_tgt, d_model]), and with ablations the losses of
// a run without them (its maps not kept).
Status AddLosses(const model::Seq2SeqModel& m, const std::vector<float>& decoder_last, const RunControl& control,
                 Seq2SeqResult* r) {
  const int n_tgt = (int)r->labels.size();
  auto loss = model::Seq2SeqTokenLoss(m, decoder_last.data(), n_tgt, r->labels);
  if (!loss) return loss.status();
  r->token_loss = std::move(*loss);
  r->loss = r->base_loss = model::MeanLoss(r->token_loss);
  auto top = model::Seq2SeqTopTokens(m, decoder_last.data(), n_tgt,
                                     std::min(kPredictTopK, m.config().decoder_vocab));
  if (!top) return top.status();
  r->top = std::move(*top);
  if (r->request.ablate.empty()) return Status::Ok();
  DecoderLastSink base;
  model::Seq2SeqRunOptions plain;
  plain.control = control;
  if (Status st = model::RunSeq2Seq(m, TokenIds(r->source_tokens), TokenIds(r->decoder_tokens), plain, &base); !st)
    return st;
  auto base_loss = model::Seq2SeqTokenLoss(m, base.last().data(), n_tgt, r->labels);
  if (!base_loss) return base_loss.status();
  r->base_token_loss = std::move(*base_loss);
  r->base_loss = model::MeanLoss(r->base_token_loss);
  return Status::Ok();
}

}  // namespace

std::string TargetTokenText(const Seq2SeqFolder& folder, int id) {
  const std::optional<std::string> text = folder.tokenizers.target->IdToDisplay(id);
  return text ? ShownText(*text) : "#" + std::to_string(id);
}

Result<std::shared_ptr<const Seq2SeqFolder>> OpenSeq2SeqFolder(const std::string& dir) {
  auto folder = std::make_shared<Seq2SeqFolder>();
  folder->dir = dir;
  auto m = model::LoadSeq2SeqModel(dir);
  if (!m) return m.status();
  folder->model = *m;
  auto tok = tokenize::LoadSeq2SeqTokenizers(dir);
  if (!tok) return tok.status();
  folder->tokenizers = *tok;
  return std::shared_ptr<const Seq2SeqFolder>(std::move(folder));
}

std::shared_ptr<Seq2SeqResult> RunSeq2SeqRequest(
    const Seq2SeqRequest& request, const RunControl& control, std::shared_ptr<const Seq2SeqFolder>* cache,
    const std::function<void(std::shared_ptr<Seq2SeqResult>)>& publish) {
  auto result = std::make_shared<Seq2SeqResult>();
  result->request = request;
  auto fail = [&](Status st) {
    result->status = std::move(st);
    return result;
  };
  // 1. The folder.
  if (!*cache || (*cache)->dir != request.dir) {
    auto opened = OpenSeq2SeqFolder(request.dir);
    if (!opened) return fail(opened.status());
    *cache = *opened;
  }
  result->folder = *cache;
  const model::Seq2SeqModel& m = *result->folder->model;
  const tokenize::Seq2SeqTokenizers& tok = result->folder->tokenizers;
  const model::Seq2SeqConfig& c = m.config();
  // 2. The source.
  auto source = tok.source->Encode(request.source_text);
  if (!source) return fail(source.status());
  result->source_tokens = *source;
  if (result->source_tokens.empty()) return fail(Status::Error("the source text makes no tokens"));
  const Token start = TokenOfId(*tok.target, c.decoder_start_id);
  // 3. The target: the labels, and the decoder's tokens (shift_right: the start token, every label but the last).
  model::Seq2SeqRunOptions options;
  options.ablate = request.ablate;
  options.control = control;
  if (request.generate > 0) {
    // The encoder's maps (and the first decoder row) from a run over the start token alone.
    auto first = RunStacks(m, result->source_tokens, {start}, options);
    if (!first) return fail(first.status());
    GrowingStacks growing(c, *first);
    std::vector<Token> decoder{start};
    model::GreedyOptions g;
    g.max_new_tokens = request.generate;
    g.run = options;
    auto made = model::GreedyGenerate(m, TokenIds(result->source_tokens), g, [&](const model::GeneratedToken& t) {
      growing.Add(t);
      if (publish) {  // this token's rows, beside those made before
        auto step = std::make_shared<Seq2SeqResult>(*result);
        step->decoder_tokens = decoder;
        step->generated_ids = result->generated_ids;
        step->generated_ids.push_back(t.id);
        step->labels = step->generated_ids;
        step->stacks = growing.Stacks(TokenList(result->source_tokens), TokenList(decoder));
        step->generating = true;
        publish(step);
      }
      result->generated_ids.push_back(t.id);
      decoder.push_back(TokenOfId(*tok.target, t.id));
      return Status::Ok();
    });
    if (!made) return fail(made.status());
    result->generated_ids = made->ids;
    result->labels = made->ids;
    auto text = tok.decoder->Decode(made->ids);
    if (!text) return fail(text.status());
    result->generated_text = *text;
  } else {
    auto target = tok.target->Encode(request.target_text);
    if (!target) return fail(target.status());
    result->labels = TokenIds(*target);
    result->label_tokens = *target;
    result->decoder_tokens.push_back(start);
    for (size_t i = 0; i + 1 < target->size(); ++i) result->decoder_tokens.push_back((*target)[i]);
  }
  if (request.generate > 0) {
    result->decoder_tokens.push_back(start);
    for (size_t i = 0; i + 1 < result->labels.size(); ++i)
      result->decoder_tokens.push_back(TokenOfId(*tok.target, result->labels[i]));
    for (int id : result->labels) result->label_tokens.push_back(TokenOfId(*tok.target, id));
  }
  // 4. The whole run.
  std::vector<float> decoder_last;
  auto stacks = RunStacks(m, result->source_tokens, result->decoder_tokens, options, &decoder_last);
  if (!stacks) return fail(stacks.status());
  // 5. Its losses and top tokens.
  if (Status st = AddLosses(m, decoder_last, control, result.get()); !st) return fail(st);
  result->stacks = *stacks;
  return result;
}

Seq2SeqSession::Seq2SeqSession(std::function<void()> on_change)
    : queue_(
          "running the encoder-decoder model",
          [this](const Seq2SeqRequest& request, const LatestWins<Seq2SeqRequest, Seq2SeqResult>::Job& job) {
            auto result = RunSeq2SeqRequest(request, job.Control(), &folder_,
                                            [&job](std::shared_ptr<Seq2SeqResult> step) {
                                              step->generation = job.generation();
                                              job.Publish(std::move(step));
                                            });
            result->generation = job.generation();
            if (result->status.cancelled()) return std::shared_ptr<Seq2SeqResult>();
            return result;
          },
          std::move(on_change)) {}

}  // namespace attnviz
