// Helpers for the figure tests: temp folders, decoded PNGs, running commands.
#pragma once
#include <string>
#include <vector>

#include "figure/painter.h"

namespace attnviz::test {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // [height, width, 3]
  Rgb At(int x, int y) const {
    const unsigned char* p = &rgb[((size_t)y * width + x) * 3];
    return Rgb{p[0], p[1], p[2]};
  }
};
// Decodes a PNG file with stb_image (forced to RGB). Fails the current test on error.
bool LoadPng(const std::string& path, Image* image);
bool DecodePng(const std::string& bytes, Image* image);

// A fresh empty folder under /tmp (removed by the caller with RemoveTree, or left for inspection).
std::string MakeTempDir();
void RemoveTree(const std::string& path);
std::vector<std::string> ListDir(const std::string& dir);
bool FileExists(const std::string& path);
std::string ReadAll(const std::string& path);

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs argv (no shell), with extra environment entries "NAME=value".
RunResult Run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});

// Largest per-channel difference.
int ColorDistance(Rgb a, Rgb b);
// Pixels in the rectangle darker than `threshold` (mean of channels): the "ink".
int InkPixels(const Image& image, const RectF& r, int threshold = 160);

}  // namespace attnviz::test
