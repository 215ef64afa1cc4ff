#include "tokenize/spm_model.h"

#include <algorithm>
#include <cstdio>

#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// llama.cpp's llm_bigram_spm::comparator: the top of the heap is the highest score, then the leftmost.
bool Below(float a_score, int a_left, float b_score, int b_left) {
  return a_score < b_score || (a_score == b_score && a_left > b_left);
}

}  // namespace

std::unique_ptr<SpmModel> SpmModel::Create(Vocab vocab, std::vector<float> scores, std::optional<int> unk_id,
                                           std::string where) {
  auto model = std::unique_ptr<SpmModel>(new SpmModel());
  model->vocab_ = std::move(vocab);
  model->scores_ = std::move(scores);
  model->unk_id_ = unk_id;
  model->where_ = std::move(where);
  // Views into the vocabulary the model now owns (it never moves again); a repeated piece keeps its first id, as
  // Vocab does (llama.cpp refuses such a vocabulary).
  for (int id = 0; id <= model->vocab_.max_id(); ++id) {
    const std::string* piece = model->vocab_.Piece(id);
    if (!piece) continue;
    model->ids_.emplace(std::string_view(*piece), id);
    model->longest_ = std::max(model->longest_, piece->size());
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const char raw = (char)b;
    int id = model->Find(name);
    if (id < 0) id = model->Find(std::string_view(&raw, 1));  // llama.cpp's byte_to_token falls back to the byte
    model->byte_ids_[b] = id;
  }
  return model;
}

int SpmModel::Find(std::string_view piece) const {
  auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

// llama.cpp's try_add_bigram: the pair is a candidate when its text is a piece, scored by that piece.
void SpmModel::TryBigram(const std::string& utf8, const std::vector<Symbol>& symbols, int left, int right,
                         std::vector<Bigram>* queue) const {
  if (left < 0 || right < 0) return;
  const uint32_t size = symbols[(size_t)left].n + symbols[(size_t)right].n;
  if (size > longest_) return;  // no piece is that long
  const int id = Find(std::string_view(utf8).substr(symbols[(size_t)left].byte, size));
  if (id < 0) return;
  const float score = (size_t)id < scores_.size() ? scores_[(size_t)id] : 0.0f;
  queue->push_back({left, right, score, size});
  std::push_heap(queue->begin(), queue->end(),
                 [](const Bigram& a, const Bigram& b) { return Below(a.score, a.left, b.score, b.left); });
}

// llama.cpp's resegment for a final symbol: its piece, else its bytes. (Its split back through rev_merge never
// applies: a merged symbol is a piece by construction, so only a single character can be no piece.)
Status SpmModel::Emit(const std::string& utf8, const AlignedText& word, const Symbol& s,
                      std::vector<ModelToken>* out) const {
  const std::string_view text = std::string_view(utf8).substr(s.byte, s.n);
  if (const int id = Find(text); id >= 0) {
    out->push_back({id, s.first, s.last});
    return Status::Ok();
  }
  bool all = true;
  for (unsigned char b : text) all = all && byte_ids_[b] >= 0;
  if (all) {
    for (unsigned char b : text) out->push_back({byte_ids_[b], s.first, s.last});
    return Status::Ok();
  }
  if (unk_id_) {
    out->push_back({*unk_id_, s.first, s.last});
    return Status::Ok();
  }
  char code[16], byte[8];
  std::snprintf(code, sizeof code, "U+%04X", (unsigned)word[s.first].cp);
  unsigned char missing = 0;
  for (unsigned char b : text)
    if (byte_ids_[b] < 0) {
      missing = b;
      break;
    }
  std::snprintf(byte, sizeof byte, "<0x%02X>", missing);
  return Status::ErrorAt(where_, MsgId::kSpmCharacterNotInVocab, {code, byte});
}

Status SpmModel::Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const {
  if (word.empty()) return Status::Ok();
  // 1. One symbol per character.
  std::string utf8;
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  for (uint32_t i = 0; i < word.size(); ++i) {
    const uint32_t at = (uint32_t)utf8.size();
    AppendUtf8(word[i].cp, &utf8);
    symbols.push_back({at, (uint32_t)utf8.size() - at, i, i + 1, (int)i - 1, (int)i + 1});
  }
  symbols.back().next = -1;
  // 2. Every neighbouring pair that is a piece, then the best first; a pair one of whose sides has changed since it
  //    was queued is stale (llama.cpp tells by the sizes).
  std::vector<Bigram> queue;
  auto below = [](const Bigram& a, const Bigram& b) { return Below(a.score, a.left, b.score, b.left); };
  for (int i = 1; i < (int)symbols.size(); ++i) TryBigram(utf8, symbols, i - 1, i, &queue);
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), below);
    const Bigram top = queue.back();
    queue.pop_back();
    Symbol& left = symbols[(size_t)top.left];
    Symbol& right = symbols[(size_t)top.right];
    if (left.n == 0 || right.n == 0 || left.n + right.n != top.size) continue;
    left.n += right.n;
    left.last = right.last;
    right.n = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[(size_t)right.next].prev = top.left;
    TryBigram(utf8, symbols, left.prev, top.left, &queue);
    TryBigram(utf8, symbols, top.left, left.next, &queue);
  }
  // 3. Each remaining symbol as its piece or its bytes.
  for (int i = 0; i != -1; i = symbols[(size_t)i].next)
    if (Status s = Emit(utf8, word, symbols[(size_t)i], out); !s.ok()) return s;
  return Status::Ok();
}

}  // namespace attnviz::tokenize
