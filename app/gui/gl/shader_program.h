// RAII GL shader program loaded from files at run time. On load it checks the house rule: every
// active attribute is named a_*, every active uniform u_*, and the ones the caller needs exist.
// Failures carry the file name and the compile/link log, for the UI to show.
#pragma once
#include <glad/gl.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace attnviz::gl {

class ShaderProgram {
 public:
  ShaderProgram() = default;
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  // Reads, compiles and links; checks names and that `attributes`/`uniforms` are all active.
  Status Load(const std::string& vertex_path, const std::string& fragment_path,
              const std::vector<std::string>& attributes, const std::vector<std::string>& uniforms);
  bool ok() const { return id_ != 0; }
  GLuint id() const { return id_; }
  GLint Uniform(const char* name) const { return glGetUniformLocation(id_, name); }
  GLint Attribute(const char* name) const { return glGetAttribLocation(id_, name); }

 private:
  GLuint id_ = 0;
};

}  // namespace attnviz::gl
