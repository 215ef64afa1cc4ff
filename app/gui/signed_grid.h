// A grid of signed values as the Overview's attribution and patching views draw it: diverging colours (blue below 0,
// red above, white at 0, symmetric around 0 so a colour means the same size either way), row and column labels,
// the signed value on hover and a colour bar naming the range. NaN cells (not computed) are drawn grey.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "panel_context.h"

namespace attnviz {

// v in [-range, range] -> RGB: white at 0, blue (#3b4cc0-like) at -range, red at +range; NaN -> grey.
void DivergingColor(double v, double range, unsigned char rgb[3]);

struct SignedGrid {
  int rows = 0, cols = 0;
  const double* values = nullptr;  // [rows, cols]
  std::vector<std::string> row_labels, col_labels;  // [rows], [cols]
  double range = 1;           // the colours' ends are -range and +range
  std::string dump_name;      // cells are recorded as "<dump_name>.cell.<row>.<col>", the values as a field
  float min_cell_w = 28.0f;   // cells get narrower than this only never: the grid scrolls sideways instead
  // The tooltip of cell (row, col) (its value is values[row * cols + col]).
  std::function<std::string(int row, int col)> tooltip;
};

// Draws the grid at the cursor, in a child window that scrolls sideways when the columns do not fit; max_h bounds
// its height (0: all rows). Records the cells and a dump field {dump_name: {"rows", "cols", "values"}}.
void DrawSignedGrid(PanelContext& ctx, const SignedGrid& grid, float max_h = 0);

// "-R [blue..white..red] +R  what": what a cell's colour means.
void DrawDivergingLegend(double range, const std::string& what);

// The shortest text that reads back as the same double ("0.1", "-0.58520095093541014"); "null" for NaN and Inf, as
// JSON has it (JsonNumber keeps 10 digits: a file or dump compared with core's numbers needs all of them).
std::string ExactNumber(double v);

// The value as a cell's tooltip shows it: signed, 4 significant digits ("+0.1234", "-12.35").
std::string SignedText(double v);

}  // namespace attnviz
