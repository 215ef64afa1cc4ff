#include "maps/token_list.h"

#include <string>
#include <utility>

namespace attnviz {

TokenList::TokenList(std::vector<Token> tokens)
    : tokens_(std::make_shared<const std::vector<Token>>(std::move(tokens))) {}

TokenList::TokenList(std::shared_ptr<const std::vector<Token>> tokens) : tokens_(std::move(tokens)) {}

const std::vector<Token>& TokenList::all() const {
  static const std::vector<Token> none;
  return tokens_ ? *tokens_ : none;
}

namespace {

// !! A short string lives inside the std::string itself (libstdc++ keeps up to 15 characters there): only a longer
// one holds memory of its own.
double OwnBytes(const std::string& s) { return s.capacity() > 15 ? (double)s.capacity() + 1 : 0.0; }

}  // namespace

double TokenListBytes(const std::vector<Token>& tokens) {
  double bytes = (double)tokens.capacity() * sizeof(Token);
  for (const Token& t : tokens) bytes += OwnBytes(t.piece) + OwnBytes(t.bytes) + OwnBytes(t.display);
  return bytes;
}

}  // namespace attnviz
