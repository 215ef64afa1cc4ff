#include "npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "file_io.h"

using namespace attnviz;

namespace {
std::string Header(const std::string& dict) {
  std::string h = dict;
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += (char)(h.size() & 0xFF);
  out += (char)(h.size() >> 8);
  return out + h;
}
}  // namespace

TEST(Npy, RoundTripFloat32) {
  std::vector<float> data = {1.5f, -2.0f, 3.25f, 0.0f, 1e-30f, 7.0f};
  const std::string bytes = EncodeNpy(data.data(), {2, 3});
  EXPECT_EQ(bytes.size() % 64, (6 * 4) % 64);  // data aligned to 64 bytes
  EXPECT_NE(bytes.find("'shape': (2, 3)"), std::string::npos);
  auto t = ParseNpy(bytes, "mem");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(t->data, data);
  auto one_d = ParseNpy(EncodeNpy(data.data(), {6}), "mem");
  ASSERT_TRUE(one_d.ok());
  EXPECT_EQ(one_d->shape, (std::vector<size_t>{6}));
}

TEST(Npy, ReadsFloat64) {
  double values[3] = {0.5, -1.25, 3.0};
  std::string bytes = Header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }");
  bytes.append(reinterpret_cast<const char*>(values), sizeof values);
  auto t = ParseNpy(bytes, "f64.npy");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(t->data, (std::vector<float>{0.5f, -1.25f, 3.0f}));
}

TEST(Npy, ClearErrors) {
  auto bad_magic = ParseNpy("not an npy file at all", "x.npy");
  ASSERT_FALSE(bad_magic.ok());
  EXPECT_NE(bad_magic.message().find("x.npy"), std::string::npos);
  EXPECT_NE(bad_magic.message().find("magic"), std::string::npos);

  std::string ints = Header("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }") + std::string(4, '\0');
  auto dtype = ParseNpy(ints, "i.npy");
  ASSERT_FALSE(dtype.ok());
  EXPECT_NE(dtype.message().find("'<i4'"), std::string::npos);
  EXPECT_NE(dtype.message().find("float32"), std::string::npos);

  std::string fortran = Header("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }") + std::string(4, '\0');
  EXPECT_NE(ParseNpy(fortran, "f.npy").message().find("Fortran"), std::string::npos);

  std::string truncated = Header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }") + std::string(10, '\0');
  auto tr = ParseNpy(truncated, "t.npy");
  ASSERT_FALSE(tr.ok());
  EXPECT_NE(tr.message().find("truncated"), std::string::npos);

  float nan = std::nanf("");
  std::string with_nan = EncodeNpy(&nan, {1});
  EXPECT_NE(ParseNpy(with_nan, "n.npy").message().find("NaN"), std::string::npos);

  EXPECT_FALSE(ReadNpy("/nonexistent/w.npy").ok());
}

TEST(FileIo, AtomicWriteReplacesAndLeavesNoTempFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("attnviz_io_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "a.txt").string();
  ASSERT_TRUE(WriteFileAtomic(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "second").ok());
  EXPECT_EQ(*ReadFile(path), "second");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(FileIo, FailuresAreClearAndLeaveNothing) {
  Status missing_dir = WriteFileAtomic("/nonexistent_dir_attnviz/x.npy", "data");
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_NE(missing_dir.message().find("/nonexistent_dir_attnviz/x.npy"), std::string::npos);
  Status full = WriteFileAtomic("/dev/full", std::string(1 << 16, 'x'));
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.message().find("No space left on device"), std::string::npos) << full.message();
  Status folder = WriteFileAtomic("/tmp", "x");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.message().find("folder"), std::string::npos);
  EXPECT_EQ(FileExtension("a/b.c/fig.PNG"), ".png");
  EXPECT_EQ(FileExtension("a/b.c/fig"), "");
}
