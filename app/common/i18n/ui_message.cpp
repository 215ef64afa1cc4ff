// Rendering a kept message in a language (ui_message.h).
#include "i18n/ui_message.h"

#include "i18n/localized.h"

namespace attnviz {

UiMessage::UiMessage(std::string literal) : kind_(Kind::kLiteral), text_(std::move(literal)) {}

UiMessage::UiMessage(const char* literal) : UiMessage(std::string(literal)) {}

UiMessage::UiMessage(const Status& status) {
  if (status.ok()) return;
  kind_ = Kind::kStatus;
  status_ = status;
}

UiMessage::UiMessage(Str id, std::vector<UiMessage> args) : kind_(Kind::kTemplate), id_(id), args_(std::move(args)) {}

UiMessage UiMessage::Joined(std::vector<UiMessage> items, std::string separator) {
  UiMessage m;
  if (items.empty()) return m;
  m.kind_ = Kind::kJoined;
  m.text_ = std::move(separator);
  m.args_ = std::move(items);
  return m;
}

std::string UiMessage::Render() const { return Render(CurrentLang()); }

std::string UiMessage::Render(Lang lang) const {
  switch (kind_) {
    case Kind::kEmpty: return "";
    case Kind::kLiteral: return text_;
    case Kind::kStatus: return Localized(status_, lang);
    case Kind::kTemplate: {
      std::vector<std::string> args;
      for (const UiMessage& a : args_) args.push_back(a.Render(lang));
      return FillTemplate(Tr(id_, lang), args);
    }
    case Kind::kJoined: {
      std::string out;
      for (size_t i = 0; i < args_.size(); ++i) out += (i ? text_ : "") + args_[i].Render(lang);
      return out;
    }
  }
  return "";
}

}  // namespace attnviz
