// core/file_io: bounded reads, the one atomic writer (short temporary names, modes, symlinks, signals)
// and DumpFolder (a folder that appears whole or not at all).
#include "io/file_io.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/attnviz-file-io-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  // Names in the folder (recursively), relative.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(path)) out.push_back(fs::relative(e.path(), path).string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string path;
};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

}  // namespace

TEST(ReadFile, RefusesWhatIsNotARegularFileOrTooLarge) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "a.txt", std::string(100, 'a')).ok());
  auto limited = ReadFile(dir / "a.txt", 64, "test file");
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.message(), dir / "a.txt" + ": 100 bytes is too large for a test file (at most 64 bytes)");
  EXPECT_EQ(ReadFile(dir / "a.txt", 100)->size(), 100u);
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  auto fifo = ReadFile(dir / "fifo");  // no writer: must not block
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.message().find("is not a regular file (a device, FIFO or socket)"), std::string::npos);
  auto folder = ReadFile(dir.path);
  EXPECT_NE(folder.message().find("is a folder"), std::string::npos) << folder.message();
  EXPECT_FALSE(ReadFile("/dev/zero").ok());
  // A /proc file says size 0 and still has content: read to its end, bounded.
  auto status = ReadFile("/proc/self/status", 1 << 20);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_NE(status->find("Pid:"), std::string::npos);
  EXPECT_FALSE(ReadFile("/proc/self/status", 16).ok());
  EXPECT_EQ(ByteSizeText(size_t(16) << 20), "16 MiB");
}

// path + ".tmp-XXXXXX" made names of 245..255 bytes fail; the temporary name is short now.
TEST(WriteFileAtomic, AnyValidNameCanBeWritten) {
  TempDir dir;
  const std::string name(255, 'n');
  ASSERT_TRUE(WriteFileAtomic(dir / name, "long").ok());
  EXPECT_EQ(*ReadFile(dir / name), "long");
  ASSERT_TRUE(WriteFileAtomic(dir / name, "again").ok());
  EXPECT_EQ(dir.Names(), std::vector<std::string>{name});
}

TEST(WriteFileAtomic, KeepsTheModeOfTheFileItReplaces) {
  TempDir dir;
  const std::string secret = dir / "secret.txt";
  ASSERT_TRUE(WriteFileAtomic(secret, "1").ok());
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileAtomic(secret, "2").ok());
  EXPECT_EQ(ModeOf(secret), 0600u);  // was widened to 0644
  ASSERT_EQ(chmod(secret.c_str(), 0640), 0);
  ASSERT_TRUE(WriteFileAtomic(secret, "3").ok());
  EXPECT_EQ(ModeOf(secret), 0640u);
  const mode_t mask = umask(022);
  umask(mask);
  ASSERT_TRUE(WriteFileAtomic(dir / "new.txt", "x").ok());
  EXPECT_EQ(ModeOf(dir / "new.txt"), 0666u & ~mask);
}

TEST(WriteFileAtomic, WritesThroughSymlinks) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "real").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "real/settings.txt", "old").ok());
  ASSERT_EQ(chmod((dir / "real/settings.txt").c_str(), 0600), 0);
  ASSERT_EQ(symlink("real/settings.txt", (dir / "hop").c_str()), 0);  // relative, two hops
  ASSERT_EQ(symlink((dir / "hop").c_str(), (dir / "settings.txt").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "settings.txt", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "settings.txt"));
  EXPECT_TRUE(fs::is_symlink(dir / "hop"));
  EXPECT_EQ(*ReadFile(dir / "real/settings.txt"), "new");
  EXPECT_EQ(ModeOf(dir / "real/settings.txt"), 0600u);
  // A dangling link creates its target.
  ASSERT_EQ(symlink("made.txt", (dir / "dangling").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "dangling", "made").ok());
  EXPECT_EQ(*ReadFile(dir / "made.txt"), "made");
  ASSERT_EQ(symlink("loop", (dir / "loop").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomic(dir / "loop", "x").ok());
}

