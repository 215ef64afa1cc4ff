// The reads a PanelContext makes of its own parts (and the App of the same parts).
#include "panel_context.h"

#include <algorithm>

#include "app.h"  // FormatNumber
#include "fonts.h"
#include "i18n/localized.h"

namespace attnviz {

std::vector<int> VisibleHeads(const AppSettings& settings, const AppResults& results) {
  std::vector<int> heads;
  int n_head = results.shown && results.shown->maps ? results.shown->maps->n_head() : 0;
  for (int h = 0; h < n_head; ++h)
    if (settings.head_visible(h)) heads.push_back(h);
  return heads;
}

bool ScalingActs(const AppSettings& settings) {
  return settings.source == Source::kModel || settings.config.score == ScoreKind::kScaledDot;
}

int QueryKeyWidth(const AppSettings& settings, const AppResults& results) {
  if (const int width = QueryKeyWidth(settings.config); width > 0) return width;
  // one-hot: as wide as the vocabulary, which only the run knows
  const Shown* shown = results.shown.get();
  const AttentionTensors* numbers = shown ? shown->sandbox_numbers() : nullptr;
  return numbers && numbers->q ? (int)numbers->q->dim(2) : 0;
}

bool HeadAblated(const PanelViews& views, int layer, int head) {
  const std::vector<model::AblatedHead>& a = views.model.ablated;
  return std::find(a.begin(), a.end(), model::AblatedHead{layer, head}) != a.end();
}

std::string HeadRoleLine(const AppResults& results, int layer, int head) {
  if (!results.model || !results.model->status.ok()) return "";
  const model::HeadRoles& roles = results.model->roles;
  if (layer < 0 || head < 0 || layer >= roles.n_layer || head >= roles.n_head) return "";
  const model::RoleScore best = model::StrongestRole(roles.at(layer, head));
  std::string score = FormatNumber(best.score, "%.2f");
  // Beside the score, what uniform attention would score on this text: a high "previous-token" on 4 tokens is
  // mostly chance. Broad has none (uniform attention is the broadest there is).
  if ((size_t)layer < roles.chance.size() && best.role != model::HeadRole::kBroad)
    score += " " + Trf(Str::kHeadRoleChance, {FormatNumber(roles.chance[(size_t)layer][best.role], "%.2f")});
  return Trf(Str::kHeadRoleLine, {std::to_string(layer), std::to_string(head), LocalizedRoleName(best.role), score,
                                  LocalizedRoleSentence(best.role)});
}

std::vector<int> PanelContext::VisibleHeads() const { return attnviz::VisibleHeads(settings, results); }
bool PanelContext::ScalingActs() const { return attnviz::ScalingActs(settings); }
int PanelContext::QueryKeyWidth() const { return attnviz::QueryKeyWidth(settings, results); }
bool PanelContext::HeadAblated(int layer, int head) const { return attnviz::HeadAblated(views, layer, head); }
std::string PanelContext::HeadRoleLine(int layer, int head) const {
  return attnviz::HeadRoleLine(results, layer, head);
}
void PanelContext::NeedGlyphs(const std::string& utf8) const {
  if (fonts) fonts->AddText(utf8);
}

}  // namespace attnviz
