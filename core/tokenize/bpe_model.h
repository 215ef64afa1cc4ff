// Byte-pair encoding as the Hugging Face library runs it: start from one symbol per code point (or the
// <0xNN> byte tokens when a code point is not in the vocabulary and byte_fallback is on, or the unknown
// token), then repeatedly merge the adjacent pair with the lowest merge rank, leftmost first. A priority queue
// over a linked list of symbols keeps a word of n code points at O(n log n), so one 100 KB "word" is fine.
// Results are cached per word (short words only, bounded count), as the library does.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenize/model.h"

namespace attnviz::tokenize {

struct BpeOptions {
  std::optional<std::string> unk_token;
  std::string continuing_subword_prefix;  // added before every symbol but the first, e.g. "##"
  std::string end_of_word_suffix;         // added after the last symbol, e.g. "</w>"
  bool fuse_unk = false;                  // consecutive unknown code points become one unknown token
  bool byte_fallback = false;             // unknown code points become <0xNN> tokens when the vocab has them
  bool ignore_merges = false;             // a word that is itself in the vocabulary is one token
};

class BpeModel : public Model {
 public:
  // `merges` in rank order; each side must be in the vocabulary, and so must their concatenation.
  static Result<std::unique_ptr<BpeModel>> Create(Vocab vocab,
                                                  const std::vector<std::pair<std::string, std::string>>& merges,
                                                  BpeOptions options, const std::string& where);
  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override;
  const Vocab& vocab() const override { return vocab_; }

 private:
  struct MergeResult {
    int rank;
    int new_id;
  };
  Status MergeWord(const AlignedText& word, const std::string& utf8, std::vector<ModelToken>* out) const;
  const MergeResult* FindMerge(int left, int right) const;
  void FindSpecialIds();  // unk_id_ and byte_ids_ from the options

  Vocab vocab_;
  BpeOptions options_;
  std::unordered_map<uint64_t, MergeResult> merges_;
  std::optional<int> unk_id_;
  std::vector<int> byte_ids_;  // <0xNN> ids, -1 when absent

  static constexpr size_t kCacheCapacity = 10000;
  static constexpr size_t kCacheMaxWordBytes = 256;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<ModelToken>> cache_;
};

}  // namespace attnviz::tokenize
