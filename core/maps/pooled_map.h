// A long map drawn pooled: every f x f block of cells becomes one cell, so a figure of thousands of tokens fits a
// page's column (attnviz-cli model --figure --pool F). The pooling is the app's (maps/pyramid.h): max keeps a single
// spike visible, mean keeps each block row's share of the rows' sums.
//
// Dimension glossary
//   n_q, n_k   cells of the map (query rows, keys)      f   tokens a side of a pooled cell
//   nb_q, nb_k pooled cells: ceil(n_q / f), ceil(n_k / f) (the last block of a side may cover fewer tokens)
#pragma once
#include <string>
#include <vector>

#include "attention/mask.h"
#include "maps/pyramid.h"
#include "tokenize/token.h"

namespace attnviz {

// ceil(n / f): the cells a side of n tokens pools to.
int PooledSide(int n, int f);

// One head's map pooled in f x f blocks:
//   plane: [n_q, n_k] softmax rows, masked entries exactly 0
//   out:   [nb_q, nb_k]
//   max:  the largest weight the block covers
//   mean: the mean over every cell the block covers, masked ones as their 0 (the pyramid's mean: a row of blocks
//         keeps its rows' sums; an edge block divides by the cells it covers)
void PoolMapPlane(const float* plane, int n_q, int n_k, int f, PoolKind kind, float* out);

// The mask of the pooled grid: a block is masked when every cell it covers is. Causal: the blocks after the
// diagonal block; a sliding window of W keys: also the blocks at least ceil((W + f - 1) / f) blocks before it,
// which is a window of that many blocks. Partly masked blocks are drawn with what they hold.
Mask PooledMask(const Mask& mask, int f);

// The pooled axis's labels: "0-7", "8-15", ..., the last block's "8000" (one token) or "7992-7999".
std::vector<Token> BlockTokens(int n, int f);

// The title's words: "max-pooled 8x8", "mean-pooled 4x4".
std::string PooledTitle(PoolKind kind, int f);

}  // namespace attnviz
