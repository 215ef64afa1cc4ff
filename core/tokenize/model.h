// The model stage: one pre-tokenized word in, vocabulary ids out (BPE, WordPiece, WordLevel), and the
// vocabulary both ways.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "tokenize/aligned_text.h"

namespace attnviz::tokenize {

// One model token: its id and the code points [first, last) of the word it covers.
struct ModelToken {
  int id = 0;
  uint32_t first = 0;
  uint32_t last = 0;
};

// The largest id a file may give (vocabularies hold at most a few hundred thousand tokens); every id read from a
// file is checked against it in 64 bits before it becomes an int.
constexpr int64_t kMaxTokenId = 50'000'000;

// piece <-> id. Ids may have gaps (files list them as a map).
class Vocab {
 public:
  // Fails when two pieces share an id or an id is negative or over kMaxTokenId; `where` names the file.
  static Result<Vocab> FromPairs(std::vector<std::pair<std::string, int64_t>> pairs, const std::string& where);
  const int* Find(std::string_view piece) const;
  const std::string* Piece(int id) const;
  size_t size() const { return ids_.size(); }
  int max_id() const { return int(pieces_.size()) - 1; }

 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> pieces_;  // by id; "" for gaps
  std::vector<bool> has_piece_;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const = 0;
  virtual const Vocab& vocab() const = 0;
};

}  // namespace attnviz::tokenize
