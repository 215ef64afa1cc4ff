// app/gui/frame_pacer.h: an idle window draws nothing; after activity a few frames; while work runs without
// input, frames at most kBusyFramesPerSecond a second.
#include "frame_pacer.h"

#include <gtest/gtest.h>

TEST(FramePacer, BusyFramesWaitForTheirTurn) {
  const double period = 1.0 / attnviz::FramePacer::kBusyFramesPerSecond;
  EXPECT_DOUBLE_EQ(attnviz::FramePacer::BusyWaitSeconds(0), period);
  EXPECT_NEAR(attnviz::FramePacer::BusyWaitSeconds(period / 2), period / 2, 1e-12);
  EXPECT_EQ(attnviz::FramePacer::BusyWaitSeconds(period), 0.0);
  EXPECT_EQ(attnviz::FramePacer::BusyWaitSeconds(1.0), 0.0);
  attnviz::FramePacer pacer;
  static_assert(attnviz::FramePacer::kFramesAtStart >= 2, "a layout settles in two frames");
  for (int i = 0; i < attnviz::FramePacer::kFramesAtStart; ++i) {  // a new window: a few frames, not ten
    EXPECT_TRUE(pacer.FrameDue());
    pacer.FrameDrawn();
  }
  EXPECT_FALSE(pacer.FrameDue());
  EXPECT_EQ(pacer.WaitSeconds(), attnviz::FramePacer::kIdleWaitSeconds);
  pacer.Activity();
  for (int i = 0; i < attnviz::FramePacer::kFramesAfterActivity; ++i) {
    EXPECT_TRUE(pacer.FrameDue());
    pacer.FrameDrawn();
  }
  EXPECT_FALSE(pacer.FrameDue());
}

// While work runs without input: a frame when what is shown changed, otherwise only the progress bar's few a
// second; between them the loop waits a busy frame period (no spinning), and a change draws two frames, not ten.
TEST(FramePacer, BusyWorkDrawsOnChangeAndForProgressOnly) {
  using attnviz::FramePacer;
  const double progress_period = 1.0 / FramePacer::kProgressFramesPerSecond;
  EXPECT_LT(FramePacer::kProgressFramesPerSecond, FramePacer::kBusyFramesPerSecond);
  EXPECT_TRUE(FramePacer::BusyFrameDue(true, 0.0));
  EXPECT_FALSE(FramePacer::BusyFrameDue(false, progress_period / 2));
  EXPECT_TRUE(FramePacer::BusyFrameDue(false, progress_period));
  FramePacer pacer;
  while (pacer.FrameDue()) pacer.FrameDrawn();
  EXPECT_DOUBLE_EQ(pacer.BusyWaitSecondsFor(0.0), 1.0 / FramePacer::kBusyFramesPerSecond);
  EXPECT_DOUBLE_EQ(pacer.BusyWaitSecondsFor(10.0), 1.0 / FramePacer::kBusyFramesPerSecond);  // never 0: no spin
  pacer.Change();
  EXPECT_EQ(pacer.BusyWaitSecondsFor(10.0), 0.0);  // due and its turn has come
  int frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, FramePacer::kFramesAfterChange);
  pacer.BusyChange();  // while work runs, one frame a change
  frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, 1);
  pacer.Activity();
  pacer.Change();  // a change never shortens what input asked for
  pacer.BusyChange();
  frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, FramePacer::kFramesAfterActivity);
  // Input while work runs: a few frames (each one takes the work's cores), never fewer than already due.
  static_assert(FramePacer::kFramesAfterActivityWhileBusy >= 2 &&
                    FramePacer::kFramesAfterActivityWhileBusy < FramePacer::kFramesAfterActivity,
                "hover and release settle in two frames");
  pacer.Activity(/*busy=*/true);
  frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, FramePacer::kFramesAfterActivityWhileBusy);
  pacer.Activity();
  pacer.Activity(/*busy=*/true);
  frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, FramePacer::kFramesAfterActivity);
}
