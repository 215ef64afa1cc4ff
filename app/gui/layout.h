// Panel placement from the window size. imgui 1.86 has no docking, so each panel's rectangle is a
// fraction of the work area (the window below the menu bar), applied when no saved layout places the
// panel, whenever the window's size changes, and on View > Reset layout (Ctrl+0). In between the user
// may move and resize panels; every frame each panel is kept inside the window, so neither a shrunken
// window nor a layout.ini saved at another size leaves one out of reach.
#pragma once
#include <string>

namespace attnviz {

class WidgetDump;

struct PanelRect {
  float x = 0, y = 0, w = 0, h = 0;
  bool operator==(const PanelRect& o) const { return x == o.x && y == o.y && w == o.w && h == o.h; }
};

// The rectangle at fractions (fx, fy, fw, fh) of `area`.
PanelRect FractionRect(float fx, float fy, float fw, float fh, const PanelRect& area);
// `r` shrunk to fit `area` where it is larger, then moved inside it.
PanelRect KeepInside(const PanelRect& r, const PanelRect& area);

class WindowLayout {
 public:
  // Each frame after the menu bar and before the panels; `area` is the work area. A size different
  // from the last frame's (not the first frame: layout.ini's positions stand) or a pending reset
  // makes this frame place every panel at its default rectangle.
  void BeginFrame(const PanelRect& area);
  void RequestReset() { reset_requested_ = true; }
  // After every panel's End: each top-level panel moved back inside the work area; with the dump on,
  // "panel.<title>" rectangles as drawn this frame and a "layout" field.
  void KeepPanelsInside(WidgetDump* dump) const;
  // Before a panel's Begin: its default rectangle at fractions of the work area, forced on the frames this
  // layout re-lays out, else only when the panel is first created (a saved layout.ini wins then).
  void PlacePanel(float fx, float fy, float fw, float fh) const;
  int layouts() const { return layouts_; }  // how many times the default layout was applied
  const PanelRect& area() const { return area_; }

 private:
  PanelRect area_;
  bool have_area_ = false;
  bool reset_requested_ = false;
  bool force_ = false;  // this frame places every panel at its default rectangle
  int layouts_ = 0;
};

}  // namespace attnviz
