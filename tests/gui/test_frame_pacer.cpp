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
  for (int i = 0; i < attnviz::FramePacer::kFramesAfterActivity; ++i) {
    EXPECT_TRUE(pacer.FrameDue());
    pacer.FrameDrawn();
  }
  EXPECT_FALSE(pacer.FrameDue());
  EXPECT_EQ(pacer.WaitSeconds(), attnviz::FramePacer::kIdleWaitSeconds);
}