// The one set of file-exists tests: links followed; a link loop is "there" (opening it names the loop).
TEST(FileExists, FilesFoldersLinksAndLoops) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "a.txt", "a").ok());
  ASSERT_EQ(mkdir((dir / "sub").c_str(), 0755), 0);
  ASSERT_EQ(symlink("a.txt", (dir / "to_file").c_str()), 0);
  ASSERT_EQ(symlink("sub", (dir / "to_folder").c_str()), 0);
  ASSERT_EQ(symlink("loop", (dir / "loop").c_str()), 0);
  ASSERT_EQ(symlink("nowhere", (dir / "dangling").c_str()), 0);
  for (const char* name : {"a.txt", "to_file"}) {
    EXPECT_TRUE(PathExists(dir / name)) << name;
    EXPECT_TRUE(IsRegularFile(dir / name)) << name;
    EXPECT_FALSE(IsFolder(dir / name)) << name;
  }
  for (const char* name : {"sub", "to_folder"}) {
    EXPECT_TRUE(PathExists(dir / name)) << name;
    EXPECT_FALSE(IsRegularFile(dir / name)) << name;
    EXPECT_TRUE(IsFolder(dir / name)) << name;
  }
  EXPECT_TRUE(PathExists(dir / "loop"));
  EXPECT_FALSE(IsRegularFile(dir / "loop"));
  EXPECT_FALSE(IsFolder(dir / "loop"));
  for (const char* name : {"dangling", "missing"}) {
    EXPECT_FALSE(PathExists(dir / name)) << name;
    EXPECT_FALSE(IsRegularFile(dir / name)) << name;
    EXPECT_FALSE(IsFolder(dir / name)) << name;
  }
}

// SIGTERM in the middle of big writes: the temporary file is removed and the process still ends by the signal.
TEST(WriteFileAtomic, SigtermRemovesTheTemporaryFile) {
  TempDir dir;
  const std::string target = dir / "big.bin";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string bytes(size_t(64) << 20, 'x');
    for (;;) WriteFileAtomic(target, bytes);
  }
  // Wait until a temporary file exists (any name but the target's), then stop the child while it writes.
  bool writing = false;
  for (int i = 0; i < 2000 && !writing; ++i) {
    for (const std::string& n : dir.Names()) writing |= n != "big.bin";
    if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_TRUE(writing);
  for (const std::string& n : dir.Names()) EXPECT_EQ(n, "big.bin") << "left behind";
}

TEST(DumpFolder, AppearsWholeOrNotAtAll) {
  TempDir dir;
  {
    DumpFolder dump;
    ASSERT_TRUE(dump.Begin(dir / "out/").ok());
    ASSERT_TRUE(WriteFileAtomic(dump.Path("a.json"), "a").ok());
    ASSERT_TRUE(WriteFileAtomic(dump.Path("b.npy"), "b").ok());
    EXPECT_FALSE(fs::exists(dir / "out")) << "nothing in place before Commit";
    ASSERT_TRUE(dump.Commit().ok());
  }
  EXPECT_EQ(dir.Names(), (std::vector<std::string>{"out", "out/a.json", "out/b.npy"}));
  {
    DumpFolder failed;  // an error part-way: no Commit
    ASSERT_TRUE(failed.Begin(dir / "other").ok());
    ASSERT_TRUE(WriteFileAtomic(failed.Path("a.json"), "a").ok());
  }
  EXPECT_EQ(dir.Names(), (std::vector<std::string>{"out", "out/a.json", "out/b.npy"}));
  {
    DumpFolder again;  // into a folder with files: each file replaced, others kept
    ASSERT_TRUE(again.Begin(dir / "out").ok());
    ASSERT_TRUE(WriteFileAtomic(again.Path("a.json"), "A").ok());
    ASSERT_TRUE(again.Commit().ok());
  }
  EXPECT_EQ(*ReadFile(dir / "out/a.json"), "A");
  EXPECT_EQ(dir.Names(), (std::vector<std::string>{"out", "out/a.json", "out/b.npy"}));
  ASSERT_TRUE(WriteFileAtomic(dir / "file", "x").ok());
  DumpFolder onto_file;
  Status s = onto_file.Begin(dir / "file");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exists and is not a folder"), std::string::npos) << s.message();
}

