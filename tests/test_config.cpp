#include "sandbox/config.h"

#include <gtest/gtest.h>

#include <type_traits>

#include <cmath>

using namespace attnviz;

namespace {
std::string ErrorOf(AttentionConfig c) {
  Status s = Validate(c);
  return s.ok() ? "" : s.message();
}
}  // namespace

TEST(Config, DefaultsAreValidAndDerived) {
  AttentionConfig c;
  EXPECT_TRUE(Validate(c).ok());
  c.d_model = 512;
  c.n_head = 8;
  EXPECT_EQ(c.head_dim_k(), 64);
  EXPECT_EQ(c.head_dim_v(), 64);
  c.d_k = 100;  // independent of d_model / n_head
  EXPECT_EQ(c.head_dim_k(), 100);
  EXPECT_EQ(c.head_dim_v(), 100);
  c.d_v = 7;
  EXPECT_EQ(c.head_dim_v(), 7);
  c.d_model = 2;
  c.n_head = 8;
  c.d_k = 0;
  EXPECT_EQ(c.head_dim_k(), 1);  // never 0
}

TEST(Config, LogitMultiplier) {
  AttentionConfig c;
  c.d_k = 64;
  EXPECT_FLOAT_EQ(c.logit_multiplier(), 1.0f / 8.0f);
  c.scale = false;
  EXPECT_FLOAT_EQ(c.logit_multiplier(), 1.0f);
  c.temperature = 0.5f;
  EXPECT_FLOAT_EQ(c.logit_multiplier(), 2.0f);
}

TEST(Config, ErrorsNameFieldValueAndRange) {
  AttentionConfig c;
  c.n_head = 0;
  EXPECT_EQ(ErrorOf(c), "n_head = 0 is out of range: allowed 1..64");
  c = AttentionConfig();
  c.n_head = 65;
  EXPECT_EQ(ErrorOf(c), "n_head = 65 is out of range: allowed 1..64");
  c = AttentionConfig();
  c.d_model = 5000;
  EXPECT_EQ(ErrorOf(c), "d_model = 5000 is out of range: allowed 1..4096");
  c = AttentionConfig();
  c.d_k = 4097;
  EXPECT_EQ(ErrorOf(c), "d_k = 4097 is out of range: allowed 1..4096");
  c = AttentionConfig();
  c.d_v = -1;
  EXPECT_EQ(ErrorOf(c), "d_v = -1 is out of range: allowed 1..4096");
  c = AttentionConfig();
  c.temperature = 0;
  EXPECT_NE(ErrorOf(c).find("temperature = 0 is out of range"), std::string::npos) << ErrorOf(c);
  c.temperature = NAN;
  EXPECT_NE(ErrorOf(c).find("temperature"), std::string::npos);
  c = AttentionConfig();
  c.mode = AttentionMode::kCross;
  c.mask = MaskKind::kCausal;
  EXPECT_NE(ErrorOf(c).find("causal"), std::string::npos);
  c = AttentionConfig();
  c.d_model = 4096;
  c.n_head = 64;
  c.d_k = 4096;
  EXPECT_NE(ErrorOf(c).find("too large"), std::string::npos);
}

TEST(Config, ParseNames) {
  EXPECT_EQ(*ParseMask("causal"), MaskKind::kCausal);
  EXPECT_EQ(*ParseMask("none"), MaskKind::kNone);
  EXPECT_NE(ParseMask("future").message().find("allowed none, causal"), std::string::npos);
  EXPECT_EQ(*ParseQkvLayout("separate"), QkvLayout::kSeparate);
  EXPECT_FALSE(ParseQkvLayout("packed").ok());
  AttentionConfig c;
  c.d_k = 512;
  c.scale = false;
  EXPECT_EQ(Describe(c), "d_k=512 · unscaled · T=1");
}

// Every field of the table takes part in ==, in JSON and in the settings lines: changing any one
// field makes the configs unequal and changes both texts, and its settings line reads back.
TEST(Config, EveryFieldOfTheTableCountsEverywhere) {
  const AttentionConfig base;
  int fields = 0;
  ForEachConfigField([&](const auto& f) {
    ++fields;
    AttentionConfig changed = base;
    using T = std::decay_t<decltype(changed.*f.member)>;
    if constexpr (std::is_same_v<T, bool>) changed.*f.member = !(base.*f.member);
    else if constexpr (std::is_enum_v<T>) changed.*f.member = (T)(1 - (int)(base.*f.member));
    else changed.*f.member = (T)(base.*f.member + 3);
    EXPECT_FALSE(changed == base) << f.name;
    EXPECT_NE(ConfigSettingsLines(changed), ConfigSettingsLines(base)) << f.name;
    if (std::string(f.name) != "d_k" && std::string(f.name) != "d_v")  // JSON writes them resolved
      EXPECT_NE(ConfigJson(changed), ConfigJson(base)) << f.name;
    EXPECT_NE(ChangedEffects(base, changed), 0u) << f.name << " changes and dirties nothing";
    // Its settings line, read back into a default config, gives the changed value.
    const std::string lines = ConfigSettingsLines(changed);
    const std::string key = std::string(f.name) + " = ";
    const size_t at = lines.find(key);
    ASSERT_NE(at, std::string::npos) << f.name;
    const std::string value = lines.substr(at + key.size(), lines.find('\n', at) - at - key.size());
    AttentionConfig read = base;
    Status error;
    ASSERT_TRUE(SetConfigField(f.name, value, &read, &error)) << f.name;
    EXPECT_TRUE(error.ok()) << f.name << ": " << error.message();
    EXPECT_TRUE(read.*f.member == changed.*f.member) << f.name;
  });
  EXPECT_EQ(fields, 17);
}

TEST(Config, SettingsValuesAreRangeCheckedByTheTable) {
  AttentionConfig c;
  Status error;
  EXPECT_TRUE(SetConfigField("n_head", "65", &c, &error));
  EXPECT_NE(error.message().find("out of range"), std::string::npos) << error.message();
  error = Status::Ok();
  EXPECT_TRUE(SetConfigField("temperature", "0x10", &c, &error));
  EXPECT_FALSE(error.ok());
  EXPECT_FALSE(SetConfigField("no_such_field", "1", &c, &error));
}
