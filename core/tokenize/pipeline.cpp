#include "tokenize/pipeline.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "sandbox/text.h"
#include "tokenize/byte_level.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// "<0xEB>" -> 0xEB.
std::optional<unsigned char> ByteFallbackValue(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return std::nullopt;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int hi = hex(piece[3]), lo = hex(piece[4]);
  if (hi < 0 || lo < 0) return std::nullopt;
  return static_cast<unsigned char>(hi * 16 + lo);
}

class PipelineTokenizer : public Tokenizer {
 public:
  PipelineTokenizer(PipelineParts parts, AddedVocabulary added)
      : parts_(std::move(parts)), added_(std::move(added)) {
    std::unordered_set<int> ids;
    const Vocab& v = parts_.model->vocab();
    distinct_ids_ = v.size();
    for (const auto& t : added_.tokens())
      if (!v.Piece(t.id) && ids.insert(t.id).second) ++distinct_ids_;
  }

  Result<std::vector<Token>> Encode(std::string_view text, bool add_special_tokens, size_t max_tokens) const override {
    if (text.size() > kMaxEncodeBytes)
      return Status::Error(MsgId::kTextTooLongToTokenize, {std::to_string(text.size()), std::to_string(kMaxEncodeBytes)});
    Status valid = ValidateUtf8(text);
    if (!valid.ok()) return valid;

    std::vector<Piece> pieces(1);
    pieces[0].chars = AlignUtf8(text);
    if (pieces[0].chars.empty()) pieces.clear();
    added_.SplitRaw(&pieces);
    if (parts_.normalizer) {
      for (auto& p : pieces) {
        if (p.added_token >= 0) continue;
        Status s = parts_.normalizer->Normalize(&p.chars);
        if (!s.ok()) return s;
      }
      pieces.erase(std::remove_if(pieces.begin(), pieces.end(), [](const Piece& p) { return p.chars.empty(); }),
                   pieces.end());
    }
    added_.SplitNormalized(&pieces);
    if (parts_.pre_tokenizer) {
      Status s = parts_.pre_tokenizer->PreTokenize(&pieces);
      if (!s.ok()) return s;
    }

    std::vector<Token> tokens;
    std::vector<ModelToken> model_tokens;
    for (const Piece& p : pieces) {
      if (p.added_token >= 0) {
        const AddedToken& a = added_.token(p.added_token);
        ByteSpan span = SpanOf(p.chars, 0, p.chars.size());
        Token t;
        t.id = a.id;
        t.piece = a.content;
        t.bytes = a.content;
        t.display = a.content;
        t.byte_begin = span.begin;
        t.byte_end = span.end;
        t.special = a.special;
        tokens.push_back(std::move(t));
        if (max_tokens > 0 && tokens.size() > max_tokens) return tokens;
        continue;
      }
      model_tokens.clear();
      Status s = parts_.model->Tokenize(p.chars, &model_tokens);
      if (!s.ok()) return s;
      for (const ModelToken& m : model_tokens) {
        ByteSpan span = SpanOf(p.chars, m.first, m.last);
        Token t;
        t.id = m.id;
        const std::string* piece = parts_.model->vocab().Piece(m.id);
        t.piece = piece ? *piece : std::string();
        t.bytes = BytesOf(t.piece);
        t.display = ReadableBytes(t.bytes);
        t.byte_begin = span.begin;
        t.byte_end = span.end;
        tokens.push_back(std::move(t));
      }
      if (max_tokens > 0 && tokens.size() > max_tokens) {
        tokens.resize(max_tokens + 1);  // the word's tokens past the limit are not the caller's to see
        return tokens;
      }
    }
    if (add_special_tokens && parts_.post_processor) parts_.post_processor->Process(&tokens, text.size());
    return tokens;
  }

  size_t vocab_size() const override { return distinct_ids_; }

  std::optional<std::string> IdToPiece(int id) const override {
    if (const std::string* p = parts_.model->vocab().Piece(id)) return *p;
    for (const auto& t : added_.tokens())
      if (t.id == id) return t.content;
    return std::nullopt;
  }

  std::optional<std::string> IdToDisplay(int id) const override {
    if (const std::string* p = parts_.model->vocab().Piece(id)) return ReadableBytes(BytesOf(*p));
    for (const auto& t : added_.tokens())
      if (t.id == id) return t.content;
    return std::nullopt;
  }

  std::optional<std::string> IdToBytes(int id) const override {
    if (const std::string* p = parts_.model->vocab().Piece(id)) return BytesOf(*p);
    for (const auto& t : added_.tokens())
      if (t.id == id) return t.content;
    return std::nullopt;
  }

  bool IsSpecialId(int id) const override {
    for (const auto& t : added_.tokens())
      if (t.id == id && t.special) return true;
    return false;
  }

  std::string Describe() const override {
    return parts_.description + ", " + std::to_string(distinct_ids_) + " tokens";
  }

 private:
  std::string BytesOf(const std::string& piece) const {
    const DisplayRules& d = parts_.display;
    if (d.byte_fallback)
      if (auto b = ByteFallbackValue(piece)) return std::string(1, char(*b));
    std::string s = d.byte_level ? DecodeByteLevel(piece) : piece;
    if (d.space_marker) {
      std::string marker = ToUtf8(*d.space_marker), out;
      size_t pos = 0, hit;
      while ((hit = s.find(marker, pos)) != std::string::npos) {
        out.append(s, pos, hit - pos);
        out += ' ';
        pos = hit + marker.size();
      }
      out.append(s, pos, std::string::npos);
      s = std::move(out);
    }
    return s;
  }

  PipelineParts parts_;
  AddedVocabulary added_;
  size_t distinct_ids_ = 0;
};

}  // namespace

Result<std::unique_ptr<Tokenizer>> MakePipelineTokenizer(PipelineParts parts) {
  if (!parts.model) return Status::Error("a tokenizer needs a model");
  auto added = AddedVocabulary::Create(parts.added_tokens, parts.normalizer.get());
  if (!added.ok()) return added.status();
  return std::unique_ptr<Tokenizer>(new PipelineTokenizer(std::move(parts), std::move(added.value())));
}

}  // namespace attnviz::tokenize
