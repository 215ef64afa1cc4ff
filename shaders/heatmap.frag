#version 330 core
// One attention map: texels from an R32F texture (a window of the map at the drawn resolution: one texel
// per cell when zoomed in, pooled cells otherwise; core/maps/view.h), fetched per texel
// (texelFetch: nearest, so cells stay crisp), coloured through the 256x1 colormap LUT
// (core/colormap.h ColormapRgb). Colour scale as in core/colormap.h:
//   linear: t = (w - lo) / (hi - lo)
//   log:    f(x) = log10(max(x, u_log_floor)); t = (f(w) - f(lo')) / (f(hi) - f(lo')), lo' = max(lo, floor)
// A degenerate range maps everything to 0. Masked texels (NaN: every cell the texel covers is masked, after
// its query under a causal mask or before its window; Mask::AllMasked) are drawn grey.
in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_weights;   // R32F, size n_k x n_q
uniform sampler2D u_lut;       // RGB8, 256 x 1
uniform vec2 u_grid;           // (n_k, n_q)
uniform int u_log_scale;       // 0 linear, 1 log
uniform vec2 u_range;          // (lo, hi)
uniform float u_log_floor;     // kLogFloor
uniform int u_masked;          // 1: the map has masked cells (causal, or outside a sliding window)
uniform vec4 u_mask_color;
uniform float u_cell_px;       // cell size in pixels: thin grid lines when cells are big

float Normalize(float w) {
  float lo = u_range.x;
  float hi = u_range.y;
  if (u_log_scale == 1) {
    float f_lo = log(max(lo, u_log_floor)) / log(10.0);
    float f_hi = log(max(hi, u_log_floor)) / log(10.0);
    if (f_hi <= f_lo) return 0.0;
    return clamp((log(max(w, u_log_floor)) / log(10.0) - f_lo) / (f_hi - f_lo), 0.0, 1.0);
  }
  if (hi <= lo) return 0.0;
  return clamp((w - lo) / (hi - lo), 0.0, 1.0);
}

void main() {
  vec2 cell_f = v_uv * u_grid;
  ivec2 cell = clamp(ivec2(floor(cell_f)), ivec2(0), ivec2(u_grid) - 1);  // (key j, query i)
  vec3 color;
  float w = texelFetch(u_weights, cell, 0).r;
  if (isnan(w) && u_masked == 1) {  // every cell the texel covers is masked (the view writes NaN)
    color = u_mask_color.rgb;
  } else {
    if (isnan(w)) w = 0.0;
    float t = Normalize(w);
    float index = floor(t * 255.0 + 0.5);  // nearest LUT entry, as MapColor does
    color = texelFetch(u_lut, ivec2(int(index), 0), 0).rgb;
  }
  // Grid lines between big cells (about one pixel).
  if (u_cell_px >= 10.0) {
    vec2 frac_px = fract(cell_f) * u_cell_px;
    if (frac_px.x < 1.0 || frac_px.y < 1.0) color *= 0.55;
  }
  frag_color = vec4(color, 1.0);
}
