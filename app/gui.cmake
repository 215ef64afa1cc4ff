# The desktop app `attnviz`: GLFW window, OpenGL 3.3 core through glad, Dear ImGui (libimgui-dev 1.86).
# Included by app/CMakeLists.txt when present.
#
#   attnviz_app_lib  panels, view state, worker, widget dump, fonts: ImGui only, never GL
#                    (the no-GL panel test links it with a fake heatmap renderer)
#   attnviz          main.cpp + platform.* + gl/* (the only files that touch GL/GLFW)
find_package(glfw3 3.3 REQUIRED)                          # target: glfw
find_package(Threads REQUIRED)
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)   # libimgui.a (+ backends); Requires: stb
pkg_check_modules(STB   REQUIRED IMPORTED_TARGET stb)
find_program(GLAD_EXECUTABLE glad REQUIRED)

# glad: generated at build time from the spec files glad ships (--reproducible: no network).
set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
add_custom_command(
  OUTPUT  ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/include/glad/gl.h ${GLAD_OUT}/include/KHR/khrplatform.h
  COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api gl:core=3.3 --extensions= --out-path ${GLAD_OUT} c
  VERBATIM)
add_library(glad STATIC ${GLAD_OUT}/src/gl.c)
target_include_directories(glad PUBLIC ${GLAD_OUT}/include)
target_link_libraries(glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(glad PROPERTIES POSITION_INDEPENDENT_CODE ON)

set(ATTNVIZ_APP_DIR ${CMAKE_CURRENT_SOURCE_DIR})
add_library(attnviz_app_lib STATIC
  ${ATTNVIZ_APP_DIR}/app.cpp
  ${ATTNVIZ_APP_DIR}/fonts.cpp
  ${ATTNVIZ_APP_DIR}/state.cpp
  ${ATTNVIZ_APP_DIR}/worker.cpp
  ${ATTNVIZ_APP_DIR}/widgets_dump.cpp
  ${ATTNVIZ_APP_DIR}/panel_sentences.cpp
  ${ATTNVIZ_APP_DIR}/panel_controls.cpp
  ${ATTNVIZ_APP_DIR}/panel_heads.cpp
  ${ATTNVIZ_APP_DIR}/panel_saturation.cpp
  ${ATTNVIZ_APP_DIR}/panel_shapes.cpp
  ${ATTNVIZ_APP_DIR}/panel_export.cpp)
target_include_directories(attnviz_app_lib PUBLIC ${ATTNVIZ_APP_DIR})
target_link_libraries(attnviz_app_lib PUBLIC attnviz_cli_lib attnviz_core PkgConfig::IMGUI PkgConfig::STB Threads::Threads)
if(TARGET attnviz_figure)
  target_link_libraries(attnviz_app_lib PUBLIC attnviz_figure)
  target_compile_definitions(attnviz_app_lib PUBLIC ATTNVIZ_HAVE_FIGURE=1)
endif()

add_executable(attnviz
  ${ATTNVIZ_APP_DIR}/main.cpp
  ${ATTNVIZ_APP_DIR}/platform.cpp
  ${ATTNVIZ_APP_DIR}/gl/texture.cpp
  ${ATTNVIZ_APP_DIR}/gl/shader_program.cpp
  ${ATTNVIZ_APP_DIR}/gl/heatmap_renderer.cpp)
target_link_libraries(attnviz PRIVATE attnviz_app_lib glad glfw)
# Where to look for shaders/ when --shader-dir is not given and nothing sits next to the executable.
target_compile_definitions(attnviz PRIVATE ATTNVIZ_SOURCE_SHADER_DIR="${ATTNVIZ_SOURCE_DIR}/shaders")
# `make run` starts ./build/attnviz.
set_target_properties(attnviz PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
