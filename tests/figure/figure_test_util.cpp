#include "figure_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stb_image.h>  // implementation is in libstb
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace attnviz::test {

bool DecodePng(const std::string& bytes, Image* image) {
  int w = 0, h = 0, n = 0;
  unsigned char* data =
      stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()), (int)bytes.size(), &w, &h, &n, 3);
  if (!data) return false;
  image->width = w;
  image->height = h;
  image->rgb.assign(data, data + (size_t)w * h * 3);
  stbi_image_free(data);
  return true;
}

bool LoadPng(const std::string& path, Image* image) { return DecodePng(ReadAll(path), image); }

std::string MakeTempDir() {
  char tmpl[] = "/tmp/attnviz_figure_test_XXXXXX";
  char* dir = mkdtemp(tmpl);
  return dir ? dir : "";
}

void RemoveTree(const std::string& path) {
  if (path.rfind("/tmp/attnviz_figure_test_", 0) != 0) return;  // never anything else
  for (const std::string& name : ListDir(path)) {
    std::string p = path + "/" + name;
    struct stat st;
    if (lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) RemoveTree(p);
    else unlink(p.c_str());
  }
  rmdir(path.c_str());
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult Run(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  RunResult result;
  char out_tmpl[] = "/tmp/attnviz_figure_out_XXXXXX";
  char err_tmpl[] = "/tmp/attnviz_figure_err_XXXXXX";
  int out_fd = mkstemp(out_tmpl), err_fd = mkstemp(err_tmpl);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    for (const std::string& e : env) putenv(strdup(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadAll(out_tmpl);
  result.err = ReadAll(err_tmpl);
  unlink(out_tmpl);
  unlink(err_tmpl);
  return result;
}

int ColorDistance(Rgb a, Rgb b) {
  return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

int InkPixels(const Image& image, const RectF& r, int threshold) {
  int count = 0;
  for (int y = std::max(0, (int)r.y); y < std::min(image.height, (int)(r.y + r.h)); ++y)
    for (int x = std::max(0, (int)r.x); x < std::min(image.width, (int)(r.x + r.w)); ++x) {
      Rgb c = image.At(x, y);
      if ((c.r + c.g + c.b) / 3 < threshold) ++count;
    }
  return count;
}

}  // namespace attnviz::test
