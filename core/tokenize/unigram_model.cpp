#include "tokenize/unigram_model.h"

#include <algorithm>
#include <cstdio>

#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

// The library's penalty below the lowest piece score for a code point no piece covers (K_UNK_PENALTY).
constexpr double kUnknownPenalty = 10.0;

size_t Utf8Length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  return 4;
}

class UnigramModel : public Model {
 public:
  UnigramModel(Vocab vocab, std::vector<double> scores, UnigramOptions options, size_t longest_piece)
      : vocab_(std::move(vocab)), scores_(std::move(scores)), options_(options), longest_piece_(longest_piece) {
    min_score_ = scores_.empty() ? 0.0 : *std::min_element(scores_.begin(), scores_.end());
    char name[8];
    byte_ids_.assign(256, -1);
    for (int b = 0; b < 256; ++b) {
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      if (const int* id = vocab_.Find(name)) byte_ids_[size_t(b)] = *id;
    }
  }

  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override {
    std::vector<uint32_t> char_at_byte;
    const std::string text = ToUtf8(word, &char_at_byte);
    std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) bytes of each piece of the best path
    std::vector<int> ids;
    Status s = BestPath(text, &spans, &ids);
    if (!s.ok()) return s;
    for (size_t k = 0; k < spans.size(); ++k) {
      const auto [begin, end] = spans[k];
      const uint32_t first = char_at_byte[begin], last = char_at_byte[end];
      if (ids[k] >= 0) {
        out->push_back({ids[k], first, last});
        continue;
      }
      // An unknown stretch: itself when it is a piece after all (the unknown token's own text matched), its
      // bytes when every <0xNN> token is there, else the unknown token.
      if (const int* id = vocab_.Find(std::string_view(text).substr(begin, end - begin))) {
        out->push_back({*id, first, last});
        continue;
      }
      bool all_bytes = options_.byte_fallback;
      for (size_t b = begin; all_bytes && b < end; ++b) all_bytes = byte_ids_[(unsigned char)text[b]] >= 0;
      if (all_bytes) {
        for (size_t b = begin; b < end; ++b) out->push_back({byte_ids_[(unsigned char)text[b]], first, last});
      } else if (options_.unk_id >= 0) {
        out->push_back({options_.unk_id, first, last});
      } else {
        return Status::Error("Unigram: " + ValueForMessage(text.substr(begin, end - begin)) +
                             " is in no vocabulary piece and the model has no unk_id");
      }
    }
    return Status::Ok();
  }
  const Vocab& vocab() const override { return vocab_; }

 private:
  // Viterbi over byte positions (the library's encode_optimized); a piece the vocabulary lacks gets id -1 (an
  // unknown stretch, fused with its unknown neighbours).
  Status BestPath(const std::string& text, std::vector<std::pair<size_t, size_t>>* spans, std::vector<int>* ids) const {
    struct Node {
      int id = -1;
      double score = 0.0;
      long starts_at = -1;  // -1: no path ends here yet
    };
    const size_t n = text.size();
    std::vector<Node> best(n + 1);
    best[0].starts_at = 0;
    const double unk_score = min_score_ - kUnknownPenalty;
    for (size_t at = 0; at < n;) {
      const double here = best[at].score;
      const size_t char_len = std::min(Utf8Length((unsigned char)text[at]), n - at);
      bool has_single = false;
      const size_t most = std::min(longest_piece_, n - at);
      for (size_t len = 1; len <= most; ++len) {
        const int* id = vocab_.Find(std::string_view(text).substr(at, len));
        if (!id) continue;
        Node& target = best[at + len];
        const double candidate = here + scores_[size_t(*id)];
        if (target.starts_at < 0 || candidate > target.score) target = {*id, candidate, long(at)};
        if (len == char_len) has_single = true;
      }
      if (!has_single) {
        Node& target = best[at + char_len];
        const double candidate = here + unk_score;
        if (target.starts_at < 0 || candidate > target.score) target = {-1, candidate, long(at)};
      }
      at += char_len;
    }
    // Back from the end; consecutive unknown pieces fuse into one stretch.
    std::vector<std::pair<size_t, size_t>> rev_spans;
    std::vector<int> rev_ids;
    for (size_t end = n; end > 0;) {
      const Node& node = best[end];
      const size_t begin = size_t(node.starts_at);
      const int id = node.id >= 0 && node.id == options_.unk_id ? -1 : node.id;
      if (id < 0 && options_.fuse_unk && !rev_ids.empty() && rev_ids.back() < 0) {
        rev_spans.back().first = begin;
      } else {
        rev_spans.push_back({begin, end});
        rev_ids.push_back(id);
      }
      end = begin;
    }
    spans->assign(rev_spans.rbegin(), rev_spans.rend());
    ids->assign(rev_ids.rbegin(), rev_ids.rend());
    return Status::Ok();
  }

  Vocab vocab_;
  std::vector<double> scores_;  // by id
  UnigramOptions options_;
  size_t longest_piece_ = 0;    // bytes
  double min_score_ = 0.0;
  std::vector<int> byte_ids_;   // <0xNN> ids, -1 when absent
};

}  // namespace

Result<std::unique_ptr<Model>> MakeUnigramModel(std::vector<std::pair<std::string, double>> pieces,
                                                UnigramOptions options, const std::string& where) {
  std::vector<std::pair<std::string, int64_t>> pairs;
  std::vector<double> scores;
  size_t longest = 0;
  pairs.reserve(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    longest = std::max(longest, pieces[i].first.size());
    scores.push_back(pieces[i].second);
    pairs.emplace_back(std::move(pieces[i].first), int64_t(i));
  }
  if (options.unk_id >= int64_t(pairs.size()))
    return Status::ErrorAt(where, MsgId::kTokenizerIdNamesNoToken,
                           {"unk_id", std::to_string(options.unk_id), std::to_string(int64_t(pairs.size()) - 1)});
  auto vocab = Vocab::FromPairs(std::move(pairs), where);
  if (!vocab.ok()) return vocab.status();
  return std::unique_ptr<Model>(new UnigramModel(std::move(vocab.value()), std::move(scores), options, longest));
}

}  // namespace attnviz::tokenize