TEST(DumpFolder, SigtermRemovesTheStagingFolder) {
  TempDir dir;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DumpFolder dump;
    if (!dump.Begin(dir / "out").ok()) _exit(3);
    WriteFileAtomic(dump.Path("x.npy"), std::string(1 << 20, 'x'));
    WriteFileAtomic(dump.Path("y.npy"), std::string(1 << 20, 'y'));
    raise(SIGTERM);
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(dir.Names(), std::vector<std::string>{});
}

// Issue 25: a FIFO (or device) target is refused at once; opening it to write would wait for a reader forever.
TEST(FileIo, FifoTargetIsRefusedNotWaitedOn) {
  TempDir dir;
  ASSERT_EQ(mkfifo((dir / "pipe.json").c_str(), 0600), 0);
  ASSERT_EQ(symlink("pipe.json", (dir / "via-link.csv").c_str()), 0);
  for (const char* name : {"pipe.json", "via-link.csv"}) {
    Status s = WriteFileAtomic(dir / name, "x");
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_NE(s.message().find("is not a regular file (a device, FIFO or socket)"), std::string::npos) << s.message();
  }
  EXPECT_FALSE(CheckWriteTarget("/dev/null").ok());
  EXPECT_TRUE(CheckWriteTarget(dir / "new.csv").ok());
}

// A dump into a folder holding names it writes: all of them replaced, or (when a move fails) none.
TEST(DumpFolder, FailedCommitKeepsEveryOldFile) {
  TempDir dir;
  fs::create_directories(dir / "out/f7.npy/inside");  // a folder where the dump puts a file
  for (int i = 0; i < 12; ++i)
    if (i != 7) ASSERT_TRUE(WriteFileAtomic(dir / ("out/f" + std::to_string(i) + ".npy"), "old").ok());
  DumpFolder dump;
  ASSERT_TRUE(dump.Begin(dir / "out").ok());
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(WriteFileAtomic(dump.Path("f" + std::to_string(i) + ".npy"), "new").ok());
  Status s = dump.Commit();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("f7.npy: is a folder"), std::string::npos) << s.message();
  for (int i = 0; i < 12; ++i)
    if (i != 7) EXPECT_EQ(*ReadFile(dir / ("out/f" + std::to_string(i) + ".npy")), "old") << i;
  for (const std::string& n : dir.Names()) EXPECT_EQ(n.find(".~"), std::string::npos) << n;
}

// An existing target keeps its mode (0700 stays 0700) and needs no writable parent.
TEST(DumpFolder, ExistingTargetKeepsItsModeUnderAReadOnlyParent) {
  TempDir dir;
  fs::create_directories(dir / "ro/out");
  ASSERT_EQ(chmod((dir / "ro/out").c_str(), 0700), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "ro/out/a.json", "old").ok());
  ASSERT_EQ(chmod((dir / "ro").c_str(), 0555), 0);
  DumpFolder dump;
  Status begun = dump.Begin(dir / "ro/out");
  Status committed = begun.ok() && WriteFileAtomic(dump.Path("a.json"), "new").ok() ? dump.Commit() : begun;
  chmod((dir / "ro").c_str(), 0755);
  ASSERT_TRUE(committed.ok()) << committed.message();
  struct stat st;
  ASSERT_EQ(stat((dir / "ro/out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(*ReadFile(dir / "ro/out/a.json"), "new");
}
