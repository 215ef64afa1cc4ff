#include "io/npy.h"

#include <unistd.h>

#include <cmath>
#include <cerrno>
#include <cstring>
#include <limits>

#include "io/file_io.h"
#include "io/json.h"
#include "base/parse_number.h"

namespace attnviz {
namespace {

// Value of `key` in the header dict, e.g. "'descr': '<f4'" -> "'<f4'"; empty when absent.
std::string HeaderValue(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t b = colon + 1;
  while (b < header.size() && header[b] == ' ') ++b;
  size_t e = b;
  if (b < header.size() && header[b] == '(') e = header.find(')', b) + 1;
  else if (b < header.size() && header[b] == '\'') e = header.find('\'', b + 1) + 1;
  else while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  if (e == std::string::npos || e == 0) return "";
  return header.substr(b, e - b);
}

// "(3, 4)", "(3,)", "()" -> the dims; returns their product. Each dim and the product (times the element
// size: the bytes the data must hold) are checked against overflow, so a hostile shape is an error, never
// a wrapped count or an allocation that throws.
Result<size_t> ParseShape(const std::string& text, size_t elem, std::vector<size_t>* shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return Status::Error(MsgId::kNpyShapeNotTuple, {text});
  size_t count = 1;
  size_t i = 1;
  const size_t end = text.size() - 1;
  while (i < end) {
    while (i < end && text[i] == ' ') ++i;
    if (i == end) break;
    size_t j = i;
    while (j < end && text[j] >= '0' && text[j] <= '9') ++j;
    Result<uint64_t> d = ParseUnsigned64(text.substr(i, j - i));
    if (!d) return Status::Prefixed(MsgId::kPrefixNpyBadShape, {text}, d.status());
    if (*d != 0 && count > std::numeric_limits<size_t>::max() / elem / *d)
      return Status::Error(MsgId::kNpyShapeOverflow, {text});
    count *= (size_t)*d;
    shape->push_back((size_t)*d);
    if (shape->size() > 32) return Status::Error(MsgId::kNpyShapeDims, {text});
    while (j < end && text[j] == ' ') ++j;
    if (j < end && text[j] != ',') return Status::Error(MsgId::kNpyBadShape, {text});
    i = j + 1;
  }
  return count;
}

}  // namespace

Result<Tensor> ParseNpy(const std::string& bytes, const std::string& name) {
  // "NAME: not a valid .npy file: " + what is wrong.
  auto fail = [&](const Status& what) {
    return Status::Prefixed(MsgId::kPrefixContext, {name}, Status::Prefixed(MsgId::kPrefixNpyInvalid, {}, what));
  };
  auto fail_with = [&](MsgId id, std::vector<std::string> args) { return fail(Status::Error(id, std::move(args))); };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return fail_with(MsgId::kNpyNoMagic, {});
  const unsigned major = (unsigned char)bytes[6];
  size_t header_len, offset;
  if (major == 1) {
    header_len = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail_with(MsgId::kNpyTruncatedHeader, {});
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    offset = 12;
  } else {
    return fail_with(MsgId::kNpyVersion, {std::to_string(major)});
  }
  if (offset + header_len > bytes.size()) return fail_with(MsgId::kNpyHeaderPastEnd, {});
  const std::string header = bytes.substr(offset, header_len);
  const std::string descr = HeaderValue(header, "descr");
  const std::string fortran = HeaderValue(header, "fortran_order");
  const std::string shape_text = HeaderValue(header, "shape");
  if (descr.empty() || fortran.empty() || shape_text.empty()) return fail_with(MsgId::kNpyHeaderKeys, {});
  size_t elem;
  if (descr == "'<f4'") elem = 4;
  else if (descr == "'<f8'") elem = 8;
  else return Status::ErrorAt(name, MsgId::kNpyDtype, {descr});
  if (fortran != "False") return Status::ErrorAt(name, MsgId::kNpyFortran, {});
  Tensor t;
  Result<size_t> count = ParseShape(shape_text, elem, &t.shape);
  if (!count) return fail(count.status());
  const size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset != *count * elem) {
    return Status::ErrorAt(name, MsgId::kNpyDataSize,
                           {std::to_string(bytes.size() - data_offset), shape_text, std::to_string(*count * elem)});
  }
  t.data.resize(*count);
  const char* src = bytes.data() + data_offset;
  for (size_t i = 0; i < *count; ++i) {
    double v;
    if (elem == 4) {
      float f;
      std::memcpy(&f, src + 4 * i, 4);
      v = f;
    } else {
      std::memcpy(&v, src + 8 * i, 8);
    }
    // Checked after the conversion: a float64 beyond the float32 range would otherwise become Inf.
    const float converted = (float)v;
    if (!std::isfinite(converted)) {
      if (std::isnan(v) || std::isinf(v))
        return Status::ErrorAt(name, MsgId::kNpyNotFinite, {std::to_string(i), std::isnan(v) ? "NaN" : "Inf"});
      return Status::ErrorAt(name, MsgId::kNpyBeyondFloat32, {std::to_string(i), JsonNumber(v)});
    }
    t.data[i] = converted;
  }
  return t;
}

