// The command-line side of installing: positional arguments (a sentence file or a model folder), --samples,
// and where the programs find their data when run from the build folder (data_dir.h).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "data_dir.h"
#include "options.h"

namespace attnviz {
namespace {

class Scratch {
 public:
  Scratch() {
    char tmpl[] = "/tmp/attnviz_install_XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  ~Scratch() { std::system(("rm -rf '" + root_ + "'").c_str()); }
  std::string File(const std::string& name, const std::string& text = "I go home.\n") {
    std::ofstream(root_ + "/" + name) << text;
    return root_ + "/" + name;
  }
  std::string Dir(const std::string& name) {
    mkdir((root_ + "/" + name).c_str(), 0755);
    return root_ + "/" + name;
  }

 private:
  std::string root_;
};

// Offers every argument to ParseInputOption as the programs do; returns the first error.
Status Parse(const std::vector<std::string>& args, InputOptions* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    Status error;
    if (!ParseInputOption(args, &i, o, &error)) return Status::Error("not consumed: " + args[i]);
    if (!error.ok()) return error;
  }
  return Status::Ok();
}

TEST(Positional, FileIsTextFile) {
  Scratch s;
  std::string file = s.File("sentences.txt");
  InputOptions o;
  ASSERT_TRUE(Parse({file, "--dk", "32"}, &o).ok());
  EXPECT_EQ(o.text_file, file);
  EXPECT_EQ(o.config.d_k, 32);
  EXPECT_TRUE(o.model_dir.empty());
  // The same item as --text-file FILE.
  InputOptions flag;
  ASSERT_TRUE(Parse({"--text-file", file}, &flag).ok());
  Result<SentenceItem> a = ResolveInputText(o), b = ResolveInputText(flag);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->kv_text, b->kv_text);
}

// "~" in path options: the shell leaves a quoted "~/x" alone, and the app's path fields never see a shell.
TEST(ExpandHome, TildeBecomesHome) {
  const char* saved = std::getenv("HOME");
  std::string old_home = saved ? saved : "";
  setenv("HOME", "/home/someone/", 1);
  EXPECT_EQ(ExpandHome("~"), "/home/someone");
  EXPECT_EQ(ExpandHome("~/"), "/home/someone/");
  EXPECT_EQ(ExpandHome("~/texts/a.txt"), "/home/someone/texts/a.txt");
  EXPECT_EQ(ExpandHome("~root/x"), "/root/x");                     // passwd's entry for root
  EXPECT_EQ(ExpandHome("~no_such_user_attnviz/x"), "~no_such_user_attnviz/x");  // left as typed
  EXPECT_EQ(ExpandHome("a/~/b"), "a/~/b");                           // only a leading ~
  EXPECT_EQ(ExpandHome("/abs/path"), "/abs/path");
  EXPECT_EQ(ExpandHome(""), "");
  if (saved) setenv("HOME", old_home.c_str(), 1);
  else unsetenv("HOME");
}

TEST(ExpandHome, PathOptionsExpandTextDoesNot) {
  Scratch s;
  std::string file = s.File("sentences.txt");
  std::string dir = file.substr(0, file.rfind('/'));
  const char* saved = std::getenv("HOME");
  std::string old_home = saved ? saved : "";
  setenv("HOME", dir.c_str(), 1);
  InputOptions o;
  ASSERT_TRUE(Parse({"--text-file", "~/sentences.txt"}, &o).ok());
  EXPECT_EQ(o.text_file, file);
  EXPECT_TRUE(ResolveInputText(o).ok());
  InputOptions positional;
  ASSERT_TRUE(Parse({"~/sentences.txt"}, &positional).ok());
  EXPECT_EQ(positional.text_file, file);
  InputOptions text;  // a sentence is not a path
  ASSERT_TRUE(Parse({"--text", "~/sentences.txt"}, &text).ok());
  EXPECT_EQ(text.text, "~/sentences.txt");
  if (saved) setenv("HOME", old_home.c_str(), 1);
  else unsetenv("HOME");
}

TEST(Positional, FolderWithConfigIsModel) {
  Scratch s;
  std::string model = s.Dir("tiny");
  s.File("tiny/config.json", "{}\n");
  std::string file = s.File("sentences.txt");
  InputOptions o;
  ASSERT_TRUE(Parse({model, file}, &o).ok());
  EXPECT_EQ(o.model_dir, model);
  EXPECT_EQ(o.text_file, file);
}

TEST(Positional, FolderWithoutConfigIsRefused) {
  Scratch s;
  std::string dir = s.Dir("plain");
  InputOptions o;
  Status st = Parse({dir}, &o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("config.json"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(dir), std::string::npos) << st.message();
}

TEST(Positional, TwoFilesAreRefused) {
  Scratch s;
  std::string a = s.File("a.txt"), b = s.File("b.txt");
  InputOptions o;
  Status st = Parse({a, b}, &o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("two sentence files"), std::string::npos) << st.message();
}

TEST(Positional, OptionValuesAreNotPositional) {
  InputOptions o;
  ASSERT_TRUE(Parse({"--text", "nothing/like/a/file", "--mask", "causal"}, &o).ok());
  EXPECT_TRUE(o.text_file.empty());
  EXPECT_EQ(o.text, "nothing/like/a/file");
}

TEST(Positional, MissingFileFailsLikeTextFile) {
  InputOptions o;
  ASSERT_TRUE(Parse({"/nonexistent/sentences.txt"}, &o).ok());
  Result<SentenceItem> item = ResolveInputText(o);
  ASSERT_FALSE(item.ok());
  EXPECT_NE(item.message().find("/nonexistent/sentences.txt"), std::string::npos) << item.message();
}

// This test program lives in the build folder: the data comes from the source tree.
TEST(DataDir, BuildFolderUsesSourceTree) {
  const DataDir& d = FindDataDir();
  char* source = realpath(ATTNVIZ_TEST_SOURCE_DIR, nullptr);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(d.root, source) << d.searched;
  std::free(source);
  EXPECT_FALSE(d.installed);
  struct stat st;
  EXPECT_EQ(stat((d.shaders() + "/heatmap.vert").c_str(), &st), 0);
  EXPECT_EQ(stat(d.samples().c_str(), &st), 0);
}

TEST(DataDir, SamplesOption) {
  InputOptions o;
  ASSERT_TRUE(Parse({"--samples", "--line", "7"}, &o).ok());
  EXPECT_EQ(o.text_file, FindDataDir().samples());
  EXPECT_TRUE(ResolveInputText(o).ok());
}

TEST(DataDir, InfoOptions) {
  EXPECT_EQ(InfoOptionText("attnviz-cli", "--version"), std::string("attnviz-cli ") + AttnvizVersion() + "\n");
  std::string paths = InfoOptionText("attnviz", "--print-paths");
  EXPECT_NE(paths.find("data: " + FindDataDir().root + "\n"), std::string::npos) << paths;
  EXPECT_NE(paths.find("layout: source tree\n"), std::string::npos) << paths;
  EXPECT_NE(paths.find("samples: " + FindDataDir().samples() + "\n"), std::string::npos) << paths;
  EXPECT_EQ(InfoOptionText("attnviz", "--text"), "");
}

}  // namespace
}  // namespace attnviz
