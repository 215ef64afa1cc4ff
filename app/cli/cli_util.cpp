#include "cli_util.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstdio>

#include "i18n/app_messages.h"
#include "io/json.h"

namespace attnviz {

int UsageError(const std::string& subcommand, const std::string& message) {
  std::fprintf(stderr, "%s\n", Trf(Str::kCliErrorPrefix, {subcommand, message}).c_str());
  return 2;
}

Status RefuseModelFolder(const InputOptions& options, const std::string& subcommand) {
  if (options.model_dir.empty()) return Status::Ok();
  if (IsGgufFile(options.model_dir))
    return AppError(AppMsgId::kGgufFileForSandbox, {CappedValue(options.model_dir), subcommand});
  return AppError(AppMsgId::kModelFolderForSandbox, {CappedValue(options.model_dir), subcommand});
}

double FreeDiskBytes(const std::string& path) {
  std::string at = path.empty() ? "." : path;
  for (int up = 0; up < 256; ++up) {
    struct statvfs fs;
    if (::statvfs(at.c_str(), &fs) == 0) return (double)fs.f_bavail * (double)fs.f_frsize;
    if (errno != ENOENT && errno != ENOTDIR) return -1;
    while (at.size() > 1 && at.back() == '/') at.pop_back();
    const size_t slash = at.rfind('/');
    if (slash == std::string::npos) at = ".";
    else at = slash == 0 ? "/" : at.substr(0, slash);
  }
  return -1;
}

std::string TokensJson(const std::vector<Token>& tokens) {
  std::string out = "[";
  for (size_t i = 0; i < tokens.size(); ++i) {
    out += (i ? ", " : "") + std::string("{\"text\": ") + JsonString(tokens[i].display) +
           ", \"begin\": " + std::to_string(tokens[i].byte_begin) + ", \"end\": " + std::to_string(tokens[i].byte_end) +
           "}";
  }
  return out + "]";
}

namespace {
std::string FiguresJson(const HeadMetrics& m) {
  return "\"entropy\": " + JsonNumber(m.entropy) + ", \"norm_entropy\": " + JsonNumber(m.norm_entropy) +
         ", \"max_weight\": " + JsonNumber(m.max_weight) + ", \"effective_keys\": " + JsonNumber(m.effective_keys) +
         ", \"grad_norm\": " + JsonNumber(m.grad_norm) + ", \"logit_mean\": " + JsonNumber(m.logit_mean) +
         ", \"logit_std\": " + JsonNumber(m.logit_std);
}
}  // namespace

std::string MetricsJson(const AttentionTensors& t, const AttentionConfig& config) {
  std::string out = "{\n  \"config\": " + ConfigJson(config) + ",\n  \"mean\": {" + FiguresJson(MeanOverHeads(t.metrics)) +
                    "},\n  \"heads\": [\n";
  for (size_t h = 0; h < t.metrics.size(); ++h) {
    const HeadMetrics& m = t.metrics[h];
    out += "    {\"head\": " + std::to_string(h) + ", " + FiguresJson(m) + ",\n     \"rows\": [";
    for (size_t i = 0; i < m.rows.size(); ++i) {
      const RowMetrics& r = m.rows[i];
      out += std::string(i ? ", " : "") + "{\"entropy\": " + JsonNumber(r.entropy) +
             ", \"norm_entropy\": " + JsonNumber(r.norm_entropy) + ", \"max_weight\": " + JsonNumber(r.max_weight) +
             ", \"effective_keys\": " + JsonNumber(r.effective_keys) + ", \"grad_norm\": " + JsonNumber(r.grad_norm) +
             "}";
    }
    out += "]}" + std::string(h + 1 < t.metrics.size() ? "," : "") + "\n";
  }
  return out + "  ]\n}\n";
}

Result<model::AblateMode> ParseAblateMode(const std::string& value) {
  if (value == "zero") return model::AblateMode::kZero;
  if (value == "mean") return model::AblateMode::kMean;
  return Status::Prefixed(MsgId::kPrefixContext, {"--ablate-mode"},
                          Status::Error(MsgId::kUnknownName, {"ablation mode", CappedValue(value), "zero, mean"}));
}

bool ParseColonInts(const std::string& text, size_t count, int* out) {
  size_t start = 0;
  for (size_t p = 0; p < count; ++p) {
    const size_t end = p + 1 < count ? text.find(':', start) : text.size();
    if (end == std::string::npos) return false;
    const std::string part = text.substr(start, end - start);
    auto v = ParseIntValue("", part, 0, 1 << 30);
    if (!v) return false;
    out[p] = *v;
    start = end + 1;
  }
  return true;
}

}  // namespace attnviz
