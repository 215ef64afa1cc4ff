#include "gl/shader_program.h"

#include <algorithm>

#include "io/file_io.h"

namespace attnviz::gl {

namespace {

// The info log of a shader or a program (get_iv/get_log: glGetShaderiv/glGetShaderInfoLog or the
// program pair), without trailing NULs and newlines.
template <typename GetIv, typename GetLog>
std::string InfoLog(GLuint id, GetIv get_iv, GetLog get_log) {
  GLint length = 0;
  get_iv(id, GL_INFO_LOG_LENGTH, &length);
  std::string log((size_t)std::max(length, 1), '\0');
  get_log(id, length, nullptr, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

Result<GLuint> Compile(GLenum kind, const std::string& path) {
  Result<std::string> source = ReadFile(path);
  if (!source) return Status::Error("cannot read shader " + path + ": " + source.message());
  GLuint shader = glCreateShader(kind);
  const char* text = source->c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    std::string log = InfoLog(shader, glGetShaderiv, glGetShaderInfoLog);
    glDeleteShader(shader);
    return Status::Error("shader " + path + " does not compile:\n" + log);
  }
  return shader;
}

}  // namespace

ShaderProgram::~ShaderProgram() {
  if (id_) glDeleteProgram(id_);
}

Status ShaderProgram::Load(const std::string& vertex_path, const std::string& fragment_path,
                           const std::vector<std::string>& attributes, const std::vector<std::string>& uniforms) {
  if (id_) glDeleteProgram(id_);
  id_ = 0;
  Result<GLuint> vs = Compile(GL_VERTEX_SHADER, vertex_path);
  if (!vs) return vs.status();
  Result<GLuint> fs = Compile(GL_FRAGMENT_SHADER, fragment_path);
  if (!fs) {
    glDeleteShader(*vs);
    return fs.status();
  }
  GLuint program = glCreateProgram();
  glAttachShader(program, *vs);
  glAttachShader(program, *fs);
  glLinkProgram(program);
  glDeleteShader(*vs);
  glDeleteShader(*fs);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    std::string log = InfoLog(program, glGetProgramiv, glGetProgramInfoLog);
    glDeleteProgram(program);
    return Status::Error("shaders " + vertex_path + " + " + fragment_path + " do not link:\n" + log);
  }
  // House rule: a_ attributes, u_ uniforms.
  std::string problems;
  GLint count = 0;
  char name[256];
  glGetProgramiv(program, GL_ACTIVE_ATTRIBUTES, &count);
  std::vector<std::string> seen_attributes, seen_uniforms;
  for (GLint i = 0; i < count; ++i) {
    GLsizei length = 0;
    GLint size = 0;
    GLenum type = 0;
    glGetActiveAttrib(program, (GLuint)i, sizeof name, &length, &size, &type, name);
    std::string n(name, (size_t)length);
    if (n.rfind("gl_", 0) == 0) continue;
    seen_attributes.push_back(n);
    if (n.rfind("a_", 0) != 0) problems += "\n  attribute '" + n + "' must be named a_*";
  }
  glGetProgramiv(program, GL_ACTIVE_UNIFORMS, &count);
  for (GLint i = 0; i < count; ++i) {
    GLsizei length = 0;
    GLint size = 0;
    GLenum type = 0;
    glGetActiveUniform(program, (GLuint)i, sizeof name, &length, &size, &type, name);
    std::string n(name, (size_t)length);
    seen_uniforms.push_back(n);
    if (n.rfind("u_", 0) != 0) problems += "\n  uniform '" + n + "' must be named u_*";
  }
  auto has = [](const std::vector<std::string>& v, const std::string& n) {
    for (const std::string& s : v)
      if (s == n) return true;
    return false;
  };
  for (const std::string& a : attributes)
    if (!has(seen_attributes, a)) problems += "\n  missing (or unused) attribute '" + a + "'";
  for (const std::string& u : uniforms)
    if (!has(seen_uniforms, u)) problems += "\n  missing (or unused) uniform '" + u + "'";
  if (!problems.empty()) {
    glDeleteProgram(program);
    return Status::Error("shaders " + vertex_path + " + " + fragment_path + " break the interface:" + problems);
  }
  id_ = program;
  return Status::Ok();
}

}  // namespace attnviz::gl
