#include "figure/export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "sandbox/exact_maps.h"
#include "io/file_io.h"
#include "figure/heatmap_figure.h"
#include "io/json.h"
#include "figure/line_plot.h"
#include "io/npy.h"
#include "sandbox/text.h"

namespace attnviz {

namespace {

const char* kFormats[] = {"png", "svg", "pdf", "csv", "npy", "json"};

std::string Lower(std::string s) {
  for (char& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

// Float -> text that reads back to exactly the same float.
std::string Exact(float v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos && !s.empty() && s.front() != ' ' && s.back() != ' ') return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<int> ChosenHeads(int n_head, const HeatmapExportOptions& o) {
  if (!o.all_heads) return {o.head};
  if (!o.heads.empty()) return o.heads;
  std::vector<int> all(n_head);
  for (int h = 0; h < n_head; ++h) all[h] = h;
  return all;
}
std::vector<int> ChosenHeads(const LayerMaps& t, const HeatmapExportOptions& o) { return ChosenHeads(t.n_head(), o); }

// The config (from the one field table) plus what it implies. The multiplier is for the width q and k had:
// a raw feature source (one-hot, length) has its own width, not the configured d_k.
std::string ConfigJsonObject(const AttentionConfig& c, const LayerMaps& t) {
  std::string fields = ConfigJson(c);
  fields.pop_back();  // the closing brace
  const int d_qk = t.q->empty() ? c.head_dim_k() : (int)t.q->dim(2);
  return fields + ", \"logit_multiplier\": " + JsonNumber(c.logit_multiplier(d_qk)) + ", \"description\": " +
         JsonString(Describe(c)) + "}";
}

std::string RowJson(const float* row, int n) {
  std::string s = "[";
  for (int j = 0; j < n; ++j) s += (j ? ", " : "") + Exact(row[j]);
  return s + "]";
}

std::string ToCsv(const LayerMaps& t, const std::vector<int>& heads, bool all) {
  const int n_q = t.n_q(), n_k = t.n_k();
  std::vector<std::string> q = TokenTexts(t.query_tokens), k = TokenTexts(t.kv_tokens);
  std::string out = WeightsCsvHeader(k, all);
  for (int h : heads) {
    const float* w = t.probs->data.data() + (size_t)h * n_q * n_k;
    for (int i = 0; i < n_q; ++i) {
      if (all) out += std::to_string(h) + ",";
      out += CsvField(q[i]);
      for (int j = 0; j < n_k; ++j) out += "," + Exact(w[(size_t)i * n_k + j]);
      out += "\n";
    }
  }
  return out;
}

// config null (a trained model's layer): no "config" object; the maps' multiplier and mask instead.
std::string ToJson(const LayerMaps& t, const AttentionConfig* config, const std::vector<int>& heads, bool all) {
  const int n_q = t.n_q(), n_k = t.n_k();
  std::string out = "{\n  \"format\": \"attnviz-attention-weights\",\n";
  out += "  \"query_tokens\": " + JsonStringArray(TokenTexts(t.query_tokens)) + ",\n";
  out += "  \"key_tokens\": " + JsonStringArray(TokenTexts(t.kv_tokens)) + ",\n";
  if (config) {
    out += "  \"config\": " + ConfigJsonObject(*config, t) + ",\n";
  } else {
    out += "  \"logit_multiplier\": " + JsonNumber(t.multiplier) + ",\n  \"mask\": " + JsonString(Describe(t.mask)) +
           ",\n";
  }
  if (all) {
    out += "  \"heads\": [";
    for (size_t i = 0; i < heads.size(); ++i) out += (i ? ", " : "") + std::to_string(heads[i]);
    out += "],\n  \"shape\": [" + std::to_string(heads.size()) + ", " + std::to_string(n_q) + ", " +
           std::to_string(n_k) + "],\n  \"weights\": [\n";
  } else {
    out += "  \"head\": " + std::to_string(heads[0]) + ",\n  \"shape\": [" + std::to_string(n_q) + ", " +
           std::to_string(n_k) + "],\n  \"weights\": ";
  }
  for (size_t hi = 0; hi < heads.size(); ++hi) {
    const float* w = t.probs->data.data() + (size_t)heads[hi] * n_q * n_k;
    out += all ? "    [\n" : "[\n";
    for (int i = 0; i < n_q; ++i)
      out += std::string(all ? "      " : "    ") + RowJson(w + (size_t)i * n_k, n_k) + (i + 1 < n_q ? ",\n" : "\n");
    out += all ? (hi + 1 < heads.size() ? "    ],\n" : "    ]\n") : "  ]";
  }
  out += all ? "  ]\n}\n" : "\n}\n";
  return out;
}

}  // namespace

Result<std::string> ResolveExportFormat(const HeatmapExportOptions& options) {
  if (!options.format.empty()) {
    std::string f = Lower(options.format);
    if (!f.empty() && f[0] == '.') f = f.substr(1);
    for (const char* k : kFormats)
      if (f == k) return f;
    return Status::Error(MsgId::kUnknownFormat, {options.format});
  }
  std::string ext = FileExtension(options.out_path);
  if (ext.empty())
    return Status::Error(MsgId::kNoExtension, {options.out_path});
  std::string f = ext[0] == '.' ? ext.substr(1) : ext;
  for (const char* k : kFormats)
    if (f == k) return f;
  return Status::Error(MsgId::kUnknownExtension, {options.out_path, ext});
}

std::string DefaultHeatmapTitle(const AttentionConfig& config, const HeatmapExportOptions& options) {
  std::string heads;
  if (!options.all_heads) heads = "head " + std::to_string(options.head);
  else if (!options.heads.empty()) heads = std::to_string(options.heads.size()) + (options.heads.size() == 1 ? " head" : " heads");
  else heads = std::to_string(config.n_head) + (config.n_head == 1 ? " head" : " heads");
  return FigureTitle(heads, config);
}

std::string DefaultHeatmapFileName(const AttentionConfig& config, const HeatmapExportOptions& options,
                                   const std::string& format) {
  std::string heads = "head" + std::to_string(options.head);
  if (options.all_heads) {
    heads = "heads";
    for (int h : options.heads) heads += "-" + std::to_string(h);
  }
  return FigureFileStem(heads, config) + "." + format;
}

std::string WeightsCsvHeader(const std::vector<std::string>& key_tokens, bool with_head_column) {
  std::string out = with_head_column ? "head,query" : "query";
  for (size_t j = 0; j < key_tokens.size(); ++j) out += "," + CsvField(std::to_string(j) + ":" + key_tokens[j]);
  return out + "\n";
}

Result<std::vector<int>> ParseHeadList(const std::string& text, int n_head) {
  std::vector<int> heads;
  // Each number is checked as written (a range by its ends) before anything is expanded, so the message names
  // what was typed: "0-999999" is refused for 999999, not for the first head past n_head.
  auto check = [&](long long h) -> Status {
    if (n_head > 0 && h >= n_head)
      return Status::Error(MsgId::kHeadInListOutOfRange,
                           {std::to_string(h), std::to_string(n_head - 1), std::to_string(n_head)});
    return Status::Ok();
  };
  auto add = [&](long long h) {
    if (std::find(heads.begin(), heads.end(), (int)h) == heads.end()) heads.push_back((int)h);
  };
  if (text == "all") {
    if (n_head <= 0) return heads;
    for (int h = 0; h < n_head; ++h) heads.push_back(h);
    return heads;
  }
  auto number = [](const std::string& s, long long* v) {  // 18 digits fit a long long: a big number is a number
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *v = std::stoll(s);
    return true;
  };
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) return Status::Error(MsgId::kHeadsEmptyItem, {text});
    size_t dash = item.find('-');
    long long a = 0, b = 0;
    if (dash == std::string::npos) {
      if (!number(item, &a)) return Status::Error(MsgId::kHeadsNotNumber, {text, item});
      b = a;
    } else {
      if (!number(item.substr(0, dash), &a) || !number(item.substr(dash + 1), &b))
        return Status::Error(MsgId::kHeadsNotRange, {text, item});
      if (b < a) return Status::Error(MsgId::kHeadsBackwards, {text, item});
    }
    if (Status s = check(b); !s) return s;  // b >= a: the end is the first to be out of range
    if (n_head > 0)  // syntax only (n_head unknown): nothing to expand against
      for (long long h = a; h <= b; ++h) add(h);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return heads;
}

Result<FigureSize> ParseFigureSize(const std::string& text) {
  std::string t;
  for (char c : text)
    if (c != ' ') t += (char)std::tolower((unsigned char)c);
  double per_inch = 0;
  std::string unit = t.size() >= 2 ? t.substr(t.size() - 2) : "";
  if (unit == "in") per_inch = 1;
  else if (unit == "cm") per_inch = 2.54;
  else if (unit == "mm") per_inch = 25.4;
  else return Status::Error(MsgId::kSizeNoUnit, {text});
  t.resize(t.size() - 2);
  size_t x = t.find('x');
  if (x == std::string::npos) return Status::Error(MsgId::kSizeNotWxH, {text});
  std::string w = t.substr(0, x), h = t.substr(x + 1);
  if (h.size() >= 2 && h.substr(h.size() - 2) == unit.substr(0, 2)) h.resize(h.size() - 2);  // "3.3inx3in"
  if (w.size() >= 2 && w.substr(w.size() - 2) == unit) w.resize(w.size() - 2);
  FigureSize size;
  for (auto [part, out] : {std::pair<std::string, double*>{w, &size.width_in}, {h, &size.height_in}}) {
    char* end = nullptr;
    double v = part.empty() ? NAN : std::strtod(part.c_str(), &end);
    if (part.empty() || !end || *end != '\0' || !std::isfinite(v))
      return Status::Error(MsgId::kSizeNotANumber, {text, part});
    *out = v / per_inch;
    if (*out < 0.5 || *out > 40) return Status::Error(MsgId::kSizeOutOfRange, {text});
  }
  return size;
}

namespace {

// Everything of the figure's spec but its weights (probs and an automatic range): the figure of maps
// [n_head, n_q, n_k] over these tokens under `mask`, as far as it is known before the weights are made.
Result<HeatmapSpec> SpecWithoutWeights(const TokenList& query_tokens, const TokenList& kv_tokens, const Mask& mask,
                                       int n_head, const AttentionConfig* config, const HeatmapExportOptions& options) {
  const int n_q = (int)query_tokens.size(), n_k = (int)kv_tokens.size();
  std::vector<int> heads = ChosenHeads(n_head, options);
  for (int h : heads)
    if (h < 0 || h >= n_head)
      return Status::Error(MsgId::kHeadOutOfRange, {std::to_string(h), std::to_string(n_head - 1), std::to_string(n_head)});
  if (options.cell_size < 0 || options.cell_size > 400)
    return Status::Error(MsgId::kCellSizeRange, {std::to_string(options.cell_size)});
  if (options.width < 0 || options.width > 16384)
    return Status::Error(MsgId::kFigureWidthRange, {std::to_string(options.width)});
  const float dpi = options.dpi > 0 ? options.dpi : HeatmapSpec::kDefaultDpi;
  if (dpi < kMinDpi || dpi > kMaxDpi)
    return Status::Error(MsgId::kDpiRange, {Exact(options.dpi)});
  HeatmapSpec spec;
  spec.n_head = n_head;
  spec.n_q = n_q;
  spec.n_k = n_k;
  spec.heads = heads;
  if ((int)options.panel_names.size() == spec.n_head) spec.panel_names = options.panel_names;
  spec.query_labels = TokenTexts(query_tokens);
  spec.key_labels = TokenTexts(kv_tokens);
  spec.query_word_starts = WordStarts(query_tokens);
  spec.key_word_starts = WordStarts(kv_tokens);
  spec.title = !options.title.empty() ? options.title
               : config            ? DefaultHeatmapTitle(*config, options)
               : options.all_heads ? std::to_string(heads.size()) + " heads"
                                   : "head " + std::to_string(options.head);
  spec.words = options.words;
  spec.mask = mask;
  spec.colormap = options.colormap;
  spec.scale = options.color_scale;
  spec.range = ColorRange{0.0f, 1.0f};
  spec.cell_size = options.cell_size;
  spec.width = options.width;
  spec.dpi = dpi;
  if (options.size.set()) {
    spec.physical = true;
    spec.width = (int)std::lround(options.size.width_in * dpi);
    spec.height = (int)std::lround(options.size.height_in * dpi);
    if ((long long)spec.width * spec.height > 16384LL * 16384LL)
      return Status::Error(MsgId::kSizeTooManyPixels, {Exact(dpi), std::to_string(spec.width), std::to_string(spec.height)});
  }
  spec.annotate = options.annotate;
  return spec;
}

}  // namespace

Result<HeatmapSpec> MakeHeatmapSpec(const LayerMaps& tensors, const AttentionConfig* config,
                                    const HeatmapExportOptions& options) {
  if (tensors.probs->shape.size() != 3 || tensors.n_head() <= 0 || tensors.n_q() <= 0 || tensors.n_k() <= 0)
    return Status::Error(MsgId::kNothingToExport, {});
  if ((int)tensors.query_tokens.size() != tensors.n_q() || (int)tensors.kv_tokens.size() != tensors.n_k())
    return Status::Error("nothing to export: the tokens do not match the attention map");
  Result<HeatmapSpec> spec =
      SpecWithoutWeights(tensors.query_tokens, tensors.kv_tokens, tensors.mask, tensors.n_head(), config, options);
  if (!spec.ok()) return spec;
  const int n_q = tensors.n_q(), n_k = tensors.n_k();
  spec->probs = tensors.probs->data.data();
  if (options.auto_range) {
    ColorRange r{1e30f, -1e30f};
    for (int h : spec->heads)
      for (int i = 0; i < n_q; ++i) {  // masked cells (exact zeros) are not weights: left out of the range
        const int begin = spec->mask.Begin(i), visible = spec->mask.Visible(i, n_k);
        if (visible <= 0) continue;  // a cut row whose keys are all masked
        ColorRange hr = AutoRange(tensors.probs->data.data() + ((size_t)h * n_q + i) * n_k + begin, (size_t)visible);
        r.lo = std::min(r.lo, hr.lo);
        r.hi = std::max(r.hi, hr.hi);
      }
    if (!(r.hi > r.lo)) r.hi = r.lo + 1e-6f;
    spec->range = r;
  }
  return spec;
}

Status CheckHeatmapFigure(const TokenList& query_tokens, const TokenList& kv_tokens, const Mask& mask, int n_head,
                          const HeatmapExportOptions& options, HeatmapLayout* layout_out) {
  Result<std::string> format = ResolveExportFormat(options);
  if (!format.ok()) return format.status();
  if (*format != "png" && *format != "svg" && *format != "pdf") return Status::Ok();
  if (n_head <= 0 || query_tokens.empty() || kv_tokens.empty()) return Status::Error(MsgId::kNothingToExport, {});
  Result<HeatmapSpec> spec = SpecWithoutWeights(query_tokens, kv_tokens, mask, n_head, nullptr, options);
  if (!spec.ok()) return spec.status();
  static const float kNoWeight = 0;
  spec->probs = &kNoWeight;  // !! never read: the layout is made of the sizes and the labels
  Result<std::shared_ptr<const FontSet>> fonts = FontSet::Default();
  if (!fonts.ok()) return fonts.status();
  Result<HeatmapLayout> layout = LayoutForFormat(**fonts, &*spec, *format);
  if (!layout.ok()) return layout.status();
  if (layout_out) *layout_out = std::move(*layout);
  return Status::Ok();
}

namespace {

// Long inputs keep no full map (pooled mode): the heads (or the window) a file needs are recomputed exactly
// from q and k (exact_maps.h). .npy streams whole heads (any number, through a temp file renamed into place);
// the other formats hold their cells, at most kExactExportCells, and a figure draws every cell, so a figure
// of a long map is of a window (the app's zoomed-in view).
Status ExportLongHeatmap(const LayerMaps& t, const AttentionConfig* config, HeatmapExportOptions o,
                         const std::string& format, const MapWindow* window, ExportNotes* notes) {
  const std::vector<int> heads = ChosenHeads(t, o);
  for (int h : heads)
    if (h < 0 || h >= t.n_head())
      return Status::Error("head " + std::to_string(h) + " is out of range: allowed 0.." + std::to_string(t.n_head() - 1));
  const size_t n_q = t.n_q(), n_k = t.n_k();
  if (format == "npy") {
    std::vector<size_t> shape = {n_q, n_k};
    if (o.all_heads) shape.insert(shape.begin(), heads.size());
    if (Status s = CheckWriteTarget(o.out_path); !s) return s;
    const std::string temp = o.out_path + ".part-" + std::to_string(::getpid());
    NpyStreamWriter out;
    Status s = out.Open(temp, shape);
    if (s) s = StreamExactMaps(t, heads, &out, nullptr);
    if (s) s = out.Close();
    if (s && std::rename(temp.c_str(), o.out_path.c_str()) != 0) s = Status::Error(MsgId::kCannotWrite, {o.out_path});
    if (!s) std::remove(temp.c_str());
    return s;
  }
  const MapWindow w = window ? *window : MapWindow{0, (int)n_q, 0, (int)n_k};
  // A one-head CSV names no head, and a figure of one head draws only that head: neither needs the other heads'
  // planes (a 2047 x 2047 head of a 9-head layer is 4.2 M cells, not 37.7 M).
  const bool compact = heads.size() == 1 && (format == "csv" || ((format == "png" || format == "svg" || format == "pdf") && !o.all_heads));
  const size_t cells = (compact ? 1 : (size_t)t.n_head()) * w.rows() * w.cols();
  if (cells > kExactExportCells)
    return Status::Error(MsgId::kLongExportTooLarge, {"." + format, std::to_string(n_q), std::to_string(n_k),
                                                      std::to_string(cells), std::to_string(kExactExportCells)});
  if (o.title.empty() && config) {
    o.title = DefaultHeatmapTitle(*config, o);
    if (window) o.title += " \u00B7 queries " + std::to_string(w.r0) + "-" + std::to_string(w.r1 - 1) + ", keys " +
                           std::to_string(w.c0) + "-" + std::to_string(w.c1 - 1);
  }
  if (compact) o.head = 0;
  return ExportHeatmap(ExactMaps(t, heads, w, compact), config, o, nullptr, notes);
}

}  // namespace

Status ExportHeatmap(const LayerMaps& tensors, const AttentionConfig* config, const HeatmapExportOptions& options,
                     const MapWindow* window, ExportNotes* notes) {
  if (notes) *notes = ExportNotes();
  if (options.out_path.empty()) return Status::Error(MsgId::kNoOutputFile, {});
  Result<std::string> format = ResolveExportFormat(options);
  if (!format.ok()) return format.status();
  if (tensors.pooled) return ExportLongHeatmap(tensors, config, options, *format, window, notes);
  Result<HeatmapSpec> spec = MakeHeatmapSpec(tensors, config, options);
  if (!spec.ok()) return spec.status();
  const std::vector<int>& heads = spec->heads;
  const int n_q = tensors.n_q(), n_k = tensors.n_k();
  std::string bytes;
  if (*format == "csv") {
    bytes = ToCsv(tensors, heads, options.all_heads);
  } else if (*format == "json") {
    bytes = ToJson(tensors, config, heads, options.all_heads);
  } else if (*format == "npy") {
    std::vector<float> data;
    data.reserve(heads.size() * n_q * n_k);
    for (int h : heads) {
      const float* w = tensors.probs->data.data() + (size_t)h * n_q * n_k;
      data.insert(data.end(), w, w + (size_t)n_q * n_k);
    }
    std::vector<size_t> shape = {(size_t)n_q, (size_t)n_k};
    if (options.all_heads) shape.insert(shape.begin(), heads.size());
    bytes = EncodeNpy(data.data(), shape);
  } else {
    HeatmapLayout layout;
    Result<std::string> rendered = RenderHeatmap(*spec, *format, &layout);
    if (!rendered.ok()) return rendered.status();
    if (notes) {
      notes->cell = layout.cell;
      notes->annotate_needs_cell = layout.annotate_needs_cell;
    }
    bytes = std::move(*rendered);
  }
  return WriteFileAtomic(options.out_path, bytes);
}

Status WriteSaturationPlot(const std::string& path, const std::vector<SweepPoint>& points, const std::string& title,
                           int current_d_k, const SaturationWords& words) {
  std::string ext = FileExtension(path);
  if (ext != ".png" && ext != ".svg" && ext != ".pdf")
    return Status::Error(MsgId::kPlotUnknownExtension, {path, ext});
  Result<std::string> bytes = RenderSaturation(points, title, current_d_k, ext.substr(1), words);
  if (!bytes.ok()) return bytes.status();
  return WriteFileAtomic(path, *bytes);
}

}  // namespace attnviz
