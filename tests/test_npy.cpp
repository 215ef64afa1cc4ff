#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "io/file_io.h"

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
  // A device (or FIFO) is refused, never written in place: opening a FIFO to write would wait forever.
  Status full = WriteFileAtomic("/dev/full", std::string(1 << 16, 'x'));
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.message().find("/dev/full: is not a regular file"), std::string::npos) << full.message();
  Status folder = WriteFileAtomic("/tmp", "x");
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.message().find("folder"), std::string::npos);
  EXPECT_EQ(FileExtension("a/b.c/fig.PNG"), ".png");
  EXPECT_EQ(FileExtension("a/b.c/fig"), "");
}

// Each size read from the header is checked: the shape product overflowing size_t (or the bytes it needs)
// is an error, never a wrapped count or a std::length_error abort; the shape must be a tuple.
TEST(Npy, HostileShapesAreErrors) {
  auto overflow = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387905,), }"), "o.npy");
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.message().find("o.npy: not a valid .npy file: shape (4611686018427387905,) has too many elements"),
            std::string::npos) << overflow.message();
  // (2^32, 2^32) wraps to 0 elements in 64 bits: once read as an empty tensor.
  auto wraps = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"), "w.npy");
  ASSERT_FALSE(wraps.ok());
  EXPECT_NE(wraps.message().find("too many elements"), std::string::npos) << wraps.message();
  auto scalar_like = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': 64, }") + std::string(256, '\0'), "s.npy");
  ASSERT_FALSE(scalar_like.ok());
  EXPECT_NE(scalar_like.message().find("shape 64 is not a tuple"), std::string::npos) << scalar_like.message();
  auto negative = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), "n.npy");
  EXPECT_FALSE(negative.ok());
  // A real 0-d array and an empty one still read.
  auto zero_d = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (), }") + std::string(4, '\0'), "z.npy");
  ASSERT_TRUE(zero_d.ok()) << zero_d.message();
  EXPECT_EQ(zero_d->data.size(), 1u);
  auto empty = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }"), "e.npy");
  ASSERT_TRUE(empty.ok()) << empty.message();
  EXPECT_EQ(empty->data.size(), 0u);
}

// Finite as float64 is not enough: the value is checked after the conversion to float32.
TEST(Npy, Float64BeyondFloat32IsAnError) {
  double values[2] = {0.5, 1e300};
  std::string bytes = Header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }");
  bytes.append(reinterpret_cast<const char*>(values), sizeof values);
  auto t = ParseNpy(bytes, "big.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("big.npy: element 1 is 1e+300, beyond the float32 range"), std::string::npos) << t.message();
  values[1] = -3.0e38;  // within float32
  bytes.replace(bytes.size() - sizeof values, sizeof values, reinterpret_cast<const char*>(values), sizeof values);
  EXPECT_TRUE(ParseNpy(bytes, "ok.npy").ok());
}

TEST(Npy, ReadRefusesDevicesAndFifos) {
  auto zero = ReadNpy("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.message().find("/dev/zero: is not a regular file"), std::string::npos) << zero.message();
}
