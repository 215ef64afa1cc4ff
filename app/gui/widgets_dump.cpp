#include "widgets_dump.h"

#include <imgui.h>
#include <imgui_internal.h>  // GetItemID: the last item's id, to match it with its Label()

#include <cstdio>

#include "io/json.h"

namespace attnviz {

void WidgetDump::BeginFrame(uint64_t frame) {
  frame_ = frame;
  fields_.clear();
  widgets_.clear();
}

std::string WidgetDump::Label(const std::string& visible, const char* stable_id) {
  std::string label = visible + "###" + stable_id;
  if (enabled_) {
    labelled_id_ = ImGui::GetID(label.c_str());
    labelled_text_ = visible;
  }
  return label;
}

void WidgetDump::RecordItem(const std::string& name, const std::string& value_json) {
  if (!enabled_) return;
  ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  RecordRect(name, a.x, a.y, b.x, b.y, ImGui::IsItemActive(), ImGui::IsItemHovered(), value_json,
             ImGui::IsItemVisible());
  if (labelled_id_ != 0 && ImGui::GetItemID() == labelled_id_) widgets_.back().label = labelled_text_;
}

void WidgetDump::RecordRect(const std::string& name, float x0, float y0, float x1, float y1, bool active, bool hovered,
                            const std::string& value_json, bool visible) {
  if (!enabled_) return;
  widgets_.push_back(Widget{name, x0, y0, x1, y1, active, hovered, value_json, visible, ""});
}

void WidgetDump::SetField(const std::string& key, const std::string& value_json) {
  if (!enabled_) return;
  fields_.emplace_back(key, value_json);
}

const WidgetDump::Widget* WidgetDump::Find(const std::string& name) const {
  for (const Widget& w : widgets_)
    if (w.name == name) return &w;
  return nullptr;
}

std::string WidgetDump::Field(const std::string& key) const {
  for (const auto& [k, v] : fields_)
    if (k == key) return v;
  return "";
}

std::string WidgetDump::ToJson() const {
  std::string out = "{\"frame\": " + std::to_string(frame_) + ", \"t_s\": " + JsonNumber(seconds_) + ",\n\"fields\": {";
  for (size_t i = 0; i < fields_.size(); ++i)
    out += (i ? ",\n  " : "\n  ") + JsonString(fields_[i].first) + ": " + fields_[i].second;
  out += "},\n\"widgets\": {";
  for (size_t i = 0; i < widgets_.size(); ++i) {
    const Widget& w = widgets_[i];
    out += (i ? ",\n  " : "\n  ") + JsonString(w.name) + ": {\"rect\": [" + JsonNumber(w.x0) + ", " +
           JsonNumber(w.y0) + ", " + JsonNumber(w.x1) + ", " + JsonNumber(w.y1) + "], \"active\": " +
           (w.active ? "true" : "false") + ", \"hovered\": " + (w.hovered ? "true" : "false") +
           ", \"value\": " + w.value_json + ", \"visible\": " + (w.visible ? "true" : "false") +
           (w.label.empty() ? "" : ", \"label\": " + JsonString(w.label)) + "}";
  }
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
