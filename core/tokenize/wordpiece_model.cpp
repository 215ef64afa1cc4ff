#include "tokenize/wordpiece_model.h"

#include <algorithm>
#include <utility>

#include "tokenize/unicode.h"
#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

class WordPieceModel : public Model {
 public:
  WordPieceModel(Vocab vocab, WordPieceOptions options, int unk_id, size_t longest_piece)
      : vocab_(std::move(vocab)), options_(std::move(options)), unk_id_(unk_id), longest_piece_(longest_piece) {}

  // Greedy longest match from `start`: only candidates no longer than the vocabulary's longest piece are looked
  // up, so a word costs (its length) x (longest piece) lookups, not its length squared.
  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override {
    const uint32_t n = uint32_t(word.size());
    if (n == 0) return Status::Ok();
    if (n > options_.max_input_chars_per_word) {
      out->push_back({unk_id_, 0, n});
      return Status::Ok();
    }
    std::vector<ModelToken> pieces;
    std::string rest;                 // prefix + the code points from `start` on, up to longest_piece_ bytes
    std::vector<size_t> rest_length;  // rest_length[k]: bytes of `rest` up to code point start + k
    uint32_t start = 0;
    while (start < n) {
      rest.clear();
      rest_length.clear();
      if (start > 0) rest = options_.continuing_subword_prefix;
      rest_length.push_back(rest.size());
      for (uint32_t k = start; k < n; ++k) {
        AppendUtf8(word[k].cp, &rest);
        if (rest.size() > longest_piece_) break;  // no vocabulary piece is this long
        rest_length.push_back(rest.size());
      }
      int found = -1;
      uint32_t end = start + uint32_t(rest_length.size()) - 1;
      for (; end > start; --end) {
        if (const int* id = vocab_.Find(std::string_view(rest).substr(0, rest_length[end - start]))) {
          found = *id;
          break;
        }
      }
      if (found < 0) {  // no piece fits here: the whole word is unknown
        out->push_back({unk_id_, 0, n});
        return Status::Ok();
      }
      pieces.push_back({found, start, end});
      start = end;
    }
    out->insert(out->end(), pieces.begin(), pieces.end());
    return Status::Ok();
  }
  const Vocab& vocab() const override { return vocab_; }

 private:
  Vocab vocab_;
  WordPieceOptions options_;
  int unk_id_;
  size_t longest_piece_;  // bytes
};

class WordLevelModel : public Model {
 public:
  WordLevelModel(Vocab vocab, int unk_id) : vocab_(std::move(vocab)), unk_id_(unk_id) {}
  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override {
    if (word.empty()) return Status::Ok();
    const int* id = vocab_.Find(ToUtf8(word));
    out->push_back({id ? *id : unk_id_, 0, uint32_t(word.size())});
    return Status::Ok();
  }
  const Vocab& vocab() const override { return vocab_; }

 private:
  Vocab vocab_;
  int unk_id_;
};

}  // namespace

Result<std::unique_ptr<Model>> MakeWordPieceModel(Vocab vocab, WordPieceOptions options, const std::string& where) {
  const int* unk = vocab.Find(options.unk_token);
  if (!unk) return Status::ErrorAt(where, MsgId::kUnknownTokenAbsent, {ValueForMessage(options.unk_token)});
  int unk_id = *unk;
  size_t longest = 0;
  for (int id = 0; id <= vocab.max_id(); ++id)
    if (const std::string* piece = vocab.Piece(id)) longest = std::max(longest, piece->size());
  return std::unique_ptr<Model>(new WordPieceModel(std::move(vocab), std::move(options), unk_id, longest));
}

Result<std::unique_ptr<Model>> MakeWordLevelModel(Vocab vocab, std::string unk_token, const std::string& where) {
  const int* unk = vocab.Find(unk_token);
  if (!unk) return Status::ErrorAt(where, MsgId::kUnknownTokenAbsent, {ValueForMessage(unk_token)});
  int unk_id = *unk;
  return std::unique_ptr<Model>(new WordLevelModel(std::move(vocab), unk_id));
}

}  // namespace attnviz::tokenize