Result<Tensor> ReadNpy(const std::string& path) {
  auto bytes = ReadFile(path, kMaxNpyBytes, ".npy file");
  if (!bytes) return bytes.status();
  return ParseNpy(*bytes, path);
}

std::string NpyHeader(const std::vector<size_t>& shape) {
  std::string dims;  // "3, 4", or "3," for a 1-d shape (a Python tuple)
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad with spaces so the data starts at a multiple of 64 bytes; the header ends with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += (char)(header.size() & 0xFF);
  out += (char)((header.size() >> 8) & 0xFF);
  return out + header;
}

std::string EncodeNpy(const float* data, const std::vector<size_t>& shape) {
  size_t count = 1;
  for (size_t d : shape) count *= d;
  std::string out = NpyHeader(shape);
  out.append(reinterpret_cast<const char*>(data), count * sizeof(float));
  return out;
}

NpyStreamWriter::~NpyStreamWriter() {
  if (file_) std::fclose(file_);
}

Status NpyStreamWriter::Open(const std::string& path, const std::vector<size_t>& shape) {
  path_ = path;
  expected_ = 1;
  for (size_t d : shape) {
    if (d != 0 && expected_ > (size_t)-1 / sizeof(float) / d) return Status::Error(path + ": shape too large");
    expected_ *= d;
  }
  written_ = 0;
  if (Status s = CheckWriteTarget(path); !s) return s;  // fopen of a FIFO would wait for a reader forever
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) return Status::Error(path + ": cannot create: " + std::strerror(errno));
  const std::string header = NpyHeader(shape);
  if (std::fwrite(header.data(), 1, header.size(), file_) != header.size())
    return Status::Error(path + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

Status NpyStreamWriter::Append(const float* data, size_t count) {
  if (!file_) return Status::Error(path_ + ": not open");
  if (written_ + count > expected_)
    return Status::Error(path_ + ": " + std::to_string(written_ + count) + " floats written, the shape holds " +
                         std::to_string(expected_));
  if (std::fwrite(data, sizeof(float), count, file_) != count)
    return Status::Error(path_ + ": write failed: " + std::strerror(errno));
  written_ += count;
  return Status::Ok();
}

Status NpyStreamWriter::Close() {
  if (!file_) return Status::Error(path_ + ": not open");
  const bool flushed = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (!flushed || closed != 0) return Status::Error(path_ + ": write failed: " + std::strerror(errno));
  if (written_ != expected_)
    return Status::Error(path_ + ": " + std::to_string(written_) + " floats written, the shape holds " +
                         std::to_string(expected_));
  return Status::Ok();
}

Status WriteNpy(const std::string& path, const float* data, const std::vector<size_t>& shape) {
  return WriteFileAtomic(path, EncodeNpy(data, shape));
}

}  // namespace attnviz
