// When the main loop draws. An idle window draws nothing and sleeps in glfwWaitEventsTimeout, so it
// costs ~0% CPU; input draws the next few frames, enough for hover, release and window-appearing states to
// settle; --frames, --bench-frames and snapshots draw every frame. While work runs (App::Busy) without input,
// a frame is drawn when what it shows changed (a run's next layers a few times a second) and otherwise only a few
// times a second for the progress bar: under llvmpipe (drawing on the CPU) each frame costs CPU time that a model
// run on the same cores would otherwise get, so those frames also wait until the last one's cost is at most
// kBusyFrameShare of the time since (FrameCost).
#pragma once
#include <algorithm>

namespace attnviz {

class FramePacer {
 public:
  // Frames drawn after the last activity (at ~60 a second: about a sixth of a second).
  static constexpr int kFramesAfterActivity = 10;
  static constexpr int kFramesAfterActivityWhileBusy = 3;
  // Frames drawn when the window opens, before any input (a layout settles in two): a model opened from the command
  // line starts its run at once, and frames nobody asked for would take its cores.
  static constexpr int kFramesAtStart = 3;
  // How long an idle loop sleeps before it looks again at signals, settings to save and the worker.
  static constexpr double kIdleWaitSeconds = 0.25;

  // While work runs without input: frames at most this often ...
  static constexpr double kBusyFramesPerSecond = 20;
  // ... a run's next layers (not its first or last) at most this often: a fast model's layers come faster than a
  // person reads them, and each frame takes the run's cores ...
  static constexpr double kLayerFramesPerSecond = 4;
  // ... and, when nothing shown changed, this often (the progress bar's fraction) ...
  static constexpr double kProgressFramesPerSecond = 2;
  // ... and both only once the last busy frame's cost is at most this share of the time since it began: on a GPU a
  // frame is cheap (the rates above hold); under llvmpipe, beside a model run on the same cores, it is not, so a
  // layer frame comes less often.
  static constexpr double kBusyFrameShare = 0.05;
  // ... but never less often than this (one slow frame, say a font atlas rebuilt, must not stall the progress bar).
  static constexpr double kLongestBusyFramePeriod = 1.0;
  // Frames drawn after what the screen shows changed in the background (a layout settles in two).
  static constexpr int kFramesAfterChange = 2;
  // How long to wait for input before the next busy frame, `since_last_frame` seconds after the last one.
  static double BusyWaitSeconds(double since_last_frame) {
    const double left = 1.0 / kBusyFramesPerSecond - since_last_frame;
    return left > 0.001 ? left : 0.0;
  }
  // What to pass to the event wait while work runs: the rest of the busy frame period when a frame is due, the rest
  // of the layer period when layers wait, else one busy frame period (the loop then looks at the work again; input
  // and background results end the wait at once).
  double BusyWaitSecondsFor(double since_last_frame) const {
    if (FrameDue()) return BusyWaitSeconds(since_last_frame);
    const double layers_left = LayerPeriod() - since_last_frame;
    if (layers_pending_ && layers_left > 0.001) return layers_left;
    return 1.0 / kBusyFramesPerSecond;
  }

  // Input arrived: the next frames are drawn (fewer while work runs: each takes the work's cores, and any further
  // input asks again).
  void Activity(bool busy = false) {
    const int due = busy ? kFramesAfterActivityWhileBusy : kFramesAfterActivity;
    frames_due_ = frames_due_ > due ? frames_due_ : due;
  }
  // What the screen shows changed (no work runs): a frame or two.
  void Change() { frames_due_ = frames_due_ > kFramesAfterChange ? frames_due_ : kFramesAfterChange; }
  // Each pass of the loop while work runs and no input came: `changed` what is shown changed since the last pass,
  // `more_layers_only` the change was only more layers of the same run (neither its first nor its last). A change
  // draws one frame, at once, or for more layers once their period has passed; the progress bar's turn draws one.
  // Anything a frame leaves to settle settles in the next one, and the end of the work draws Change()'s two.
  void Busy(bool changed, bool more_layers_only, double since_last_frame) {
    if (changed && more_layers_only) layers_pending_ = true;
    const bool due = (changed && !more_layers_only) || (layers_pending_ && since_last_frame >= LayerPeriod()) ||
                     since_last_frame >= ProgressPeriod();
    if (due) frames_due_ = frames_due_ > 1 ? frames_due_ : 1;
  }
  bool FrameDue() const { return frames_due_ > 0; }
  void FrameDrawn() {
    if (frames_due_ > 0) --frames_due_;
    layers_pending_ = false;  // the frame shows them
  }
  // A frame drawn while work ran took `seconds` (from its start to the swap): the next layer and progress frames
  // wait for kBusyFrameShare of the time.
  void FrameCost(double seconds) { busy_frame_seconds_ = seconds; }
  // How long after a frame the next one for more layers, or for the progress bar, may come.
  double LayerPeriod() const { return PeriodFor(1.0 / kLayerFramesPerSecond); }
  double ProgressPeriod() const { return PeriodFor(1.0 / kProgressFramesPerSecond); }
  // What to pass to the event wait: 0 (poll) while a frame is due, else the idle sleep.
  double WaitSeconds() const { return FrameDue() ? 0.0 : kIdleWaitSeconds; }

 private:
  int frames_due_ = kFramesAtStart;  // the first frames are always drawn
  bool layers_pending_ = false;       // more layers arrived since the last frame (Busy)
  double busy_frame_seconds_ = 0;     // the last busy frame's cost (FrameCost)
  // A fixed rate's period, longer when the last busy frame was costly (kBusyFrameShare), up to
  // kLongestBusyFramePeriod.
  double PeriodFor(double fixed) const {
    return std::max(fixed, std::min(kLongestBusyFramePeriod, busy_frame_seconds_ / kBusyFrameShare));
  }
};

}  // namespace attnviz
