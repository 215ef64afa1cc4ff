// The reads a SandboxPanelContext makes of its own parts.
#include "sandbox_panel_context.h"

#include "session/sandbox_session.h"

namespace attnviz {

int SandboxPanelContext::QueryKeyWidth() const {
  if (const int width = attnviz::QueryKeyWidth(settings.config); width > 0) return width;
  // one-hot: as wide as the vocabulary, which only the run knows
  return shown.sandbox && shown.sandbox->numbers->q ? (int)shown.sandbox->numbers->q->dim(2) : 0;
}

}  // namespace attnviz
