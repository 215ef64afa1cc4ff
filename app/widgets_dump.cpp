#include "widgets_dump.h"

#include <imgui.h>

#include <cstdio>

#include "json.h"

namespace attnviz {

void WidgetDump::BeginFrame(uint64_t frame) {
  frame_ = frame;
  fields_.clear();
  widgets_.clear();
}

void WidgetDump::RecordItem(const std::string& name, const std::string& value_json) {
  if (!enabled_) return;
  ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  RecordRect(name, a.x, a.y, b.x, b.y, ImGui::IsItemActive(), ImGui::IsItemHovered(), value_json);
}

void WidgetDump::RecordRect(const std::string& name, float x0, float y0, float x1, float y1, bool active, bool hovered,
                            const std::string& value_json) {
  if (!enabled_) return;
  std::string w = "{\"rect\": [" + JsonNumber(x0) + ", " + JsonNumber(y0) + ", " + JsonNumber(x1) + ", " +
                  JsonNumber(y1) + "], \"active\": " + (active ? "true" : "false") +
                  ", \"hovered\": " + (hovered ? "true" : "false") + ", \"value\": " + value_json + "}";
  widgets_.emplace_back(name, std::move(w));
}

void WidgetDump::SetField(const std::string& key, const std::string& value_json) {
  if (!enabled_) return;
  fields_.emplace_back(key, value_json);
}

std::string WidgetDump::ToJson() const {
  std::string out = "{\"frame\": " + std::to_string(frame_) + ",\n\"fields\": {";
  for (size_t i = 0; i < fields_.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + JsonString(fields_[i].first) + ": " + fields_[i].second;
  out += "},\n\"widgets\": {";
  for (size_t i = 0; i < widgets_.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + JsonString(widgets_[i].first) + ": " + widgets_[i].second;
  out += "}}\n";
  return out;
}

bool WidgetDump::WriteTo(const std::string& path) const {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  std::string json = ToJson();
  bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
  ok = (std::fclose(f) == 0) && ok;
  return ok && std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace attnviz
