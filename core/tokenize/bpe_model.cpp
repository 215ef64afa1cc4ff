#include "tokenize/bpe_model.h"

#include <cstdio>
#include <queue>

#include "tokenize/unicode.h"
#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

uint64_t PairKey(int left, int right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }

std::string ByteTokenName(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  return buf;
}

}  // namespace

Result<std::unique_ptr<BpeModel>> BpeModel::Create(Vocab vocab,
                                                   const std::vector<std::pair<std::string, std::string>>& merges,
                                                   BpeOptions options, const std::string& where) {
  auto model = std::unique_ptr<BpeModel>(new BpeModel());
  model->vocab_ = std::move(vocab);
  model->options_ = std::move(options);
  const Vocab& v = model->vocab_;
  const size_t prefix_len = model->options_.continuing_subword_prefix.size();
  model->merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    const int* ia = v.Find(a);
    const int* ib = v.Find(b);
    if (!ia || !ib)
      return Status::ErrorAt(where, MsgId::kMergeNotInVocab,
                             {std::to_string(rank + 1), ValueForMessage(a), ValueForMessage(b),
                              ValueForMessage(!ia ? a : b)});
    // With a continuing-subword prefix the right side carries it, and the merged token does not repeat it.
    std::string joined = a + (prefix_len && b.size() >= prefix_len ? b.substr(prefix_len) : b);
    const int* inew = v.Find(joined);
    if (!inew)
      return Status::ErrorAt(where, MsgId::kMergeNotInVocab,
                             {std::to_string(rank + 1), ValueForMessage(a), ValueForMessage(b),
                              ValueForMessage(joined)});
    // A repeated pair: the library builds a map from the list, so the last rank wins.
    model->merges_[PairKey(*ia, *ib)] = MergeResult{int(rank), *inew};
  }
  model->FindSpecialIds();
  return model;
}

void BpeModel::FindSpecialIds() {
  const Vocab& v = vocab_;
  if (options_.unk_token) {
    const int* u = v.Find(*options_.unk_token);
    if (u) unk_id_ = *u;
  }
  byte_ids_.assign(256, -1);
  if (options_.byte_fallback)
    for (int b = 0; b < 256; ++b)
      if (const int* id = v.Find(ByteTokenName(static_cast<unsigned char>(b)))) byte_ids_[size_t(b)] = *id;
}

const BpeModel::MergeResult* BpeModel::FindMerge(int left, int right) const {
  auto it = merges_.find(PairKey(left, right));
  return it == merges_.end() ? nullptr : &it->second;
}

Status BpeModel::Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const {
  if (word.empty()) return Status::Ok();
  std::string utf8 = ToUtf8(word);
  if (options_.ignore_merges) {
    if (const int* id = vocab_.Find(utf8)) {
      out->push_back({*id, 0, uint32_t(word.size())});
      return Status::Ok();
    }
  }
  const bool cacheable = utf8.size() < kCacheMaxWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = cache_.find(utf8);
    if (it != cache_.end()) {
      out->insert(out->end(), it->second.begin(), it->second.end());
      return Status::Ok();
    }
  }
  std::vector<ModelToken> tokens;
  Status s = MergeWord(word, utf8, &tokens);
  if (!s.ok()) return s;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() < kCacheCapacity) cache_.emplace(utf8, tokens);
  }
  out->insert(out->end(), tokens.begin(), tokens.end());
  return Status::Ok();
}

Status BpeModel::MergeWord(const AlignedText& word, const std::string& utf8, std::vector<ModelToken>* out) const {
  struct Symbol {
    int id;
    uint32_t first, last;  // code points of the word
    int prev, next;
    bool alive;
  };
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  auto add = [&](int id, uint32_t first, uint32_t last) {
    int index = int(symbols.size());
    symbols.push_back({id, first, last, index - 1, index + 1, true});
  };
  std::optional<std::pair<int, uint32_t>> pending_unk;  // id and first code point of an unknown run
  std::string s;
  for (uint32_t i = 0; i < word.size(); ++i) {
    s.clear();
    if (i > 0) s += options_.continuing_subword_prefix;
    AppendUtf8(word[i].cp, &s);
    if (i + 1 == word.size()) s += options_.end_of_word_suffix;
    if (const int* id = vocab_.Find(s)) {
      if (pending_unk) {
        add(pending_unk->first, pending_unk->second, i);
        pending_unk.reset();
      }
      add(*id, i, i + 1);
      continue;
    }
    if (options_.byte_fallback) {
      // The library looks up the bytes of the string it tried (prefix and suffix included).
      bool all = true;
      for (unsigned char b : s) all = all && byte_ids_[b] >= 0;
      if (all) {
        for (unsigned char b : s) add(byte_ids_[b], i, i + 1);
        continue;
      }
    }
    if (options_.unk_token) {
      if (!unk_id_)
        return Status::Error(MsgId::kUnknownTokenAbsent, {ValueForMessage(*options_.unk_token)});
      if (pending_unk && !options_.fuse_unk) {
        add(pending_unk->first, pending_unk->second, i);
        pending_unk.reset();
      }
      if (!pending_unk) pending_unk = std::make_pair(*unk_id_, i);
    }
    // No unknown token: the library drops the code point.
  }
  if (pending_unk) add(pending_unk->first, pending_unk->second, uint32_t(word.size()));
  if (symbols.empty()) return Status::Ok();
  symbols.back().next = -1;

  struct Candidate {
    int rank, pos, new_id;
  };
  auto later = [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> queue(later);
  for (size_t i = 0; i + 1 < symbols.size(); ++i)
    if (const MergeResult* m = FindMerge(symbols[i].id, symbols[i + 1].id))
      queue.push({m->rank, int(i), m->new_id});
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[size_t(top.pos)];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[size_t(left.next)];
    const MergeResult* m = FindMerge(left.id, right.id);
    if (!m || m->new_id != top.new_id) continue;  // stale: one side has merged since
    left.id = top.new_id;
    left.last = right.last;
    right.alive = false;
    left.next = right.next;
    if (left.next >= 0) symbols[size_t(left.next)].prev = top.pos;
    if (left.prev >= 0)
      if (const MergeResult* pm = FindMerge(symbols[size_t(left.prev)].id, left.id))
        queue.push({pm->rank, left.prev, pm->new_id});
    if (left.next >= 0)
      if (const MergeResult* nm = FindMerge(left.id, symbols[size_t(left.next)].id))
        queue.push({nm->rank, top.pos, nm->new_id});
  }
  for (const Symbol& sym : symbols)
    if (sym.alive) out->push_back({sym.id, sym.first, sym.last});
  (void)utf8;
  return Status::Ok();
}

}  // namespace attnviz::tokenize
