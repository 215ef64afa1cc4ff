#include "tokenize/post_processors.h"

#include <algorithm>
#include <utility>

namespace attnviz::tokenize {
namespace {

class TemplateProcessor : public PostProcessor {
 public:
  explicit TemplateProcessor(std::vector<TemplateItem> single) : single_(std::move(single)) {}
  void Process(std::vector<Token>* tokens, size_t text_bytes) const override {
    std::vector<Token> out;
    out.reserve(tokens->size() + 4);
    size_t where = 0;  // the byte position the next inserted token marks
    for (const TemplateItem& item : single_) {
      if (item.is_sequence) {
        for (auto& t : *tokens) {
          where = t.byte_end;
          out.push_back(std::move(t));
        }
        if (tokens->empty()) where = 0;
        continue;
      }
      for (size_t k = 0; k < item.special.ids.size(); ++k) {
        Token t;
        t.id = item.special.ids[k];
        t.piece = item.special.pieces[k];
        t.bytes = t.piece;
        t.display = t.piece;
        t.byte_begin = t.byte_end = std::min(where, text_bytes);
        t.special = true;
        out.push_back(std::move(t));
      }
    }
    *tokens = std::move(out);
  }

 private:
  std::vector<TemplateItem> single_;
};

class AppendIfAbsentProcessor : public PostProcessor {
 public:
  AppendIfAbsentProcessor(int id, std::string piece) : id_(id), piece_(std::move(piece)) {}
  void Process(std::vector<Token>* tokens, size_t text_bytes) const override {
    if (!tokens->empty() && tokens->back().id == id_) return;
    Token t;
    t.id = id_;
    t.piece = piece_;
    t.bytes = piece_;
    t.display = piece_;
    t.byte_begin = t.byte_end = tokens->empty() ? 0 : std::min(tokens->back().byte_end, text_bytes);
    t.special = true;
    tokens->push_back(std::move(t));
  }

 private:
  int id_;
  std::string piece_;
};

class NoOpProcessor : public PostProcessor {
 public:
  void Process(std::vector<Token>*, size_t) const override {}
};

class ProcessorSequence : public PostProcessor {
 public:
  explicit ProcessorSequence(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
  void Process(std::vector<Token>* tokens, size_t text_bytes) const override {
    for (const auto& step : steps_) step->Process(tokens, text_bytes);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

}  // namespace

std::unique_ptr<PostProcessor> MakeTemplateProcessor(std::vector<TemplateItem> single) {
  return std::make_unique<TemplateProcessor>(std::move(single));
}
std::unique_ptr<PostProcessor> MakeAppendIfAbsentProcessor(int id, std::string piece) {
  return std::make_unique<AppendIfAbsentProcessor>(id, std::move(piece));
}
std::unique_ptr<PostProcessor> MakeNoOpProcessor() { return std::make_unique<NoOpProcessor>(); }
std::unique_ptr<PostProcessor> MakeProcessorSequence(std::vector<std::unique_ptr<PostProcessor>> steps) {
  return std::make_unique<ProcessorSequence>(std::move(steps));
}

}  // namespace attnviz::tokenize
