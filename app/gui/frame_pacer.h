// When the main loop draws. An idle window draws nothing and sleeps in glfwWaitEventsTimeout, so it
// costs ~0% CPU; input, a change or work in progress (App::Busy) draws the next few frames, enough
// for hover, release and window-appearing states to settle; --frames, --bench-frames and snapshots
// draw every frame.
#pragma once

namespace attnviz {

class FramePacer {
 public:
  // Frames drawn after the last activity (at ~60 a second: about a sixth of a second).
  static constexpr int kFramesAfterActivity = 10;
  // How long an idle loop sleeps before it looks again at signals, settings to save and the worker.
  static constexpr double kIdleWaitSeconds = 0.25;

  // While work runs without input: frames at most this often (progress and layers as they arrive).
  static constexpr double kBusyFramesPerSecond = 20;
  // How long to wait for input before the next busy frame, `since_last_frame` seconds after the last one.
  static double BusyWaitSeconds(double since_last_frame) {
    const double left = 1.0 / kBusyFramesPerSecond - since_last_frame;
    return left > 0.001 ? left : 0.0;
  }

  // Input arrived, something changed or is still running: the next frames are drawn.
  void Activity() { frames_due_ = kFramesAfterActivity; }
  bool FrameDue() const { return frames_due_ > 0; }
  void FrameDrawn() {
    if (frames_due_ > 0) --frames_due_;
  }
  // What to pass to the event wait: 0 (poll) while a frame is due, else the idle sleep.
  double WaitSeconds() const { return FrameDue() ? 0.0 : kIdleWaitSeconds; }

 private:
  int frames_due_ = kFramesAfterActivity;  // the first frames are always drawn
};

}  // namespace attnviz
