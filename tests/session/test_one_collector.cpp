// The one collector (core/session/layer_collector.h) behind the three programs that run a model: attnviz-cli
// model --dump (the real binary), the app's ModelSession and attnviz_model_bench --long (the real binary) give the
// same bytes for the same run: the CLI's attention.npy, rollout.npy, value_norm.npy and roles.csv equal what the
// session keeps of a whole-map run; the bench's streamed roles equal the session's streamed run's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "i18n/map_kind_words.h"
#include "io/npy.h"
#include "model_folder.h"
#include "session/map_kind.h"
#include "session/model_session.h"

namespace attnviz {
namespace {

namespace fs = std::filesystem;

const char* kText = "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log.";

std::string Fixture(const std::string& name) {
  return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + name;
}

std::string TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attnviz_session_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A run of the session to its end (its own threads), with every run streamed when `stream`.
std::shared_ptr<const ModelResult> SessionRun(ModelSession& session, const std::string& fixture, bool stream) {
  if (stream) session.set_stream_above_cells(0);
  session.Open(Fixture(fixture));
  EXPECT_TRUE(session.WaitIdle(60));
  ModelRequest request;
  request.folder = session.folder();
  EXPECT_TRUE(request.folder) << session.open_status().message();
  if (!request.folder) return nullptr;
  request.text = kText;
  session.Submit(request);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const ModelResult> r = session.latest();
  EXPECT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  return r && r->complete() ? r : nullptr;
}

// `got` holds `want`'s floats bit for bit, from float index `at` on.
::testing::AssertionResult SameBitsAt(const Tensor& got, size_t at, const float* want, size_t count) {
  if (at + count > got.size())
    return ::testing::AssertionFailure() << "the file has " << got.size() << " floats, fewer than " << at + count;
  if (std::memcmp(got.data.data() + at, want, count * sizeof(float)) != 0)
    return ::testing::AssertionFailure() << "the floats from " << at << " differ";
  return ::testing::AssertionSuccess();
}

class OneCollector : public ::testing::TestWithParam<std::string> {};

TEST_P(OneCollector, TheCliDumpHoldsWhatTheSessionKeeps) {
  ModelSession session(OpenModelFolder);
  std::shared_ptr<const ModelResult> r = SessionRun(session, GetParam(), /*stream=*/false);
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->streamed);
  const std::string out = TempDir("cli_" + GetParam());
  const cli_test::CliResult cli = cli_test::Cli({"model", "--model", Fixture(GetParam()), "--text", kText, "--dump",
                                                 out, "--rollout", "--value-norm"});
  ASSERT_EQ(cli.code, 0) << cli.err;
  auto attention = ReadNpy(out + "/attention.npy");
  auto rollout = ReadNpy(out + "/rollout.npy");
  auto value_norm = ReadNpy(out + "/value_norm.npy");
  ASSERT_TRUE(attention && rollout && value_norm);
  const size_t n = r->tokens.size();
  for (int l = 0; l < r->n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const Tensor& probs = *r->layers[(size_t)l]->probs;  // [n_head, n, n]
    const LayerAnalysis& a = *r->analysis[(size_t)l];
    ASSERT_EQ(probs.size(), (size_t)r->layers[(size_t)l]->n_head() * n * n);
    EXPECT_TRUE(SameBitsAt(*attention, (size_t)l * probs.size(), probs.data.data(), probs.size()));
    ASSERT_EQ(a.rollout->size(), n * n);  // exact below kRolloutMaxTokens
    EXPECT_TRUE(SameBitsAt(*rollout, (size_t)l * n * n, a.rollout->data.data(), n * n));
    // value_norm.npy: each weight times its key's value-norm scale, which the session keeps per layer.
    std::vector<float> weighted(probs.size());
    const size_t n_head = probs.dim(0);
    for (size_t h = 0; h < n_head; ++h)
      model::ScaleColumns(probs.data.data() + h * n * n, a.value_norms->data.data() + h * n, (int)n, (int)n,
                          weighted.data() + h * n * n);
    EXPECT_TRUE(SameBitsAt(*value_norm, (size_t)l * probs.size(), weighted.data(), weighted.size()));
  }
  EXPECT_EQ(ReadText(out + "/roles.csv"), model::HeadRolesCsv(r->roles));
  fs::remove_all(out);
}

TEST_P(OneCollector, TheBenchScoresTheStreamedRunAsTheSession) {
  ModelSession session(OpenModelFolder);
  std::shared_ptr<const ModelResult> r = SessionRun(session, GetParam(), /*stream=*/true);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->streamed);
  const std::string out = TempDir("bench_" + GetParam());
  std::string ids = "[";
  for (size_t i = 0; i < r->tokens.size(); ++i) ids += (i ? "," : "") + std::to_string(r->tokens[i].id);
  std::ofstream(out + "/ids.json") << ids << "]";
  const std::string command = std::string(ATTNVIZ_MODEL_BENCH) + " --dir " + cli_test::Quote(Fixture(GetParam())) +
                              " --ids-file " + cli_test::Quote(out + "/ids.json") + " --long --reps 1 --roles-csv " +
                              cli_test::Quote(out + "/roles.csv") + " > " + cli_test::Quote(out + "/log.txt") + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << ReadText(out + "/log.txt");
  EXPECT_EQ(ReadText(out + "/roles.csv"), model::HeadRolesCsv(r->roles));
  fs::remove_all(out);
}

