#include "gl/heatmap_renderer.h"

namespace attnviz::gl {

GlHeatmapRenderer::GlHeatmapRenderer(const std::string& shader_dir) {
  Status st = program_.Load(shader_dir + "/heatmap.vert", shader_dir + "/heatmap.frag", {"a_position", "a_uv"},
                            {"u_weights", "u_lut", "u_grid", "u_log_scale", "u_range", "u_log_floor", "u_masked",
                             "u_mask_color", "u_cell_px"});
  if (!st.ok()) {
    error_ = "The heatmaps cannot be drawn: " + st.message() +
             "\n(Fix the shader, or point --shader-dir at a folder with heatmap.vert and heatmap.frag.)";
    return;
  }
  // A quad: (x, y, u, v), triangle strip.
  const float quad[] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1};
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
  GLint a_position = program_.Attribute("a_position"), a_uv = program_.Attribute("a_uv");
  glEnableVertexAttribArray((GLuint)a_position);
  glVertexAttribPointer((GLuint)a_position, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void*)0);
  glEnableVertexAttribArray((GLuint)a_uv);
  glVertexAttribPointer((GLuint)a_uv, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void*)(2 * sizeof(float)));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
}

GlHeatmapRenderer::~GlHeatmapRenderer() {
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
}

const Texture& GlHeatmapRenderer::Lut(Colormap colormap) {
  std::unique_ptr<Texture>& lut = luts_[(int)colormap];
  if (!lut) {
    lut = std::make_unique<Texture>();
    lut->UploadRGB8(kColormapSize, 1, ColormapRgb(colormap));
  }
  return *lut;
}

ImTextureID GlHeatmapRenderer::Render(const HeatmapKey& key, const HeatmapImage& image, int width_px, int height_px) {
  if (!program_.ok() || !image.probs || image.n_q <= 0 || image.n_k <= 0 || width_px <= 0 || height_px <= 0)
    return 0;
  std::unique_ptr<Slot>& slot = slots_[key];
  if (!slot) slot = std::make_unique<Slot>();
  slot->used = true;
  bool redraw = !slot->valid;
  if (slot->data != image.probs || slot->version != image.data_version || slot->n_q != image.n_q ||
      slot->n_k != image.n_k) {
    slot->probs.UploadR32F(image.n_k, image.n_q, image.probs);  // width = keys, height = queries
    slot->data = image.probs;
    slot->version = image.data_version;
    slot->n_q = image.n_q;
    slot->n_k = image.n_k;
    ++uploads_;
    redraw = true;
  }
  if (slot->width != width_px || slot->height != height_px) {
    slot->color.AllocateRGBA8(width_px, height_px);
    if (!slot->fbo.Attach(slot->color)) {
      error_ = "The heatmaps cannot be drawn: the GL framebuffer for a " + std::to_string(width_px) + "x" +
               std::to_string(height_px) + " map is incomplete.";
      return 0;
    }
    slot->width = width_px;
    slot->height = height_px;
    redraw = true;
  }
  const HeatmapImage& d = slot->drawn;
  if (d.colormap != image.colormap || d.color_scale != image.color_scale || d.range.lo != image.range.lo ||
      d.range.hi != image.range.hi || d.masked != image.masked)
    redraw = true;
  if (redraw) {
    GLint last_viewport[4];
    glGetIntegerv(GL_VIEWPORT, last_viewport);
    glBindFramebuffer(GL_FRAMEBUFFER, slot->fbo.id());
    glViewport(0, 0, width_px, height_px);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glUseProgram(program_.id());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, slot->probs.id());
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, Lut(image.colormap).id());
    glUniform1i(program_.Uniform("u_weights"), 0);
    glUniform1i(program_.Uniform("u_lut"), 1);
    glUniform2f(program_.Uniform("u_grid"), (float)image.n_k, (float)image.n_q);
    glUniform1i(program_.Uniform("u_log_scale"), image.color_scale == ColorScale::kLog ? 1 : 0);
    glUniform2f(program_.Uniform("u_range"), image.range.lo, image.range.hi);
    glUniform1f(program_.Uniform("u_log_floor"), kLogFloor);
    glUniform1i(program_.Uniform("u_masked"), image.masked ? 1 : 0);
    glUniform4f(program_.Uniform("u_mask_color"), 0.22f, 0.22f, 0.25f, 1.0f);
    glUniform1f(program_.Uniform("u_cell_px"), (float)width_px / (float)image.n_k);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(last_viewport[0], last_viewport[1], last_viewport[2], last_viewport[3]);
    slot->drawn = image;
    slot->valid = true;
    ++draws_;
  }
  return (ImTextureID)(intptr_t)slot->color.id();
}

namespace {
void DisableBlending(const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }
}  // namespace

ImDrawCallback GlHeatmapRenderer::opaque_callback() const { return DisableBlending; }

void GlHeatmapRenderer::EndFrame() {
  for (auto it = slots_.begin(); it != slots_.end();) {
    if (!it->second->used) {
      it = slots_.erase(it);
    } else {
      it->second->used = false;
      ++it;
    }
  }
}

void GlHeatmapRenderer::InvalidateAll() {
  for (auto& [id, slot] : slots_) {
    slot->valid = false;
    slot->version = ~0ull;
  }
}

}  // namespace attnviz::gl
