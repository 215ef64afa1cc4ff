// MODEL_CHECK: the model wing's old name for ATTNVIZ_CHECK_SHAPE (core/base/check.h), kept for the files not yet
// moved to it; new checks use ATTNVIZ_CHECK_SHAPE with both shapes in the message.
#pragma once
#include "base/check.h"
#define MODEL_CHECK(cond) ATTNVIZ_CHECK_SHAPE(cond, "")