// Every kind of the registry has its name (found again by it) and its words in both languages: its label, and the
// sentences under it and around its refusal when it has them. (The test below runs --kind with every name.)
TEST(MapKinds, EveryKindHasItsNameAndWordsInBothLanguages) {
  for (const MapKindInfo* kind : MapKinds()) {
    ASSERT_NE(kind->name, nullptr);
    SCOPED_TRACE(kind->name);
    EXPECT_NE(kind->name[0], 0);
    EXPECT_EQ(MapKindNamed(kind->name), kind);
    EXPECT_EQ(&KindInfo(kind->kind), kind);
    ASSERT_TRUE(HasWords(kind->kind));
    const MapKindWords& w = WordsOf(kind->kind);
    for (Str id : {w.label, w.explain, w.refused}) {
      if (id == Str::kCount && id != w.label) continue;  // no such sentence
      ASSERT_NE(id, Str::kCount);
      const std::string en = Tr(id, Lang::kEn), ko = Tr(id, Lang::kKo);
      EXPECT_FALSE(en.empty());
      EXPECT_FALSE(ko.empty());
      EXPECT_NE(en, ko) << "the Korean table says it in English";
    }
  }
  // Their labels are distinct (the Map choice's radio buttons).
  for (const MapKindInfo* a : MapKinds())
    for (const MapKindInfo* b : MapKinds())
      if (a != b) EXPECT_NE(WordsOf(a->kind).label, WordsOf(b->kind).label) << a->name << " " << b->name;
}

// Every kind of the registry dumps through --kind NAME; the older flags give the same bytes; a name not in the
// registry is refused with the registry's names; --kind needs --dump.
TEST(MapKinds, EveryKindDumpsThroughKindAndTheAliasesWriteTheSameBytes) {
  std::string names;
  for (const MapKindInfo* kind : MapKinds()) names += (names.empty() ? "" : ",") + std::string(kind->name);
  const std::string by_kind = TempDir("kinds"), by_alias = TempDir("aliases");
  const cli_test::CliResult a =
      cli_test::Cli({"model", "--model", Fixture("llama"), "--text", kText, "--dump", by_kind, "--kind", names});
  ASSERT_EQ(a.code, 0) << a.err;
  std::vector<std::string> aliased = {"model", "--model", Fixture("llama"), "--text", kText, "--dump", by_alias};
  for (const MapKindInfo* kind : MapKinds())
    if (*kind->cli_alias) aliased.push_back(kind->cli_alias);
  const cli_test::CliResult b = cli_test::Cli(aliased);
  ASSERT_EQ(b.code, 0) << b.err;
  for (const MapKindInfo* kind : MapKinds()) {
    SCOPED_TRACE(kind->name);
    const std::string file = ReadText(by_kind + "/" + kind->dump.file);
    EXPECT_GT(file.size(), 128u);
    EXPECT_EQ(file, ReadText(by_alias + "/" + kind->dump.file));
    if (*kind->dump.sidecar_file)
      EXPECT_EQ(ReadText(by_kind + "/" + kind->dump.sidecar_file), ReadText(by_alias + "/" + kind->dump.sidecar_file));
  }
  const cli_test::CliResult bad =
      cli_test::Cli({"model", "--model", Fixture("llama"), "--text", kText, "--dump", by_kind, "--kind", "saliency"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--kind: map kind 'saliency' is unknown: allowed " + MapKindNames()), std::string::npos) << bad.err;
  const cli_test::CliResult no_dump = cli_test::Cli({"model", "--model", Fixture("llama"), "--text", kText, "--kind", "rollout"});
  EXPECT_EQ(no_dump.code, 2);
  EXPECT_NE(no_dump.err.find("--kind"), std::string::npos) << no_dump.err;
  fs::remove_all(by_kind);
  fs::remove_all(by_alias);
}

INSTANTIATE_TEST_SUITE_P(Families, OneCollector, ::testing::Values("gpt2", "llama", "bert", "roberta"));

}  // namespace
}  // namespace attnviz
