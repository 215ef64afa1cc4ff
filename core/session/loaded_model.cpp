#include "session/loaded_model.h"

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

std::vector<int> TokenIds(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const tokenize::Token& t : tokens) ids.push_back(t.id);
  return ids;
}

std::vector<int> MaskPositions(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> at;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].piece == "[MASK]" || tokens[i].piece == "<mask>") at.push_back((int)i);
  return at;
}

}  // namespace attnviz
