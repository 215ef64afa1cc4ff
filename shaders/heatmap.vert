#version 330 core
// One quad covering the FBO: a_position in [0, 1]^2, a_uv the same corner in map space.
// uv.y = 0 is query row 0 (the first row in memory), which ImGui::Image shows at the top.
in vec2 a_position;
in vec2 a_uv;
out vec2 v_uv;

void main() {
  v_uv = a_uv;
  gl_Position = vec4(a_position * 2.0 - 1.0, 0.0, 1.0);
}
