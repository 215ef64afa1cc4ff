// Errors as values: every failure carries a message for a person
// ("what went wrong, where, what is allowed"). The CLI turns it into exit code 2,
// the app into a visible message. An error made from a message id (messages.h) also carries its parts,
// so the app and the CLI can show it in the user's language; message() is always the English text.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/messages.h"

namespace attnviz {

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }
  // The English text from id's template and args, and the one part {id, args}.
  static Status Error(MsgId id, std::vector<std::string> args) {
    return Error(id, EnglishTemplate(id), std::move(args));
  }
  // The same for an id whose template core does not hold (the programs' own, MsgId::kAppFirst on): the caller
  // gives its English template.
  static Status Error(MsgId id, const char* english, std::vector<std::string> args) {
    Status s = Error(FillTemplate(english, args));
    s.parts_.push_back({id, std::move(args)});
    return s;
  }
  // `inner` with a prefix part in front ("query text: " + inner). An inner error without parts (plain
  // text) gives one without parts too: it can only be shown in English.
  static Status Prefixed(MsgId id, std::vector<std::string> args, const Status& inner) {
    return Prefixed(id, EnglishTemplate(id), std::move(args), inner);
  }
  // The same for a prefix id whose template core does not hold (see Error above).
  static Status Prefixed(MsgId id, const char* english, std::vector<std::string> args, const Status& inner) {
    Status s = Error(FillTemplate(english, args) + inner.message_);
    if (!inner.parts_.empty()) {
      s.parts_.push_back({id, std::move(args)});
      s.parts_.insert(s.parts_.end(), inner.parts_.begin(), inner.parts_.end());
    }
    return s;
  }
  // "WHERE: " + id's message, WHERE (a file, a place in it) a prefix part of its own.
  static Status ErrorAt(const std::string& where, MsgId id, std::vector<std::string> args) {
    return Prefixed(MsgId::kPrefixContext, {where}, Error(id, std::move(args)));
  }
  // A run stopped because a newer request superseded it (or the user cancelled): not a failure to show.
  // Callers test cancelled(), never the text.
  static Status Cancelled() {
    Status s = Error("cancelled");
    s.cancelled_ = true;
    return s;
  }
  bool cancelled() const { return cancelled_; }
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return message_; }
  // Outermost first; empty for an error made from plain text (and for Ok).
  const std::vector<MessagePart>& parts() const { return parts_; }

 private:
  std::string message_;
  std::vector<MessagePart> parts_;
  bool failed_ = false;
  bool cancelled_ = false;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit on purpose
  Result(Status error) : status_(std::move(error)) {}    // NOLINT: must be a failed Status
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return status_; }
  const std::string& message() const { return status_.message(); }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace attnviz
