#include "maps/layer_cut.h"

#include <utility>

namespace attnviz {
namespace {

// maps [n_head, n, n] -> [n_head, m, m] at the rows and columns `keep` (m = keep.size()).
SharedTensor CutSquare(const Tensor& maps, const std::vector<int>& keep) {
  const size_t n_head = maps.dim(0), n = maps.dim(1), m = keep.size();
  auto out = std::make_shared<Tensor>();
  out->Resize({n_head, m, m});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t a = 0; a < m; ++a)
      for (size_t b = 0; b < m; ++b)
        out->data[(h * m + a) * m + b] = maps.data[(h * n + (size_t)keep[a]) * n + (size_t)keep[b]];
  return out;
}

// rows [n_head, n, d] -> [n_head, m, d] at the rows `keep`.
SharedTensor CutRows(const Tensor& rows, const std::vector<int>& keep) {
  const size_t n_head = rows.dim(0), n = rows.dim(1), d = rows.dim(2), m = keep.size();
  auto out = std::make_shared<Tensor>();
  out->Resize({n_head, m, d});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t a = 0; a < m; ++a)
      for (size_t c = 0; c < d; ++c) out->data[(h * m + a) * d + c] = rows.data[(h * n + (size_t)keep[a]) * d + c];
  return out;
}

// scale [n_head, n] -> [n_head, m] at the columns `keep`.
SharedTensor CutColumns(const Tensor& scale, const std::vector<int>& keep) {
  const size_t n_head = scale.dim(0), n = scale.dim(1), m = keep.size();
  auto out = std::make_shared<Tensor>();
  out->Resize({n_head, m});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t b = 0; b < m; ++b) out->data[h * m + b] = scale.data[h * n + (size_t)keep[b]];
  return out;
}

}  // namespace

bool IsMaskToken(const Token& token) { return token.piece == "[MASK]" || token.piece == "<mask>"; }

bool HiddenAsSpecial(const Token& token) { return token.special && !IsMaskToken(token); }

std::vector<int> NonSpecialPositions(const TokenList& tokens) {
  std::vector<int> keep;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (!HiddenAsSpecial(tokens[i])) keep.push_back((int)i);
  if (keep.empty())
    for (size_t i = 0; i < tokens.size(); ++i) keep.push_back((int)i);
  return keep;
}

std::shared_ptr<const LayerMaps> CutLayerMaps(const std::shared_ptr<const LayerMaps>& maps, const std::vector<int>& keep) {
  if (!maps || maps->probs->empty() || keep.size() == (size_t)maps->n_q()) return maps;
  // 1. The maps and what makes their rows, at the kept positions.
  auto cut = std::make_shared<LayerMaps>(*maps);
  cut->probs = CutSquare(*maps->probs, keep);
  if (!maps->q->empty()) cut->q = CutRows(*maps->q, keep);
  if (!maps->k->empty()) cut->k = CutRows(*maps->k, keep);
  if (!maps->col_scale->empty()) cut->col_scale = CutColumns(*maps->col_scale, keep);
  cut->pyramid.reset();  // of the full map (the cut keeps its probs whole)
  // 2. The tokens: one list for rows and columns.
  std::vector<Token> tokens;
  for (int i : keep) tokens.push_back(maps->kv_tokens[(size_t)i]);
  cut->kv_tokens = TokenList(std::move(tokens));
  cut->query_tokens = cut->kv_tokens;
  // 3. The row figures of the kept rows.
  for (HeadMetrics& hm : cut->metrics) {
    if (hm.rows.size() != (size_t)maps->n_q()) continue;  // no per-row figures to cut
    std::vector<RowMetrics> rows;
    for (int i : keep) rows.push_back(hm.rows[(size_t)i]);
    hm.rows = std::move(rows);
  }
  return cut;
}

}  // namespace attnviz
