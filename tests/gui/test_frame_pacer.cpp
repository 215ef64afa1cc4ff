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
// second; between them the loop waits a busy frame period (no spinning), and a change draws one frame, not ten.
TEST(FramePacer, BusyWorkDrawsOnChangeAndForProgressOnly) {
  using attnviz::FramePacer;
  const double progress_period = 1.0 / FramePacer::kProgressFramesPerSecond;
  EXPECT_LT(FramePacer::kProgressFramesPerSecond, FramePacer::kBusyFramesPerSecond);
  FramePacer pacer;
  while (pacer.FrameDue()) pacer.FrameDrawn();
  pacer.Busy(/*changed=*/false, false, progress_period / 2);
  EXPECT_FALSE(pacer.FrameDue());
  EXPECT_DOUBLE_EQ(pacer.BusyWaitSecondsFor(0.0), 1.0 / FramePacer::kBusyFramesPerSecond);
  EXPECT_DOUBLE_EQ(pacer.BusyWaitSecondsFor(10.0), 1.0 / FramePacer::kBusyFramesPerSecond);  // never 0: no spin
  pacer.Busy(false, false, progress_period);  // the progress bar's turn
  EXPECT_TRUE(pacer.FrameDue());
  pacer.FrameDrawn();
  pacer.Busy(/*changed=*/true, /*more_layers_only=*/false, 0.0);  // e.g. a run's first layer: at once
  EXPECT_EQ(pacer.BusyWaitSecondsFor(10.0), 0.0);  // due and its turn has come
  int frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, 1);
  pacer.Change();  // the work ended: two frames
  frames = 0;
  while (pacer.FrameDue()) pacer.FrameDrawn(), ++frames;
  EXPECT_EQ(frames, FramePacer::kFramesAfterChange);
  pacer.Activity();
  pacer.Change();  // a change never shortens what input asked for
  pacer.Busy(true, false, 0.0);
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

// A fast run's next layers wait for their turn (kLayerFramesPerSecond), and the loop sleeps until then; layers that
// came meanwhile are drawn by that one frame, and the frame drawn for anything else shows them too.
TEST(FramePacer, MoreLayersOfARunWaitTheirTurn) {
  using attnviz::FramePacer;
  const double layer_period = 1.0 / FramePacer::kLayerFramesPerSecond;
  static_assert(FramePacer::kLayerFramesPerSecond < FramePacer::kBusyFramesPerSecond &&
                    FramePacer::kLayerFramesPerSecond > FramePacer::kProgressFramesPerSecond,
                "layers come more often than the progress bar's frames, less often than busy frames");
  FramePacer pacer;
  while (pacer.FrameDue()) pacer.FrameDrawn();
  pacer.Busy(/*changed=*/true, /*more_layers_only=*/true, 0.05);  // a layer 50 ms after the last frame
  EXPECT_FALSE(pacer.FrameDue());
  EXPECT_NEAR(pacer.BusyWaitSecondsFor(0.05), layer_period - 0.05, 1e-12);  // sleeps until its turn
  pacer.Busy(true, true, 0.10);  // another layer: still waiting
  EXPECT_FALSE(pacer.FrameDue());
  pacer.Busy(false, false, layer_period);  // their turn: one frame shows both
  EXPECT_TRUE(pacer.FrameDue());
  pacer.FrameDrawn();
  EXPECT_FALSE(pacer.FrameDue());
  pacer.Busy(false, false, 0.01);
  EXPECT_FALSE(pacer.FrameDue()) << "the frame showed the waiting layers";
  EXPECT_DOUBLE_EQ(pacer.BusyWaitSecondsFor(0.01), 1.0 / FramePacer::kBusyFramesPerSecond);
  pacer.Busy(true, true, 0.01);
  pacer.Busy(true, /*more_layers_only=*/false, 0.02);  // e.g. the last layer: at once, with the waiting one
  EXPECT_TRUE(pacer.FrameDue());
  pacer.FrameDrawn();
  EXPECT_FALSE(pacer.FrameDue());
}

// Frames drawn while work runs cost what they cost (under llvmpipe, beside a model run, tens of ms of the cores):
// the next layer and progress frames wait until the last one's cost is kBusyFrameShare of the time since; a cheap
// frame (a GPU) keeps the fixed rates. Input and a run's first or last layer still draw at once.
TEST(FramePacer, CostlyBusyFramesComeLessOften) {
  using attnviz::FramePacer;
  FramePacer pacer;
  while (pacer.FrameDue()) pacer.FrameDrawn();
  pacer.FrameCost(0.001);  // a GPU's frame
  EXPECT_DOUBLE_EQ(pacer.LayerPeriod(), 1.0 / FramePacer::kLayerFramesPerSecond);
  EXPECT_DOUBLE_EQ(pacer.ProgressPeriod(), 1.0 / FramePacer::kProgressFramesPerSecond);
  const double cost = 0.04;  // llvmpipe beside a run
  pacer.FrameCost(cost);
  const double period = cost / FramePacer::kBusyFrameShare;
  ASSERT_GT(period, 1.0 / FramePacer::kProgressFramesPerSecond);
  EXPECT_DOUBLE_EQ(pacer.LayerPeriod(), period);
  EXPECT_DOUBLE_EQ(pacer.ProgressPeriod(), period);
  pacer.Busy(/*changed=*/true, /*more_layers_only=*/true, 1.0 / FramePacer::kLayerFramesPerSecond);
  EXPECT_FALSE(pacer.FrameDue()) << "a layer frame at the fixed rate though the last frame took " << cost << " s";
  EXPECT_NEAR(pacer.BusyWaitSecondsFor(0.3), period - 0.3, 1e-12);  // sleeps until its turn
  pacer.Busy(false, false, 1.0 / FramePacer::kProgressFramesPerSecond);
  EXPECT_FALSE(pacer.FrameDue()) << "a progress frame at the fixed rate";
  pacer.Busy(false, false, period);
  EXPECT_TRUE(pacer.FrameDue());
  pacer.FrameDrawn();
  pacer.Busy(true, /*more_layers_only=*/false, 0.01);  // a run's last layer: at once
  EXPECT_TRUE(pacer.FrameDue());
  pacer.FrameDrawn();
  pacer.Activity(/*busy=*/true);  // input: at once
  EXPECT_TRUE(pacer.FrameDue());
  // One slow frame (a font atlas rebuilt) stalls neither the layers nor the progress bar for long.
  pacer.FrameCost(0.4);
  EXPECT_DOUBLE_EQ(pacer.LayerPeriod(), FramePacer::kLongestBusyFramePeriod);
  EXPECT_DOUBLE_EQ(pacer.ProgressPeriod(), FramePacer::kLongestBusyFramePeriod);
}
