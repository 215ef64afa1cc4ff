#include "session/loaded_model.h"

#include <algorithm>

#include "maps/layer_cut.h"
#include "sandbox/text.h"

namespace attnviz {

std::string ModelFolder::Describe() const {
  return dir + ": " + model->config().Describe() + " \xC2\xB7 " + tokenizer->Describe();
}

Result<std::vector<tokenize::Token>> TokenizeForModel(const ModelFolder& folder, const std::string& text) {
  // The same text rules as the sandbox's (no control characters: they would go raw into CSV and SVG).
  if (Status s = ValidatePlainText(text); !s) return s;
  // A text too long for the model's positions is refused before the tokenizer runs: no token covers more than
  // kMaxBytesPerToken bytes of a real text, so a longer one cannot fit (a 16 MiB word is not tokenized first).
  const model::ModelConfig& c = folder.model->config();
  const size_t most_bytes = (size_t)c.max_positions * kMaxBytesPerToken;
  if (text.size() > most_bytes)
    return Status::Error(MsgId::kTextTooManyBytesForModel,
                         {std::to_string(text.size()), std::to_string(most_bytes), std::to_string(c.max_positions),
                          std::to_string(kMaxBytesPerToken)});
  // Under that bound a text can still give far more tokens than positions ("a a a ..."): the tokenizer stops
  // once it has passed max_positions, so the text is refused without being tokenized to its end.
  auto tokens = folder.tokenizer->Encode(text, true, (size_t)c.max_positions);
  if (!tokens) return tokens.status();
  if (tokens->empty()) return Status::Error(MsgId::kTextNoTokens, {});
  if ((int)tokens->size() > c.max_positions)
    return Status::Error(MsgId::kTextTooLongForModel, {c.model_type, std::to_string(c.max_positions)});
  for (const tokenize::Token& t : *tokens)
    if (t.id < 0 || t.id >= c.vocab)
      return Status::Error(MsgId::kTokenOutsideVocab, {t.display, std::to_string(t.id), std::to_string(c.vocab)});
  return tokens;
}

Result<std::string> TextOfFirstTokens(const ModelFolder& folder, const std::string& text) {
  auto whole = TokenizeForModel(folder, text);
  if (whole.ok()) return text;
  const std::vector<MessagePart>& why = whole.status().parts();
  if (why.empty() || (why[0].id != MsgId::kTextTooLongForModel && why[0].id != MsgId::kTextTooManyBytesForModel))
    return whole.status();  // refused for something a shorter text would not mend
  const model::ModelConfig& c = folder.model->config();
  // No token spans more than kMaxBytesPerToken bytes: past that many bytes per position there is nothing to keep.
  std::string head = text.substr(0, std::min(text.size(), (size_t)c.max_positions * kMaxBytesPerToken));
  size_t lead = head.size();  // a character the cut split is left out whole
  while (lead > 0 && ((unsigned char)head[lead - 1] & 0xC0) == 0x80) --lead;
  if (lead > 0) {
    const unsigned char b = (unsigned char)head[lead - 1];
    const size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (head.size() - (lead - 1) < need) head.resize(lead - 1);
  }
  // The tokens the post-processor adds ([CLS] ... [SEP], <s>) take positions too.
  auto bare = folder.tokenizer->Encode("a", false), dressed = folder.tokenizer->Encode("a", true);
  const int added = bare.ok() && dressed.ok() ? (int)dressed->size() - (int)bare->size() : 0;
  auto tokens = folder.tokenizer->Encode(head, false, (size_t)c.max_positions);
  if (!tokens) return tokens.status();
  // Cut after token `keep - 1`; a cut text may tokenize into a few more tokens at its end: then one fewer.
  const int most = std::min((int)tokens->size(), c.max_positions - added);
  for (int keep = most; keep > 0 && keep > most - 16; --keep) {
    const std::string cut = head.substr(0, (*tokens)[(size_t)keep - 1].byte_end);
    if (!cut.empty() && TokenizeForModel(folder, cut).ok()) return cut;
  }
  return whole.status();
}

tokenize::Token TokenOfId(const tokenize::Tokenizer& tokenizer, int id) {
  tokenize::Token t;
  t.id = id;
  t.piece = tokenizer.IdToPiece(id).value_or("#" + std::to_string(id));
  t.bytes = tokenizer.IdToBytes(id).value_or(t.piece);
  t.display = tokenizer.IdToDisplay(id).value_or(t.piece);
  t.special = tokenizer.IsSpecialId(id);
  return t;
}

std::vector<int> TokenIds(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const tokenize::Token& t : tokens) ids.push_back(t.id);
  return ids;
}

std::vector<int> MaskPositions(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> at;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (IsMaskToken(tokens[i])) at.push_back((int)i);
  return at;
}

}  // namespace attnviz
