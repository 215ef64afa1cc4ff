// A message kept as what makes it, not as its text: a UI template (Str) with arguments, an engine Status, a
// literal (a path, a number: the same in every language) or a list. It is rendered when drawn, so a message
// already on screen follows a language switch (the text made at the time it arrived would stay in the old one).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "i18n/ui_strings.h"

namespace attnviz {

class UiMessage {
 public:
  UiMessage() = default;
  UiMessage(std::string literal);  // NOLINT: implicit on purpose (paths, numbers as arguments)
  UiMessage(const char* literal);  // NOLINT
  UiMessage(const Status& status);  // NOLINT: an engine message; Ok gives an empty message
  // Tr(id) with {0}, {1} filled by the arguments, each rendered in the same language.
  UiMessage(Str id, std::vector<UiMessage> args = {});
  // The items rendered and joined by `separator` ("; ").
  static UiMessage Joined(std::vector<UiMessage> items, std::string separator);

  bool empty() const { return kind_ == Kind::kEmpty; }
  // An engine message whose outermost part is `id` (e.g. a text refused as too long for the model).
  bool Says(MsgId id) const {
    return kind_ == Kind::kStatus && !status_.parts().empty() && status_.parts()[0].id == id;
  }
  void clear() { *this = UiMessage(); }
  // The text in the current language, or in `lang`; "" when empty.
  std::string Render() const;
  std::string Render(Lang lang) const;

 private:
  enum class Kind { kEmpty, kLiteral, kStatus, kTemplate, kJoined };
  Kind kind_ = Kind::kEmpty;
  std::string text_;  // the literal, or the separator of a list
  Status status_;
  Str id_ = Str::kCount;
  std::vector<UiMessage> args_;  // a template's arguments, a list's items
};

// The current language's text (gtest prints a message this way).
inline std::ostream& operator<<(std::ostream& out, const UiMessage& message) { return out << message.Render(); }

}  // namespace attnviz
