// TokenList: the tokens of a map's rows or columns, one list shared by every layer that reads them (and the stack
// that holds the layers): copying a LayerMaps copies a pointer, never the tokens. Reads like a const vector.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "tokenize/token.h"

namespace attnviz {

class TokenList {
 public:
  TokenList() = default;
  // A new list of `tokens` (implicit: a layer made from a vector shares nothing with others).
  TokenList(std::vector<Token> tokens);  // NOLINT(google-explicit-constructor)
  explicit TokenList(std::shared_ptr<const std::vector<Token>> tokens);

  size_t size() const { return tokens_ ? tokens_->size() : 0; }
  bool empty() const { return size() == 0; }
  const Token& operator[](size_t i) const { return (*tokens_)[i]; }
  const Token& front() const { return tokens_->front(); }
  const Token& back() const { return tokens_->back(); }
  std::vector<Token>::const_iterator begin() const { return all().begin(); }
  std::vector<Token>::const_iterator end() const { return all().end(); }
  const std::vector<Token>& all() const;
  operator const std::vector<Token>&() const { return all(); }  // NOLINT(google-explicit-constructor)
  // Which list this is (null: none): two TokenLists with the same one share their tokens.
  const std::vector<Token>* shared() const { return tokens_.get(); }

 private:
  std::shared_ptr<const std::vector<Token>> tokens_;
};

// The bytes `tokens` keep: the Tokens and their strings' characters.
double TokenListBytes(const std::vector<Token>& tokens);

}  // namespace attnviz
