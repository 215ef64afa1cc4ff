// The logit lens as the Overview draws it, for decoder-only models (panel_lens.cpp) and an encoder-decoder model's
// decoder (panel_seq2seq_readouts.cpp): a grid of layers (rows, 0 = the embeddings, the model's own output last) by
// positions (columns); each cell names the token that layer would predict, its colour the probability it gives the
// token the position predicts (else the top token's); hover for the top k.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "color/colormap.h"
#include "model/lens.h"
#include "panel_context.h"

namespace attnviz {

// What the grid reads: the layers over positions [first, first + count) of a text of n tokens, and the words.
struct LensGridInput {
  const std::vector<model::LensLayer>* layers = nullptr;  // positions[i].index = first + i
  int first = 0, count = 0, n = 0;
  // The lens the words were made of: they are made once per lens (made_by, generation), not per cell per frame.
  const void* made_by = nullptr;
  uint64_t generation = 0;
  std::function<std::string(int id)> token;         // a vocabulary id as a cell shows it ("·the")
  std::function<std::string(int position)> at;      // the token at a position
  std::function<std::string(int position)> next;    // the token the position predicts ("": none)
};

// Draws the grid at the cursor, in a child window that scrolls sideways when the columns do not fit. Records each
// cell as "lens.cell.<layer>.<position>" and the field "lens" {"first", "count", "n", "cells": [[top id, value]]}.
void DrawLensGrid(PanelContext& ctx, const LensGridInput& in);

// "0 [colour bar] 1  what": what a cell's colour means, in the colour map the cells use.
void DrawLensLegend(Colormap colormap, const std::string& what);

}  // namespace attnviz
