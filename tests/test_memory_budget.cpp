// The memory limit a run is checked against (core/base/memory_budget.h): the default follows the machine, the
// environment overrides it, an address-space limit caps both.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>

#include "base/memory_budget.h"

namespace attnviz {
namespace {

constexpr size_t kGiB = size_t(1) << 30;

TEST(MemoryBudget, TheDefaultIsAStatedShareOfThePhysicalMemory) {
  EXPECT_EQ(DefaultMemoryLimit(24 * kGiB, 0), (size_t)(24 * kGiB * kDefaultMemoryFraction));
  EXPECT_EQ(DefaultMemoryLimit(4 * kGiB, 0), (size_t)(4 * kGiB * kDefaultMemoryFraction));
  // A 24 GiB machine lets a run take far more than the old flat 2 GiB (an 8000-token SmolLM2 run needs 2.2 GiB).
  EXPECT_GT(DefaultMemoryLimit(24 * kGiB, 0), 10 * kGiB);
}

TEST(MemoryBudget, AnAddressSpaceLimitCapsTheDefaultAtHalf) {
  EXPECT_EQ(DefaultMemoryLimit(24 * kGiB, 6 * kGiB), 3 * kGiB);
  EXPECT_EQ(DefaultMemoryLimit(2 * kGiB, 64 * kGiB), (size_t)(2 * kGiB * kDefaultMemoryFraction));
}

TEST(MemoryBudget, AnUnknownPhysicalSizeGivesTwoGiB) { EXPECT_EQ(DefaultMemoryLimit(0, 0), 2 * kGiB); }

TEST(MemoryBudget, TheEnvironmentOverridesTheDefaultAndBadValuesAreIgnored) {
  struct rlimit as;
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &as), 0);
  if (as.rlim_cur != RLIM_INFINITY) GTEST_SKIP() << "an address-space limit is set";
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  const size_t machine = MemoryLimitBytes();
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "3G", 1);
  EXPECT_EQ(MemoryLimitBytes(), 3 * kGiB);
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "512MiB", 1);
  EXPECT_EQ(MemoryLimitBytes(), size_t(512) << 20);
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "lots", 1);
  EXPECT_EQ(MemoryLimitBytes(), machine);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
}

}  // namespace
}  // namespace attnviz
