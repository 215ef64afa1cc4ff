#include "tokenize/model.h"

#include <algorithm>

#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {

Result<Vocab> Vocab::FromPairs(std::vector<std::pair<std::string, int64_t>> pairs, const std::string& where) {
  Vocab v;
  int64_t max_id = -1;
  for (const auto& [piece, id] : pairs) {
    if (id < 0) return Status::ErrorAt(where, MsgId::kVocabNegativeId, {ValueForMessage(piece), std::to_string(id)});
    if (id > kMaxTokenId)
      return Status::ErrorAt(where, MsgId::kVocabImplausibleId, {ValueForMessage(piece), std::to_string(id)});
    max_id = std::max(max_id, id);
  }
  v.pieces_.assign(size_t(max_id + 1), std::string());
  v.has_piece_.assign(size_t(max_id + 1), false);
  v.ids_.reserve(pairs.size());
  for (auto& [piece, id] : pairs) {
    if (v.has_piece_[size_t(id)])
      return Status::ErrorAt(where, MsgId::kVocabIdTwice,
                             {std::to_string(id), ValueForMessage(v.pieces_[size_t(id)]), ValueForMessage(piece)});
    v.has_piece_[size_t(id)] = true;
    v.pieces_[size_t(id)] = piece;
    v.ids_.insert_or_assign(std::move(piece), int(id));  // a repeated piece: the last id wins, as in the library
  }
  return v;
}

const int* Vocab::Find(std::string_view piece) const {
  auto it = ids_.find(std::string(piece));
  return it == ids_.end() ? nullptr : &it->second;
}

const std::string* Vocab::Piece(int id) const {
  if (id < 0 || size_t(id) >= pieces_.size() || !has_piece_[size_t(id)]) return nullptr;
  return &pieces_[size_t(id)];
}

}  // namespace attnviz::tokenize
