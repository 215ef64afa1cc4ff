// SentencePiece BPE as llama.cpp's SPM tokenizer runs it (llama-vocab.cpp, llm_tokenizer_spm_session), for GGUF
// vocabularies (tokenizer.ggml.model "llama"): one symbol per character; two neighbours merge when their
// concatenated text is a piece of the vocabulary, whatever its type, highest score first, ties leftmost; then each
// symbol is its piece, or (a character that is no piece) its bytes as <0xNN> tokens (or the byte itself as a
// piece). !! A merge needs no token for either side: "▁m" + "at" forms "▁mat" where "m" is no piece, which pairs of
// tokens (Hugging Face's merges) never reach.
// A character with neither a piece nor byte tokens (llama.cpp aborts there) is the unknown token, as SentencePiece
// gives it, or a message without one.
// Work: a word of n characters tries at most 3n pairs, each looked up by at most the longest piece's bytes (a
// pair longer than every piece is not looked up), over a priority queue: O(n log n + n * longest piece).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenize/model.h"

namespace attnviz::tokenize {

class SpmModel : public Model {
 public:
  // scores: [n_vocab] by id (missing ones are 0, as llama.cpp reads an absent array); `where` names the file.
  static std::unique_ptr<SpmModel> Create(Vocab vocab, std::vector<float> scores, std::optional<int> unk_id,
                                          std::string where);
  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override;
  const Vocab& vocab() const override { return vocab_; }

 private:
  struct Symbol {
    uint32_t byte, n;         // its text: [byte, byte + n) of the word's UTF-8
    uint32_t first, last;     // the word's characters it covers
    int prev, next;
  };
  struct Bigram {
    int left, right;
    float score;
    uint32_t size;
  };
  int Find(std::string_view piece) const;  // -1 when absent
  void TryBigram(const std::string& utf8, const std::vector<Symbol>& symbols, int left, int right,
                 std::vector<Bigram>* queue) const;
  Status Emit(const std::string& utf8, const AlignedText& word, const Symbol& s, std::vector<ModelToken>* out) const;

  Vocab vocab_;
  std::vector<float> scores_;
  std::optional<int> unk_id_;
  std::string where_;
  std::unordered_map<std::string_view, int> ids_;  // views of vocab_'s pieces
  size_t longest_ = 0;                             // bytes of the longest piece
  int byte_ids_[256];                              // <0xNN>, else the byte as a piece, else -1
};

}  // namespace attnviz::tokenize
