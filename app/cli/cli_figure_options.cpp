#include "cli_figure_options.h"

#include <cstdio>

#include "cli_util.h"
#include "i18n/app_messages.h"
#include "color/colormap.h"
#include "i18n/localized.h"
#include "options.h"
#include "sandbox/text.h"

namespace attnviz {

bool ParseFigureOption(const std::vector<std::string>& args, size_t* i, HeatmapExportOptions* options, Status* error) {
  const std::string& a = args[*i];
  *error = Status::Ok();
  if (a == "--annotate") {
    options->annotate = true;
    return true;
  }
  if (a != "--colormap" && a != "--color-scale" && a != "--range" && a != "--cell-size" && a != "--width" &&
      a != "--title" && a != "--size" && a != "--dpi")
    return false;
  auto v = TakeValue(args, i);
  if (!v) {
    *error = v.status();
    return true;
  }
  if (a == "--colormap") {
    auto c = ParseColormap(*v);
    if (!c) *error = Status::Prefixed(MsgId::kPrefixContext, {"--colormap"}, c.status());
    else options->colormap = *c;
  } else if (a == "--color-scale") {
    auto s = ParseColorScale(*v);
    if (!s) *error = Status::Prefixed(MsgId::kPrefixContext, {"--color-scale"}, s.status());
    else options->color_scale = *s;
  } else if (a == "--range") {
    if (*v != "fixed" && *v != "auto") *error = Status::Error(Trf(Str::kCliUnknownRange, {*v}));
    else options->auto_range = *v == "auto";
  } else if (a == "--cell-size") {
    auto n = ParseIntValue(a, *v, 1, 400);
    if (!n) *error = n.status();
    else options->cell_size = *n;
  } else if (a == "--width") {
    auto n = ParseIntValue(a, *v, 16, 16384);
    if (!n) *error = n.status();
    else options->width = *n;
  } else if (a == "--title") {
    // A title is one line across the figure: a long one would widen the figure to it, so it is refused by its
    // length here rather than by the figure's size later.
    const size_t chars = DecodeUtf8(*v).size();
    if (Status s = ValidatePlainText(*v); !s) *error = Status::Prefixed(MsgId::kPrefixContext, {"--title"}, s);
    else if (chars > kMaxTitleChars)
      *error = AppErrorAt("--title", AppMsgId::kTitleTooLong, {std::to_string(chars), std::to_string(kMaxTitleChars)});
    else options->title = *v;
  } else if (a == "--size") {
    auto size = ParseFigureSize(*v);
    if (!size) *error = Status::Prefixed(MsgId::kPrefixContext, {"--size"}, size.status());
    else options->size = *size;
  } else if (a == "--dpi") {
    auto n = ParseIntValue(a, *v, (int)kMinDpi, (int)kMaxDpi);
    if (!n) *error = n.status();
    else options->dpi = (float)*n;
  }
  return true;
}

bool ParsePoolOption(const std::vector<std::string>& args, size_t* i, PoolChoice* pool, Status* error) {
  const std::string& a = args[*i];
  *error = Status::Ok();
  if (a != "--pool" && a != "--pool-mode") return false;
  auto v = TakeValue(args, i);
  if (!v) {
    *error = v.status();
    return true;
  }
  if (a == "--pool") {
    pool->set = true;
    auto f = *v == "auto" ? Result<int>(kPoolAuto) : ParseIntValue("--pool", *v, 1, kMaxPool);
    if (f) pool->factor = *f;
    else *error = AppError(AppMsgId::kPoolValue, {CappedValue(*v)});
  } else {
    pool->mode_set = true;
    if (*v == "max") pool->mode = PoolKind::kMax;
    else if (*v == "mean") pool->mode = PoolKind::kMean;
    else *error = Status::Prefixed(MsgId::kPrefixContext, {"--pool-mode"},
                                   Status::Error(MsgId::kUnknownName, {"pool mode", CappedValue(*v), "max, mean"}));
  }
  return true;
}

Status CheckFigureOptions(const HeatmapExportOptions& options) {
  if ((options.cell_size > 0) + (options.width > 0) + options.size.set() > 1)
    return Status::Error(Tr(Str::kCliOneSizeOption));
  return Status::Ok();
}

void PrintFigureNotes(const ExportNotes& notes) {
  if (notes.annotate_needs_cell > 0)
    std::fprintf(stderr, "%s\n",
                 Trf(Str::kCliAnnotateTooSmall, {std::to_string(notes.cell), std::to_string(notes.annotate_needs_cell)})
                     .c_str());
}

}  // namespace attnviz
