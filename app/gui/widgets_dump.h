// A JSON picture of the named widgets, written each frame to the path given by --widgets-json,
// so tests find widgets by name instead of guessing pixel positions:
//   {"frame": 12, "fields": {"computing": false, ...},
//    "widgets": {"controls.d_k": {"rect": [x0, y0, x1, y1], "active": false, "hovered": false, "value": 64,
//                                 "label": "d_k"}, ...}}
// Rectangles are in window coordinates (what `xdotool mousemove --window` takes). "label" is the text the
// widget shows in the current language (Label() made it); tests find widgets by their stable name.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnviz {

class WidgetDump {
 public:
  bool enabled() const { return enabled_; }
  void set_enabled(bool on) { enabled_ = on; }
  void BeginFrame(uint64_t frame);
  // The last ImGui item, with its value as a JSON fragment (e.g. JsonNumber(x), "true", JsonString(s)).
  void RecordItem(const std::string& name, const std::string& value_json = "null");
  void RecordRect(const std::string& name, float x0, float y0, float x1, float y1, bool active, bool hovered,
                  const std::string& value_json = "null", bool visible = true);
  // "visible###stable_id": ImGui's id stays the same in every language; the visible text is recorded as the
  // "label" of the item RecordItem records next, if it is that widget.
  std::string Label(const std::string& visible, const char* stable_id);
  // A top-level field (JSON fragment).
  void SetField(const std::string& key, const std::string& value_json);
  // Seconds since the process started, written at the top level beside the frame number ("t_s").
  void set_seconds(double seconds) { seconds_ = seconds; }
  std::string ToJson() const;

  struct Widget {
    std::string name;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool active = false, hovered = false;
    std::string value_json;
    bool visible = true;  // not clipped away (e.g. scrolled out of a list)
    std::string label;    // the visible label, "" when the widget has none
  };
  // This frame's widget of that name, or nullptr (tests).
  const Widget* Find(const std::string& name) const;
  // A top-level field's JSON fragment, "" when absent (tests).
  std::string Field(const std::string& key) const;
  const std::vector<Widget>& widgets() const { return widgets_; }
  // temp file + rename, so a reader never sees half a file.
  bool WriteTo(const std::string& path) const;

 private:
  bool enabled_ = false;
  uint64_t frame_ = 0;
  double seconds_ = 0;
  std::vector<std::pair<std::string, std::string>> fields_;
  std::vector<Widget> widgets_;
  unsigned labelled_id_ = 0;  // the ImGuiID Label() last made, and its visible text
  std::string labelled_text_;
};

}  // namespace attnviz
